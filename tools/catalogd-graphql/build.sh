#!/usr/bin/env bash
# Builds tools/catalogd-graphql/main.go, an oracle for catalogd's `POST /catalogs/{name}/api/v1/graphql`.
#
#   tools/catalogd-graphql/build.sh [--oc GIT] [--gql GIT] [OUT]
#
# --oc   operator-framework/operator-controller git dir (default /work/.mirror/operator-framework+operator-controller/repo);
#        its OC_REV (default HEAD) supplies internal/catalogd/graphql/{graphql.go,validation.go} and
#        internal/catalogd/service/graphql_service.go, copied verbatim.
# --gql  graphql-go/graphql git dir (default /work/.mirror/graphql-go+graphql/repo); tag v0.8.1 (operator-controller's pin).
# OUT defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalogd-graphql. The module is assembled in $CG_SRC
# (default /tmp/catalogd-graphql-src; wiped) as module github.com/operator-framework/operator-controller, so the
# copied files compile unchanged (no import rewrites). Three imports are satisfied by tiny local stub modules
# through `replace`: k8s.io/klog/v2 (V().InfoS as no-ops), operator-registry's alpha/declcfg (Meta, the schema
# constants, a WalkMetasFS that is never called) and golang.org/x/sync/singleflight (Do calls fn: the oracle is
# sequential). Offline: GOPROXY=off, GOTOOLCHAIN=local, Go 1.19 (GO=/path/to/go overrides), CGO off.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
oc=/work/.mirror/operator-framework+operator-controller/repo gql=/work/.mirror/graphql-go+graphql/repo out=
while [ $# -gt 0 ]; do
  case "$1" in
    --oc) oc=$2; shift 2;;
    --gql) gql=$2; shift 2;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0;;
    -*) echo "unknown option $1" >&2; exit 2;;
    *) out=$1; shift;;
  esac
done
out=${out:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalogd-graphql}
GO=${GO:-/usr/lib/go-1.19/bin/go} OC_REV=${OC_REV:-HEAD} GQL_TAG=${GQL_TAG:-v0.8.1}
src=${CG_SRC:-/tmp/catalogd-graphql-src}; case "$src" in /|/tmp|/tmp/|"$HOME") exit 2;; esac
rm -rf "$src"; mkdir -p "$src/third_party/graphql" "$src/internal/catalogd/graphql" "$src/internal/catalogd/service" \
  "$src/cmd/catalogd-graphql" "$src/stubs/klog" "$src/stubs/operator-registry/alpha/declcfg" "$src/stubs/x-sync/singleflight" "$out"

git -C "$gql" archive "$GQL_TAG" | tar -x -C "$src/third_party/graphql"
for f in internal/catalogd/graphql/graphql.go internal/catalogd/graphql/validation.go internal/catalogd/service/graphql_service.go; do
  git -C "$oc" show "$OC_REV:$f" > "$src/$f"
done
grep -q '^	github.com/graphql-go/graphql v0.8.1$' <(git -C "$oc" show "$OC_REV:go.mod") \
  || echo "warning: $OC_REV's go.mod does not pin graphql-go v0.8.1" >&2
cp "$here/main.go" "$src/cmd/catalogd-graphql/main.go"
{ echo "operator-controller $(git -C "$oc" rev-parse "$OC_REV")"; echo "graphql-go $GQL_TAG $(git -C "$gql" rev-parse "$GQL_TAG^{commit}")"; } > "$src/SOURCES"

cat > "$src/go.mod" <<'MOD'
module github.com/operator-framework/operator-controller

go 1.19

require (
	github.com/graphql-go/graphql v0.8.1
	github.com/operator-framework/operator-registry v0.0.0-stub
	golang.org/x/sync v0.0.0-stub
	k8s.io/klog/v2 v2.0.0-stub
)

replace (
	github.com/graphql-go/graphql => ./third_party/graphql
	github.com/operator-framework/operator-registry => ./stubs/operator-registry
	golang.org/x/sync => ./stubs/x-sync
	k8s.io/klog/v2 => ./stubs/klog
)
MOD

printf 'module k8s.io/klog/v2\n\ngo 1.19\n' > "$src/stubs/klog/go.mod"
cat > "$src/stubs/klog/klog.go" <<'STUB'
// Package klog is a stub: catalogd's graphql.go only logs through V(n).InfoS.
package klog

type Level int32

type Verbose bool

func V(level Level) Verbose { return false }

func (v Verbose) InfoS(msg string, keysAndValues ...interface{}) {}
STUB

printf 'module github.com/operator-framework/operator-registry\n\ngo 1.19\n' > "$src/stubs/operator-registry/go.mod"
cat > "$src/stubs/operator-registry/alpha/declcfg/declcfg.go" <<'STUB'
// Package declcfg is a stub holding what catalogd's graphql.go uses of operator-registry v1.73.0's alpha/declcfg
// (declcfg.go: Meta, the schema constants; load.go: WalkMetasFS, only called by LoadAndSummarizeCatalogDynamic,
// which the oracle does not use).
package declcfg

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
)

const (
	SchemaPackage     = "olm.package"
	SchemaChannel     = "olm.channel"
	SchemaBundle      = "olm.bundle"
	SchemaDeprecation = "olm.deprecations"
)

type Meta struct {
	Schema  string
	Package string
	Name    string

	Blob json.RawMessage
}

type WalkMetasFSFunc func(path string, meta *Meta, err error) error

type WalkFSOption func(interface{})

func WalkMetasFS(ctx context.Context, root fs.FS, walkFn WalkMetasFSFunc, opts ...WalkFSOption) error {
	return errors.New("declcfg stub: WalkMetasFS is not available in the catalogd-graphql oracle")
}
STUB

printf 'module golang.org/x/sync\n\ngo 1.19\n' > "$src/stubs/x-sync/go.mod"
cat > "$src/stubs/x-sync/singleflight/singleflight.go" <<'STUB'
// Package singleflight is a stub: the oracle calls GetSchema from one goroutine, so Do just calls fn.
package singleflight

type Group struct{}

func (g *Group) Do(key string, fn func() (interface{}, error)) (v interface{}, err error, shared bool) {
	v, err = fn()
	return v, err, false
}
STUB

export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GO111MODULE=on CGO_ENABLED=0 GOWORK=off
export GOPATH=${GOPATH:-$src/.gopath} GOCACHE=${GOCACHE:-$out/.gocache}
(cd "$src" && "$GO" build -trimpath -buildvcs=false -o "$out/catalogd-graphql" ./cmd/catalogd-graphql)
cp "$src/SOURCES" "$out/SOURCES"
echo "$out/catalogd-graphql"
