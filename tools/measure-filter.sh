#!/bin/bash
# `filter` against the cold load of its input (`validate`), interleaved, 5 rounds:
#   tools/measure-filter.sh CATALOG... > times.txt   (one "catalog what seconds" line per run)
# Filters: every package heads only, and every package in full (a file that lists no packages).
# Take medians per (catalog, what); docs/performance.md says how they were read.
set -u
B=${FBC:-target/release/fbc-registry}
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
printf 'apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\n' > "$cfg/heads-all.yaml"
printf 'apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\nfull: true\n' > "$cfg/full-all.yaml"
for cat in "$@"; do
  for r in 1 2 3 4 5; do
    for what in validate heads full; do
      s=$(date +%s.%N)
      if [ $what = validate ]; then $B validate $cat >/dev/null 2>&1; else $B filter $cat --config "$cfg/$what-all.yaml" >/dev/null 2>&1 || echo FAIL $what; fi
      e=$(date +%s.%N)
      echo "$cat $what $(echo "$e - $s" | bc)"
    done
  done
done
