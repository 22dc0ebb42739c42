#!/usr/bin/env python3
"""`fbc-registry render` vs `opm render` of the same bundle images, interleaved, on this machine.

    python3 tools/measure-render.py SHARED_CATALOGS_DIR [--bundles 50] [--runs 5]

The first N bundles (by name) that community-v4.16 carries as `olm.bundle.object` are
re-packed (tools/bundles-from-catalog.py) and pushed to a Debian `docker-registry` on
loopback; then each round runs `opm render REF... --use-http` and `fbc-registry render
REF...` (release build) once each, alternating which goes first, and records wall time
and the child's CPU time. Both pull every image each run (neither keeps a cache between
runs). Prints the medians, the ratio fbc/opm, and whether the outputs were identical.
"""
import argparse
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
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="measure-render-")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundles-from-catalog.py")
    subprocess.run([sys.executable, tool, os.path.join(args.shared, "community-v4.16"), work], check=True)
    names = sorted(os.listdir(work))[: args.bundles]
    registry = bundle_images.Registry()
    try:
        refs = [bundle_images.push_bundle(registry, os.path.join(work, n), f"bundles/{n}") for n in names]
        results = {"opm": [], "fbc": []}
        outputs = {}
        cmds = {
            "opm": [args.opm, "render", *refs, "--use-http"],
            "fbc": [args.fbc, "render", *refs],
        }
        for i in range(args.runs):
            order = ["opm", "fbc"] if i % 2 == 0 else ["fbc", "opm"]
            for who in order:
                wall, cpu, out = timed(cmds[who])
                results[who].append((wall, cpu))
                outputs[who] = out
        for who in ("opm", "fbc"):
            walls = [w for w, _ in results[who]]
            cpus = [c for _, c in results[who]]
            print(f"{who}: wall median {statistics.median(walls):.3f} s {[round(w, 3) for w in walls]}, "
                  f"cpu median {statistics.median(cpus):.3f} s")
        ratio = statistics.median([w for w, _ in results["fbc"]]) / statistics.median([w for w, _ in results["opm"]])
        print(f"{len(refs)} bundle images: fbc/opm wall = {ratio:.3f}; identical output: {outputs['opm'] == outputs['fbc']}")
    finally:
        registry.close()


if __name__ == "__main__":
    main()
