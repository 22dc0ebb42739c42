#!/usr/bin/env bash
# Cold start, warm start (index cache) and resident memory after load, median of
# RUNS runs each. Usage: tools/measure-startup.sh CATALOG_DIR [RUNS]
# "cold" = `serve --cache-only` without a cache (load + validate + index);
# "warm" = `serve --cache-only --cache-dir D` with a matching cache in D;
# "rss"  = VmRSS of a serving process once "serving registry" is logged, after a
#          cold start; "rss_warm" the same after a warm start (the cached index is
#          mapped, so only the pages a load touches are resident).
set -euo pipefail
dir=${1:?catalog dir}; runs=${2:-5}
bin=${FBC_REGISTRY_BIN:-target/release/fbc-registry}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
cold=$(for _ in $(seq "$runs"); do ms "$bin" serve "$dir" --cache-only -t "$tmp/tl"; done | median)
"$bin" serve "$dir" --cache-only --cache-dir "$tmp/cache" -t "$tmp/tl" >/dev/null 2>&1
warm=$(for _ in $(seq "$runs"); do ms "$bin" serve "$dir" --cache-only --cache-dir "$tmp/cache" -t "$tmp/tl"; done | median)
serving_rss() { # extra serve flags...
  for _ in $(seq "$runs"); do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$bin" serve "$dir" -p "$port" --watch=false -t "$tmp/tl" "$@" >"$tmp/log" 2>&1 & pid=$!
    until grep -q "serving registry" "$tmp/log"; do sleep 0.02; done; sleep 0.5
    awk '/VmRSS/ {print $2}' "/proc/$pid/status"; kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  done | median
}
rss=$(serving_rss)
rss_warm=$(serving_rss --cache-dir "$tmp/cache")
size=$(du -sk "$dir" | cut -f1)
echo "catalog=$dir size_kb=$size cold_ms=$cold warm_ms=$warm warm_over_cold=$(python3 -c "print(f'{$warm/$cold:.3f}')") rss_kb=$rss rss_over_size=$(python3 -c "print(f'{$rss/$size:.2f}')") rss_warm_kb=$rss_warm rss_warm_over_size=$(python3 -c "print(f'{$rss_warm/$size:.2f}')")"
