#!/usr/bin/env python3
"""`render` and `template` (semver) against opm's, over the same bundle images, interleaved.

    python3 tools/measure-render.py SHARED_CATALOGS_DIR [--bundles 50] [--runs 5] [--package P]

The first N bundles (by name) of package P (default patterns-operator, 80 bundles) that
community-v4.16 carries as `olm.bundle.object` are re-packed
(tools/bundles-from-catalog.py) and pushed to a Debian `docker-registry` on loopback.
Each round runs, once each and alternating which goes first: `opm render REF...
--use-http` against `fbc-registry render REF...`, and `opm alpha render-template semver
T --use-http` against `fbc-registry template T` (T: every image in `stable`, minor
channels). Wall time and the child's CPU time are recorded; nothing is cached between
runs by either. Prints the medians, the ratios fbc/opm, and whether outputs were identical.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_images  # noqa: E402


def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed: {p.stderr[-2000:]}")
    return wall, cpu, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shared")
    ap.add_argument("--bundles", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--opm", default=os.path.expanduser("~/.cache/fbc-peers/opm/opm-v1.32.0"))
    ap.add_argument("--fbc", default="target/release/fbc-registry")
    ap.add_argument("--package", default="patterns-operator")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="measure-render-")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundles-from-catalog.py")
    subprocess.run([sys.executable, tool, os.path.join(args.shared, "community-v4.16"), work], check=True)
    names = sorted(n for n in os.listdir(work) if n.startswith(args.package + "."))[: args.bundles]
    registry = bundle_images.Registry()
    try:
        refs = [bundle_images.push_bundle(registry, os.path.join(work, n), f"bundles/{n}") for n in names]
        template = os.path.join(work, "semver.json")
        with open(template, "w") as f:
            json.dump({"schema": "olm.semver", "stable": {"bundles": [{"image": r} for r in refs]}}, f)
        results = {k: [] for k in ("opm", "fbc", "opm-template", "fbc-template")}
        outputs = {}
        cmds = {
            "opm": [args.opm, "render", *refs, "--use-http"],
            "fbc": [args.fbc, "render", *refs],
            "opm-template": [args.opm, "alpha", "render-template", "semver", template, "--use-http"],
            "fbc-template": [args.fbc, "template", template],
        }
        for i in range(args.runs):
            order = ["opm", "fbc", "opm-template", "fbc-template"]
            if i % 2:
                order = ["fbc", "opm", "fbc-template", "opm-template"]
            for who in order:
                wall, cpu, out = timed(cmds[who])
                results[who].append((wall, cpu))
                outputs[who] = out
        for who in results:
            walls = [w for w, _ in results[who]]
            cpus = [c for _, c in results[who]]
            print(f"{who}: wall median {statistics.median(walls):.3f} s {[round(w, 3) for w in walls]}, "
                  f"cpu median {statistics.median(cpus):.3f} s")
        for opm, fbc in (("opm", "fbc"), ("opm-template", "fbc-template")):
            ratio = statistics.median([w for w, _ in results[fbc]]) / statistics.median([w for w, _ in results[opm]])
            print(f"{fbc} over {len(refs)} bundle images: fbc/opm wall = {ratio:.3f}; "
                  f"identical output: {outputs[opm] == outputs[fbc]}")
    finally:
        registry.close()


if __name__ == "__main__":
    main()
