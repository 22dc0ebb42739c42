#!/usr/bin/env python3
"""OLM v0 upgrade paths from the reference resolver, for `explain-upgrade`.

Usage: tools/explain-diff.py [--record OUTDIR | --against OUTDIR] [--runs N]
                             [--cap N] ORACLE CASE_DIR...

ORACLE is the olm-oracle binary built by ../shared/peers/olm-oracle/build.sh
(OLM v0.25's `Resolver.Resolve`). Each CASE_DIR holds a file-based catalog in
`CASE_DIR/catalog/` as a JSON stream (`*.json`; what tools/resolve-diff.py
records, e.g. tests/fixtures/resolve-differential/gen-*); the case's name is
the folder's name.

For each catalog, the starting points are every (package, channel, entry) whose
entry is not its channel's head (packages, then channels, by name; entries in
the channel's order); when there are more than --cap (default 6) of them, --cap
are taken spread evenly over that list (indices i*n//cap), so the choice is
deterministic. From each starting point X the subscription's path is walked one
resolution at a time, as OLM v0 moves a Subscription:

  the oracle's input is the catalog ("cat" in namespace "olm", the FBC folder),
  one subscription {"name": "s", package, channel, "installedCSV": X} in
  namespace "ns" (global namespace "olm"), and one installed CSV
  {name: X, package, version: X's olm.package version, properties: X's catalog
  properties except olm.bundle.object and olm.csv.metadata};
  `ORACLE resolve INPUT --runs N` (default 5; runs 2..N shuffle the catalog);
  the operator whose `subscription` names "s" is the next hop, which becomes X.
  A step that fails or varies is resolved again with --runs 200, so that every
  UNSAT core gini reports (its assumption order is random) is seen.

A walk ends when the oracle installs nothing for "s" (end "stays"), fails (end
"error", with `error` the oracle's text and `unsat_constraints` when it gives
them), answers differently across runs for "s" (end "nondeterministic", with
`variants`: each distinct outcome for "s", {"next": B}, {"stays": true} or
{"error": TEXT}; variants that differ only in other operators, such as which
provider of a dependency is picked, or only in the order of bundles inside an
at-most-one message, count as one), or after 50 hops (end "limit"). Error
texts are compared by canonical_error below.

With --record OUTDIR, writes OUTDIR/cases.json: a list of {"catalog", "package",
"channel", "from", "path": [...], "end", ...} in the order above (catalogs by
name). Without it, compares each case against OUTDIR/cases.json (--against,
default tests/fixtures/explain-differential) and prints `same` or `DIFF` per
case; exits 1 if any case differs, or if a recorded case of a catalog given was
not walked.

Example (from the repository root):

  ORACLE=${XDG_CACHE_HOME:-$HOME/.cache}/fbc-peers/olm-oracle/olm-oracle
  python3 tools/explain-diff.py --record tests/fixtures/explain-differential \\
      "$ORACLE" tests/fixtures/resolve-differential/gen-*
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

MAX_HOPS = 50
ERROR_RUNS = 200
SUBSCRIPTION = "s"
LEFT_OUT = ("olm.bundle.object", "olm.csv.metadata")


def read_stream(path):
    """Every JSON value of a JSON stream file."""
    text = open(path, encoding="utf-8").read()
    decoder = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        value, i = decoder.raw_decode(text, i)
        out.append(value)


def load_catalog(folder):
    """(channels, bundles): {(package, channel): [entry, ...]} and {name: bundle}."""
    channels, bundles = {}, {}
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") or not name.endswith(".json"):
            continue
        for blob in read_stream(os.path.join(folder, name)):
            schema = blob.get("schema")
            if schema == "olm.channel":
                channels[(blob["package"], blob["name"])] = blob.get("entries") or []
            elif schema == "olm.bundle":
                bundles[blob["name"]] = blob
    return channels, bundles


def heads(entries):
    """The entries no other entry of the channel replaces or skips."""
    replaced = set()
    for e in entries:
        if e.get("replaces"):
            replaced.add(e["replaces"])
        replaced.update(e.get("skips") or [])
    return {e["name"] for e in entries if e["name"] not in replaced}


def starting_points(channels, cap):
    points = []
    for (package, channel) in sorted(channels):
        entries = channels[(package, channel)]
        top = heads(entries)
        points.extend((package, channel, e["name"]) for e in entries if e["name"] not in top)
    if len(points) > cap:
        points = [points[i * len(points) // cap] for i in range(cap)]
    return points


def version_of(bundle):
    for p in bundle.get("properties") or []:
        if p.get("type") == "olm.package":
            return p["value"]["version"]
    return ""


def properties_of(bundle):
    return [p for p in bundle.get("properties") or [] if p.get("type") not in LEFT_OUT]


PREFIX = "constraints not satisfiable: "


def at_most_one_ids(token):
    """The bundles of an at-most-one message's last part (`B and C provide K (g/v)`,
    `B and C originate from package P`), or None."""
    for sep in (" provide ", " originate from package "):
        head, found, _ = token.partition(sep)
        if found and (sep != " provide " or token.endswith(")")):
            ids = head.split(" and ")
            if all(i and " " not in i for i in ids):
                return ids
    return None


def canonical_error(text):
    """A comparison key for an error: its parts (split at ", ") sorted, each
    at-most-one message replaced by its bundles, sorted. OLM's clauses are sorted
    by their text, but the bundle order inside an at-most-one message, and which
    of the two messages is printed, follow Go's map order. tests/
    explain_differential.rs computes the same key."""
    if not text.startswith(PREFIX):
        return [text]
    parts, pending = [], []
    for token in text[len(PREFIX):].split(", "):
        if token and " " not in token:
            pending.append(token)
            continue
        ids = at_most_one_ids(token)
        if ids is not None:
            parts.append("at most one of " + ", ".join(sorted(pending + ids)))
        else:
            parts.extend(pending)
            parts.append(token)
        pending = []
    parts.extend(pending)
    return sorted(parts)


def outcome_for_s(output):
    """One resolution's meaning for the subscription: ("next", B), ("stays",) or
    ("error", text, constraints)."""
    if "error" in output:
        return ("error", output["error"], output.get("unsat_constraints"))
    for op in output.get("operators") or []:
        if SUBSCRIPTION in (op.get("subscription") or "").split(","):
            return ("next", op["name"])
    return ("stays",)


def key(outcome):
    return ("error", "\n".join(canonical_error(outcome[1]))) if outcome[0] == "error" else outcome


def step(oracle, runs, tmp, folder, package, channel, installed, bundle):
    """The oracle's outcome for "s" from `installed`: ("next", B), ("stays",),
    ("error", TEXT, CONSTRAINTS) or ("nondeterministic", [outcome, ...]). A step
    that fails, or varies, with `runs` runs is resolved again ERROR_RUNS times, so
    that the variants (which UNSAT core gini reports) are all seen."""
    o = resolve_once(oracle, runs, tmp, folder, package, channel, installed, bundle)
    if o[0] in ("error", "nondeterministic") and runs < ERROR_RUNS:
        o = resolve_once(oracle, ERROR_RUNS, tmp, folder, package, channel, installed, bundle)
    return o


def resolve_once(oracle, runs, tmp, folder, package, channel, installed, bundle):
    request = {
        "namespace": "ns",
        "globalNamespace": "olm",
        "catalog": {"name": "cat", "namespace": "olm", "fbc": os.path.abspath(folder)},
        "subscriptions": [
            {"name": SUBSCRIPTION, "package": package, "channel": channel, "installedCSV": installed}
        ],
        "installed": [
            {
                "name": installed,
                "package": package,
                "version": version_of(bundle),
                "properties": properties_of(bundle),
            }
        ],
    }
    path = os.path.join(tmp, "input.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(request, f)
    run = subprocess.run(
        [oracle, "resolve", path, "--runs", str(runs)], capture_output=True, text=True
    )
    try:
        output = json.loads(run.stdout)
    except json.JSONDecodeError:
        sys.exit(f"oracle failed (exit {run.returncode}) on {request}: {run.stderr.strip()}")
    if "harness_error" in output:
        sys.exit(f"oracle refused {request}: {output['harness_error']}")
    if output.get("nondeterministic"):
        distinct = {}
        for v in output["variants"]:
            o = outcome_for_s(v["output"])
            distinct.setdefault(key(o), o)
        if len(distinct) > 1:
            return ("nondeterministic", sorted(distinct.values(), key=key))
        return next(iter(distinct.values()))
    return outcome_for_s(output)


def walk(oracle, runs, tmp, folder, bundles, package, channel, start):
    case = {"package": package, "channel": channel, "from": start, "path": []}
    installed = start
    while True:
        if len(case["path"]) >= MAX_HOPS:
            case["end"] = "limit"
            return case
        o = step(oracle, runs, tmp, folder, package, channel, installed, bundles[installed])
        if o[0] == "next":
            case["path"].append(o[1])
            installed = o[1]
            continue
        if o[0] == "stays":
            case["end"] = "stays"
        elif o[0] == "error":
            case["end"] = "error"
            case["error"] = o[1]
            if o[2] is not None:
                case["unsat_constraints"] = o[2]
        else:
            case["end"] = "nondeterministic"
            case["variants"] = [variant(v) for v in o[1]]
        return case


def variant(o):
    if o[0] == "next":
        return {"next": o[1]}
    if o[0] == "stays":
        return {"stays": True}
    return {"error": o[1]}


def ident(case):
    return (case["catalog"], case["package"], case["channel"], case["from"])


def comparable(case):
    """A case with error texts canonical (at-most-one messages as sets)."""
    out = dict(case)
    out.pop("unsat_constraints", None)
    if "error" in out:
        out["error"] = canonical_error(out["error"])
    if "variants" in out:
        out["variants"] = sorted(
            json.dumps({k: canonical_error(v) if k == "error" else v for k, v in x.items()}, sort_keys=True)
            for x in out["variants"]
        )
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", metavar="OUTDIR")
    ap.add_argument("--against", metavar="OUTDIR", default="tests/fixtures/explain-differential")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cap", type=int, default=6)
    ap.add_argument("oracle")
    ap.add_argument("cases", nargs="+")
    args = ap.parse_args()

    recorded = {}
    if not args.record:
        with open(os.path.join(args.against, "cases.json"), encoding="utf-8") as f:
            recorded = {ident(c): c for c in json.load(f)}

    cases, differ = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for case_dir in sorted(args.cases, key=lambda d: os.path.basename(os.path.normpath(d))):
            name = os.path.basename(os.path.normpath(case_dir))
            folder = os.path.join(case_dir, "catalog")
            channels, bundles = load_catalog(folder)
            for package, channel, start in starting_points(channels, args.cap):
                case = {"catalog": name}
                case.update(walk(args.oracle, args.runs, tmp, folder, bundles, package, channel, start))
                cases.append(case)
                label = f"{name} {package}/{channel} from {start}"
                if args.record:
                    print(f"{label}: {' -> '.join(case['path']) or '-'} ({case['end']})", flush=True)
                    continue
                old = recorded.pop(ident(case), None)
                if old is not None and comparable(old) == comparable(case):
                    print(f"same {label}", flush=True)
                else:
                    differ += 1
                    print(f"DIFF {label}\n  now:      {json.dumps(case)}\n  recorded: {json.dumps(old)}", flush=True)

    if args.record:
        os.makedirs(args.record, exist_ok=True)
        with open(os.path.join(args.record, "cases.json"), "w", encoding="utf-8") as f:
            json.dump(cases, f, indent=1)
            f.write("\n")
        ends = {}
        for c in cases:
            ends[c["end"]] = ends.get(c["end"], 0) + 1
        print(f"recorded {len(cases)} cases: {ends}")
        return 0
    walked = {c["catalog"] for c in cases}
    missing = [c for c in recorded.values() if c["catalog"] in walked]
    for c in missing:
        print(f"DIFF {c['catalog']} {c['package']}/{c['channel']} from {c['from']}: recorded, not walked")
    print(f"{len(cases) - differ} same, {differ} differ, {len(missing)} recorded but not walked")
    differ += len(missing)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
