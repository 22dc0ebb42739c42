#!/bin/bash
# `diff OLD NEW` against the cold loads of its inputs (`validate OLD`, `validate NEW`),
# interleaved, 5 rounds:
#   tools/measure-diff.sh OLD NEW > times.txt   (one "what seconds" line per run)
# Take medians per what; the ratio is diff / (validate OLD + validate NEW).
# docs/performance.md says how they were read.
set -u
B=${FBC:-target/release/fbc-registry}
old=$1 new=$2
for r in 1 2 3 4 5; do
  for what in old new diff; do
    s=$(date +%s.%N)
    case $what in
      old) $B validate "$old" >/dev/null 2>&1 ;;
      new) $B validate "$new" >/dev/null 2>&1 ;;
      diff) $B diff "$old" "$new" -o json >/dev/null 2>&1; [ $? -le 2 ] || echo FAIL diff ;;
    esac
    e=$(date +%s.%N)
    echo "$what $(echo "$e - $s" | bc)"
  done
done
