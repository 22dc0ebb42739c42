#!/usr/bin/env bash
# Measures reload latency: a file of a served catalog changes → the new snapshot
# is served. Usage: tools/reload-latency.sh CATALOG_DIR [RUNS] [DEBOUNCE]
# Copies CATALOG_DIR to a temp dir, serves it with the release binary, appends a
# comment to one file per run and times until GetPackage-visible generation
# changes (the "catalog reloaded" log line), printing each run and the median.
set -euo pipefail
src=${1:?catalog dir}; runs=${2:-7}; debounce=${3:-250ms}
bin=${FBC_REGISTRY_BIN:-target/release/fbc-registry}
work=$(mktemp -d); trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
cp -r "$src" "$work/catalog"; chmod -R u+w "$work/catalog"
file=$(find "$work/catalog" -type f ! -name .indexignore | sort | head -1)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve "$work/catalog" -p "$port" -t "$work/tl" --reload-debounce "$debounce" >"$work/log" 2>&1 & pid=$!
until grep -q "serving registry" "$work/log"; do sleep 0.05; done
times=()
for i in $(seq 1 "$runs"); do
  t0=$(date +%s%N); echo "# change $i" >>"$file"
  until [ "$(grep -c 'catalog reloaded' "$work/log")" -ge "$i" ]; do sleep 0.005; done
  t1=$(date +%s%N); ms=$(( (t1 - t0) / 1000000 )); times+=("$ms"); echo "run $i: ${ms} ms"
  sleep 0.3
done
grep 'catalog reloaded' "$work/log" | sed 's/.*load_ms=\([0-9]*\).*since_change_ms=\([0-9]*\).*/rebuild_ms=\1 since_first_event_ms=\2/'
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print "median: " a[int((NR+1)/2)] " ms (debounce '"$debounce"')"}'
