#!/usr/bin/env python3
"""fbc-registry's filter against catalog-filter (oc-mirror v2's filter), case by case.

    tools/filter-diff.py [--peer BIN] [--ours BIN] [--packages N] [--record DIR] CATALOG...

For each catalog directory it makes filter cases (every package heads only, every package in
full, and for each of the first N packages by name: the package alone, its default channel from
the median version up, and its default channel's two highest bundles), runs both filters on each
and compares what they keep: packages, default channels, each channel's entries. Every bundle one
keeps and the other does not is labelled with the verdict fbc-registry's `--explain` gives it (kept
as `dependency`, `path` or `head`; dropped and why), so each difference says why it is one.

Prints a summary by label and, with --markdown, one table row per differing case. --record DIR
writes each case (config, catalog-filter's answer, the labelled differences) as DIR/NAME.json,
the fixture tests/filter_differential.rs replays without the peer. Record only catalogs whose
content may be in the repository (its own fixtures), never third-party catalogs.

BIN defaults: the peer at ${XDG_CACHE_HOME:-~/.cache}/fbc-peers/catalog-filter/catalog-filter
(tools/catalog-filter/build.sh), ours at target/release/fbc-registry.
"""
import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HEADER = "apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\n"


def stream(text):
    """Concatenated JSON objects (ours one per line, declcfg.WriteJSON's indented)."""
    decoder, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        obj, i = decoder.raw_decode(text, i)
        out.append(obj)


def shape(metas):
    """What a filter kept: {package: {"defaultChannel", "channels": {name: sorted entries}}}."""
    out = {}
    for m in metas:
        if m.get("schema") == "olm.package":
            out.setdefault(m["name"], {"channels": {}})["defaultChannel"] = m.get("defaultChannel", "")
    for m in metas:
        if m.get("schema") == "olm.channel":
            p = out.setdefault(m["package"], {"channels": {}, "defaultChannel": ""})
            p["channels"][m["name"]] = sorted(e["name"] for e in m.get("entries", []))
    return out


def version(bundle):
    for p in bundle.get("properties", []):
        if p.get("type") == "olm.package":
            return p["value"].get("version", "")
    return ""


def vkey(v):
    core = v.split("+")[0].split("-")[0]
    try:
        return tuple(int(x) for x in core.split(".")), v
    except ValueError:
        return (0,), v


def cases(metas, limit):
    """(name, config body, full) for one catalog."""
    yield "heads", "", False
    yield "full", "", True
    packages = sorted(m["name"] for m in metas if m.get("schema") == "olm.package")
    versions = {(m["package"], m["name"]): version(m) for m in metas if m.get("schema") == "olm.bundle"}
    for pkg in packages[:limit]:
        yield f"{pkg}", f"packages:\n  - name: {pkg}\n", False
        default = next(m.get("defaultChannel", "") for m in metas
                       if m.get("schema") == "olm.package" and m["name"] == pkg)
        channel = next((m for m in metas if m.get("schema") == "olm.channel"
                        and m["package"] == pkg and m["name"] == default), None)
        if not channel:
            continue
        entries = sorted((versions.get((pkg, e["name"]), ""), e["name"]) for e in channel["entries"])
        entries.sort(key=lambda x: vkey(x[0]))
        channel_of = f"packages:\n  - name: {pkg}\n    channels:\n      - name: {default}\n"
        if len(entries) >= 2:
            median = entries[len(entries) // 2][0]
            yield f"{pkg}-window", channel_of + f"        versionRange: \">={median}\"\n", False
            top = [e[1] for e in entries[-2:]]
            yield (f"{pkg}-bundles", f"packages:\n  - name: {pkg}\n    bundles:\n"
                   + "".join(f"      - name: {b}\n" for b in top), False)
        if len(entries) >= 4:
            low, high = entries[len(entries) // 4][0], entries[3 * len(entries) // 4][0]
            yield f"{pkg}-middle", channel_of + f"        versionRange: \">={low} <{high}\"\n", False
            ends = [entries[0][1], entries[-1][1]]
            yield (f"{pkg}-ends", f"packages:\n  - name: {pkg}\n    bundles:\n"
                   + "".join(f"      - name: {b}\n" for b in ends), False)
        others = sorted(m["name"] for m in metas if m.get("schema") == "olm.channel"
                        and m["package"] == pkg and m["name"] != default)
        if others:
            yield (f"{pkg}-other-channel", f"packages:\n  - name: {pkg}\n    channels:\n"
                   f"      - name: {others[0]}\n", False)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    return p.returncode, p.stdout, p.stderr


def verdicts(explain):
    """`package/bundle: kept (x) [...]: why` lines → {(package, bundle): label}."""
    out = {}
    for line in explain.splitlines():
        head, _, rest = line.partition(": ")
        if "/" not in head or not rest:
            continue
        pkg, bundle = head.split("/", 1)
        if rest.startswith("kept ("):
            out[(pkg, bundle)] = "kept as " + rest[len("kept ("):rest.index(")")]
        elif rest.startswith("dropped"):
            why = rest.split(": ", 1)[1] if ": " in rest else ""
            if why.startswith("not a channel head"):
                why = "not a head"
            elif "version is not in" in why:
                why = "out of range"
            elif "no upgrade edge" in why or "no path" in why:
                why = "no path to the head"
            out[(pkg, bundle)] = "dropped: " + (why[:60] or "?")
    return out


def compare(ours, theirs, labels):
    """The differences: (label, detail) pairs, in a fixed order."""
    diffs = []
    for pkg in sorted(set(ours) | set(theirs)):
        o, t = ours.get(pkg), theirs.get(pkg)
        if o is None or t is None:
            diffs.append(("package only in " + ("catalog-filter" if o is None else "fbc-registry"), pkg))
            continue
        if o["defaultChannel"] != t["defaultChannel"]:
            diffs.append(("default channel", f"{pkg}: {t['defaultChannel']} → {o['defaultChannel']}"))
        for ch in sorted(set(o["channels"]) | set(t["channels"])):
            oe, te = set(o["channels"].get(ch, [])), set(t["channels"].get(ch, []))
            if ch not in o["channels"] or ch not in t["channels"]:
                who = "catalog-filter" if ch not in o["channels"] else "fbc-registry"
                diffs.append((f"channel only in {who}", f"{pkg}/{ch}"))
                continue
            for b in sorted(oe - te):
                diffs.append(("fbc-registry keeps, " + labels.get((pkg, b), "?"), f"{pkg}/{ch}/{b}"))
            for b in sorted(te - oe):
                diffs.append(("catalog-filter keeps, fbc-registry " + labels.get((pkg, b), "?"),
                              f"{pkg}/{ch}/{b}"))
    return diffs


def main():
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", default=str(cache / "fbc-peers/catalog-filter/catalog-filter"))
    ap.add_argument("--ours", default="target/release/fbc-registry")
    ap.add_argument("--packages", type=int, default=10)
    ap.add_argument("--record")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("catalogs", nargs="+")
    a = ap.parse_args()
    totals = collections.Counter()
    outcomes = collections.Counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for catalog in a.catalogs:
            catalog = pathlib.Path(catalog)
            everything = pathlib.Path(tmp, "all.yaml")
            everything.write_text(HEADER + "full: true\n")
            code, out, err = run([a.ours, "filter", str(catalog), "--config", str(everything)])
            if code:
                print(f"{catalog}: fbc-registry cannot read it: {err.strip()}", file=sys.stderr)
                continue
            metas = stream(out)
            for name, body, full in cases(metas, a.packages):
                cfg = pathlib.Path(tmp, "f.yaml")
                cfg.write_text(HEADER + body)
                peer_cmd = [a.peer, "--config", str(cfg)] + (["--full"] if full else []) + [str(catalog)]
                pcode, pout, perr = run(peer_cmd)
                ours_cfg = pathlib.Path(tmp, "o.yaml")
                ours_cfg.write_text(HEADER + ("full: true\n" if full else "") + body)
                ocode, oout, oerr = run([a.ours, "filter", str(catalog), "--config", str(ours_cfg), "--explain"])
                case = f"{catalog.name}/{name}"
                record = {"case": name, "config": body, "full": full}
                if pcode or ocode:
                    outcome = ("both refuse" if pcode and ocode else
                               "only catalog-filter refuses" if pcode else "only fbc-registry refuses")
                    outcomes[outcome] += 1
                    first = lambda s: (s.strip().splitlines() or [""])[0][:160]
                    rows.append((case, outcome, first(perr) if pcode else first(oerr)))
                    record.update(outcome=outcome, theirs_error=perr.strip() if pcode else None,
                                  theirs=None if pcode else shape(stream(pout)))
                    diffs = []
                else:
                    theirs = shape(stream(pout))
                    diffs = compare(shape(stream(oout)), theirs, verdicts(oerr))
                    outcomes["same" if not diffs else "differ"] += 1
                    for label, _ in diffs:
                        totals[label] += 1
                    if diffs:
                        labels = collections.Counter(l for l, _ in diffs)
                        rows.append((case, "differ", "; ".join(f"{n}× {l}" for l, n in sorted(labels.items()))))
                    record.update(outcome="same" if not diffs else "differ", theirs=theirs)
                record["differences"] = [{"label": l, "what": w} for l, w in diffs]
                if a.record:
                    out_dir = pathlib.Path(a.record, catalog.name)
                    out_dir.mkdir(parents=True, exist_ok=True)
                    (out_dir / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print("cases:", dict(sorted(outcomes.items())))
    for label, n in totals.most_common():
        print(f"{n:6}  {label}")
    if a.markdown:
        print("\n| case | outcome | detail |\n|---|---|---|")
        for case, outcome, detail in rows:
            print(f"| `{case}` | {outcome} | {detail.replace('|', '/')} |")


if __name__ == "__main__":
    main()
