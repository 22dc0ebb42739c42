#!/usr/bin/env bash
# Builds the olm.maxOpenShiftVersion oracles from the real Go code, offline, with Go 1.19:
#
#   maxocp-oracle-v0  OLM v0: operator-lifecycle-manager v0.25.0, pkg/controller/operators/openshift/helpers.go
#                     maxOpenShiftVersion (unchanged at HEAD 992bb097), fed through
#                     projection.PropertiesAnnotationFromPropertyList; built inside the extracted tag with its
#                     committed vendor/ tree, a 3-line glue file exposing the unexported function.
#   maxocp-oracle-v1  OLM v1 on OpenShift: openshift/cluster-olm-operator (default commit 9983877d, main, which is
#                     also release-5.0 and release-5.1): internal/versionutils/version_utils.go copied unmodified,
#                     checkIncompatibility and propertyListFromPropertiesAnnotation copied verbatim out of
#                     pkg/controller/incompatible_operator_controller.go, operator-registry's property.Property type
#                     copied verbatim out of its vendor/, blang/semver/v4 and go-logr/logr from its vendor/. The
#                     rest of the project needs Go 1.26 (its go.mod says go 1.26.3) and is not built.
#
#   tools/maxocp-oracle/build.sh [all|v0|v1]
#
# Environment:
#   OLM_MIRROR   git clone of operator-framework/operator-lifecycle-manager with tag $OLM_TAG
#                (default $MIRRORS/operator-framework+operator-lifecycle-manager/repo)
#   COO_MIRROR   git clone of openshift/cluster-olm-operator holding $COO_REV
#                (default $MIRRORS/openshift+cluster-olm-operator/repo)
#   MIRRORS      folder of the fetched mirrors (default /work/.mirror)
#   OLM_TAG      default v0.25.0;  COO_REV  default 9983877dbed43c0ae050ad4646e31b9cfbd41329
#   MAXOCP_ORACLE_OUT  output folder (default ${FBC_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers}/maxocp-oracle);
#                the binaries are $MAXOCP_ORACLE_OUT/maxocp-oracle-v0 and -v1, the assembled sources src-v0/, src-v1/
#                (wiped and re-made on each build)
#   GO           go binary (default /usr/lib/go-1.19/bin/go, else `go` on PATH)
#
# Exit codes: 0 built, 2 a prerequisite is missing (Go, a mirror, the tag or commit), 1 build failure.
# Then: tools/maxocp-oracle/record.sh (re)records tests/fixtures/maxocp-differential/cases.json.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die2() { echo "maxocp-oracle/build.sh: $*" >&2; exit 2; }
die1() { echo "maxocp-oracle/build.sh: $*" >&2; exit 1; }
say() { echo "maxocp-oracle/build.sh: $*"; }

WHAT="${1:-all}"
case "$WHAT" in
  all|v0|v1) ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0;;
  *) die2 "unknown argument $WHAT (all, v0 or v1)";;
esac

MIRRORS="${MIRRORS:-/work/.mirror}"
OLM_MIRROR="${OLM_MIRROR:-$MIRRORS/operator-framework+operator-lifecycle-manager/repo}"
COO_MIRROR="${COO_MIRROR:-$MIRRORS/openshift+cluster-olm-operator/repo}"
OLM_TAG="${OLM_TAG:-v0.25.0}"
COO_REV="${COO_REV:-9983877dbed43c0ae050ad4646e31b9cfbd41329}"
OUT_DIR="${MAXOCP_ORACLE_OUT:-${FBC_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers}/maxocp-oracle}"

# --- prerequisites ---------------------------------------------------------
if [ -z "${GO:-}" ]; then
  if [ -x /usr/lib/go-1.19/bin/go ]; then GO=/usr/lib/go-1.19/bin/go
  elif command -v go >/dev/null 2>&1; then GO="$(command -v go)"
  else die2 "Go not found: apt-get install golang-1.19-go (binaries in /usr/lib/go-1.19/bin), or set GO"
  fi
fi
"$GO" version >/dev/null 2>&1 || die2 "Go at $GO does not run"
GO_VERSION="$("$GO" version | cut -d' ' -f3)"
say "using $GO_VERSION"

need_mirror() { # VAR DIR OWNER/NAME REV
  [ -d "$2" ] && git -C "$2" rev-parse --git-dir >/dev/null 2>&1 \
    || die2 "$1=$2 is not a git repository (fetch it, e.g. \`fetch github:${3}\`, or set $1)"
  git -C "$2" rev-parse -q --verify "$4^{commit}" >/dev/null 2>&1 || die2 "$4 not found in $1=$2"
}
if [ "$WHAT" != v1 ]; then
  need_mirror OLM_MIRROR "$OLM_MIRROR" operator-framework/operator-lifecycle-manager "refs/tags/$OLM_TAG"
fi
if [ "$WHAT" != v0 ]; then
  need_mirror COO_MIRROR "$COO_MIRROR" openshift/cluster-olm-operator "$COO_REV"
fi

mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
export GOFLAGS=-mod=vendor GOPROXY=off GOSUMDB=off GONOSUMDB='*' CGO_ENABLED=0 GO111MODULE=on GOTOOLCHAIN=local

# fresh_dir DIR: empties DIR, only if this script made it (marker file) or it is empty.
fresh_dir() {
  local d="$1"
  mkdir -p "$d"
  if [ -n "$(ls -A "$d")" ] && [ ! -f "$d/.maxocp-oracle-src" ]; then
    die2 "refusing to wipe $d: not empty and not made by this script"
  fi
  find "$d" -mindepth 1 -maxdepth 1 -exec chmod -R u+w {} + 2>/dev/null || true
  find "$d" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  touch "$d/.maxocp-oracle-src"
}

# --- v0: inside operator-lifecycle-manager $OLM_TAG -------------------------
build_v0() {
  local src="$OUT_DIR/src-v0" commit
  commit="$(git -C "$OLM_MIRROR" rev-parse "refs/tags/$OLM_TAG^{commit}")"
  fresh_dir "$src"
  # As ../shared/peers/olm-oracle/build.sh does: blobs missing from the mirror (today only
  # vendor/github.com/mattn/go-sqlite3/sqlite3-binding.c) are left out; CGO is off, so they are not needed.
  local list excludes=()
  list="$(mktemp)"
  git -C "$OLM_MIRROR" -c core.quotePath=false ls-tree -r "$commit" | grep -P '^\d+ blob ' > "$list"
  while IFS= read -r p; do
    [ -n "$p" ] && excludes+=(":(exclude)$p")
  done < <(paste -d'\t' \
             <(cut -f1 "$list" | awk '{print $3}' | git -C "$OLM_MIRROR" cat-file --batch-check='%(objectname) %(objecttype)') \
             <(cut -f2- "$list") \
           | awk -F'\t' '$1 ~ / missing$/ {print $2}')
  rm -f "$list"
  [ "${#excludes[@]}" -eq 0 ] || say "blobs missing from the mirror, left out: ${excludes[*]}"
  git -C "$OLM_MIRROR" archive --format=tar "$commit" -- . "${excludes[@]}" 2> >(grep -v '^error: invalid object ' >&2) \
    | tar -x -C "$src"
  [ -f "$src/go.mod" ] && [ -d "$src/vendor" ] || die1 "extraction of $OLM_TAG incomplete"
  grep -q '^func maxOpenShiftVersion(csv \*operatorsv1alpha1.ClusterServiceVersion) (\*semver.Version, error) {$' \
    "$src/pkg/controller/operators/openshift/helpers.go" || die1 "helpers.go at $OLM_TAG has no maxOpenShiftVersion(csv) as expected"

  mkdir -p "$src/cmd/maxocp-oracle-v0"
  cp "$HERE/main.go" "$HERE/reader_v0.go" "$src/cmd/maxocp-oracle-v0/"
  cp "$HERE/zz_maxocp_oracle_glue.go" "$src/pkg/controller/operators/openshift/"

  local prov="operator-framework/operator-lifecycle-manager $OLM_TAG ($commit): pkg/controller/operators/openshift/helpers.go maxOpenShiftVersion, pkg/controller/registry/resolver/projection/properties.go PropertiesAnnotationFromPropertyList; vendored blang/semver/v4 v4.0.0; $GO_VERSION"
  (cd "$src" && "$GO" build -p "$(nproc 2>/dev/null || echo 2)" -trimpath -buildvcs=false \
     -ldflags "-X 'main.provenance=$prov'" -o "$OUT_DIR/maxocp-oracle-v0.tmp" ./cmd/maxocp-oracle-v0)
  mv -f "$OUT_DIR/maxocp-oracle-v0.tmp" "$OUT_DIR/maxocp-oracle-v0"
  say "built $OUT_DIR/maxocp-oracle-v0"
}

# --- v1: cluster-olm-operator's own code, in a small module -----------------
build_v1() {
  local src="$OUT_DIR/src-v1" commit ctl="pkg/controller/incompatible_operator_controller.go"
  local propgo="vendor/github.com/operator-framework/operator-registry/alpha/property/property.go"
  commit="$(git -C "$COO_MIRROR" rev-parse "$COO_REV^{commit}")"
  fresh_dir "$src"
  show() { git -C "$COO_MIRROR" show "$commit:$1"; }

  # The module versions cluster-olm-operator vendors, from its vendor/modules.txt.
  local modules semver_v logr_v
  modules="$(show vendor/modules.txt)"
  semver_v="$(awk '$1 == "#" && $2 == "github.com/blang/semver/v4" {print $3}' <<<"$modules")"
  logr_v="$(awk '$1 == "#" && $2 == "github.com/go-logr/logr" {print $3}' <<<"$modules")"
  [ -n "$semver_v" ] && [ -n "$logr_v" ] || die1 "blang/semver/v4 or go-logr/logr not in $commit:vendor/modules.txt"
  [ "$semver_v" = v4.0.0 ] || say "note: cluster-olm-operator vendors blang/semver/v4 $semver_v (not v4.0.0)"
  git -C "$COO_MIRROR" archive --format=tar "$commit" -- vendor/github.com/blang/semver/v4 vendor/github.com/go-logr/logr \
    | tar -x -C "$src"
  rm -rf "$src/vendor/github.com/go-logr/logr/funcr"
  # Their modules.txt entries for the two modules (header and "## explicit" line), each with its root package only.
  awk '$1 == "#" { keep = ($2 == "github.com/blang/semver/v4" || $2 == "github.com/go-logr/logr"); m = $2
                   if (keep) print; next }
       keep && /^## / { print; print m; keep = 0 }' <<<"$modules" > "$src/vendor/modules.txt"
  [ "$(grep -c '^## explicit' "$src/vendor/modules.txt")" = 2 ] || die1 "unexpected vendor/modules.txt entries at $commit"
  cat > "$src/go.mod" <<EOF
// Assembled by tools/maxocp-oracle/build.sh from openshift/cluster-olm-operator $commit:
// a few of its files, compiled with $GO_VERSION (the project itself needs go 1.26).
module github.com/openshift/cluster-olm-operator

go 1.19

require (
	github.com/blang/semver/v4 $semver_v
	github.com/go-logr/logr $logr_v
)
EOF

  # internal/versionutils: the whole file, unmodified (imports: encoding/json, fmt, regexp, strings, blang).
  mkdir -p "$src/internal/versionutils"
  show internal/versionutils/version_utils.go > "$src/internal/versionutils/version_utils.go"

  # Verbatim pieces: NAME FILE AWK-START-REGEX -> text, with the line range in a comment.
  piece() {
    show "$2" | awk -v name="$1" -v file="$2" -v start="$3" '
      !p && $0 ~ start { p = 1; first = NR }
      p { body = body $0 "\n" }
      p && /^}$/ { printf "// %s: %s lines %d-%d, verbatim\n%s", name, file, first, NR, body; found = 1; exit }
      END { if (!found) exit 1 }'
  }
  local prop_type check_fn list_fn const_line
  prop_type="$(piece "type Property" "$propgo" '^type Property struct \\{$')" || die1 "no type Property in $propgo"
  check_fn="$(piece checkIncompatibility "$ctl" '^func \\(c \\*incompatibleOperatorController\\) checkIncompatibility\\(')" \
    || die1 "no checkIncompatibility in $ctl"
  list_fn="$(piece propertyListFromPropertiesAnnotation "$ctl" '^func propertyListFromPropertiesAnnotation\\(')" \
    || die1 "no propertyListFromPropertiesAnnotation in $ctl"
  const_line="$(show "$ctl" | grep -n -E '^[[:space:]]*maxOpenShiftVersionProperty[[:space:]]*=')" \
    || die1 "no maxOpenShiftVersionProperty constant in $ctl"

  mkdir -p "$src/internal/maxocporacle/property"
  cat > "$src/internal/maxocporacle/property/property.go" <<EOF
// Code copied by tools/maxocp-oracle/build.sh from openshift/cluster-olm-operator $commit
// $propgo (operator-registry $(awk '$1 == "#" && $2 == "github.com/operator-framework/operator-registry" {print $3}' <<<"$modules")):
// the Property type only. Its package also imports Kubernetes and operator-framework/api types, which need a
// newer Go; the type itself has no methods that json uses (no UnmarshalJSON), so decoding into it is the same.
package property

import "encoding/json"

$prop_type
EOF

  mkdir -p "$src/pkg/controller"
  cat > "$src/pkg/controller/zz_extracted.go" <<EOF
// Code copied by tools/maxocp-oracle/build.sh from openshift/cluster-olm-operator $commit
// $ctl. Only the import block is written here (the same packages; property.Property is the
// verbatim copy in internal/maxocporacle/property). Everything else below is the original text.
package controller

import (
	"encoding/json"
	"fmt"

	"github.com/go-logr/logr"

	"github.com/openshift/cluster-olm-operator/internal/maxocporacle/property"
	"github.com/openshift/cluster-olm-operator/internal/versionutils"
)

// $ctl line ${const_line%%:*}, verbatim (one line of its const block)
const (
${const_line#*:}
)

$check_fn

$list_fn
EOF
  cp "$HERE/zz_maxocp_oracle_glue_v1.go" "$src/pkg/controller/"
  mkdir -p "$src/cmd/maxocp-oracle-v1"
  cp "$HERE/main.go" "$HERE/reader_v1.go" "$src/cmd/maxocp-oracle-v1/"

  local prov="openshift/cluster-olm-operator $commit: internal/versionutils/version_utils.go ToAllowedSemver (unmodified), pkg/controller/incompatible_operator_controller.go checkIncompatibility and propertyListFromPropertiesAnnotation (verbatim); blang/semver/v4 $semver_v and go-logr/logr $logr_v from its vendor/; $GO_VERSION (upstream builds with go 1.26)"
  (cd "$src" && "$GO" vet ./internal/... ./pkg/... && "$GO" build -trimpath -buildvcs=false \
     -ldflags "-X 'main.provenance=$prov'" -o "$OUT_DIR/maxocp-oracle-v1.tmp" ./cmd/maxocp-oracle-v1)
  mv -f "$OUT_DIR/maxocp-oracle-v1.tmp" "$OUT_DIR/maxocp-oracle-v1"
  say "built $OUT_DIR/maxocp-oracle-v1"
}

[ "$WHAT" = v1 ] || build_v0
[ "$WHAT" = v0 ] || build_v1

# --- smoke test --------------------------------------------------------------
smoke='{"cases":[{"id":"smoke","properties":[{"type":"olm.maxOpenShiftVersion","value":"\"4.17\""}]}]}'
for r in v0 v1; do
  [ "$WHAT" = all ] || [ "$WHAT" = "$r" ] || continue
  "$OUT_DIR/maxocp-oracle-$r" <<<"$smoke" | grep -q '"max": "4.17"' || die1 "smoke test of maxocp-oracle-$r failed"
  "$OUT_DIR/maxocp-oracle-$r" --version
done
say "smoke test ok"
