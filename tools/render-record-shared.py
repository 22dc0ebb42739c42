#!/usr/bin/env python3
"""Records the SHA-256 of `opm render`'s output over the shared catalogs, for
tests/shared_catalogs.rs to compare `fbc-registry render` with (no catalog content is
copied into the repository, only digests).

    python3 tools/render-record-shared.py SHARED_CATALOGS_DIR > tests/fixtures/render/shared.sha256

Two kinds of lines, `KIND NAME FLAGS SHA256`:
- `catalog C F`: `opm render SHARED/C F` (each catalog directory as it is);
- `bundles C F`: every bundle catalog C carries as `olm.bundle.object`, re-packed by
  tools/bundles-from-catalog.py, pushed as REGISTRY/bundles/<name>:v1 to a local
  registry, and rendered by opm in one call (refs in bundle-name order); the output with
  the registry's address replaced by `REGISTRY`.
FLAGS is `json`, `yaml` (`-o yaml`) or `migrate` (`--migrate`).
"""
import hashlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bundle_images  # noqa: E402

FLAG_SETS = {"json": [], "yaml": ["-o", "yaml"], "migrate": ["--migrate"]}
OPM = os.environ.get("OPM", os.path.expanduser("~/.cache/fbc-peers/opm/opm-v1.32.0"))
BUNDLE_CATALOGS = ["community-v4.16", "submariner-4.16"]


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def main():
    shared = sys.argv[1]
    catalogs = sorted(d for d in os.listdir(shared) if os.path.isdir(os.path.join(shared, d)))
    for c in catalogs:
        for name, flags in FLAG_SETS.items():
            out = subprocess.run([OPM, "render", os.path.join(shared, c), *flags],
                                 capture_output=True, text=True, check=True).stdout
            print(f"catalog {c} {name} {sha(out)}", flush=True)
    registry = bundle_images.Registry()
    try:
        for c in BUNDLE_CATALOGS:
            work = tempfile.mkdtemp(prefix="bundles-")
            tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundles-from-catalog.py")
            subprocess.run([sys.executable, tool, os.path.join(shared, c), work], check=True)
            refs = [bundle_images.push_bundle(registry, os.path.join(work, n), f"bundles/{n}")
                    for n in sorted(os.listdir(work))]
            for name, flags in FLAG_SETS.items():
                out = subprocess.run([OPM, "render", *refs, "--use-http", *flags],
                                     capture_output=True, text=True, check=True).stdout
                print(f"bundles {c} {name} {sha(out.replace(registry.host, 'REGISTRY'))}", flush=True)
    finally:
        registry.close()


if __name__ == "__main__":
    main()
