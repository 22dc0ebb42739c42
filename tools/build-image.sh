#!/usr/bin/env bash
# Builds a catalog image (deploy/Containerfile) with buildah, from a static
# build of fbc-registry, then checks it: the binary is statically linked, the
# image holds nothing but the binary, the probe link, the catalog and its cache,
# and inside it the binary validates the catalog, reads the cache, and answers
# as grpc_health_probe and as opm.
# Usage: tools/build-image.sh [CATALOG_DIR] [TAG]
# Needs: buildah (apt-get install buildah); storage is vfs, so no privileges.
set -euo pipefail
cd "$(dirname "$0")/.."
catalog="${1:-catalogs/example}"
tag="${2:-localhost/fbc-registry-example:dev}"
target=x86_64-unknown-linux-gnu
bah() { buildah --storage-driver=vfs "$@"; }
# chroot isolation: no cgroups or user namespaces needed, so it runs inside CI sandboxes too.
export BUILDAH_ISOLATION=chroot

# The image strips debug info, so it is not built (it was a tenth of this build's time).
CARGO_PROFILE_RELEASE_DEBUG=false \
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --target "$target" --bin fbc-registry
binary="${CARGO_TARGET_DIR:-target}/$target/release/fbc-registry"
if ! file "$binary" | grep -Eq "statically linked|static-pie linked"; then
  echo "$binary is not statically linked: $(file "$binary")" >&2; exit 1
fi

context=$(mktemp -d)
container=""
cleanup() { [ -n "$container" ] && bah rm "$container" >/dev/null 2>&1; rm -rf "$context"; }
trap cleanup EXIT
mkdir -p "$context/rootfs/bin"
# Without the debug info the release profile keeps for profiling.
strip --strip-debug -o "$context/rootfs/bin/fbc-registry" "$binary"
ln -s fbc-registry "$context/rootfs/bin/grpc_health_probe"
# OLM's extractContent pods and `opm generate dockerfile` images run /bin/opm serve.
ln -s fbc-registry "$context/rootfs/bin/opm"
cp -r "$catalog" "$context/configs"
# Quiet when it works; on a catalog that does not validate, its problems (file, line, field).
if ! log=$("$binary" serve "$context/configs" --cache-dir="$context/cache" --cache-only --termination-log=/dev/null 2>&1); then
  echo "$catalog: the index cache could not be built:" >&2; echo "$log" >&2; exit 1
fi
cp deploy/Containerfile "$context/Containerfile"
bah bud --quiet -t "$tag" "$context" >/dev/null
echo "built $tag"

# What the image holds: exactly these paths (and the catalog's and cache's files).
container=$(bah from "$tag")
root=$(bah mount "$container")
unexpected=$(cd "$root" && find . -mindepth 1 \
  ! -path ./bin ! -path ./bin/fbc-registry ! -path ./bin/grpc_health_probe ! -path ./bin/opm \
  ! -path ./configs ! -path './configs/*' ! -path ./cache ! -path './cache/*' | sort)
if [ -n "$unexpected" ]; then
  echo "unexpected files in the image:" >&2; echo "$unexpected" >&2; exit 1
fi
[ -L "$root/bin/grpc_health_probe" ] || { echo "grpc_health_probe is not a link" >&2; exit 1; }
[ -L "$root/bin/opm" ] || { echo "opm is not a link" >&2; exit 1; }
[ -n "$(ls -A "$root/cache")" ] || { echo "the index cache is empty" >&2; exit 1; }
bah umount "$container" >/dev/null

# Inside the image: the catalog validates, a start reads the cache, and the
# probe link answers as grpc_health_probe (nothing listens: exit 2).
bah run "$container" -- /bin/fbc-registry validate /configs
bah run "$container" -- /bin/fbc-registry serve /configs --cache-dir=/cache --cache-only --termination-log=/dev/null
# As opm: the build step `opm generate dockerfile` writes, on this image's catalog.
bah run "$container" -- /bin/opm serve /configs --cache-dir=/cache --cache-only --termination-log=/dev/null
set +e
bah run "$container" -- /bin/grpc_health_probe -addr=:50051 -connect-timeout=500ms
code=$?
set -e
[ "$code" = 2 ] || { echo "grpc_health_probe in the image exited $code, not 2" >&2; exit 1; }
echo "image $tag: one static binary, the probe and opm links, the catalog and its cache; checks passed"
