#!/usr/bin/env bash
# Builds a catalog image with `fbc-registry publish` — no container engine — from a static
# build of fbc-registry, then checks it without an engine either: the binary is statically
# linked; the image holds nothing but the binary, the probe and opm links, the catalog and
# its cache; its config has the label, the non-root user and `serve /configs`; and, unpacked
# with umoci and run under chroot, the binary validates the catalog, reads the cache, and
# answers as grpc_health_probe and as opm.
# Usage: tools/build-image.sh [CATALOG_DIR] [LAYOUT_DIR[:TAG]]
#   (default: catalogs/example into target/image/layout:dev, an OCI layout; push it with
#   `fbc-registry publish CATALOG HOST/REPO:TAG --binary BINARY` instead of a layout)
# Needs: umoci (apt-get install umoci) and root for the chroot checks.
set -euo pipefail
cd "$(dirname "$0")/.."
catalog="${1:-catalogs/example}"
out="${2:-target/image/layout:dev}"
layout="${out%:*}"; tag="${out##*:}"
[ "$layout" = "$out" ] && tag=dev
target=x86_64-unknown-linux-gnu

# The image strips debug info, so it is not built (it was a tenth of this build's time).
CARGO_PROFILE_RELEASE_DEBUG=false \
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --target "$target" --bin fbc-registry
binary="${CARGO_TARGET_DIR:-target}/$target/release/fbc-registry"
if ! file "$binary" | grep -Eq "statically linked|static-pie linked"; then
  echo "$binary is not statically linked: $(file "$binary")" >&2; exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Without the debug info the release profile keeps for profiling.
strip --strip-debug -o "$work/fbc-registry" "$binary"
rm -rf "$layout"
# publish validates the catalog, builds its index cache and writes the image.
"$work/fbc-registry" publish "$catalog" "oci-layout:$layout:$tag" --binary "$work/fbc-registry"

# The config: label, user, entrypoint and command.
config=$(python3 - "$layout" <<'PY'
import json, sys, os
root = sys.argv[1]
blob = lambda d: json.load(open(os.path.join(root, "blobs", "sha256", d.split(":")[1])))
top = json.load(open(os.path.join(root, "index.json")))["manifests"][0]["digest"]
print(json.dumps(blob(blob(top)["config"]["digest"])["config"], sort_keys=True))
PY
)
for want in '"operators.operatorframework.io.index.configs.v1": "/configs"' '"User": "65532:65532"' \
            '"Entrypoint": ["/bin/fbc-registry", "serve"]' '"Cmd": ["/configs", "--cache-dir=/tmp/cache"]'; do
  case "$config" in *"$want"*) ;; *) echo "the image config lacks $want: $config" >&2; exit 1;; esac
done

# What the image holds: exactly these paths (and the catalog's and cache's files).
umoci unpack --rootless --image "$layout:$tag" "$work/bundle" >/dev/null
root="$work/bundle/rootfs"
unexpected=$(cd "$root" && find . -mindepth 1 \
  ! -path ./bin ! -path ./bin/fbc-registry ! -path ./bin/grpc_health_probe ! -path ./bin/opm \
  ! -path ./configs ! -path './configs/*' ! -path ./tmp ! -path ./tmp/cache ! -path './tmp/cache/*' | sort)
if [ -n "$unexpected" ]; then
  echo "unexpected files in the image:" >&2; echo "$unexpected" >&2; exit 1
fi
[ -L "$root/bin/grpc_health_probe" ] || { echo "grpc_health_probe is not a link" >&2; exit 1; }
[ -L "$root/bin/opm" ] || { echo "opm is not a link" >&2; exit 1; }
[ -n "$(ls -A "$root/tmp/cache")" ] || { echo "the index cache is empty" >&2; exit 1; }

# Inside the image (chroot, no engine): the catalog validates, a start reads the cache, and
# the probe link answers as grpc_health_probe (nothing listens: exit 2).
chroot "$root" /bin/fbc-registry validate /configs
chroot "$root" /bin/fbc-registry serve /configs --cache-dir=/tmp/cache --cache-only --termination-log=/dev/null
# As opm: the build step `opm generate dockerfile` writes, on this image's catalog.
chroot "$root" /bin/opm serve /configs --cache-dir=/tmp/cache --cache-only --termination-log=/dev/null
set +e
chroot "$root" /bin/grpc_health_probe -addr=:50051 -connect-timeout=500ms
code=$?
set -e
[ "$code" = 2 ] || { echo "grpc_health_probe in the image exited $code, not 2" >&2; exit 1; }
echo "image $layout:$tag: one static binary, the probe and opm links, the catalog and its cache; checks passed"
