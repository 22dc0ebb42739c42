#!/usr/bin/env bash
# Takes the README's screenshot of the catalog browser: the example catalog's
# package page, served by a debug build, shot by Debian's headless Chromium.
# Usage: tools/screenshot.sh [OUT.png]   (default docs/browser.png)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/browser.png}"
cargo build -q
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
target/debug/fbc-registry serve catalogs/example -p 0 --http-addr "127.0.0.1:$port" --watch=false >/dev/null 2>&1 &
server=$!
profile=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$profile"' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --window-size=1200,940 \
  --screenshot="$out" "http://127.0.0.1:$port/packages/example-operator" >/dev/null 2>&1
echo "wrote $out"
