#!/usr/bin/env python3
"""Record what OLM's CEL does with each rule of a vector file.

Usage: tools/cel-vectors.py ORACLE tests/fixtures/cel/vectors.json

ORACLE is the olm-oracle binary built by ../shared/peers/olm-oracle/build.sh.
Each vector is {"rule", "properties"}: the rule goes into an olm.constraint of
bundle r.v1, which a subscription installs; its only candidate is b.v1 with
an olm.package property (b, 1.2.0) and then `properties`. The oracle's answer
is recorded in the vector as "oracle": "true" (resolved: r.v1 itself or b.v1
satisfies the rule, as every bundle is a candidate), "false" (unsatisfiable)
or the compile-time error text OLM gives. A vector may carry "difference"
(why ours differs, for the docs) and "ours" (our answer); both are kept. The crate's unit
test `resolve::cel_vectors` checks ours against every recorded answer.
"""
import json
import os
import subprocess
import sys
import tempfile

PREFIX = "convert olm.constraint to resolver predicate: "


def catalog(rule, props):
    b_props = [{"type": "olm.package", "value": {"packageName": "b", "version": "1.2.0"}}] + props
    r_props = [{"type": "olm.package", "value": {"packageName": "r", "version": "1.0.0"}},
               {"type": "olm.constraint", "value": {"failureMessage": "m", "cel": {"rule": rule}}}]
    docs = [{"schema": "olm.package", "name": "r", "defaultChannel": "stable"},
            {"schema": "olm.package", "name": "b", "defaultChannel": "stable"},
            {"schema": "olm.channel", "package": "r", "name": "stable", "entries": [{"name": "r.v1"}]},
            {"schema": "olm.channel", "package": "b", "name": "stable", "entries": [{"name": "b.v1"}]},
            {"schema": "olm.bundle", "name": "r.v1", "package": "r", "image": "x/r", "properties": r_props},
            {"schema": "olm.bundle", "name": "b.v1", "package": "b", "image": "x/b", "properties": b_props}]
    return "\n".join(json.dumps(d) for d in docs) + "\n"


def verdict(oracle, rule, props):
    with tempfile.TemporaryDirectory() as tmp:
        fbc = os.path.join(tmp, "fbc")
        os.mkdir(fbc)
        with open(os.path.join(fbc, "catalog.json"), "w") as f:
            f.write(catalog(rule, props))
        req = {"catalog": {"name": "cat", "namespace": "olm", "fbc": fbc},
               "subscriptions": [{"name": "r", "package": "r", "channel": "stable"}]}
        path = os.path.join(tmp, "req.json")
        with open(path, "w") as f:
            json.dump(req, f)
        out = subprocess.run([oracle, "resolve", path], capture_output=True, text=True).stdout
    answer = json.loads(out)
    if "operators" in answer:
        return "true"
    if "unsat_constraints" in answer:
        return "false"
    return answer["error"].removeprefix(PREFIX)


def main():
    oracle, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        vectors = json.load(f)
    for v in vectors:
        v["oracle"] = verdict(oracle, v["rule"], v.get("properties", []))
        print(f"{v['oracle'][:70]!r:72} {v['rule']}")
    with open(path, "w") as f:
        json.dump(vectors, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
