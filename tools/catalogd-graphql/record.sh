#!/usr/bin/env bash
# Records catalogd's GraphQL answers for a catalog directory with the catalogd-graphql oracle.
#
#   tools/catalogd-graphql/record.sh CATALOG_DIR OUT.jsonl QUERIES.jsonl
#       OUT.jsonl, one line per line of QUERIES.jsonl:
#       {"request":"<raw request body>","status":N,"body":"<exact response body>"[,"fatal":"..."][,"unordered":true]}
#   tools/catalogd-graphql/record.sh --digest CATALOG_DIR OUT QUERIES.jsonl     (OUT may be - for stdout)
#       one line per query: <sha256 of body> <status> <body bytes> <catalog dir basename> <query index from 0> [unordered|fatal]
#
# The catalog dir is turned into catalogd's catalog.jsonl by catalogd-walk ($CW, default
# ~/.cache/fbc-peers/catalogd-walk/catalogd-walk; tools/catalogd-walk/build.sh). The oracle ($CG, default
# ~/.cache/fbc-peers/catalogd-graphql/catalogd-graphql; build.sh beside this file) runs $RUNS times (default 50), each
# a new process (new map seeds, new schema build); a query whose body differs between runs gets "unordered": true
# and the body of the first run.
set -euo pipefail
digest=
[ "${1:-}" = --digest ] && { digest=1; shift; }
[ $# -eq 3 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
dir=$1 out=$2 queries=$3
cache=${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers
CW=${CW:-$cache/catalogd-walk/catalogd-walk} CG=${CG:-$cache/catalogd-graphql/catalogd-graphql} RUNS=${RUNS:-50}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$CW" "$dir" > "$tmp/catalog.jsonl"
"$CG" "$tmp/catalog.jsonl" "$queries" > "$tmp/run1.jsonl"
# A query that killed catalogd (a "fatal" answer: endless recursion, ~3 s and 1 GiB of stack) does so every time;
# the other runs get an empty body in its place, and its answer is taken from run 1.
python3 - "$queries" "$tmp/run1.jsonl" > "$tmp/rest.jsonl" <<'PY'
import json, sys
reqs = open(sys.argv[1], 'rb').read().split(b'\n')
if reqs and reqs[-1] == b'':
    reqs.pop()
fatal = ['fatal' in json.loads(l) for l in open(sys.argv[2], encoding='utf-8')]
sys.stdout.buffer.write(b''.join((b'' if f else r) + b'\n' for r, f in zip(reqs, fatal)))
PY
for i in $(seq 2 "$RUNS"); do "$CG" "$tmp/catalog.jsonl" "$tmp/rest.jsonl" > "$tmp/run$i.jsonl"; done
python3 - "$queries" "$tmp" "$RUNS" "$out" "$digest" "$(basename "$dir")" <<'PY'
import hashlib, json, sys
queries, tmp, runs, out, digest, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
reqs = open(queries, 'rb').read().split(b'\n')
if reqs and reqs[-1] == b'':
    reqs.pop()
answers = [[json.loads(l) for l in open(f'{tmp}/run{r}.jsonl', encoding='utf-8')] for r in range(1, runs + 1)]
assert all(len(a) == len(reqs) for a in answers), 'oracle answered a different number of queries'
lines = []
for i, req in enumerate(reqs):
    first = answers[0][i]
    unordered = 'fatal' not in first and any(a[i] != first for a in answers[1:])
    if digest:
        body = first['body'].encode('utf-8')
        flag = ' unordered' if unordered else (' fatal' if 'fatal' in first else '')
        lines.append(f"{hashlib.sha256(body).hexdigest()} {first['status']} {len(body)} {name} {i}{flag}")
    else:
        rec = {'request': req.decode('utf-8'), 'status': first['status'], 'body': first['body']}
        if 'fatal' in first: rec['fatal'] = first['fatal']
        if 'panic' in first: rec['panic'] = first['panic']
        if unordered: rec['unordered'] = True
        lines.append(json.dumps(rec, ensure_ascii=False, separators=(',', ':')))
data = ''.join(l + '\n' for l in lines)
if out == '-':
    sys.stdout.write(data)
else:
    open(out, 'w', encoding='utf-8').write(data)
PY
