#!/usr/bin/env bash
# The reference resolver's time per resolution on the requests benches/resolve.rs
# writes (FBC_BENCH_WRITE=DIR cargo bench --bench resolve), for docs/performance.md.
# Usage: tools/resolve-bench-oracle.sh ORACLE DIR [RUNS]
# The oracle loads the catalog once, then resolves RUNS times; one resolution is
# (T(RUNS) - T(1)) / (RUNS - 1), the median of 3 such measurements.
set -euo pipefail
oracle=${1:?olm-oracle binary}; dir=${2:?directory of requests}; runs=${3:-11}
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for req in "$dir"/*.json; do
  per=$(for _ in 1 2 3; do
    one=$(ms "$oracle" resolve "$req" --runs 1)
    many=$(ms "$oracle" resolve "$req" --runs "$runs")
    echo $(( (many - one) / (runs - 1) ))
  done | median)
  echo "$(basename "$req" .json): oracle ${per} ms per resolution (load + 1 run: $(ms "$oracle" resolve "$req" --runs 1) ms)"
done
