#!/usr/bin/env python3
"""Random resolution cases for the differential test against the reference resolver.

Usage: tools/resolve-gen.py SEED COUNT OUTDIR
       tools/resolve-gen.py --catalogs SEED COUNT OUTDIR

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

With --catalogs, writes OUTDIR/multi-SEED-NNN.json instead (one
`random.Random(f"multi-{SEED}-{N}")` per case; the mode without it is unchanged):
cases over 2-4 catalogs, `catalog` (the first, the default of a subscription
naming none) and `catalogs`, each {name, namespace, priority, entries}, names
unique in the case (north, south, east, west, harbor, summit, in random order),
priorities from {-10, -1, 0, 1, 5} with ties forced in 40% of the cases,
namespaces the subscriptions' (`namespace`: operators, or tenant-a), the global
one (`globalNamespace`: olm, or openshift-marketplace) or now and then one OLM
does not look at (elsewhere). The packages are drawn as above and split into
applications (subscribed to, with dependencies) and libraries (what the
dependencies name); each package has a home catalog holding all of it, and each
other catalog holds it whole, a slice of its versions with the graph drawn
again, the newer versions in one channel of another name, or not at all; a copy
now and then lacks its dependencies or has `certified` flipped. Dependencies
mostly name packages and APIs that several catalogs carry and the dependent's
own catalog may lack. In about 85% of the cases one choice is planted: an
application subscribed to from catalog A requires a library (package, API or
`any` of two packages, mostly by a range all copies match) that at least two
other visible catalogs carry, usually with different priorities, and that in a
third of the cases A carries too while ranking below them (so OLM's order
-- @existing, the dependent's own catalog, priority, the subscriptions'
namespace, name -- decides). Subscriptions name their catalog and its
namespace (now and then none, meaning the first), which is mostly not the
first catalog; installed CSVs come from any catalog's versions.
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
    # chance that an API a package owns is one another package already owns
    SHARE_API = 0.3
    # chance that a bundle has dependencies
    DEP_P = 0.35
    # chance that a bundle is deprecated; that a CEL rule is an invalid one
    DEPRECATED_P = 0.07
    CEL_INVALID_P = 0.12

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
                pool = taken if taken and (r.random() < self.SHARE_API or not free) else free
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
                if r.random() < self.DEPRECATED_P:
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
            p["subsets"] = subsets
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
            rule = r.choice(CEL_INVALID) if r.random() < self.CEL_INVALID_P else r.choice(CEL_VALID)
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
        if r.random() >= self.DEP_P:
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


CATALOG_NAMES = ["north", "south", "east", "west", "harbor", "summit"]
# CatalogSource spec.priority: a small set, negatives included, 0 (the default) most often, so
# that ties are common.
PRIORITIES = [-10, -1, 0, 0, 0, 1, 5, 5]


class MultiCase(Case):
    """A case over 2-4 catalogs with priorities and namespaces (`--catalogs`)."""
    SHARE_API = 0.2
    DEP_P = 0.5
    DEPRECATED_P = 0.03
    CEL_INVALID_P = 0.03
    # chance that a dependency aims at a package (or an API) other catalogs carry
    CROSS_P = 0.7

    def make_catalogs(self):
        r = self.rng
        self.namespace = "operators" if r.random() < 0.8 else "tenant-a"
        self.global_ns = "olm" if r.random() < 0.75 else "openshift-marketplace"
        # a random sample: list order, name order and priority order disagree
        names = r.sample(CATALOG_NAMES, r.choice([2, 3, 3, 3, 4, 4]))
        tie = r.random() < 0.4
        self.cats = []
        for i, name in enumerate(names):
            x = r.random()
            if x < 0.55:
                ns = self.global_ns
            elif x < 0.97:
                ns = self.namespace
            else:
                ns = "elsewhere"  # neither namespace: OLM never looks there
            prio = r.choice(PRIORITIES)
            if tie and i > 0 and r.random() < 0.6:
                prio = self.cats[r.randrange(i)]["priority"]
            self.cats.append({"name": name, "namespace": ns, "priority": prio, "pkgs": {}, "props": {}})
        if self.cats[0]["namespace"] == "elsewhere":
            self.cats[0]["namespace"] = self.global_ns

    def roles(self):
        """About half the packages are applications (subscribed to, mostly with dependencies,
        in fewer catalogs), the rest libraries (what the dependencies name, in more catalogs)."""
        r = self.rng
        names = list(self.pkgs)
        self.apps = set(r.sample(names, max(1, len(names) // 2)))

    def dependencies(self, bundle):
        self.DEP_P = 0.7 if self.all_bundles[bundle]["package"] in self.apps else 0.15
        return super().dependencies(bundle)

    def carriers(self, pkg):
        return [c["name"] for c in self.cats if pkg in c["pkgs"]]

    def some_package(self, own):
        """Mostly a package that some catalog without `own` carries, and that more than one
        catalog carries: whichever copy of `own` is installed, the dependency can come from
        several catalogs, and from one that is not the dependent's own."""
        r = self.rng
        others = [p for p in self.pkgs if p != own]
        mine = set(self.carriers(own))
        cross = [p for p in others if len(self.carriers(p)) > 1 and set(self.carriers(p)) - mine]
        libs = [p for p in cross if p not in self.apps]
        if libs and r.random() < self.CROSS_P:
            return r.choice(libs)
        if cross and r.random() < self.CROSS_P:
            return r.choice(cross)
        return super().some_package(own)

    def some_gvk(self):
        r = self.rng
        by_gvk = {}
        for pkg, p in self.pkgs.items():
            for g in p["owned"]:
                by_gvk.setdefault(tuple(g), set()).update(self.carriers(pkg))
        cross = sorted(g for g, cats in by_gvk.items() if len(cats) > 1)
        if cross and r.random() < self.CROSS_P:
            return r.choice(cross)
        return super().some_gvk()

    def version_range(self, pkg):
        r = self.rng
        if pkg not in self.pkgs or r.random() < 0.15:
            return super().version_range(pkg)
        vs = [vstr(v) for v in self.pkgs[pkg]["versions"]]
        a, b = sorted([r.choice(vs), r.choice(vs)])
        return r.choice([f">={a}", f"<={b}", f">={a} <={b}", f"<{b}", ">=0.0.0", f"={b}"])

    def variant(self, pkg, kind):
        """One catalog's copy of a package: the full one, a slice of its bundles (the graph drawn
        again), or the bundles from some index on in one channel of another name."""
        r = self.rng
        p = self.pkgs[pkg]
        n = len(p["bundles"])
        if kind == "full":
            return {"channels": p["channels"], "default": p["default"]}
        if kind == "range":
            a = r.randint(0, n - 1)
            b = r.randint(a, n - 1)
            chans = {}
            for c, sub in p["subsets"].items():
                s2 = [i for i in sub if a <= i <= b]
                if s2:
                    chans[c] = self.chain(pkg, s2)
            if not chans:
                chans[p["default"]] = self.chain(pkg, list(range(a, b + 1)))
            default = p["default"] if p["default"] in chans else r.choice(sorted(chans))
            return {"channels": chans, "default": default}
        ch = r.choice(CHANNELS)
        a = r.randint(0, n - 1)
        return {"channels": {ch: self.chain(pkg, list(range(a, n)))}, "default": ch}

    def distribute(self):
        r = self.rng
        self.homes = {}
        for pkg in self.pkgs:
            home = self.homes[pkg] = r.choice(self.cats)
            for cat in self.cats:
                if cat is home:
                    kind = "full"
                else:
                    x = r.random()
                    y = x if pkg in self.apps else x + 0.2
                    kind = ("absent" if y < 0.5 else "full" if x < 0.62
                            else "range" if x < 0.87 else "other")
                if kind != "absent":
                    cat["pkgs"][pkg] = self.variant(pkg, kind)
        for cat in self.cats:
            if not cat["pkgs"]:
                pkg = r.choice(sorted(self.pkgs))
                cat["pkgs"][pkg] = self.variant(pkg, "full")

    def plant(self):
        """In most cases, one choice the catalogs' order decides: an application P required
        (by package, API or constraint) a library Q, P subscribed to from a catalog A, Q in at
        least two other visible catalogs and, in a third of them, in A as well."""
        r = self.rng
        self.planted = None
        if r.random() >= 0.85:
            return
        pkg = r.choice(sorted(self.apps))
        home = [c for c in self.cats if pkg in c["pkgs"] and c["namespace"] != "elsewhere"]
        libs = sorted(q for q in self.pkgs if q != pkg)
        if not home or not libs:
            return
        cat = r.choice(home)
        others = [c for c in self.cats if c is not cat and c["namespace"] != "elsewhere"]
        if not others:
            return
        apart = [q for q in libs if not set(self.pkgs[q]["owned"]) & set(self.pkgs[pkg]["owned"])]
        lib = r.choice(apart if apart and r.random() < 0.85 else libs)
        # with one other catalog only the dependent's own catalog against it can be shown
        if len(others) == 1 or r.random() < 0.33:
            if lib not in cat["pkgs"]:
                cat["pkgs"][lib] = self.variant(lib, "full")
        else:
            cat["pkgs"].pop(lib, None)
        have = [c for c in others if lib in c["pkgs"]]
        lacking = [c for c in others if lib not in c["pkgs"]]
        for c in r.sample(lacking, min(len(lacking), max(0, 2 - len(have)))):
            c["pkgs"][lib] = self.variant(lib, r.choice(["full", "full", "range"]))
        # mostly make the order matter: the other carriers' priorities differ, and the
        # dependent's own catalog, when it carries the library, ranks below one of them
        carriers = [c for c in others if lib in c["pkgs"]]
        if len({c["priority"] for c in carriers}) == 1 and len(carriers) > 1 and r.random() < 0.75:
            c = r.choice(carriers)
            c["priority"] = r.choice([q for q in PRIORITIES if q != c["priority"]])
        top = max(c["priority"] for c in carriers)
        if lib in cat["pkgs"] and cat["priority"] >= top and r.random() < 0.75:
            lower = [q for q in PRIORITIES if q < top]
            if lower:
                cat["priority"] = r.choice(lower)
            else:
                r.choice(carriers)["priority"] = 5
        owned = [g for g in self.pkgs[lib]["owned"] if g not in self.pkgs[pkg]["owned"]]

        def wide():  # mostly a range every copy of the library matches: the order alone decides
            return r.choice([">=0.0.0", "<99.0.0"]) if r.random() < 0.6 else self.version_range(lib)
        x = r.random()
        if owned and x < 0.4:
            dep = {"type": "olm.gvk.required", "value": gvk_value(r.choice(owned))}
        elif x < 0.55:
            dep = {"type": "olm.constraint", "value": {"any": {"constraints": [
                {"package": {"packageName": lib, "versionRange": wide()}},
                {"package": {"packageName": lib, "versionRange": self.version_range(lib)}}]}}}
        else:
            dep = {"type": "olm.package.required", "value": {"packageName": lib, "versionRange": wide()}}
        alone = r.random() < 0.5  # the application's other dependencies dropped
        for b in self.pkgs[pkg]["bundles"]:
            deps = self.all_bundles[b]["deps"]
            if alone:
                deps.clear()
            if dep not in deps:
                deps.append(dep)
        self.planted = (pkg, cat, lib)

    def vary(self):
        """A copy in another catalog than the package's home now and then differs from it:
        dependencies dropped, or `certified` added or removed."""
        r = self.rng
        for cat in self.cats:
            for pkg, v in cat["pkgs"].items():
                if cat is self.homes[pkg] or (self.planted and self.planted[0] == pkg and self.planted[1] is cat):
                    continue
                for name in sorted({e["name"] for es in v["channels"].values() for e in es}):
                    b = self.all_bundles[name]
                    x = r.random()
                    if x < 0.1 and b["deps"]:
                        cat["props"][name] = (b["props"], [])
                    elif x < 0.18:
                        cert = [q for q in b["props"] if q["type"] == "certified"]
                        rest = [q for q in b["props"] if q["type"] != "certified"]
                        cat["props"][name] = (rest if cert else rest + [{"type": "certified", "value": {}}],
                                              b["deps"])

    def catalog_entries(self, cat):
        entries = []
        for pkg, v in cat["pkgs"].items():
            for ch, es in v["channels"].items():
                for e in es:
                    b = self.all_bundles[e["name"]]
                    entry = {"name": e["name"], "package": pkg, "channel": ch, "version": b["version"]}
                    for k in ("replaces", "skips", "skipRange"):
                        if e.get(k):
                            entry[k] = e[k]
                    if ch == v["default"]:
                        entry["defaultChannel"] = True
                    props, deps = cat["props"].get(e["name"], (b["props"], b["deps"]))
                    if props + deps:
                        entry["properties"] = props + deps
                    entries.append(entry)
        return entries

    def outside(self, cat, pkg):
        """How many of the dependencies of `pkg`'s bundles in `cat` name a package (or an API
        of a package) that `cat` lacks and other catalogs carry: those the dependent's own
        catalog cannot answer, so that priority and namespace choose."""
        n = 0
        for name in {e["name"] for es in cat["pkgs"][pkg]["channels"].values() for e in es}:
            deps = cat["props"].get(name, (None, self.all_bundles[name]["deps"]))[1]
            for d in deps:
                v = d["value"]
                if d["type"] == "olm.package.required":
                    targets = [v["packageName"]]
                elif d["type"] == "olm.gvk.required":
                    targets = [q for q, p in self.pkgs.items() if v in [gvk_value(g) for g in p["owned"]]]
                else:
                    targets = [q for q in self.pkgs if q in json.dumps(v)]
                if any(q not in cat["pkgs"] and len(self.carriers(q)) > 1 for q in targets):
                    n += 1
        return n

    def cluster(self):
        r = self.rng
        subs, installed = [], []
        names = list(self.pkgs)
        # applications whose bundles have dependencies, mostly
        pool = [n for n in names for _ in range(6 if n in self.apps and any(self.all_bundles[b]["deps"]
                                                                           for b in self.pkgs[n]["bundles"])
                                                 else 2 if n in self.apps else 1)]
        chosen = [self.planted[0]] if self.planted else []
        for _ in range(min(len(names) - len(chosen), r.randint(1, 3) - len(chosen))):
            left = [n for n in pool if n not in chosen and not (self.planted and n == self.planted[2])]
            if not left:
                break
            pkg = r.choice(left)
            chosen.append(pkg)
        if r.random() < 0.03:
            chosen[-1] = "nowhere"
        for pkg in chosen:
            sub = {"name": pkg, "package": pkg}
            homes = [c for c in self.cats if pkg in c["pkgs"]]
            # mostly a catalog that lacks what the package's bundles need
            needy = [c for c in homes if self.outside(c, pkg)]
            planted = self.planted and pkg == self.planted[0]
            if planted:
                cat = self.planted[1]
                if cat is not self.cats[0] or r.random() < 0.7:
                    sub["catalog"] = cat["name"]
                    sub["catalogNamespace"] = cat["namespace"]
            elif r.random() < 0.12 and (self.cats[0] in homes or r.random() < 0.2):
                cat = self.cats[0]  # no catalog named: the first one
            elif needy and r.random() < 0.7:
                cat = r.choice(needy)
                sub["catalog"] = cat["name"]
                sub["catalogNamespace"] = cat["namespace"]
            else:
                cat = r.choice(homes if homes and r.random() < 0.97 else self.cats)
                sub["catalog"] = cat["name"]
                sub["catalogNamespace"] = cat["namespace"]
            v = cat["pkgs"].get(pkg)
            if v is None:
                sub["channel"] = self.pkgs[pkg]["default"] if pkg in self.pkgs else "stable"
                subs.append(sub)
                continue
            x = r.random()
            if x < 0.5:
                ch = v["default"]
            elif x < 0.8:
                ch = r.choice(sorted(v["channels"]))
            elif x < 0.993:
                ch = ""
            else:
                ch = "beta"  # no such channel
            sub["channel"] = ch
            mine = [e["name"] for c, es in sorted(v["channels"].items()) for e in es]
            in_channel = [e["name"] for c, es in sorted(v["channels"].items())
                          if ch in ("", c) for e in es] or mine
            if r.random() < 0.15:
                sub["startingCSV"] = r.choice(in_channel) if r.random() < 0.9 else f"{pkg}.v9.9.9"
            if r.random() < (0.15 if planted else 0.5):
                p = self.pkgs[pkg]
                y = r.random()
                elsewhere = [b for b in p["bundles"] if b not in mine]
                if y < 0.7 or (y < 0.85 and not elsewhere):
                    csv = r.choice(in_channel)
                    version = self.all_bundles[csv]["version"]
                elif y < 0.85:  # a version only other catalogs have
                    csv = r.choice(elsewhere)
                    version = self.all_bundles[csv]["version"]
                elif y < 0.95:
                    csv, version = p["prev"], p["prev_version"]
                else:
                    csv, version = f"{pkg}.v0.0.1", "0.0.1"
                sub["installedCSV"] = csv
                if r.random() < 0.93 and csv not in [i["name"] for i in installed]:
                    installed.append(self.installed_csv(csv, pkg, version))
            subs.append(sub)
        free = [n for n in names if n not in chosen and not (self.planted and n == self.planted[2])]
        for _ in range(r.choice([0, 0, 0, 0, 0, 1, 1, 2])):
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
        self.make_catalogs()
        self.make_packages()
        self.make_channels()
        self.roles()
        self.distribute()
        for b in self.all_bundles:
            self.all_bundles[b]["deps"] = self.dependencies(b)
        self.plant()
        self.vary()
        subs, installed = self.cluster()
        cats = [{"name": c["name"], "namespace": c["namespace"], "priority": c["priority"],
                 "entries": self.catalog_entries(c)} for c in self.cats]
        return {"namespace": self.namespace, "globalNamespace": self.global_ns,
                "catalog": cats[0], "catalogs": cats[1:],
                "subscriptions": subs, "installed": installed}


def main():
    args = sys.argv[1:]
    multi = bool(args) and args[0] == "--catalogs"
    if multi:
        args = args[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    seed, count, outdir = args[0], int(args[1]), args[2]
    os.makedirs(outdir, exist_ok=True)
    for n in range(count):
        if multi:
            case = MultiCase(random.Random(f"multi-{seed}-{n}")).build()
            name = f"multi-{seed}-{n:03d}.json"
        else:
            case = Case(random.Random(f"{seed}-{n}")).build()
            name = f"gen-{seed}-{n:03d}.json"
        with open(os.path.join(outdir, name), "w") as f:
            json.dump(case, f, indent=None)
            f.write("\n")


if __name__ == "__main__":
    main()
