#!/usr/bin/env bash
# Builds tools/catalogd-walk/main.go (oracle for catalogd's /api/v1/all) inside an opm v1.32.0 source tree.
#
#   tools/catalogd-walk/build.sh --tree SRC [OUT]      SRC: an assembled opm source tree (v1.32.0 sources on
#                                                      v1.26.5's vendor/, as ../shared/peers/opm/build.sh makes)
#   tools/catalogd-walk/build.sh --mirror GIT [OUT]    assembles that tree first, the way the peers' build.sh
#                                                      does, in $CW_SRC (default /tmp/catalogd-walk-src; wiped)
# GIT: a clone of operator-framework/operator-registry with tags (`fetch github:operator-framework/operator-registry`).
# OUT defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalogd-walk. Offline: -mod=vendor, GOPROXY=off,
# Go 1.19 (GO=/path/to/go overrides), CGO off (the walk needs no SQLite). The x/text packages v1.26.5 did not vendor
# (cases, internal) are copied from Debian's golang-golang-x-text-dev 0.7.0, which must match vendor/ (v0.7.0).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 2 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mode=$1 arg=$2 out=${3:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalogd-walk}
GO=${GO:-/usr/lib/go-1.19/bin/go}
if [ "$mode" = --mirror ]; then
  src=${CW_SRC:-/tmp/catalogd-walk-src}
  "$here/../opm-tree.sh" "$src" "$arg"
elif [ "$mode" = --tree ]; then src=$arg; else echo "first argument: --tree or --mirror" >&2; exit 2; fi
mkdir -p "$src/cmd/catalogd-walk" "$out"; cp "$here/main.go" "$src/cmd/catalogd-walk/main.go"
export GOFLAGS=-mod=vendor GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GO111MODULE=on CGO_ENABLED=0
export GOPATH=${GOPATH:-$src/.gopath} GOCACHE=${GOCACHE:-$out/.gocache}
(cd "$src" && "$GO" build -trimpath -buildvcs=false -o "$out/catalogd-walk" ./cmd/catalogd-walk)
echo "$out/catalogd-walk"
