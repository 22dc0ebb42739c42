#!/usr/bin/env python3
"""What a multi-catalog resolution corpus exercises, measured with the reference resolver.

Usage: tools/resolve-multi-stats.py ORACLE CASE.json...

Each CASE is an oracle input with `catalogs` (as `tools/resolve-gen.py --catalogs` writes:
every catalog's `entries` inline). ORACLE is olm-oracle (../shared/peers/olm-oracle). Each case
is resolved RUNS times (default 50) as it is and in three counterfactual forms:

- `prio0`:   every catalog's priority set to 0;
- `prioneg`: every priority negated;
- `ns`:      every catalog in the subscriptions' namespace moved to the global one (and the
             subscriptions' catalogNamespace with it), so that namespace preference cannot
             order them; compared with namespaces left out.

A counterfactual "changes the answer" when none of its answers equals one of the case's own
(OLM's at-most-one messages compared as sets of bundles). It also counts, in resolved answers:

- `dep-not-top`: a dependency (an operator without a subscription) taken from a catalog while a
  catalog ranked above it by priority, then namespace, then name also has the package: the
  dependent's own catalog (or a constraint) beat the global order;
- `sub-not-top`: a subscription's operator from its own catalog while a higher-ranked catalog
  also has the package.

Prints one line per case and a summary.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

RUNS = os.environ.get("RUNS", "50")
AT_MOST_ONE = re.compile(r"^(.*) and (\S+) (provide \S+ \(\S+\)|originate from package \S+)$")


def canonical(message):
    m = AT_MOST_ONE.match(message)
    if not m:
        return message
    return "at most one of " + ", ".join(sorted(m.group(1).split(", ") + [m.group(2)]))


def loose(answer):
    if "unsat_constraints" in answer:
        return json.dumps(sorted(canonical(c) for c in answer["unsat_constraints"]))
    for op in answer.get("operators", []) or []:
        op.pop("startingCSV", None)
    return json.dumps(answer, sort_keys=True)


def oracle(binary, spec, tmp):
    path = os.path.join(tmp, "in.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    p = subprocess.run([binary, "resolve", path, "--runs", RUNS], capture_output=True, text=True)
    out = json.loads(p.stdout)
    return [v["output"] for v in out["variants"]] if out.get("nondeterministic") else [out]


def catalogs(spec):
    return ([spec["catalog"]] if spec.get("catalog") else []) + spec.get("catalogs", [])


def with_catalogs(spec, change):
    out = json.loads(json.dumps(spec))
    for c in catalogs(out):
        change(out, c)
    return out


def move_ns(spec):
    ns, glob = spec.get("namespace", "operators"), spec.get("globalNamespace", "olm")
    out = with_catalogs(spec, lambda s, c: c.update(namespace=glob) if c.get("namespace", glob) == ns else None)
    for sub in out.get("subscriptions", []):
        if sub.get("catalogNamespace") == ns:
            sub["catalogNamespace"] = glob
    return out


def no_ns(spec, answers):
    """Answers with catalog namespaces left out (ids are catalog/namespace/channel/name)."""
    names = [c["name"] for c in catalogs(spec)]
    out = []
    for a in answers:
        a = json.loads(json.dumps(a))
        for op in a.get("operators", []) or []:
            op.pop("catalogNamespace", None)
        if "unsat_constraints" in a:
            a["unsat_constraints"] = [re.sub(r"\b(%s)/[^/\s]+/" % "|".join(names), r"\1//", c)
                                      for c in a["unsat_constraints"]]
        a.pop("error", None)
        out.append(a)
    return out


def rank(spec):
    """Visible catalogs, best first, as OLM's sortableSnapshots orders them (no preferred one)."""
    ns, glob = spec.get("namespace", "operators"), spec.get("globalNamespace", "olm")
    cats = [dict(c, namespace=c.get("namespace") or glob) for c in catalogs(spec)]
    cats = [c for c in cats if c["namespace"] in (ns, glob)]
    return sorted(cats, key=lambda c: (-c.get("priority", 0), c["namespace"] != ns, c["name"]))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, cases = sys.argv[1], sys.argv[2:]
    tally = {}

    def count(key):
        tally[key] = tally.get(key, 0) + 1

    for case in cases:
        with open(case) as f:
            spec = json.load(f)
        with tempfile.TemporaryDirectory() as tmp:
            base = oracle(binary, spec, tmp)
            kinds = set()
            for a in base:
                if "operators" in a:
                    kinds.add("resolved")
                elif "unsat_constraints" in a:
                    kinds.add("unsat")
                else:
                    kinds.add("error")
            kind = "/".join(sorted(kinds))
            distinct = {loose(a) for a in base}
            flags = []
            if len(base) > 1:
                flags.append("nondet-raw")
            if len(distinct) > 1:
                flags.append("nondet")
            own = set(distinct)
            for name, cf in (("prio0", with_catalogs(spec, lambda s, c: c.update(priority=0))),
                             ("prioneg", with_catalogs(spec, lambda s, c: c.update(priority=-c.get("priority", 0))))):
                if not own & {loose(a) for a in oracle(binary, cf, tmp)}:
                    flags.append(name)
            moved = move_ns(spec)
            if moved != spec:
                a = {loose(x) for x in no_ns(spec, base)}
                b = {loose(x) for x in no_ns(spec, oracle(binary, moved, tmp))}
                if not a & b:
                    flags.append("ns")
            ranked = rank(spec)
            order = [c["name"] for c in ranked]
            has = {c["name"]: {e["package"] for e in c.get("entries", [])} for c in ranked}
            for a in base:
                for op in a.get("operators", []) or []:
                    if op["catalog"] not in order:
                        continue
                    above = order[:order.index(op["catalog"])]
                    if any(op["package"] in has[c] for c in above):
                        flag = "sub-not-top" if op.get("subscription") else "dep-not-top"
                        if flag not in flags:
                            flags.append(flag)
        count(kind)
        for fl in flags:
            count(fl)
        if {"prio0", "prioneg", "ns", "dep-not-top"} & set(flags):
            count("catalog choice matters (prio0, prioneg, ns or dep-not-top)")
        if {"prio0", "prioneg"} & set(flags):
            count("priority matters (prio0 or prioneg)")
        print(f"{os.path.basename(case)}: {kind} {' '.join(flags)}")
    print(f"\n{len(cases)} cases")
    for k in sorted(tally):
        print(f"  {k}: {tally[k]}")


if __name__ == "__main__":
    main()
