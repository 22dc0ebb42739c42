#!/usr/bin/env python3
"""Differential check of `fbc-registry resolve` against the reference resolver.

Usage: tools/resolve-diff.py [--record DIR] ORACLE CASE.json...

ORACLE is the olm-oracle binary built by ../shared/peers/olm-oracle/build.sh
(OLM v0.25's resolver). Each CASE is an oracle input whose catalog is given as
`entries` ({name, package, channel, version, replaces, skips, skipRange,
properties, defaultChannel}); it is written out as a file-based catalog, the
request is rewritten in fbc-registry's format, and both answer. Ours must equal
one of the oracle's answers (it runs each case several times with shuffled
input, and reports every variant when Go's map order changes the answer); the
oracle's `startingCSV` field, which the issue's output leaves out, is dropped.

Answers that differ only in OLM's at-most-one messages (`A, B and C provide
K (g/v)`, `... originate from package P`), whose bundle order and choice between
the two follow Go's map order, count as the same and are marked so.

Prints one line per case and exits 1 if any differs.

With `--record DIR`, each case the oracle answers is also written to DIR/NAME/
(one answer per distinct set of constraints, at-most-one messages compared as
sets, so that map-order variants do not bloat the corpus)
(NAME: the case file's name without `.json`): the file-based catalog
(`catalog/catalog.json`), the request in fbc-registry's format (`request.json`,
catalog = {name, namespace}) and the oracle's answer (`expected.json`: the list
of accepted answers, `startingCSV` dropped), whatever ours answers.

A CASE with `catalogs` (several catalogs, as `tools/resolve-gen.py --catalogs`
writes) has every catalog (`catalog`, then each of `catalogs`; names must be
unique) written as a file-based catalog, recorded as
`catalogs/<catalog name>/catalog.json`; its `request.json` keeps each catalog as
{name, namespace, priority} (`catalog` and `catalogs`, entries dropped) and
everything else as the case has it (namespace, globalNamespace, subscriptions
with their catalog and catalogNamespace, installed, failForward). Ours is run as
`fbc-registry resolve --catalog NAME=DIR [--catalog NAME=DIR ...] --request
request.json -o json`, the catalogs in request order. When ours exits non-zero
without JSON on stdout (an fbc-registry without that option, or a missing
FBC_REGISTRY_BIN) the case is reported `DIFF ... (ours failed, exit N)`; it is
recorded all the same.
"""
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile

BIN = os.environ.get("FBC_REGISTRY_BIN", "target/release/fbc-registry")


def write_fbc(entries, root):
    packages, bundles, channels = {}, {}, {}
    for e in entries:
        pkg = e["package"]
        packages.setdefault(pkg, None)
        if e.get("defaultChannel") or packages[pkg] is None:
            if e.get("defaultChannel") or packages[pkg] is None:
                packages[pkg] = e["channel"] if e.get("defaultChannel") else (packages[pkg] or e["channel"])
        entry = {"name": e["name"]}
        for k in ("replaces", "skips", "skipRange"):
            if e.get(k):
                entry[k] = e[k]
        channels.setdefault((pkg, e["channel"]), []).append(entry)
        props = [{"type": "olm.package", "value": {"packageName": pkg, "version": e.get("version", "")}}]
        props += e.get("properties", [])
        bundles[e["name"]] = {"schema": "olm.bundle", "name": e["name"], "package": pkg,
                              "image": "quay.io/x/" + e["name"], "properties": props}
    docs = [{"schema": "olm.package", "name": p, "defaultChannel": c} for p, c in packages.items()]
    docs += [{"schema": "olm.channel", "package": p, "name": c, "entries": es}
             for (p, c), es in channels.items()]
    docs += list(bundles.values())
    with open(os.path.join(root, "catalog.json"), "w") as f:
        for d in docs:
            f.write(json.dumps(d) + "\n")


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:  # no such binary: reported as that side's failure
        return 127, "", f"{cmd[0]}: {e}"
    return p.returncode, p.stdout, p.stderr


def strip(answer):
    for op in answer.get("operators", []) or []:
        op.pop("startingCSV", None)
    return answer


AT_MOST_ONE = re.compile(r"^(.*) and (\S+) (provide \S+ \(\S+\)|originate from package \S+)$")


def canonical(message):
    """OLM's at-most-one messages name their bundles in Go map order, and an
    API's invariant and a package's over the same bundles share one literal, so
    either message may be the one printed: compare the set of bundles only."""
    m = AT_MOST_ONE.match(message)
    if not m:
        return message
    ids = sorted(m.group(1).split(", ") + [m.group(2)])
    return "at most one of " + ", ".join(ids)


def loose(answer):
    if "unsat_constraints" not in answer:
        return answer
    return {"unsat_constraints": sorted(canonical(c) for c in answer["unsat_constraints"])}


def record(root, case, fbc, request, variants):
    """`fbc` is the one catalog's folder, or for a multi-catalog case a list of
    (catalog name, folder)."""
    out = os.path.join(root, os.path.splitext(os.path.basename(case))[0])
    shutil.rmtree(out, ignore_errors=True)
    if isinstance(fbc, list):
        for name, d in fbc:
            os.makedirs(os.path.join(out, "catalogs", name))
            shutil.copy(os.path.join(d, "catalog.json"), os.path.join(out, "catalogs", name, "catalog.json"))
    else:
        os.makedirs(os.path.join(out, "catalog"))
        shutil.copy(os.path.join(fbc, "catalog.json"), os.path.join(out, "catalog", "catalog.json"))
    with open(os.path.join(out, "request.json"), "w") as f:
        json.dump(request, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "expected.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(v) for v in variants) + "\n]\n")


CATALOG_REF = ("name", "namespace", "priority")


def prepare_multi(spec, tmp):
    """A case with `catalogs`: each catalog (`catalog` first, then `catalogs`)
    written as a file-based catalog to tmp/catalogs/NAME/. Returns the list of
    (name, folder), fbc-registry's request (every catalog as {name, namespace,
    priority}: the entries dropped) and the oracle's (the same with `fbc`)."""
    cats = ([spec["catalog"]] if spec.get("catalog") else []) + spec["catalogs"]
    names = [c["name"] for c in cats]
    if len(set(names)) != len(names):
        raise SystemExit(f"catalog names are not unique: {names}")
    folders = []
    for c in cats:
        d = os.path.join(tmp, "catalogs", c["name"])
        os.makedirs(d)
        write_fbc(c.get("entries", []), d)
        folders.append((c["name"], d))
    refs = [{k: v for k, v in c.items() if k in CATALOG_REF} for c in cats]
    ours_req, oracle_req = dict(spec), dict(spec)
    if spec.get("catalog"):
        ours_req["catalog"], oracle_req["catalog"] = refs[0], dict(refs[0], fbc=folders[0][1])
    n = len(cats) - len(spec["catalogs"])
    ours_req["catalogs"] = refs[n:]
    oracle_req["catalogs"] = [dict(r, fbc=d) for r, (_, d) in zip(refs[n:], folders[n:])]
    return folders, ours_req, oracle_req


def main():
    args, record_dir = sys.argv[1:], None
    if len(args) >= 2 and args[0] == "--record":
        record_dir, args = args[1], args[2:]
    if len(args) < 1:
        sys.exit(__doc__)
    oracle, cases = args[0], args[1:]
    failed = 0
    for case in cases:
        with open(case) as f:
            spec = json.load(f)
        with tempfile.TemporaryDirectory() as tmp:
            if spec.get("catalogs"):
                fbc, ours_req, oracle_req = prepare_multi(spec, tmp)
            else:
                fbc = os.path.join(tmp, "catalog")
                os.mkdir(fbc)
                write_fbc(spec["catalog"].get("entries", []), fbc)
                catalog = {k: v for k, v in spec["catalog"].items() if k in ("name", "namespace")}
                ours_req = dict(spec, catalog=catalog)
                oracle_req = dict(spec, catalog=dict(catalog, fbc=fbc))
            for path, req in (("ours.json", ours_req), ("oracle.json", oracle_req)):
                with open(os.path.join(tmp, path), "w") as f:
                    json.dump(req, f)
            _, out, err = run([oracle, "resolve", os.path.join(tmp, "oracle.json"), "--runs", os.environ.get("RUNS", "10")])
            try:
                theirs = json.loads(out)
            except ValueError:
                print(f"SKIP {case}: oracle said {err.strip()[:200]}")
                continue
            variants = ([v["output"] for v in theirs["variants"]]
                        if theirs.get("nondeterministic") else [theirs])
            variants = [strip(v) for v in variants]
            if record_dir:
                kept, seen = [], []
                for v in variants:
                    if loose(v) not in seen:
                        seen.append(loose(v))
                        kept.append(v)
                record(record_dir, case, fbc, ours_req, kept)
            if isinstance(fbc, list):
                where = [a for name, d in fbc for a in ("--catalog", f"{name}={d}")]
            else:
                where = [fbc]
            code, out, err = run([BIN, "resolve", *where, "--request", os.path.join(tmp, "ours.json"), "-o", "json"])
            crashed = None
            try:
                ours = json.loads(out)
            except ValueError:
                ours = {"error": err.strip()}
                if code != 0:
                    crashed = f"ours failed, exit {code}"
            if ours in variants:
                print(f"same {case}")
            elif loose(ours) in [loose(v) for v in variants]:
                print(f"same {case} (up to OLM's map order in at-most-one messages)")
            else:
                failed += 1
                print(f"DIFF {case}" + (f" ({crashed})" if crashed else "") + f"\n  ours:   {json.dumps(ours)}\n  oracle: "
                      + "\n          ".join(json.dumps(v) for v in variants))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
