#!/usr/bin/env python3
"""Random resolution cases for the differential test against the reference resolver.

Usage: tools/resolve-gen.py SEED COUNT OUTDIR

Writes COUNT cases OUTDIR/gen-SEED-NNN.json in olm-oracle's input format, the
catalog given inline as `entries` (the form tools/resolve-diff.py reads). The
same SEED always gives the same files (one `random.Random(f"{SEED}-{N}")` per
case, so case N does not depend on COUNT).

Each case has 2-6 packages with 1-3 channels (one default) over chains of 1-6
bundles (versions ascending along the chain, now and then a prerelease;
`replaces`, some `skips` of the entries below a chain node, some `skipRange`s,
a tail that sometimes replaces a pruned bundle), `olm.gvk` APIs, some provided
by several packages, `olm.gvk.required`, `olm.package.required` (blang ranges
from the target's versions, some matching nothing, some naming no package),
`olm.constraint` trees (gvk, package, all, any, not, nested to depth 2; CEL
rules allowed in about 30% of the cases, a few of them invalid), `certified`
and `olm.deprecated` properties, 1-3 subscriptions (a channel, no channel or a
missing one; sometimes a startingCSV, an installedCSV) and 0-3 installed CSVs
(with and without a subscription naming them). About half of the cases are
unsatisfiable.

Catalogs are valid for opm (and so for fbc-registry): bundle names unique,
versions unique per package, every bundle in a channel, one head per channel,
no stranded entries.
"""
import json
import os
import random
import sys

PACKAGES = ["apple", "birch", "cedar", "dune", "ember", "fjord", "grove", "heron"]
CHANNELS = ["stable", "fast", "candidate", "alpha"]
GVKS = [
    ("cache.example.com", "v1", "Redis"),
    ("cache.example.com", "v1beta1", "Redis"),
    ("storage.example.com", "v1alpha1", "Bucket"),
    ("db.example.com", "v1", "Database"),
    ("net.example.com", "v1", "Route"),
    ("mon.example.com", "v1", "Monitor"),
    ("mon.example.com", "v1", "Alert"),
    ("mail.example.com", "v1", "Mailbox"),
    ("queue.example.com", "v2", "Topic"),
    ("auth.example.com", "v1", "Realm"),
    ("dns.example.com", "v1", "Zone"),
]
# Required now and then, provided by nobody.
MISSING_GVKS = [("ghost.example.com", "v1", "Ghost")]

CEL_VALID = [
    'properties.exists(p, p.type == "certified")',
    'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.1.0") >= 0)',
    'properties.all(p, p.type != "olm.deprecated")',
    '!properties.exists(p, p.type == "certified")',
    'properties.exists(p, p.type == "olm.gvk" && p.value.kind == "Redis")',
    'properties.exists(p, p.type == "olm.package" && p.value.packageName == "birch")',
    'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "2.0.0") < 0)'
    ' && properties.exists(p, p.type == "certified")',
]
CEL_INVALID = [
    'semverCompare("1.0.0", "1.0.0") == 0',  # undeclared function
    "1 == 1.0",  # no overload
    "properties.size()",  # not a bool
]


def gvk_value(g):
    return {"group": g[0], "version": g[1], "kind": g[2]}


def vstr(v):
    return "%d.%d.%d" % v[:3] + (("-" + v[3]) if len(v) > 3 else "")


class Case:
    def __init__(self, rng):
        self.rng = rng
        self.use_cel = rng.random() < 0.3

    # -- packages ---------------------------------------------------------------

    def versions(self, n):
        r = self.rng
        major, minor, patch = r.choice([(0, 1, 0), (1, 0, 0), (1, 2, 0), (2, 0, 0), (3, 1, 2)])
        out = []
        for _ in range(n):
            out.append((major, minor, patch))
            x = r.random()
            if x < 0.5:
                patch += 1
            elif x < 0.85:
                minor, patch = minor + 1, 0
            else:
                major, minor, patch = major + 1, 0, 0
        if n > 1 and r.random() < 0.08:  # a prerelease before the last
            last = out[-1]
            out.insert(-1, last + ("rc.1",))
            if len(out) > 6:
                out.pop(0)
        return out

    def make_packages(self):
        r = self.rng
        names = sorted(r.sample(PACKAGES, r.randint(2, 6)))
        self.pkgs = {}
        for name in names:
            n = r.choice([1, 2, 2, 3, 3, 4, 5, 6])
            vs = self.versions(n)
            first = vs[0]
            if first[2] > 0:
                prev = (first[0], first[1], first[2] - 1)
            elif first[1] > 0:
                prev = (first[0], first[1] - 1, 9)
            else:
                prev = (first[0] - 1, 9, 0)
            # APIs this package owns, mostly its own; now and then one another
            # package provides too.
            taken = [g for q in self.pkgs.values() for g in q["owned"]]
            free = [g for g in GVKS if g not in taken]
            owned = []
            for _ in range(r.choice([0, 1, 1, 1, 2, 2])):
                pool = taken if taken and (r.random() < 0.3 or not free) else free
                g = r.choice(pool)
                if g not in owned:
                    owned.append(g)
            self.pkgs[name] = {
                "versions": vs,
                "bundles": [f"{name}.v{vstr(v)}" for v in vs],
                "prev": f"{name}.v{vstr(prev)}",
                "prev_version": vstr(prev),
                "owned": owned,
            }
        self.all_bundles = {}
        for name, p in self.pkgs.items():
            n = len(p["versions"])
            for i, (b, v) in enumerate(zip(p["bundles"], p["versions"])):
                props = []
                for g in p["owned"]:
                    # newer bundles provide the package's APIs; an old one may not
                    if i == n - 1 or r.random() < 0.8:
                        props.append({"type": "olm.gvk", "value": gvk_value(g)})
                if r.random() < 0.25:
                    props.append({"type": "certified", "value": {}})
                if r.random() < 0.07:
                    props.append({"type": "olm.deprecated", "value": {}})
                self.all_bundles[b] = {"package": name, "version": vstr(v), "props": props, "index": i}

    # -- channels ---------------------------------------------------------------

    def chain(self, pkg, subset):
        """Entries for one channel over `subset` (indexes into the package's bundles, ascending)."""
        r = self.rng
        p = self.pkgs[pkg]
        names = [p["bundles"][i] for i in subset]
        vers = [vstr(p["versions"][i]) for i in subset]
        entries = {n: {"name": n} for n in names}
        i = len(names) - 1
        while i > 0:
            node = entries[names[i]]
            if i >= 2 and r.random() < 0.25:
                k = r.randint(1, min(2, i - 1))
                node["replaces"] = names[i - 1 - k]
                node["skips"] = names[i - k:i]
                for j in range(i - k, i):
                    entries[names[j]]["replaces"] = names[j - 1]
                nxt = i - 1 - k
            else:
                node["replaces"] = names[i - 1]
                nxt = i - 1
            if r.random() < 0.25:
                lo = r.choice([vers[max(0, nxt)], vers[0], p["prev_version"]])
                node["skipRange"] = f">={lo} <{vers[i]}"
            i = nxt
        tail = entries[names[0]]
        if r.random() < 0.2:
            tail["replaces"] = p["prev"]
        if r.random() < 0.1:
            tail["skipRange"] = f"<{vers[0]}"
        if r.random() < 0.05:
            entries[names[-1]].setdefault("skips", []).append(f"{pkg}.v0.0.1")
        return [entries[n] for n in names]

    def make_channels(self):
        r = self.rng
        for pkg, p in self.pkgs.items():
            n = len(p["bundles"])
            chans = r.sample(CHANNELS, r.choice([1, 1, 2, 2, 3]))
            subsets = {chans[0]: list(range(n))}
            for c in chans[1:]:
                a = r.randint(0, n - 1)
                b = r.randint(a, n - 1)
                subsets[c] = list(range(a, b + 1))
            p["default"] = r.choice(chans)
            p["channels"] = {c: self.chain(pkg, s) for c, s in subsets.items()}

    # -- dependencies -----------------------------------------------------------

    def version_range(self, pkg):
        r = self.rng
        vs = [vstr(v) for v in self.pkgs[pkg]["versions"]] if pkg in self.pkgs else ["1.0.0", "2.0.0"]
        a, b = sorted([r.choice(vs), r.choice(vs)])
        return r.choice([
            f">={a}", f">={a}", f"<{b}", f">{a}", f">={a} <{b}", f">={a} <={b}", f"={b}", b,
            f"<{a} || >={b}", f"!={b}", ">=99.0.0", "<0.0.1", ">=0.0.0",
        ])

    def some_gvk(self):
        r = self.rng
        provided = sorted({tuple(g) for p in self.pkgs.values() for g in p["owned"]})
        if provided and r.random() < 0.8:
            return r.choice(provided)
        return r.choice(GVKS + MISSING_GVKS)

    def some_package(self, own):
        r = self.rng
        others = [p for p in self.pkgs if p != own]
        if r.random() < 0.06:
            return "nowhere"
        if r.random() < 0.05 or not others:
            return own
        return r.choice(others)

    def leaf(self, own):
        r = self.rng
        x = r.random()
        if self.use_cel and x < 0.35:
            rule = r.choice(CEL_INVALID) if r.random() < 0.12 else r.choice(CEL_VALID)
            return {"cel": {"rule": rule}}
        if x < 0.65:
            return {"gvk": gvk_value(self.some_gvk())}
        pkg = self.some_package(own)
        return {"package": {"packageName": pkg, "versionRange": self.version_range(pkg)}}

    def constraint(self, own, depth):
        r = self.rng
        if depth < 2 and r.random() < 0.45:
            kind = r.choice(["all", "all", "any", "any", "not"])
            n = r.choice([1, 2, 2, 3]) if kind != "not" else r.choice([1, 1, 2])
            if r.random() < 0.03:
                n = 0
            c = {kind: {"constraints": [self.constraint(own, depth + 1) for _ in range(n)]}}
        else:
            c = self.leaf(own)
        if r.random() < 0.3:
            c = dict({"failureMessage": f"needs {next(iter(c))} ({r.randint(1, 99)})"}, **c)
        return c

    def dependencies(self, bundle):
        r = self.rng
        own = self.all_bundles[bundle]["package"]
        out = []
        if r.random() >= 0.35:
            return out
        for _ in range(r.choice([1, 1, 1, 2, 2, 3])):
            x = r.random()
            if x < 0.35:
                out.append({"type": "olm.gvk.required", "value": gvk_value(self.some_gvk())})
            elif x < 0.65:
                pkg = self.some_package(own)
                out.append({"type": "olm.package.required",
                            "value": {"packageName": pkg, "versionRange": self.version_range(pkg)}})
            else:
                out.append({"type": "olm.constraint", "value": self.constraint(own, 0)})
        return out

    # -- cluster ---------------------------------------------------------------

    def installed_csv(self, bundle, pkg, version):
        r = self.rng
        props = []
        if r.random() < 0.6:
            props.append({"type": "olm.package", "value": {"packageName": pkg, "version": version}})
        if bundle in self.all_bundles:
            b = self.all_bundles[bundle]
            props += [p for p in b["props"] if p["type"] != "olm.deprecated" or r.random() < 0.3]
            if r.random() < 0.3:
                props += [p for p in b["deps"] if p["type"] != "olm.constraint" or r.random() < 0.5]
        else:
            props += [{"type": "olm.gvk", "value": gvk_value(g)} for g in self.pkgs[pkg]["owned"]]
        return {"name": bundle, "package": pkg, "version": version, "properties": props}

    def cluster(self):
        r = self.rng
        subs, installed = [], []
        names = list(self.pkgs)
        chosen = r.sample(names, min(len(names), r.randint(1, 3)))
        if r.random() < 0.08:
            chosen.append(chosen[0])  # two subscriptions to one package
        if r.random() < 0.03:
            chosen[-1] = "nowhere"
        for k, pkg in enumerate(chosen):
            sub = {"name": pkg if pkg not in [s["package"] for s in subs] else f"{pkg}-{k}", "package": pkg}
            if pkg not in self.pkgs:
                sub["channel"] = "stable"
                subs.append(sub)
                continue
            p = self.pkgs[pkg]
            x = r.random()
            if x < 0.5:
                ch = p["default"]
            elif x < 0.8:
                ch = r.choice(sorted(p["channels"]))
            elif x < 0.97:
                ch = ""
            else:
                ch = "beta"  # no such channel
            sub["channel"] = ch
            in_channel = [e["name"] for c, es in sorted(p["channels"].items())
                          if ch in ("", c) for e in es] or p["bundles"]
            if r.random() < 0.15:
                sub["startingCSV"] = r.choice(in_channel) if r.random() < 0.9 else f"{pkg}.v9.9.9"
            if r.random() < 0.45:
                y = r.random()
                if y < 0.8:
                    csv = r.choice(in_channel)
                    version = self.all_bundles[csv]["version"]
                elif y < 0.95:
                    csv, version = p["prev"], p["prev_version"]
                else:
                    csv, version = f"{pkg}.v0.0.1", "0.0.1"
                sub["installedCSV"] = csv
                if r.random() < 0.93 and csv not in [i["name"] for i in installed]:
                    installed.append(self.installed_csv(csv, pkg, version))
            subs.append(sub)
        free = [n for n in names if n not in chosen]
        for _ in range(r.choice([0, 0, 0, 1, 1, 2])):
            if not free and r.random() < 0.7:
                continue
            pkg = r.choice(free) if free and r.random() < 0.9 else r.choice(names)
            csv = r.choice(self.pkgs[pkg]["bundles"])
            if csv in [i["name"] for i in installed]:
                continue
            installed.append(self.installed_csv(csv, pkg, self.all_bundles[csv]["version"]))
        r.shuffle(installed)
        return subs, installed[:3]

    def build(self):
        self.make_packages()
        self.make_channels()
        for b in self.all_bundles:
            self.all_bundles[b]["deps"] = self.dependencies(b)
        entries = []
        for pkg, p in self.pkgs.items():
            for ch, es in p["channels"].items():
                for e in es:
                    b = self.all_bundles[e["name"]]
                    entry = {"name": e["name"], "package": pkg, "channel": ch, "version": b["version"]}
                    for k in ("replaces", "skips", "skipRange"):
                        if e.get(k):
                            entry[k] = e[k]
                    if ch == p["default"]:
                        entry["defaultChannel"] = True
                    props = b["props"] + b["deps"]
                    if props:
                        entry["properties"] = props
                    entries.append(entry)
        subs, installed = self.cluster()
        return {"catalog": {"name": "cat", "namespace": "olm", "entries": entries},
                "subscriptions": subs, "installed": installed}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    seed, count, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(outdir, exist_ok=True)
    for n in range(count):
        case = Case(random.Random(f"{seed}-{n}")).build()
        with open(os.path.join(outdir, f"gen-{seed}-{n:03d}.json"), "w") as f:
            json.dump(case, f, indent=None)
            f.write("\n")


if __name__ == "__main__":
    main()
