#!/usr/bin/env python3
"""`render` next to the real `opm render`, bundle by bundle, over bundle images in a local registry.

    python3 tools/render-diff.py [--opm PATH] [--fbc PATH] [--record DIR] BUNDLE_DIR...

Each bundle directory is pushed as an image (tools/bundle_images.py) to a Debian
`docker-registry` on loopback; then `opm render REF --use-http` and `fbc-registry render
REF --use-http` run with each flag set of FLAG_SETS and their stdout (or, when both
fail, the last line of stderr without opm's log prefix) are compared byte for byte.
Prints one line per case and a summary; exit 1 when any case differs.

--record DIR writes opm's outputs, with the registry's address replaced by `REGISTRY`,
as DIR/<bundle>.<flags>.out (and .err), the fixtures tests/integration/render.rs
replays without opm.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_images  # noqa: E402

FLAG_SETS = {"json": [], "yaml": ["-o", "yaml"], "migrate": ["--migrate"]}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def last_error(stderr):
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    if not lines:
        return ""
    line = lines[-1]
    # opm logs through logrus: time="…" level=fatal msg="…" or FATA[0000] …
    m = re.match(r'^time=".*?" level=fatal msg="(.*)"$', line)
    if m:
        return m.group(1).encode().decode("unicode_escape")
    line = re.sub(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d ", "", line)
    return re.sub(r"^FATA\[\d+\] ", "", line)


def main():
    home = os.path.expanduser("~")
    ap = argparse.ArgumentParser()
    ap.add_argument("--opm", default=os.path.join(home, ".cache/fbc-peers/opm/opm-v1.32.0"))
    ap.add_argument("--fbc", default="target/debug/fbc-registry")
    ap.add_argument("--record")
    ap.add_argument("bundles", nargs="+")
    args = ap.parse_args()
    registry = bundle_images.Registry()
    failures = 0
    try:
        for bundle in args.bundles:
            name = os.path.basename(os.path.normpath(bundle))
            ref = bundle_images.push_bundle(registry, bundle, f"bundles/{name}")
            for flags_name, flags in FLAG_SETS.items():
                o_rc, o_out, o_err = run([args.opm, "render", ref, "--use-http", *flags])
                f_rc, f_out, f_err = run([args.fbc, "render", ref, "--use-http", *flags])
                if o_rc == 0 and f_rc == 0:
                    same = o_out == f_out
                    what = "same output" if same else "DIFFERENT output"
                elif o_rc != 0 and f_rc != 0:
                    same = last_error(o_err) == last_error(f_err)
                    what = "same error" if same else "both fail, DIFFERENT error"
                else:
                    same = False
                    what = f"opm exit {o_rc}, fbc exit {f_rc}"
                print(f"{name} [{flags_name}]: {what}")
                if not same:
                    failures += 1
                    base = f"/tmp/render-diff.{name}.{flags_name}"
                    for side, out, err in (("opm", o_out, o_err), ("fbc", f_out, f_err)):
                        with open(f"{base}.{side}", "w") as f:
                            f.write(out if out else last_error(err) + "\n")
                    print(f"  diff {base}.opm {base}.fbc")
                if args.record:
                    os.makedirs(args.record, exist_ok=True)
                    text = o_out if o_rc == 0 else last_error(o_err) + "\n"
                    suffix = "out" if o_rc == 0 else "err"
                    with open(os.path.join(args.record, f"{name}.{flags_name}.{suffix}"), "w") as f:
                        f.write(text.replace(registry.host, "REGISTRY"))
    finally:
        registry.close()
    total = len(args.bundles) * len(FLAG_SETS)
    print(f"{total - failures}/{total} cases equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
