#!/usr/bin/env bash
# Builds tools/catalog-filter/main.go, a CLI around sherine-k/catalog-filter's mirror filter (the one oc-mirror v2
# uses), inside an opm v1.32.0 source tree, as a reference peer for fbc-registry's filter.
#
#   tools/catalog-filter/build.sh --tree SRC [OUT]     SRC: an assembled opm source tree (v1.32.0 sources on
#                                                      v1.26.5's vendor/, as ../catalogd-walk/build.sh makes)
#   tools/catalog-filter/build.sh --mirror GIT [OUT]   assembles that tree first, as catalogd-walk's build.sh
#                                                      does, in $CF_SRC (default /tmp/catalog-filter-src; wiped)
# GIT: a clone of operator-framework/operator-registry with tags. OUT defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalog-filter. CF_GIT: a clone of sherine-k/catalog-filter (default
# /work/.mirror/sherine-k+catalog-filter/repo) at CF_TAG (default v0.0.4); its packages pkg/filter and
# pkg/filter/mirror-config/v1alpha1 go to SRC/third_party/catalog-filter, rewritten for Go 1.19 by go119.py
# (beside this file: import paths, slices.*, errors.Join; the changes are listed in OUT/SOURCES).
# SEMVER_GIT: Masterminds/semver (default /work/.mirror/Masterminds+semver/repo) at v3.3.0 (catalog-filter's pin),
# vendored into SRC (go.mod require + vendor/modules.txt). The tree vendors the rest: logrus v1.8.1 (v1.9.3 pinned),
# apimachinery v0.26.1 (v0.31.1; the generic sets methods used are the same), sigs.k8s.io/yaml v1.3.0 (v1.4.0),
# and operator-registry's own alpha/declcfg is v1.32.0 (v1.47.0). Offline: -mod=vendor, GOPROXY=off, Go 1.19
# (GO=/path/to/go overrides), CGO off.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 2 ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mode=$1 arg=$2 out=${3:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalog-filter}
GO=${GO:-/usr/lib/go-1.19/bin/go}
CF_GIT=${CF_GIT:-/work/.mirror/sherine-k+catalog-filter/repo} CF_TAG=${CF_TAG:-v0.0.4}
SEMVER_GIT=${SEMVER_GIT:-/work/.mirror/Masterminds+semver/repo} SEMVER_TAG=v3.3.0
if [ "$mode" = --mirror ]; then
  src=${CF_SRC:-/tmp/catalog-filter-src}
  "$here/../opm-tree.sh" "$src" "$arg"
elif [ "$mode" = --tree ]; then src=$arg; else echo "first argument: --tree or --mirror" >&2; exit 2; fi

# Masterminds/semver v3.3.0 (plain Go 1.19 code: no rewrite needed), as an explicitly required vendored module
if ! grep -q '^# github.com/Masterminds/semver/v3 ' "$src/vendor/modules.txt"; then
  mkdir -p "$src/vendor/github.com/Masterminds/semver/v3"
  git -C "$SEMVER_GIT" archive "$SEMVER_TAG" -- '*.go' LICENSE.txt ':(exclude)*_test.go' |
    tar -x -C "$src/vendor/github.com/Masterminds/semver/v3"
  printf '\nrequire github.com/Masterminds/semver/v3 %s\n' "$SEMVER_TAG" >> "$src/go.mod"
  printf '# github.com/Masterminds/semver/v3 %s\n## explicit\ngithub.com/Masterminds/semver/v3\n' "$SEMVER_TAG" \
    >> "$src/vendor/modules.txt"
fi
# catalog-filter: the mirror filter's package and the one it imports from its own module
cf=$src/third_party/catalog-filter
rm -rf "$cf"; mkdir -p "$cf"
# (file by file: git archive would read the testdata blobs, some of which the mirror lacks)
for f in go.mod README.md $(git -C "$CF_GIT" ls-tree --name-only "$CF_TAG" pkg/filter/ pkg/filter/mirror-config/v1alpha1/ |
  grep '\.go$' | grep -v '_test\.go$'); do
  mkdir -p "$cf/$(dirname "$f")"; git -C "$CF_GIT" show "$CF_TAG:$f" > "$cf/$f"
done
mv "$cf/go.mod" "$cf/go.mod.orig" # keep it for reference, out of the way of the operator-registry module
(cd "$cf" && python3 "$here/go119.py" github.com/operator-framework/operator-registry/third_party/catalog-filter \
  pkg/filter pkg/filter/mirror-config/v1alpha1) > "$src/catalog-filter-go119-rewrites.txt"

mkdir -p "$src/cmd/catalog-filter" "$out"; cp "$here/main.go" "$src/cmd/catalog-filter/main.go"
export GOFLAGS=-mod=vendor GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GO111MODULE=on CGO_ENABLED=0
export GOPATH=${GOPATH:-$src/.gopath} GOCACHE=${GOCACHE:-$out/.gocache}
(cd "$src" && "$GO" build -trimpath -buildvcs=false -o "$out/catalog-filter" ./cmd/catalog-filter)
{
  echo "sherine-k/catalog-filter $CF_TAG $(git -C "$CF_GIT" rev-parse "$CF_TAG^{commit}") -> third_party/catalog-filter"
  echo "Masterminds/semver $SEMVER_TAG $(git -C "$SEMVER_GIT" rev-parse "$SEMVER_TAG^{commit}") -> vendor/"
  [ "$mode" = --mirror ] && echo "operator-registry v1.32.0 $(git -C "$arg" rev-parse 'v1.32.0^{commit}') (vendor/ of v1.26.5)"
  "$GO" version
  echo "Go 1.19 rewrites (file:line: old -> new):"
  sed 's/^/  /' "$src/catalog-filter-go119-rewrites.txt"
} > "$out/SOURCES"
echo "$out/catalog-filter"
