#!/usr/bin/env bash
# Heap profile of a cold start, at rest: what the serving process holds, by the
# project's own allocating frame. Usage: tools/heap-profile.sh CATALOG_DIR [extra serve flags...]
# Builds the binary with the system allocator (`--features system-allocator`, into
# target/heap-profile: heaptrack cannot see mimalloc's own heaps), starts `serve` under
# heaptrack, waits for "serving registry", kills the process (so nothing is freed at
# exit: what heaptrack reports as leaked is what was live), and prints the live heap
# by allocating site (tools/heap-agg.py) and heaptrack's peak. Needs heaptrack
# (.ci/run installs it).
set -euo pipefail
dir=${1:?catalog dir}; shift
command -v heaptrack >/dev/null || { echo "heaptrack is not installed (apt-get install heaptrack)" >&2; exit 2; }
target=${HEAP_TARGET_DIR:-target/heap-profile}
CARGO_TARGET_DIR=$target cargo build --release --features system-allocator --bin fbc-registry >&2
bin=$target/release/fbc-registry
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
heaptrack -o "$out/ht" "$bin" serve "$dir" -p "$port" --watch=false -t "$out/tl" "$@" >"$out/log" 2>&1 &
for _ in $(seq 600); do grep -q "serving registry" "$out/log" && break; sleep 0.1; done
sleep 1
pkill -KILL -f "^$bin serve" || true
wait || true
heaptrack_print -f "$out"/ht*.zst --print-peaks 0 --print-allocators 0 --print-temporary 0 \
  --print-leaks 0 -F "$out/stacks" --flamegraph-cost-type leaked | grep -E "peak heap|leaked:" || true
python3 "$(dirname "$0")/heap-agg.py" "$out/stacks" "${HEAP_FRAMES:-2}" "${HEAP_TOP:-15}"
