#!/usr/bin/env python3
"""`fbc-registry template` next to `opm alpha render-template` (v1.32.0), over bundle images in a local registry.

    python3 tools/template-diff.py [--opm PATH] [--fbc PATH] [--record DIR] BUNDLE_DIR...

The bundle directories (one package, e.g. tools/bundles-from-catalog.py's output) are
pushed to a Debian `docker-registry` on loopback; then semver templates with each
option set of SEMVER_CASES (the bundles spread over candidate, fast and stable by
position) and one basic template are rendered by both as JSON, YAML and Mermaid. opm
v1.32.0's basic template is a plain FBC stream; ours is today's `olm.template.basic`
wrapper around the same entries. Prints one line per case; exit 1 on any difference.
--record DIR writes opm's outputs (registry address → REGISTRY) and the templates.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_images  # noqa: E402

SEMVER_CASES = {
    "minor": {},
    "major": {"generateMajorChannels": True},
    "both-minor": {"generateMajorChannels": True, "generateMinorChannels": True},
    "both-major": {"generateMajorChannels": True, "generateMinorChannels": True, "defaultChannelTypePreference": "major"},
    "bad-pref": {"generateMajorChannels": True, "defaultChannelTypePreference": "minor"},
    "unknown-field": {"avoidSkipPatch": True},
}
OUTPUTS = {"json": [], "yaml": ["-o", "yaml"], "mermaid": ["-o", "mermaid"]}


def last_error(stderr):
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    line = lines[-1] if lines else ""
    line = re.sub(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d ", "", line)
    m = re.match(r'^time=".*?" level=fatal msg="(.*)"$', line)
    return m.group(1).encode().decode("unicode_escape") if m else line


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opm", default=os.path.expanduser("~/.cache/fbc-peers/opm/opm-v1.32.0"))
    ap.add_argument("--fbc", default="target/debug/fbc-registry")
    ap.add_argument("--record")
    ap.add_argument("bundles", nargs="+")
    args = ap.parse_args()
    registry = bundle_images.Registry()
    work = tempfile.mkdtemp(prefix="template-diff-")
    failures = total = 0
    try:
        refs = [bundle_images.push_bundle(registry, b, "bundles/" + os.path.basename(os.path.normpath(b)))
                for b in args.bundles]
        thirds = {"candidate": refs[0::3], "fast": refs[1::3], "stable": refs[2::3]}
        cases = {}
        for name, options in SEMVER_CASES.items():
            t = {"schema": "olm.semver", **options}
            for arch, rs in thirds.items():
                if rs:
                    t[arch] = {"bundles": [{"image": r} for r in rs]}
            cases["semver-" + name] = (["alpha", "render-template", "semver"], t, t)
        entries = [{"schema": "olm.package", "name": "PKG", "defaultChannel": "stable"}]
        plain = [{"schema": "olm.bundle", "image": r} for r in refs]
        cases["basic"] = (["alpha", "render-template", "basic"], entries + plain,
                          {"schema": "olm.template.basic", "entries": entries + plain})
        for name, (opm_cmd, opm_t, fbc_t) in cases.items():
            opm_file = os.path.join(work, name + ".opm.yaml")
            fbc_file = os.path.join(work, name + ".yaml")
            with open(opm_file, "w") as f:
                if isinstance(opm_t, list):
                    f.write("".join(json.dumps(d) + "\n" for d in opm_t))
                else:
                    json.dump(opm_t, f)
            with open(fbc_file, "w") as f:
                json.dump(fbc_t, f)
            for out_name, flags in OUTPUTS.items():
                if name == "basic" and out_name == "mermaid":
                    continue
                total += 1
                o = run([args.opm, *opm_cmd, opm_file, "--use-http", *flags])
                f_ = run([args.fbc, "template", fbc_file, "--use-http", *flags])
                opm_text = o[1] if o[0] == 0 else last_error(o[2]).replace(opm_file, "FILE") + "\n"
                fbc_text = f_[1] if f_[0] == 0 else last_error(f_[2]).replace(fbc_file, "FILE") + "\n"
                same = (o[0] == 0) == (f_[0] == 0) and opm_text == fbc_text
                print(f"{name} [{out_name}]: {'same' if same else 'DIFFERENT'} ({'ok' if o[0] == 0 else 'error'})")
                if not same:
                    failures += 1
                    base = f"/tmp/template-diff.{name}.{out_name}"
                    open(base + ".opm", "w").write(opm_text)
                    open(base + ".fbc", "w").write(fbc_text)
                    print(f"  diff {base}.opm {base}.fbc")
                if args.record:
                    os.makedirs(args.record, exist_ok=True)
                    suffix = "out" if o[0] == 0 else "err"
                    with open(os.path.join(args.record, f"{name}.{out_name}.{suffix}"), "w") as out:
                        out.write(opm_text.replace(registry.host, "REGISTRY"))
                    with open(os.path.join(args.record, f"{name}.template.json"), "w") as out:
                        out.write(json.dumps(fbc_t, indent=1).replace(registry.host, "REGISTRY"))
    finally:
        registry.close()
    print(f"{total - failures}/{total} cases equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
