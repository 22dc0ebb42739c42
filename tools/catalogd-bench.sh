#!/usr/bin/env bash
# fbc-registry against catalogd's own HTTP server (tools/catalogd-server): req/s and server CPU per request.
#
# Usage: tools/catalogd-bench.sh CATALOG_DIR...
#   env FBC_REGISTRY_BIN     default target/release/fbc-registry (cargo build --release)
#       CATALOGD_SERVER_BIN  default ~/.cache/fbc-peers/catalogd-server/catalogd-server
#                            (tools/catalogd-server/build.sh)
#       CATALOGD_WALK_BIN    default ~/.cache/fbc-peers/catalogd-walk/catalogd-walk (tools/catalogd-walk/build.sh);
#                            if present, catalogd-server stores its walk of the catalog (operator-registry's own
#                            WalkMetasFS), else fbc-registry's /api/v1/all body
#       OUT                  results directory (default /tmp/catalogd-bench-results): OUT/<catalog>/ holds the
#                            raw wrk outputs, verify.md and results.tsv; OUT/summary.md the tables of every
#                            catalog benchmarked so far
#       CONNS                wrk connection counts (default "16")
#       RUNS                 runs per server and body, interleaved, the median is reported (default 3)
#       DURATION             wrk -d (default 5s); BIG_DURATION (default 3s) for bodies over 4 MiB (seconds only).
#                            A body for which either server completes under 20 requests per connection in a run
#                            (1 s warm-ups tell) is timed at one connection for up to 15 s instead: with few
#                            requests, the ones still in flight at the end (CPU spent, not counted) skew CPU/req
#       WRK_TIMEOUT          wrk --timeout (default 10s)
#       PACKAGE              package for /metas?package= (default: the package of median size)
#       SCENARIOS            subset, space-separated (default: all, see `scenarios` below); a subset replaces
#                            only its own rows of an earlier run's results
#       VERIFY_ONLY          1: only compare the two servers' answers (verify.md), no timing
#       FORCE                1: time a body even if the two servers' bodies differ (default: stop)
#       MAX_FOREIGN          share of a core other processes may use during a run before it is retried
#                            (default 0.10); before each retry (RETRIES, default 2) the script waits until
#                            other processes stay under it for QUIET_SECS (default 3) seconds, at most
#                            QUIET_WAIT (default 60) seconds; a run still disturbed is kept and marked `!`;
#                            after BUDGET seconds of this script (default 1500) disturbed runs are no longer retried
#       NICE                 nice value for both servers and wrk (default 0; e.g. -10, as root, so that a compile
#                            running beside the benchmark gets the CPU only when they leave it idle); with
#                            sched_autogroup on, this session's autogroup gets it too while the script runs
#   needs wrk, curl, gzip, taskset, python3 (apt-get install -y wrk curl gzip util-linux python3)
#
# What is compared. Both servers serve the same catalog: fbc-registry from a copy of CATALOG_DIR (the
# shared catalogs are never touched), catalogd-server from that catalog walked to JSON lines (see
# CATALOGD_WALK_BIN), which its storage.LocalDirV1.Store writes to catalog.jsonl + index.json +
# graphql-schema.json as catalogd does. Before any timing, verify.md records, for /all, a set of /metas
# queries and GraphQL queries, whether the status and the body (identity, and gzip after gunzip) are equal.
# Bodies timed: /all identity and gzip, /metas?schema=olm.package and /metas?package=P identity and gzip,
# and two GraphQL POSTs (wrk -s with a Lua script setting method, body and Content-Type).
#
# Fairness, as tools/http-bench.sh: both servers pinned to core 0 (`taskset -c 0`: catalogd-server's Go
# runtime then runs GOMAXPROCS=1, fbc-registry's tokio one worker), wrk on core 1 (`taskset -c 1 wrk -t1`).
# Both servers run all the time (the idle one uses no CPU); runs are interleaved (A B, then B A, ...),
# after a 1 s warm-up of each. CPU per request: the server process's utime+stime (/proc/PID/stat, all its
# threads) after the run minus before, over the requests wrk completed. Disturbance: the busy time of both
# CPUs (/proc/stat user+nice+system+steal) during the run, minus the server's CPU time and wrk's; a run where
# that exceeds MAX_FOREIGN of a core is retried (after waiting for quiet), then kept and marked.
set -euo pipefail

[ $# -ge 1 ] || { sed -n '2,50p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
bin=${FBC_REGISTRY_BIN:-target/release/fbc-registry}
cds=${CATALOGD_SERVER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalogd-server/catalogd-server}
walk=${CATALOGD_WALK_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/catalogd-walk/catalogd-walk}
out=${OUT:-/tmp/catalogd-bench-results}
conns=${CONNS:-16}
runs=${RUNS:-3}
duration=${DURATION:-5s}
big_duration=${BIG_DURATION:-3s}
wrk_timeout=${WRK_TIMEOUT:-10s}
verify_only=${VERIFY_ONLY:-0}
force=${FORCE:-0}
max_foreign=${MAX_FOREIGN:-0.10}
retries=${RETRIES:-2}
quiet_secs=${QUIET_SECS:-3}
quiet_wait=${QUIET_WAIT:-60}
budget=${BUDGET:-1500}
prio=${NICE:-0}
nicecmd=() # exec'ing prefix (nice, then taskset, exec the program: $! stays the program's pid)
[ "$prio" = 0 ] || nicecmd=(nice -n "$prio")
autogroup_was=
if [ "$prio" != 0 ] && [ -w /proc/self/autogroup ]; then
  # with sched_autogroup, nice only ranks tasks within their session's group: give this session's group the
  # same nice for the benchmark's duration (restored on exit)
  autogroup_was=$(sed -n 's/.* nice //p' /proc/self/autogroup)
  echo "$prio" >/proc/self/autogroup || autogroup_was=
fi
server_cpu=0
client_cpu=1

missing=()
for tool in wrk curl gzip taskset python3; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
[ "${#missing[@]}" -eq 0 ] || { echo "missing: ${missing[*]} (apt-get install -y wrk curl gzip util-linux python3)" >&2; exit 2; }
[ -x "$bin" ] || { echo "no fbc-registry binary at $bin (FBC_REGISTRY_BIN, or cargo build --release)" >&2; exit 2; }
[ -x "$cds" ] || { echo "no catalogd-server at $cds (tools/catalogd-server/build.sh)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || { echo "needs 2 CPUs" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d /tmp/catalogd-bench.XXXXXX)
pids=()
cleanup() {
  [ -z "$autogroup_was" ] || echo "$autogroup_was" >/proc/self/autogroup || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$tmp/cb.py" <<'PY'
import json, os, re, sys, glob

HZ = os.sysconf('SC_CLK_TCK')

def cpu_busy():
    """Busy ticks (user+nice+system+steal) of each CPU, from /proc/stat. irq/softirq are left out: loopback
    traffic is handled there and belongs to the run itself; steal (the hypervisor running others) is kept."""
    busy = {}
    for line in open('/proc/stat'):
        f = line.split()
        if re.fullmatch(r'cpu\d+', f[0]):
            v = [int(x) for x in f[1:]]
            busy[f[0]] = v[0] + v[1] + v[2] + (v[7] if len(v) > 7 else 0)
    return busy

def cmd_snap(path):
    json.dump(cpu_busy(), open(path, 'w'))

def cmd_foreign(before_path, server_ticks, wrk_cpu_s, seconds):
    """Share of one core used by anything but the server and wrk since the snapshot: busy time of all CPUs
    minus the server's utime+stime (ticks) and wrk's CPU seconds."""
    before = json.load(open(before_path))
    after = cpu_busy()
    busy = sum(after[c] - before.get(c, after[c]) for c in after) / HZ
    other = busy - int(server_ticks) / HZ - float(wrk_cpu_s)
    print(f'{max(0.0, other) / float(seconds):.3f}')

def cmd_run(out_path, *argv):
    """Runs argv with its output to out_path; prints the CPU seconds it used."""
    import resource, subprocess
    with open(out_path, 'w') as out:
        subprocess.run(list(argv), stdout=out, stderr=subprocess.STDOUT)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f'{used.ru_utime + used.ru_stime:.3f}')

def cmd_ticks(pid):
    """utime+stime of the process (all its threads), in ticks."""
    s = open(f'/proc/{pid}/stat').read()
    rest = s[s.rindex(')') + 2:].split()
    print(int(rest[11]) + int(rest[12]))

UNIT = {'us': 1e-3, 'ms': 1.0, 's': 1e3, 'm': 60e3}

def parse_wrk(path):
    text = open(path).read()
    rps = float(re.search(r'Requests/sec:\s+([\d.]+)', text).group(1))
    reqs = int(re.search(r'(\d+) requests in', text).group(1))
    m = re.search(r'^\s+50%\s+([\d.]+)(us|ms|s|m)\s*$', text, re.M)
    p50 = float(m.group(1)) * UNIT[m.group(2)] if m else float('nan')
    errors = sum(int(m.group(1)) for m in re.finditer(r'Non-2xx or 3xx responses:\s+(\d+)', text))
    m = re.search(r'Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)', text)
    if m:
        errors += sum(int(x) for x in m.groups())
    return rps, reqs, p50, errors

def cmd_parse(path):
    rps, reqs, p50, errors = parse_wrk(path)
    print(f'{rps:.1f}\t{reqs}\t{p50:.3f}\t{errors}')

def cmd_cpu_us(before, after, reqs):
    print(f'{(int(after) - int(before)) / HZ * 1e6 / int(reqs):.2f}' if int(reqs) else 'nan')

def cmd_heavy(conns, secs, *warmups):
    """From 1 s warm-ups at `conns` connections: if either server completed fewer than 20 × conns requests per
    run of `secs`, the requests still in flight when wrk stops (up to conns of them, their CPU counted, they
    not) would skew CPU/request: print `1 DURATION` (one connection, DURATION long enough for about 40
    requests of the slower server, between secs and 15 s); else print `conns secs`."""
    rates = [parse_wrk(w)[0] for w in warmups]
    if min(rates) * float(secs) >= 20 * int(conns):
        print(conns, secs)
        return
    slow = min(rates)  # a server busy on one core answers about as fast at 1 connection as at many
    print(1, 15 if slow <= 0 else int(min(15, max(float(secs), 40 / slow))))

def cmd_package(path):
    sizes = {}
    for line in open(path, 'rb'):
        meta = json.loads(line)
        pkg = meta.get('package') or (meta.get('name') if meta.get('schema') == 'olm.package' else None)
        if pkg:
            sizes[pkg] = sizes.get(pkg, 0) + len(line)
    ordered = sorted(sizes, key=lambda p: (sizes[p], p))
    print(ordered[len(ordered) // 2])

def cmd_first(path, schema, key):
    for line in open(path, 'rb'):
        meta = json.loads(line)
        if meta.get('schema') == schema:
            print(meta.get(key, ''))
            return
    print('')

def cmd_lua(path, body):
    body = open(body).read()
    assert ']==]' not in body
    open(path, 'w').write('wrk.method = "POST"\nwrk.body = [==[' + body + ']==]\n'
                          'wrk.headers["Content-Type"] = "application/json"\n')

def cmd_gql_unordered(a, b):
    """Exit 0 if the two GraphQL answers are equal once data.summary.schemas is sorted by name (catalogd builds
    that list by ranging over a Go map, graphql.go's summary resolver, so its order changes between requests)."""
    def canon(path):
        try:
            doc = json.load(open(path))
            doc['data']['summary']['schemas'].sort(key=lambda s: json.dumps(s, sort_keys=True))
            return json.dumps(doc, sort_keys=True)
        except Exception:
            return None
    ca, cb_ = canon(a), canon(b)
    sys.exit(0 if ca is not None and ca == cb_ else 1)

def median_pick(rs):
    rs = sorted(rs, key=lambda r: float(r['rps']))
    return rs[(len(rs) - 1) // 2]

def cmd_summary(out):
    lines = ['# fbc-registry vs catalogd (operator-controller internal/catalogd, built by tools/catalogd-server)', '',
             'req/s: the median run of each server (by req/s); CPU µs/req: the median over the runs of the server '
             'process\'s utime+stime during a run over the requests wrk completed in it. Ratios are fbc-registry ÷ catalogd: above 1 is '
             'better for fbc-registry in req/s, below 1 is better for it in CPU µs/req. Runs: req/s/µs per run, '
             '`!` a run during which other work used more than MAX_FOREIGN of a core even after retries, `(En)` n '
             'errors or non-2xx answers. Bytes: the body each server sends for that request, fbc-registry / '
             'catalogd (gzip rows: each one\'s own gzip; the identity bodies are equal, see verify.md).', '']
    for tsv in sorted(glob.glob(os.path.join(out, '*', 'results.tsv'))):
        res = os.path.dirname(tsv)
        meta = json.load(open(os.path.join(res, 'meta.json')))
        rows = [dict(zip(['catalog', 'scenario', 'conns', 'server', 'run', 'rps', 'reqs', 'p50', 'errors',
                          'foreign', 'cpu_us', 'file'], l.rstrip('\n').split('\t'))) for l in open(tsv) if l.strip()]
        lines += [f"## {meta['catalog']}", '', meta['environment'], '',
                  '| body | conns | bytes fbc / catalogd | fbc req/s | catalogd req/s | req/s ratio | fbc CPU µs/req '
                  '| catalogd CPU µs/req | CPU ratio | runs fbc (req/s, µs/req) | runs catalogd (req/s, µs/req) |',
                  '|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|']
        order = []
        for r in rows:
            if (r['scenario'], r['conns']) not in order:
                order.append((r['scenario'], r['conns']))
        for sc, c in order:
            info = meta['scenarios'][sc]
            pick, allr = {}, {}
            for srv in ('fbc-registry', 'catalogd'):
                rs = [r for r in rows if r['scenario'] == sc and r['conns'] == c and r['server'] == srv]
                if rs:
                    pick[srv], allr[srv] = median_pick(rs), rs
            if len(pick) < 2:
                continue
            f, d = pick['fbc-registry'], pick['catalogd']
            fr, dr = float(f['rps']), float(d['rps'])
            def med(xs):
                xs = sorted(x for x in xs if x == x)  # nan: nothing completed in that run
                return xs[(len(xs) - 1) // 2] if xs else float('nan')
            fc = med([float(r['cpu_us']) for r in allr['fbc-registry']])
            dc = med([float(r['cpu_us']) for r in allr['catalogd']])
            ratio = lambda a, b: f'{a / b:.2f}×' if b and a == a and b == b else '—'
            def runs(rs):
                return ' '.join(f"{float(r['rps']):.{0 if float(r['rps']) >= 100 else 1}f}/{float(r['cpu_us']):.0f}"
                                + ('!' if float(r['foreign']) > float(meta['max_foreign']) else '')
                                + (f"(E{r['errors']})" if int(r['errors']) else '') for r in rs)
            lines.append(f"| {info['title']} | {c} | {info['bytes']} | {fr:,.1f} | {dr:,.1f} | {ratio(fr, dr)} | "
                         f"{fc:,.1f} | {dc:,.1f} | {ratio(fc, dc)} | {runs(allr['fbc-registry'])} | "
                         f"{runs(allr['catalogd'])} |")
        lines.append('')
    text = '\n'.join(lines) + '\n'
    open(os.path.join(out, 'summary.md'), 'w').write(text)
    print(text)

def cmd_meta(path, catalog, max_foreign, scenarios_tsv):
    scenarios = json.load(open(path))['scenarios'] if os.path.exists(path) else {}
    for line in open(scenarios_tsv):
        sid, title, nbytes = line.rstrip('\n').split('\t')
        scenarios[sid] = {'title': title, 'bytes': nbytes}
    json.dump({'catalog': catalog, 'max_foreign': max_foreign, 'environment': os.environ['ENVIRONMENT'],
               'scenarios': scenarios}, open(path, 'w'), indent=1)

if __name__ == '__main__':
    {'snap': cmd_snap, 'foreign': cmd_foreign, 'run': cmd_run, 'ticks': cmd_ticks, 'heavy': cmd_heavy, 'parse': cmd_parse, 'cpu_us': cmd_cpu_us,
     'package': cmd_package, 'first': cmd_first, 'lua': cmd_lua, 'summary': cmd_summary,
     'meta': cmd_meta, 'gql_unordered': cmd_gql_unordered}[sys.argv[1]](*sys.argv[2:])
PY
py=$(python3 -c 'import sys; print(sys.executable)') # not a pyenv shim: each call costs less
cb() { "$py" "$tmp/cb.py" "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
le() { python3 -c "import sys; sys.exit(0 if float('$1') <= float('$2') else 1)"; }

wait_quiet() {
  local waited=0 f=0
  while [ "$waited" -lt "$quiet_wait" ]; do
    cb snap "$tmp/quiet.json"; sleep "$quiet_secs"; waited=$((waited + quiet_secs))
    f=$(cb foreign "$tmp/quiet.json" 0 0 "$quiet_secs")
    le "$f" "$max_foreign" && return 0
  done
  echo "  still busy after ${quiet_wait}s (other processes: $f of a core); going on" >&2
}

bench_catalog() {
  local catalog=$1 cat_id name res copy api
  catalog=$(cd "$catalog" && pwd)
  cat_id=$(basename "$catalog")
  name=$(echo "$cat_id" | tr 'A-Z_' 'a-z-')
  res="$out/$cat_id"
  mkdir -p "$res"; rm -f "$res/verify.md"
  if [ -n "${SCENARIOS:-}" ] && [ -f "$res/results.tsv" ]; then # a subset: replace only its rows
    local s_; for s_ in $SCENARIOS; do rm -f "$res/$s_"-c*.txt; done
    awk -F'\t' -v drop=" $SCENARIOS " 'index(drop, " " $2 " ") == 0' "$res/results.tsv" >"$res/results.tsv.new"
    mv "$res/results.tsv.new" "$res/results.tsv"
  else rm -f "$res"/*.txt "$res/results.tsv" "$res/meta.json"; fi
  copy="$tmp/$cat_id/catalog/$cat_id"; mkdir -p "$(dirname "$copy")"; cp -r "$catalog" "$copy"; chmod -R u+w "$copy"
  api=/catalogs/$name/api/v1
  declare -A port spid

  # fbc-registry
  port[fbc-registry]=$(free_port)
  local grpc; grpc=$(free_port)
  "${nicecmd[@]}" taskset -c "$server_cpu" "$bin" serve "$copy" -p "$grpc" --watch=false -t "$tmp/termination" --browser=false \
    --http-addr "127.0.0.1:${port[fbc-registry]}" --catalog-name "$name" >"$res/fbc-registry.log" 2>&1 &
  pids+=("$!"); spid[fbc-registry]=$!
  local waited=0
  until grep -q "HTTP view ready" "$res/fbc-registry.log"; do
    sleep 0.1; waited=$((waited + 1))
    if [ "$waited" -gt 1200 ] || ! kill -0 "${spid[fbc-registry]}" 2>/dev/null; then
      echo "fbc-registry did not start:" >&2; cat "$res/fbc-registry.log" >&2; exit 1
    fi
  done
  local fbc=http://127.0.0.1:${port[fbc-registry]}
  local work=$tmp/$cat_id
  curl -fsS "$fbc$api/all" -o "$work/fbc-all.jsonl"

  # catalogd-server's input: catalogd-walk's walk (independent of fbc-registry) when available
  local input=$work/fbc-all.jsonl source="fbc-registry's /api/v1/all body" walk_note="catalogd-walk not available"
  if [ -x "$walk" ]; then
    "$walk" "$copy" >"$work/walk.jsonl"
    input=$work/walk.jsonl source="catalogd-walk's walk of the catalog (operator-registry WalkMetasFS)"
    if cmp -s "$work/walk.jsonl" "$work/fbc-all.jsonl"; then walk_note="catalogd-walk output == fbc-registry /all"
    else walk_note="catalogd-walk output DIFFERS from fbc-registry /all"; fi
  fi
  port[catalogd]=$(free_port)
  "${nicecmd[@]}" taskset -c "$server_cpu" "$cds" -addr "127.0.0.1:${port[catalogd]}" -name "$name" -store "$work/store" "$input" \
    >"$res/catalogd.log" 2>&1 &
  pids+=("$!"); spid[catalogd]=$!
  waited=0
  until grep -q "catalogd-server: stored" "$res/catalogd.log"; do
    sleep 0.1; waited=$((waited + 1))
    if [ "$waited" -gt 1200 ] || ! kill -0 "${spid[catalogd]}" 2>/dev/null; then
      echo "catalogd-server did not start:" >&2; cat "$res/catalogd.log" >&2; exit 1
    fi
  done
  local cd=http://127.0.0.1:${port[catalogd]}

  # --- verification: same status and bodies (identity; gzip after gunzip) ---
  local package bundle channel
  package=${PACKAGE:-$(cb package "$work/fbc-all.jsonl")}
  bundle=$(cb first "$work/fbc-all.jsonl" olm.bundle name)
  channel=$(cb first "$work/fbc-all.jsonl" olm.channel name)
  local q1='{"query":"{ olmpackages(limit: 100) { name defaultChannel } olmchannels(limit: 100) { package name } }"}'
  local q2='{"query":"{ olmbundles(limit: 100) { name package } }"}'
  local q3='{"query":"{ summary { totalSchemas schemas { name totalObjects totalFields } } }"}'
  local q4='{"query":"{ olmbundles(limit: 3, offset: 1) { name package properties { type value } } }"}'
  local q5='{"query":"{ nosuchfield }"}'
  printf '%s' "$q1" >"$work/q1.json"; printf '%s' "$q2" >"$work/q2.json"
  local checks=(
    "GET all" "GET metas" "GET metas?schema=olm.package" "GET metas?schema=olm.channel" "GET metas?schema=olm.bundle"
    "GET metas?schema=olm.deprecations" "GET metas?package=$package" "GET metas?package=$package&schema=olm.bundle"
    "GET metas?name=$package" "GET metas?schema=olm.bundle&name=$bundle" "GET metas?schema=olm.channel&name=$channel"
    "GET metas?schema=nosuch" "GET metas?other=1" "POST graphql $q1" "POST graphql $q2" "POST graphql $q3"
    "POST graphql $q4" "POST graphql $q5" "POST graphql {}"
  )
  local bad_bodies=()
  {
    echo "# $cat_id: fbc-registry vs catalogd-server answers"
    echo
    echo "catalogd-server stored: $source. $walk_note."
    echo
    echo "| request | status fbc / catalogd | identity body | bytes | gzip: fbc / catalogd bytes sent (encoding) | gunzipped |"
    echo "|---|---|---|---:|---|---|"
  } >"$res/verify.md"
  local chk method vpath data s1 s2 idn gz e1 e2 g1 g2
  for chk in "${checks[@]}"; do
    method=${chk%% *}; vpath=${chk#* }; data=
    if [ "$method" = POST ]; then data=${vpath#graphql }; vpath=graphql; fi
    for srv in fbc-registry catalogd; do
      local base; [ "$srv" = fbc-registry ] && base=$fbc || base=$cd
      local args=(-sS -w '%{http_code}')
      [ "$method" = POST ] && args+=(-H 'Content-Type: application/json' --data-binary "$data")
      curl "${args[@]}" -o "$work/v.$srv" "$base$api/$vpath" >"$work/s.$srv"
      curl "${args[@]}" -o "$work/g.$srv" -H 'Accept-Encoding: gzip' -D "$work/h.$srv" "$base$api/$vpath" >/dev/null
      if grep -qi '^content-encoding: *gzip' "$work/h.$srv"; then gzip -dc "$work/g.$srv" >"$work/u.$srv"; echo gzip
      else cp "$work/g.$srv" "$work/u.$srv"; echo identity; fi >"$work/e.$srv"
    done
    s1=$(cat "$work/s.fbc-registry"); s2=$(cat "$work/s.catalogd")
    cmp -s "$work/v.fbc-registry" "$work/v.catalogd" && idn=equal || idn=DIFFERENT
    cmp -s "$work/u.fbc-registry" "$work/u.catalogd" && gz=equal || gz=DIFFERENT
    if [ "$method" = POST ]; then # summary.schemas: Go map order in catalogd
      [ "$idn" = equal ] || ! cb gql_unordered "$work/v.fbc-registry" "$work/v.catalogd" || idn="equal up to the order of summary.schemas"
      [ "$gz" = equal ] || ! cb gql_unordered "$work/u.fbc-registry" "$work/u.catalogd" || gz="equal up to the order of summary.schemas"
    fi
    e1=$(cat "$work/e.fbc-registry"); e2=$(cat "$work/e.catalogd")
    g1=$(stat -c %s "$work/g.fbc-registry"); g2=$(stat -c %s "$work/g.catalogd")
    local shown=$chk; [ ${#shown} -gt 90 ] && shown="${shown:0:87}..."
    echo "| \`$shown\` | $s1 / $s2 | $idn | $(stat -c %s "$work/v.fbc-registry") / $(stat -c %s "$work/v.catalogd") | $g1 ($e1) / $g2 ($e2) | $gz |" >>"$res/verify.md"
    if [ "$s1" != "$s2" ] || [ "${idn%% *}" != equal ] || [ "${gz%% *}" != equal ]; then bad_bodies+=("$chk"); fi
  done
  echo >>"$res/verify.md"
  [ "${#bad_bodies[@]}" -eq 0 ] && echo "All ${#checks[@]} requests: same status and same bodies." >>"$res/verify.md" \
    || printf 'Differences: %s\n' "${bad_bodies[*]}" >>"$res/verify.md"
  cat "$res/verify.md"
  [ "$verify_only" = 1 ] && { kill "${spid[fbc-registry]}" "${spid[catalogd]}"; wait "${spid[fbc-registry]}" "${spid[catalogd]}" 2>/dev/null || true; return; }

  # --- scenarios ---
  declare -A path header lua title

  sizes() { # path header -> "fbc-bytes / catalogd-bytes"
    local a b
    a=$(curl -sS ${2:+-H "$2"} -o /dev/null -w '%{size_download}' "$fbc$1")
    b=$(curl -sS ${2:+-H "$2"} -o /dev/null -w '%{size_download}' "$cd$1")
    echo "$a / $b"
  }
  add() { path[$1]=$2; header[$1]=$3; lua[$1]=$4; title[$1]=$5; }
  cb lua "$work/q1.lua" "$work/q1.json"; cb lua "$work/q2.lua" "$work/q2.json"
  add all-identity "$api/all" "" "" "/all identity"
  add all-gzip "$api/all" "Accept-Encoding: gzip" "" "/all gzip"
  add metas-schema-identity "$api/metas?schema=olm.package" "" "" "/metas?schema=olm.package identity"
  add metas-schema-gzip "$api/metas?schema=olm.package" "Accept-Encoding: gzip" "" "/metas?schema=olm.package gzip"
  add metas-package-identity "$api/metas?package=$package" "" "" "/metas?package=$package identity"
  add metas-package-gzip "$api/metas?package=$package" "Accept-Encoding: gzip" "" "/metas?package=$package gzip"
  add graphql-packages "$api/graphql" "" "$work/q1.lua" "GraphQL packages+channels (q1)"
  add graphql-bundles "$api/graphql" "" "$work/q2.lua" "GraphQL olmbundles(limit: 100) { name package } (q2)"
  local scenarios=(${SCENARIOS:-all-identity all-gzip metas-schema-identity metas-schema-gzip metas-package-identity metas-package-gzip graphql-packages graphql-bundles})
  local sc
  for sc in "${scenarios[@]}"; do
    [ -n "${path[$sc]:-}" ] || { echo "unknown scenario $sc" >&2; exit 2; }
    local chkkey
    case $sc in
      all-*) chkkey="GET all" ;; metas-schema-*) chkkey="GET metas?schema=olm.package" ;;
      metas-package-*) chkkey="GET metas?package=$package" ;; graphql-packages) chkkey="POST graphql $q1" ;;
      graphql-bundles) chkkey="POST graphql $q2" ;;
    esac
    for b in "${bad_bodies[@]}"; do
      if [ "$b" = "$chkkey" ] && [ "$force" != 1 ]; then
        echo "$sc: the servers' bodies differ (see $res/verify.md); FORCE=1 times it anyway" >&2; exit 1
      fi
    done
  done
  local all_bytes all_gz
  all_bytes=$(stat -c %s "$work/fbc-all.jsonl")
  all_gz=$(curl -sS -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$fbc$api/all")
  : >"$tmp/scenarios.tsv"
  for sc in "${scenarios[@]}"; do
    local sz
    if [ -n "${lua[$sc]}" ]; then
      sz="$(curl -sS -o /dev/null -w '%{size_download}' -H 'Content-Type: application/json' --data-binary @"${lua[$sc]%.lua}.json" "$fbc${path[$sc]}") (both)"
    else sz=$(sizes "${path[$sc]}" "${header[$sc]}"); fi
    printf '%s\t%s\t%s\n' "$sc" "${title[$sc]}" "$sz" >>"$tmp/scenarios.tsv"
  done
  ENVIRONMENT="Catalog \`$cat_id\` ($all_bytes bytes of JSON lines, fbc-registry gzip $all_gz). fbc-registry \
$("$bin" --version 2>/dev/null | head -1); catalogd-server $(sed -n '1p' "$(dirname "$cds")/SOURCES" 2>/dev/null) \
($(sed -n '6p' "$(dirname "$cds")/SOURCES" 2>/dev/null)), storing $source ($walk_note). wrk \
$(wrk -v 2>&1 | head -1 | awk '{print $2}'): \`taskset -c $client_cpu wrk -t1 -cN -d$duration --timeout $wrk_timeout\` \
($big_duration for bodies over 4 MiB); servers on core $server_cpu; nice $prio for servers and wrk; $runs runs each, interleaved; \
$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); kernel $(uname -r); $(date -u +%FT%TZ)." \
    cb meta "$res/meta.json" "$cat_id" "$max_foreign" "$tmp/scenarios.tsv"

  local c r srv order attempt file foreign before after rps reqs p50 errs cpu_us dur secs wrk_cpu
  echo "catalog $cat_id: package $package; results in $res"
  for sc in "${scenarios[@]}"; do
    dur=$duration
    case $sc in
      all-identity) [ "$all_bytes" -gt 4194304 ] && dur=$big_duration ;;
      all-gzip) [ "$all_gz" -gt 4194304 ] && dur=$big_duration ;;
    esac
    local base_dur=$dur
    for c in $conns; do
      dur=$base_dur; secs=${dur%s}
      local wargs=()
      for srv in fbc-registry catalogd; do
        wargs=(-t1 -c"$c" --timeout "$wrk_timeout" ${header[$sc]:+-H "${header[$sc]}"} ${lua[$sc]:+-s "${lua[$sc]}"})
        "${nicecmd[@]}" taskset -c "$client_cpu" wrk "${wargs[@]}" -d1s "http://127.0.0.1:${port[$srv]}${path[$sc]}" \
          >"$tmp/warm-$srv.txt" 2>&1 || true
      done
      local heavy; heavy=$(cb heavy "$c" "$secs" "$tmp/warm-fbc-registry.txt" "$tmp/warm-catalogd.txt")
      if [ "${heavy% *}" != "$c" ]; then # slow requests: one connection, longer runs (see cmd_heavy)
        echo "  $sc: under 20 requests per connection and run at c=$c; timing it at c=1 for ${heavy#* }s" >&2
        c=1; secs=${heavy#* }; dur=${secs}s
        wargs=(-t1 -c1 --timeout "$wrk_timeout" ${header[$sc]:+-H "${header[$sc]}"} ${lua[$sc]:+-s "${lua[$sc]}"})
      fi
      for r in $(seq "$runs"); do
        if [ $((r % 2)) = 1 ]; then order="fbc-registry catalogd"; else order="catalogd fbc-registry"; fi
        for srv in $order; do
          file="$res/$sc-c$c-$srv-r$r.txt"
          for attempt in $(seq 0 "$retries"); do
            cb snap "$tmp/snap.json"
            before=$(cb ticks "${spid[$srv]}")
            wrk_cpu=$(cb run "$file" "${nicecmd[@]}" taskset -c "$client_cpu" wrk "${wargs[@]}" -d"$dur" --latency \
              "http://127.0.0.1:${port[$srv]}${path[$sc]}")
            after=$(cb ticks "${spid[$srv]}")
            foreign=$(cb foreign "$tmp/snap.json" $((after - before)) "$wrk_cpu" "$secs")
            { echo; echo "# foreign_cpu=$foreign attempt=$attempt server_ticks=$before..$after wrk_cpu_s=$wrk_cpu load: $(cat /proc/loadavg)"; } >>"$file"
            le "$foreign" "$max_foreign" && break
            [ "$attempt" -lt "$retries" ] || break
            [ "$SECONDS" -lt "$budget" ] || { echo "  $sc $srv run $r: disturbed ($foreign), past BUDGET: kept, marked" >&2; break; }
            echo "  $sc c=$c $srv run $r: other processes used $foreign of a core; waiting for quiet, then again" >&2
            wait_quiet
          done
          read -r rps reqs p50 errs < <(cb parse "$file")
          cpu_us=$(cb cpu_us "$before" "$after" "$reqs")
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cat_id" "$sc" "$c" "$srv" "$r" "$rps" "$reqs" \
            "$p50" "$errs" "$foreign" "$cpu_us" "$(basename "$file")" >>"$res/results.tsv"
          printf '  %-24s c=%-3s %-13s run %s: %10s req/s %9s µs CPU/req p50 %8s ms errors %s foreign %s\n' \
            "$sc" "$c" "$srv" "$r" "$rps" "$cpu_us" "$p50" "$errs" "$foreign"
        done
      done
    done
  done
  kill "${spid[fbc-registry]}" "${spid[catalogd]}"
  wait "${spid[fbc-registry]}" "${spid[catalogd]}" 2>/dev/null || true
}

for catalog in "$@"; do bench_catalog "$catalog"; done
[ "$verify_only" = 1 ] || { cb summary "$out" >/dev/null; echo "tables: $out/summary.md"; }
