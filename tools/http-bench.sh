#!/usr/bin/env bash
# HTTP throughput of fbc-registry's catalogd API against nginx serving the same bytes from disk.
#
# Usage: tools/http-bench.sh CATALOG_DIR
#   env FBC_REGISTRY_BIN  binary (default target/release/fbc-registry; build it with `cargo build --release`)
#       OUT               results directory (default /tmp/http-bench-results); raw wrk outputs go to
#                         OUT/<catalog>/, the tables of every catalog benchmarked so far to OUT/summary.md
#       CONNS             wrk connection counts (default "16 64")
#       RUNS              runs per server and point, the median is reported (default 3)
#       DURATION          wrk -d (default 10s); BIG_DURATION (default 5s) for bodies over 4 MiB,
#                         which are bandwidth-bound (seconds only: 10s, not 1m)
#       WRK_TIMEOUT       wrk --timeout (default 10s; wrk's own 2s counts 64 clients sharing a 27 MB body as
#                         errors)
#       PACKAGE           package for /metas?package= (default: the package of median size)
#       SCENARIOS         subset, space-separated (default: all of them, see `scenarios` below)
#       UNPINNED          1 (default) also runs an fbc-registry that is not pinned, labelled as such; 0 skips it
#       GZ_SOURCE         fbc (default): nginx's .gz files are fbc-registry's own gzip answers, so both send
#                         identical bytes; gzip6: `gzip -6 -k` of the identity files (what a static site
#                         would do; the /metas gzip bodies then differ in size, see the MiB/s column)
#       MAX_FOREIGN       share of a core that other processes may use during a run before it is retried
#                         (default 0.10): before each retry (RETRIES, default 3) the script waits until
#                         other processes stay under that share for QUIET_SECS (default 5) seconds, at
#                         most QUIET_WAIT (default 900) seconds; a run still disturbed is kept and
#                         marked `!` in the tables
#   needs nginx, wrk, curl, gzip, taskset, python3 (apt-get install -y nginx-light wrk curl gzip util-linux python3)
#
# What is compared. fbc-registry serves `GET /catalogs/NAME/api/v1/all` and `/metas?...` from bytes it
# prepares in memory once per snapshot. nginx gets those very bytes, fetched from fbc-registry with curl
# and written to files (identity, and `.gz` beside each for `gzip_static on`), and serves them with
# sendfile: the fastest a static server does on this machine. Every body nginx sends is checked to
# equal fbc-registry's before timing. nginx's config is the stock fast path: one worker, sendfile,
# tcp_nopush, gzip_static, etag, access_log off, keepalive_requests 100000.
#
# Fairness. Each server is pinned to one core (`taskset -c 0`): nginx has one worker, and fbc-registry's
# tokio runtime sizes itself from the CPUs it may use, so pinned it runs one worker thread. wrk runs on
# the other core (`taskset -c 1 wrk -t1`), so client and server never share a core. A second
# fbc-registry, unpinned, is measured too and labelled "unpinned": it may use both cores, one of which
# wrk also uses, so it is not a like-for-like figure. Servers are interleaved (A B C A B C ...) after a
# 1 s warm-up each, RUNS runs each, and the run of median req/s is reported (its MiB/s and latencies
# with it). A run during which processes outside this script used more than MAX_FOREIGN of a core
# (counted from /proc: user+system time of every other process and of children they reaped) is
# retried. Loopback and two cores: for large bodies wrk's single thread (reading, not parsing) can be
# the bottleneck of both servers; the ratio then approaches 1 whatever the servers do. To tell which
# side bounds a run, each run also records the share of a core the server's processes and wrk used
# (`cpu server/wrk` in the log, `server / wrk core` in the tables): a server near 1.00 is the limit,
# a wrk near 1.00 with the server below it means the figure is the client's ceiling, not the server's.
set -euo pipefail

catalog=${1:?usage: tools/http-bench.sh CATALOG_DIR}
catalog=$(cd "$catalog" && pwd)
bin=${FBC_REGISTRY_BIN:-target/release/fbc-registry}
out=${OUT:-/tmp/http-bench-results}
conns=${CONNS:-"16 64"}
runs=${RUNS:-3}
duration=${DURATION:-10s}
big_duration=${BIG_DURATION:-5s}
wrk_timeout=${WRK_TIMEOUT:-10s}
unpinned=${UNPINNED:-1}
gz_source=${GZ_SOURCE:-fbc}
max_foreign=${MAX_FOREIGN:-0.10}
retries=${RETRIES:-3}
quiet_secs=${QUIET_SECS:-5}
quiet_wait=${QUIET_WAIT:-900}
server_cpu=0
client_cpu=1

missing=()
for tool in nginx wrk curl gzip taskset python3; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "missing: ${missing[*]}; install with: apt-get install -y nginx-light wrk curl gzip util-linux python3" >&2
  exit 2
fi
[ -x "$bin" ] || { echo "no fbc-registry binary at $bin (set FBC_REGISTRY_BIN, or cargo build --release)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cpus=$(getconf _NPROCESSORS_ONLN)
[ "$cpus" -ge 2 ] || { echo "needs 2 CPUs (server and wrk on separate cores)" >&2; exit 2; }
case $gz_source in fbc|gzip6) ;; *) echo "GZ_SOURCE is fbc or gzip6" >&2; exit 2 ;; esac

cat_id=$(basename "$catalog")
name=$(echo "$cat_id" | tr 'A-Z_' 'a-z-')
res="$out/$cat_id"
mkdir -p "$res"
rm -f "$res"/*.txt "$res/results.tsv"
tmp=$(mktemp -d /tmp/http-bench.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- helpers (python: /proc accounting, wrk parsing, tables) ---
cat >"$tmp/hb.py" <<'PY'
import json, os, re, sys, statistics, glob

def ticks_snapshot():
    """pid -> (ppid, utime+stime+cutime+cstime) of every process."""
    snap = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open(f'/proc/{d}/stat') as f:
                s = f.read()
        except OSError:
            continue
        rest = s[s.rindex(')') + 2:].split()
        snap[int(d)] = (int(rest[1]), sum(int(x) for x in rest[11:15]))
    return snap

def ours(snap, root):
    """Pids descended from root (this script) or kernel threads (ppid 2)."""
    mine = set()
    for pid in snap:
        p, seen = pid, 0
        while p > 1 and seen < 64:
            if p == root or p == 2:
                mine.add(pid)
                break
            p = snap.get(p, (0, 0))[0]
            seen += 1
    return mine

def cmd_snap(path):
    with open(path, 'w') as f:
        json.dump(ticks_snapshot(), f)

def cmd_foreign(before_path, root, seconds):
    """Share of one core used by other processes since the snapshot."""
    before = {int(k): v for k, v in json.load(open(before_path)).items()}
    after = ticks_snapshot()
    mine = ours({**before, **after}, int(root))
    hz = os.sysconf('SC_CLK_TCK')
    used = 0
    for pid, (_, t) in after.items():
        if pid in mine:
            continue
        used += max(0, t - before.get(pid, (0, 0))[1])
    print(f'{used / hz / float(seconds):.3f}')

def cmd_ticks(root):
    """CPU ticks used so far by root and its live descendants (and children they reaped)."""
    snap = ticks_snapshot()
    root, total = int(root), 0
    for pid, (_, t) in snap.items():
        p, seen = pid, 0
        while p > 1 and seen < 64:
            if p == root:
                total += t
                break
            p, seen = snap.get(p, (1, 0))[0], seen + 1
    print(total)

def cmd_share(before, after, seconds):
    """Ticks as a share of one core over seconds."""
    print(f'{(int(after) - int(before)) / os.sysconf("SC_CLK_TCK") / float(seconds):.2f}')

def cmd_run(out_path, *argv):
    """Runs argv with its output to out_path; prints the share of a core it used and its wall time."""
    import resource, subprocess, time
    started = time.monotonic()
    with open(out_path, 'w') as out:
        subprocess.run(list(argv), stdout=out, stderr=subprocess.STDOUT)
    wall = time.monotonic() - started
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f'{(used.ru_utime + used.ru_stime) / wall:.2f} {wall:.3f}')

UNIT = {'us': 1e-3, 'ms': 1.0, 's': 1e3, 'm': 60e3}
BYTES = {'B': 1, 'KB': 1024, 'MB': 1024**2, 'GB': 1024**3, 'TB': 1024**4}

def parse_wrk(path):
    text = open(path).read()
    def lat(p):
        m = re.search(rf'^\s+{p}%\s+([\d.]+)(us|ms|s|m)\s*$', text, re.M)
        return float(m.group(1)) * UNIT[m.group(2)] if m else float('nan')
    rps = float(re.search(r'Requests/sec:\s+([\d.]+)', text).group(1))
    m = re.search(r'Transfer/sec:\s+([\d.]+)(B|KB|MB|GB|TB)', text)
    mib = float(m.group(1)) * BYTES[m.group(2)] / 1024**2
    errors = 0
    for m in re.finditer(r'Non-2xx or 3xx responses:\s+(\d+)', text):
        errors += int(m.group(1))
    m = re.search(r'Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)', text)
    if m:
        errors += sum(int(x) for x in m.groups())
    return rps, mib, lat(50), lat(99), errors

def cmd_parse(path):
    print('\t'.join(f'{x:.3f}' if isinstance(x, float) else str(x) for x in parse_wrk(path)))

def cmd_package(path):
    """The package whose metas make up the median number of bytes."""
    sizes = {}
    for line in open(path, 'rb'):
        meta = json.loads(line)
        pkg = meta.get('package') or (meta.get('name') if meta.get('schema') == 'olm.package' else None)
        if pkg:
            sizes[pkg] = sizes.get(pkg, 0) + len(line)
    ordered = sorted(sizes, key=lambda p: (sizes[p], p))
    print(ordered[len(ordered) // 2])

SERVERS = ['nginx', 'fbc-registry', 'fbc-registry-unpinned']
LABEL = {'nginx': 'nginx (1 worker, core 0)', 'fbc-registry': 'fbc-registry (core 0)',
         'fbc-registry-unpinned': 'fbc-registry unpinned (2 cores, shares core 1 with wrk)'}

def cmd_summary(out):
    lines = ['# fbc-registry vs nginx: catalogd HTTP API', '']
    overview = ['## Overview: req/s of fbc-registry ÷ nginx (median runs)', '',
                '| catalog | scenario | conns | pinned ÷ nginx | unpinned ÷ nginx |', '|---|---|---:|---:|---:|']
    detail = []
    for tsv in sorted(glob.glob(os.path.join(out, '*', 'results.tsv'))):
        res = os.path.dirname(tsv)
        meta = json.load(open(os.path.join(res, 'meta.json')))
        rows = [l.rstrip('\n').split('\t') for l in open(tsv) if l.strip()]
        # catalog scenario conns server run rps mib p50 p99 errors foreign file server_cpu wrk_cpu
        scen_order = []
        for r in rows:
            if r[1] not in scen_order:
                scen_order.append(r[1])
        detail += [f"## {meta['catalog']}", '', meta['environment'], '']
        for scen in scen_order:
            info = meta['scenarios'][scen]
            detail += [f"### {meta['catalog']}: {info['title']}", '', info['what'], '',
                       '| conns | server | req/s | MiB/s | p50 ms | p99 ms | server / wrk core | req/s ÷ nginx '
                       '| runs (req/s) |',
                       '|---:|---|---:|---:|---:|---:|---:|---:|---|']
            for c in sorted({int(r[2]) for r in rows if r[1] == scen}):
                med = {}
                for srv in SERVERS:
                    rs = [r for r in rows if r[1] == scen and int(r[2]) == c and r[3] == srv]
                    if not rs:
                        continue
                    rs.sort(key=lambda r: float(r[5]))
                    pick = rs[(len(rs) - 1) // 2] if len(rs) % 2 == 0 else rs[len(rs) // 2]
                    med[srv] = (pick, rs)
                base = float(med['nginx'][0][5]) if 'nginx' in med else None
                ratios = {}
                for srv, (pick, rs) in med.items():
                    rps, mib, p50, p99 = (float(pick[i]) for i in (5, 6, 7, 8))
                    cores = f"{pick[12]} / {pick[13]}" if len(pick) > 13 else '—'
                    ratio = rps / base if base else float('nan')
                    ratios[srv] = ratio
                    marks = ' '.join(
                        f"{float(r[5]):.0f}" + ('!' if float(r[10]) > float(meta['max_foreign']) else '')
                        + (f"(E{r[9]})" if int(r[9]) else '') for r in rs)
                    detail.append(f"| {c} | {LABEL[srv]} | {rps:,.0f} | {mib:,.1f} | {p50:.2f} | {p99:.2f} | "
                                  f"{cores} | {'—' if srv == 'nginx' else f'{ratio:.2f}×'} | {marks} |")
                fmt = lambda s: f"{ratios[s]:.2f}×" if s in ratios else '—'
                overview.append(f"| {meta['catalog']} | {info['title']} | {c} | {fmt('fbc-registry')} | "
                                f"{fmt('fbc-registry-unpinned')} |")
            detail.append('')
    notes = ['', 'Columns: the run of median req/s among the runs of each server (its MiB/s and latencies '
             'with it); MiB/s is wrk\'s Transfer/sec (headers included). `!` marks a run during which other '
             'processes used more than MAX_FOREIGN of a core even after retries; `(En)` a run with n errors '
             'or non-2xx/3xx answers; `server / wrk core`: the share of one core the server\'s processes and wrk '
             'used during that run. Raw wrk outputs beside each catalog\'s results.tsv.', '']
    text = '\n'.join(lines + overview + notes + detail) + '\n'
    open(os.path.join(out, 'summary.md'), 'w').write(text)
    print(text)

def cmd_meta(path, catalog, max_foreign, scenarios_tsv):
    scenarios = {}
    for line in open(scenarios_tsv):
        sid, title, what = line.rstrip('\n').split('\t')
        scenarios[sid] = {'title': title, 'what': what}
    json.dump({'catalog': catalog, 'max_foreign': max_foreign, 'environment': os.environ['ENVIRONMENT'],
               'scenarios': scenarios}, open(path, 'w'), indent=1)

if __name__ == '__main__':
    cmd = sys.argv[1]
    {'snap': cmd_snap, 'foreign': cmd_foreign, 'parse': cmd_parse, 'package': cmd_package,
     'summary': cmd_summary, 'meta': cmd_meta, 'ticks': cmd_ticks, 'share': cmd_share,
     'run': cmd_run}[cmd](*sys.argv[2:])
PY
hb() { python3 "$tmp/hb.py" "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# --- fbc-registry: pinned, and unpinned ---
declare -A port
declare -A spid # server label -> pid (its processes are it and its descendants)
start_fbc() { # label cpulist: sets port[label] (runs in this shell, so the server stays its child)
  local label=$1 cpulist=$2 grpc waited=0
  port[$label]=$(free_port); grpc=$(free_port)
  taskset -c "$cpulist" "$bin" serve "$catalog" -p "$grpc" --watch=false -t "$tmp/termination-$label" \
    --http-addr "127.0.0.1:${port[$label]}" --catalog-name "$name" >"$res/$label.log" 2>&1 &
  pids+=("$!")
  spid[$label]=$!
  until grep -q "HTTP view ready" "$res/$label.log"; do
    sleep 0.1; waited=$((waited + 1))
    if [ "$waited" -gt 1200 ] || ! kill -0 "${pids[-1]}" 2>/dev/null; then
      echo "fbc-registry ($label) did not start:" >&2; cat "$res/$label.log" >&2; exit 1
    fi
  done
}
start_fbc fbc-registry "$server_cpu"
servers=(nginx fbc-registry)
if [ "$unpinned" = 1 ]; then
  start_fbc fbc-registry-unpinned "0-$((cpus - 1))"
  servers+=(fbc-registry-unpinned)
fi
fbc_threads=$(ls "/proc/${pids[0]}/task" | wc -l)

# --- nginx's files, from fbc-registry's answers ---
api=/catalogs/$name/api/v1
fbc=http://127.0.0.1:${port[fbc-registry]}
root=$tmp/root
mkdir -p "$root/metas" "$tmp/nginx-tmp"
curl -fsS "$fbc$api/all" -o "$root/catalog.jsonl"
if [ "$gz_source" = fbc ]; then
  curl -fsS -H 'Accept-Encoding: gzip' "$fbc$api/all" -o "$root/catalog.jsonl.gz"
else
  gzip -6 -k "$root/catalog.jsonl"
fi
package=${PACKAGE:-$(hb package "$root/catalog.jsonl")}
metas_file() { # schema package name -> file name nginx maps the query to
  echo "schema=$1,package=$2,name=$3"
}
for q in "schema=olm.package" "package=$package"; do
  s=; p=; n=
  case $q in schema=*) s=${q#schema=} ;; package=*) p=${q#package=} ;; esac
  f="$root/metas/$(metas_file "$s" "$p" "$n")"
  curl -fsS "$fbc$api/metas?$q" -o "$f"
  if [ "$gz_source" = fbc ]; then
    curl -fsS -H 'Accept-Encoding: gzip' "$fbc$api/metas?$q" -o "$f.gz"
  else
    gzip -6 -k "$f"
  fi
done
nport=$(free_port)
port[nginx]=$nport
cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log warn;
events { worker_connections 4096; }
http {
  types {}
  default_type application/jsonl;
  access_log off;
  sendfile on;
  tcp_nopush on;
  gzip_static on;
  etag on;
  keepalive_requests 100000;
  client_body_temp_path $tmp/nginx-tmp/body;
  proxy_temp_path $tmp/nginx-tmp/proxy;
  fastcgi_temp_path $tmp/nginx-tmp/fastcgi;
  uwsgi_temp_path $tmp/nginx-tmp/uwsgi;
  scgi_temp_path $tmp/nginx-tmp/scgi;
  server {
    listen 127.0.0.1:$nport;
    root $root;
    location = $api/all { try_files /catalog.jsonl =404; }
    location = $api/metas {
      try_files "/metas/schema=\${arg_schema},package=\${arg_package},name=\${arg_name}" =404;
    }
  }
}
EOF
cp "$tmp/nginx.conf" "$res/nginx.conf"
taskset -c "$server_cpu" nginx -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/nginx-error.log" &
pids+=("$!")
spid[nginx]=$!
for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$nport$api/all" 2>/dev/null && break; sleep 0.1; done

# --- scenarios: id -> path, header, title ---
etag_of() { # server -> the ETag of its identity /all
  curl -fsS -D - -o /dev/null "http://127.0.0.1:${port[$1]}$api/all" | tr -d '\r' | awk 'tolower($1)=="etag:" {print $2}'
}
declare -A path header title what size
add() { path[$1]=$2; header[$1]=$3; title[$1]=$4; what[$1]=$5; }
all_bytes=$(stat -c %s "$root/catalog.jsonl"); all_gz=$(stat -c %s "$root/catalog.jsonl.gz")
pkg_file="$root/metas/$(metas_file "" "$package" "")"; sch_file="$root/metas/$(metas_file olm.package "" "")"
add all-identity "$api/all" "" "/all identity" "Whole catalog, $all_bytes bytes."
add all-gzip "$api/all" "Accept-Encoding: gzip" "/all gzip" "Whole catalog gzipped, $all_gz bytes."
add metas-package-identity "$api/metas?package=$package" "" "/metas?package=$package identity" \
  "$(stat -c %s "$pkg_file") bytes."
add metas-package-gzip "$api/metas?package=$package" "Accept-Encoding: gzip" "/metas?package=$package gzip" \
  "$(stat -c %s "$pkg_file.gz") bytes (fbc-registry: stitched per-meta segments, made per request from slices, CRC-32 computed per request)."
add metas-schema-identity "$api/metas?schema=olm.package" "" "/metas?schema=olm.package identity" \
  "$(stat -c %s "$sch_file") bytes."
add metas-schema-gzip "$api/metas?schema=olm.package" "Accept-Encoding: gzip" "/metas?schema=olm.package gzip" \
  "$(stat -c %s "$sch_file.gz") bytes."
add all-304 "$api/all" "If-None-Match: ETAG" "/all 304 (If-None-Match)" \
  "Revalidation with each server's own identity ETag: no body."
scenarios=(${SCENARIOS:-all-identity all-gzip metas-package-identity metas-package-gzip metas-schema-identity metas-schema-gzip all-304})

# --- every server sends the same bytes (and the 304) before anything is timed ---
for sc in "${scenarios[@]}"; do
  [ -n "${path[$sc]:-}" ] || { echo "unknown scenario $sc" >&2; exit 2; }
  for srv in "${servers[@]}"; do
    h=${header[$sc]}
    [ "$sc" = all-304 ] && h="If-None-Match: $(etag_of "$srv")"
    code=$(curl -sS -o "$tmp/body" -w '%{http_code}' ${h:+-H "$h"} "http://127.0.0.1:${port[$srv]}${path[$sc]}")
    if [ "$sc" = all-304 ]; then
      [ "$code" = 304 ] || { echo "$srv answers $code, not 304, to $sc" >&2; exit 1; }
      continue
    fi
    [ "$code" = 200 ] || { echo "$srv answers $code to $sc" >&2; exit 1; }
    curl -sS -o "$tmp/expected" ${header[$sc]:+-H "${header[$sc]}"} "$fbc${path[$sc]}"
    if ! cmp -s "$tmp/body" "$tmp/expected"; then
      if [ "$gz_source" = gzip6 ] && [ -n "${header[$sc]}" ] &&
        cmp -s <(gzip -dc "$tmp/body") <(gzip -dc "$tmp/expected"); then
        continue
      fi
      echo "$srv sends other bytes than fbc-registry for $sc" >&2; exit 1
    fi
  done
done

for sc in "${scenarios[@]}"; do printf '%s\t%s\t%s\n' "$sc" "${title[$sc]}" "${what[$sc]}"; done >"$tmp/scenarios.tsv"
ENVIRONMENT="Catalog \`$catalog\` ($all_bytes bytes of JSON Lines, gzip $all_gz). fbc-registry \`$bin\` \
($("$bin" --version 2>/dev/null | head -1), $fbc_threads OS threads when pinned: main, one tokio worker, blocking pool); $(nginx -v 2>&1 | sed 's/^nginx version: //'); \
wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'); $cpus CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')); \
kernel $(uname -r); $(date -u +%FT%TZ). wrk: \`taskset -c $client_cpu wrk -t1 -cN -d$duration --timeout $wrk_timeout --latency\` \
($big_duration for bodies over 4 MiB), $runs runs per server, interleaved; nginx's .gz files: $gz_source." \
  hb meta "$res/meta.json" "$cat_id" "$max_foreign" "$tmp/scenarios.tsv"

# --- the runs ---
wrk_run() { # server scenario conns dur file; sets cpu_server and cpu_wrk (shares of a core)
  local srv=$1 sc=$2 c=$3 dur=$4 file=$5 h=${header[$2]} before after wall
  [ "$sc" = all-304 ] && h="If-None-Match: ${etag[$srv]}"
  before=$(hb ticks "${spid[$srv]}")
  read -r cpu_wrk wall < <(hb run "$file" taskset -c "$client_cpu" wrk -t1 -c"$c" -d"$dur" --timeout "$wrk_timeout" \
    --latency ${h:+-H "$h"} "http://127.0.0.1:${port[$srv]}${path[$sc]}")
  after=$(hb ticks "${spid[$srv]}")
  cpu_server=$(hb share "$before" "$after" "$wall")
}
wait_quiet() { # until other processes use less than MAX_FOREIGN of a core over QUIET_SECS, or QUIET_WAIT passes
  local waited=0 f
  while [ "$waited" -lt "$quiet_wait" ]; do
    hb snap "$tmp/quiet.json"; sleep "$quiet_secs"; waited=$((waited + quiet_secs))
    f=$(hb foreign "$tmp/quiet.json" "$$" "$quiet_secs")
    python3 -c "import sys; sys.exit(0 if float('$f') <= float('$max_foreign') else 1)" && return 0
  done
  echo "  still busy after ${quiet_wait}s (other processes: $f of a core); going on" >&2
}
declare -A etag
for srv in "${servers[@]}"; do etag[$srv]=$(etag_of "$srv"); done
echo "catalog $cat_id: servers ${servers[*]}; scenarios ${scenarios[*]}; package $package; results in $res"
for sc in "${scenarios[@]}"; do
  dur=$duration
  case $sc in
    all-identity) [ "$all_bytes" -gt 4194304 ] && dur=$big_duration ;;
    all-gzip) [ "$all_gz" -gt 4194304 ] && dur=$big_duration ;;
  esac
  secs=${dur%s}
  for c in $conns; do
    for srv in "${servers[@]}"; do wrk_run "$srv" "$sc" "$c" 1s /dev/null; done
    for r in $(seq "$runs"); do
      for srv in "${servers[@]}"; do
        file="$res/$sc-c$c-$srv-r$r.txt"
        for attempt in $(seq 0 "$retries"); do
          hb snap "$tmp/snap.json"
          wrk_run "$srv" "$sc" "$c" "$dur" "$file"
          foreign=$(hb foreign "$tmp/snap.json" "$$" "$secs")
          { echo; echo "# foreign_cpu=$foreign attempt=$attempt load: $(cat /proc/loadavg)"; } >>"$file"
          python3 -c "import sys; sys.exit(0 if float('$foreign') <= float('$max_foreign') else 1)" && break
          [ "$attempt" -lt "$retries" ] || break
          echo "  $sc c=$c $srv run $r: other processes used $foreign of a core; waiting for quiet, then again" >&2
          wait_quiet
        done
        read -r rps mib p50 p99 errs < <(hb parse "$file")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cat_id" "$sc" "$c" "$srv" \
          "$r" "$rps" "$mib" "$p50" "$p99" "$errs" "$foreign" "$(basename "$file")" "$cpu_server" "$cpu_wrk" \
          >>"$res/results.tsv"
        printf '  %-24s c=%-3s %-22s run %s: %10s req/s %9s MiB/s p50 %7s ms p99 %7s ms foreign %s cpu server/wrk %s/%s\n' \
          "$sc" "$c" "$srv" "$r" "$rps" "$mib" "$p50" "$p99" "$foreign" "$cpu_server" "$cpu_wrk"
      done
    done
  done
done
hb summary "$out" >/dev/null
echo "tables: $out/summary.md"
