#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/*.rs) for SECONDS each (default 60), from
# its seed corpus in fuzz/corpus/TARGET, with libFuzzer's memory and time limits.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]
#
# Stable Rust: cargo-fuzz with RUSTC_BOOTSTRAP=1 and `-s none` (no sanitizer: the
# code is safe Rust, so the findings are panics, aborts, timeouts and memory over
# the limit — what libFuzzer reports without ASan). Needs cargo-fuzz
# (`cargo install cargo-fuzz --locked`, which .ci/run does).
# The corpus grows in a scratch copy (FUZZ_WORK, default a temp dir), so the seeds in
# the repository stay small; a crash's input is kept in fuzz/artifacts/TARGET/ and
# the script exits 1 naming it. Turn each into a regression test named after it
# (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    for f in fuzz/fuzz_targets/*.rs; do TARGETS+=("$(basename "$f" .rs)"); done
fi
command -v cargo-fuzz >/dev/null || { echo "tools/fuzz.sh: cargo-fuzz is not installed (cargo install cargo-fuzz --locked)" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
# one target builds alone; several build together (cargo fuzz build takes one or all)
if [[ ${#TARGETS[@]} -eq 1 ]]; then
    (cd fuzz && cargo fuzz build -s none "${TARGETS[0]}")
else
    (cd fuzz && cargo fuzz build -s none)
fi
WORK=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/fbc-fuzz.XXXXXX")}
failed=()
for t in "${TARGETS[@]}"; do
    mkdir -p "$WORK/$t" "fuzz/artifacts/$t"
    cp -n fuzz/corpus/"$t"/* "$WORK/$t/" 2>/dev/null || true
    start=$(date +%s)
    if (cd fuzz && cargo fuzz run -s none "$t" "$WORK/$t" -- \
            -max_total_time="$SECONDS_EACH" -rss_limit_mb=1024 -timeout=10 \
            -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$WORK/$t.log" 2>&1); then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$WORK/$t.log" | grep -o '[0-9]*$' || echo '?')
        echo "ok: $t: $runs runs in $(( $(date +%s) - start )) s, corpus $(ls "$WORK/$t" | wc -l)"
    else
        echo "FOUND: $t (log: $WORK/$t.log)"
        grep -E 'panicked|ERROR: libFuzzer|Test unit written|SUMMARY' "$WORK/$t.log" | head -n 8 | sed 's/^/  /'
        failed+=("$t")
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "tools/fuzz.sh: ${#failed[@]} target(s) found something: ${failed[*]}" >&2
    exit 1
fi
