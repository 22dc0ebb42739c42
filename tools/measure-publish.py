#!/usr/bin/env python3
"""`publish` against tools/build-image.sh's buildah build of the same image, interleaved.

    python3 tools/measure-publish.py STATIC_BINARY CATALOG_DIR [--runs 5]

Both start from the same statically linked binary and catalog and do the same work: the
index cache built by the binary (`serve --cache-only`), the binary with its opm and
grpc_health_probe links, the catalog at /configs. publish writes an OCI layout;
buildah (vfs storage, chroot isolation, as tools/build-image.sh runs it) builds
deploy/Containerfile into its store and then writes the same OCI layout
(`buildah push … oci:DIR`), so both end with an image on disk. Prints medians and the
ratio publish/buildah.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def buildah_build(binary, catalog, work):
    ctx = os.path.join(work, "ctx")
    os.makedirs(os.path.join(ctx, "rootfs", "bin"))
    shutil.copy(binary, os.path.join(ctx, "rootfs", "bin", "fbc-registry"))
    os.symlink("fbc-registry", os.path.join(ctx, "rootfs", "bin", "grpc_health_probe"))
    os.symlink("fbc-registry", os.path.join(ctx, "rootfs", "bin", "opm"))
    shutil.copytree(catalog, os.path.join(ctx, "configs"))
    subprocess.run([binary, "serve", os.path.join(ctx, "configs"), f"--cache-dir={ctx}/cache", "--cache-only",
                    "--termination-log=/dev/null"], check=True, capture_output=True)
    shutil.copy(os.path.join(ROOT, "deploy", "Containerfile"), os.path.join(ctx, "Containerfile"))
    env = dict(os.environ, BUILDAH_ISOLATION="chroot")
    tag = "localhost/measure-publish:run"
    subprocess.run(["buildah", "--storage-driver=vfs", "bud", "--quiet", "-t", tag, ctx], check=True, capture_output=True, env=env)
    subprocess.run(["buildah", "--storage-driver=vfs", "push", "--quiet", tag, f"oci:{work}/layout:v1"], check=True, capture_output=True, env=env)
    subprocess.run(["buildah", "--storage-driver=vfs", "rmi", "-f", tag], capture_output=True, env=env)


def publish(binary, catalog, work, publisher=None):
    subprocess.run([publisher or binary, "publish", catalog, f"oci-layout:{work}/layout:v1", "--binary", binary],
                   check=True, capture_output=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("catalog")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--publisher", help="the fbc-registry that runs publish (default: BINARY itself)")
    args = ap.parse_args()
    times = {"publish": [], "buildah": []}
    for i in range(args.runs):
        order = [("publish", lambda b, c, w: publish(b, c, w, args.publisher)), ("buildah", buildah_build)]
        if i % 2:
            order.reverse()
        for name, fn in order:
            work = tempfile.mkdtemp(prefix="measure-publish-")
            start = time.monotonic()
            fn(os.path.abspath(args.binary), os.path.abspath(args.catalog), work)
            times[name].append(time.monotonic() - start)
            shutil.rmtree(work, ignore_errors=True)
    for name, ts in times.items():
        print(f"{name}: median {statistics.median(ts):.2f} s {[round(t, 2) for t in ts]}")
    print(f"publish/buildah = {statistics.median(times['publish']) / statistics.median(times['buildah']):.3f}")


if __name__ == "__main__":
    sys.exit(main())
