#!/usr/bin/env python3
"""Differential check of `fbc-registry resolve` against the reference resolver.

Usage: tools/resolve-diff.py ORACLE CASE.json...

ORACLE is the olm-oracle binary built by ../shared/peers/olm-oracle/build.sh
(OLM v0.25's resolver). Each CASE is an oracle input whose catalog is given as
`entries` ({name, package, channel, version, replaces, skips, skipRange,
properties, defaultChannel}); it is written out as a file-based catalog, the
request is rewritten in fbc-registry's format, and both answer. Ours must equal
one of the oracle's answers (it runs each case several times with shuffled
input, and reports every variant when Go's map order changes the answer); the
oracle's `startingCSV` field, which the issue's output leaves out, is dropped.

Prints one line per case and exits 1 if any differs.
"""
import json
import os
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
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def strip(answer):
    for op in answer.get("operators", []) or []:
        op.pop("startingCSV", None)
    return answer


def main():
    oracle, cases = sys.argv[1], sys.argv[2:]
    failed = 0
    for case in cases:
        with open(case) as f:
            spec = json.load(f)
        with tempfile.TemporaryDirectory() as tmp:
            fbc = os.path.join(tmp, "catalog")
            os.mkdir(fbc)
            write_fbc(spec["catalog"].get("entries", []), fbc)
            catalog = {k: v for k, v in spec["catalog"].items() if k in ("name", "namespace")}
            ours_req = dict(spec, catalog=catalog)
            oracle_req = dict(spec, catalog=dict(catalog, fbc=fbc))
            for path, req in (("ours.json", ours_req), ("oracle.json", oracle_req)):
                with open(os.path.join(tmp, path), "w") as f:
                    json.dump(req, f)
            _, out, err = run([oracle, "resolve", os.path.join(tmp, "oracle.json"), "--runs", "10"])
            try:
                theirs = json.loads(out)
            except ValueError:
                print(f"SKIP {case}: oracle said {err.strip()[:200]}")
                continue
            variants = ([v["output"] for v in theirs["variants"]]
                        if theirs.get("nondeterministic") else [theirs])
            variants = [strip(v) for v in variants]
            _, out, err = run([BIN, "resolve", fbc, "--request", os.path.join(tmp, "ours.json"), "-o", "json"])
            try:
                ours = json.loads(out)
            except ValueError:
                ours = {"error": err.strip()}
            if ours in variants:
                print(f"same {case}")
            else:
                failed += 1
                print(f"DIFF {case}\n  ours:   {json.dumps(ours)}\n  oracle: "
                      + "\n          ".join(json.dumps(v) for v in variants))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
