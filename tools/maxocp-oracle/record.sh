#!/usr/bin/env bash
# Runs the two olm.maxOpenShiftVersion oracles (tools/maxocp-oracle/build.sh builds them) on
# tools/maxocp-oracle/cases.in.json and writes their answers to tests/fixtures/maxocp-differential/cases.json.
#
#   tools/maxocp-oracle/record.sh           (re)record the fixture
#   tools/maxocp-oracle/record.sh --check   record to a temporary file and diff it with the fixture (exit 1 if they differ)
#
# MAXOCP_ORACLE_OUT: where build.sh put the binaries (default ${FBC_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers}/maxocp-oracle).
# Exit codes: 0 done (or no difference), 1 difference or failure, 2 the binaries are missing.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT_DIR="${MAXOCP_ORACLE_OUT:-${FBC_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers}/maxocp-oracle}"
FIXTURE="$ROOT/tests/fixtures/maxocp-differential/cases.json"
for r in v0 v1; do
  [ -x "$OUT_DIR/maxocp-oracle-$r" ] || { echo "record.sh: $OUT_DIR/maxocp-oracle-$r missing: run tools/maxocp-oracle/build.sh" >&2; exit 2; }
done
tmp="$(mktemp)"; trap 'rm -f "$tmp"' EXIT
"$OUT_DIR/maxocp-oracle-v0" < "$HERE/cases.in.json" | "$OUT_DIR/maxocp-oracle-v1" > "$tmp"
case "${1:-}" in
  --check) diff -u "$FIXTURE" "$tmp" && echo "record.sh: $FIXTURE is up to date";;
  "") mkdir -p "$(dirname "$FIXTURE")"; cat "$tmp" > "$FIXTURE"; echo "record.sh: wrote $FIXTURE";;
  *) echo "record.sh: unknown argument $1" >&2; exit 2;;
esac
