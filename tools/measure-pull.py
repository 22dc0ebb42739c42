#!/usr/bin/env python3
"""Pulling a catalog image from a registry, against the baselines issue #27 names.

Usage: tools/measure-pull.py CATALOG_DIR [RUNS]   (needs docker-registry, skopeo, umoci, curl)

Packages CATALOG_DIR as a catalog image (one gzip layer holding /configs, written here with
Python's tarfile — Debian's umoci 0.4.7 `insert` writes a truncated tar for community-v4.16, which
GNU tar, Python and fbc-registry all refuse — and the configs label), pushes it (skopeo) to
Debian's docker-registry started here on loopback with its own storage,
then measures, in interleaved rounds (each round runs every case once, RUNS rounds, medians):

  curl        fetching the manifest and every blob with curl (what the network part costs)
  dir_cold    `serve DIR` from process start to "serving registry" (no cache): today's cold start
  dir_cold_cache  the same with an empty --cache-dir (the index cache is built and written too)
  dir_warm    the same with a matching --cache-dir: today's warm start
  img_cold    `serve HOST/REPO:TAG` without --cache-dir: resolve, pull, unpack, load, serve
  img_cold_cache  the same with an empty --cache-dir (image store and index cache written too)
  img_cached  the same again on that cache dir: the digest is stored, nothing is pulled
  img_pinned  `serve HOST/REPO@sha256:…` on that cache dir: no request at all
  skopeo_umoci  `skopeo copy docker://… oci:…` + `umoci unpack`: what a user does by hand today

Times are wall-clock from spawning the process to the log line (the port opens only after the
first load), so they include process start. Peak memory is VmHWM of the serving process read
right after that line; RSS is VmRSS half a second later.
"""

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BIN = os.environ.get("FBC_REGISTRY_BIN", "target/release/fbc-registry")
LABEL = "operators.operatorframework.io.index.configs.v1"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(*args, **kw):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def start_registry(tmp):
    port = free_port()
    config = os.path.join(tmp, "registry.yml")
    with open(config, "w") as f:
        f.write(
            f"version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\n"
            f"storage:\n  filesystem:\n    rootdirectory: {tmp}/storage\n"
            f"http:\n  addr: 127.0.0.1:{port}\n  secret: bench\n"
        )
    proc = subprocess.Popen(["docker-registry", "serve", config],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return proc, f"127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    raise SystemExit("docker-registry did not start")


def build_and_push(catalog, tmp, host):
    layout = os.path.join(tmp, "layout")
    write_layout(catalog, layout)
    ref = f"{host}/catalog:v1"
    run("skopeo", "copy", "--insecure-policy", "--dest-tls-verify=false",
        f"oci:{layout}:v1", f"docker://{ref}")
    return ref


def write_layout(catalog, layout):
    """An OCI layout tagged v1: one gzip layer with CATALOG under configs/, the label."""
    import gzip
    import hashlib
    import io
    import tarfile
    blobs_dir = os.path.join(layout, "blobs", "sha256")
    os.makedirs(blobs_dir)

    def put(data):
        digest = hashlib.sha256(data).hexdigest()
        with open(os.path.join(blobs_dir, digest), "wb") as f:
            f.write(data)
        return {"digest": f"sha256:{digest}", "size": len(data)}

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(catalog, arcname="configs")
    diff_id = "sha256:" + hashlib.sha256(raw.getvalue()).hexdigest()
    layer = put(gzip.compress(raw.getvalue(), mtime=0))
    config = put(json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Labels": {LABEL: "/configs"}},
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
    }).encode())
    manifest = put(json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", **config},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", **layer}],
    }).encode())
    with open(os.path.join(layout, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion":"1.0.0"}')
    with open(os.path.join(layout, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json", **manifest,
            "annotations": {"org.opencontainers.image.ref.name": "v1"}}]}, f)


def blobs(ref):
    raw = subprocess.run(["skopeo", "inspect", "--raw", "--tls-verify=false", f"docker://{ref}"],
                         check=True, capture_output=True).stdout
    manifest = json.loads(raw)
    return [manifest["config"]] + manifest["layers"]


def curl_case(ref, descriptors):
    host, rest = ref.split("/", 1)
    repo, tag = rest.rsplit(":", 1)
    t0 = time.monotonic()
    run("curl", "-sf", "-o", "/dev/null", "-H",
        "Accept: application/vnd.oci.image.manifest.v1+json",
        f"http://{host}/v2/{repo}/manifests/{tag}")
    for d in descriptors:
        run("curl", "-sf", "-o", "/dev/null", f"http://{host}/v2/{repo}/blobs/{d['digest']}")
    return {"ms": (time.monotonic() - t0) * 1000}


def serve_case(args):
    """Starts `serve ARGS`; time to "serving registry", VmHWM then, VmRSS 0.5 s later."""
    port = free_port()
    t0 = time.monotonic()
    proc = subprocess.Popen([BIN, "serve", "-p", str(port), "--watch=false", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log = []
    try:
        for line in proc.stderr:
            log.append(line)
            if "serving registry" in line:
                ms = (time.monotonic() - t0) * 1000
                hwm = status_kb(proc.pid, "VmHWM")
                time.sleep(0.5)
                return {"ms": ms, "hwm_kb": hwm, "rss_kb": status_kb(proc.pid, "VmRSS")}
        raise SystemExit("serve exited:\n" + "".join(log))
    finally:
        proc.kill()
        proc.wait()


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def skopeo_umoci_case(ref, tmp):
    work = tempfile.mkdtemp(dir=tmp)
    t0 = time.monotonic()
    run("skopeo", "copy", "--insecure-policy", "--src-tls-verify=false",
        f"docker://{ref}", f"oci:{work}/l:v1")
    run("umoci", "unpack", "--rootless", "--image", f"{work}/l:v1", f"{work}/bundle")
    ms = (time.monotonic() - t0) * 1000
    shutil.rmtree(work, ignore_errors=True)
    return {"ms": ms}


def main():
    catalog = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    tmp = tempfile.mkdtemp(prefix="measure-pull-")
    registry, host = start_registry(tmp)
    try:
        ref = build_and_push(catalog, tmp, host)
        descriptors = blobs(ref)
        size = sum(d["size"] for d in descriptors)
        warm_cache = os.path.join(tmp, "dir-cache")
        run(BIN, "serve", catalog, "--cache-only", "--cache-dir", warm_cache)
        results = {k: [] for k in
                   ["curl", "dir_cold", "dir_cold_cache", "dir_warm", "img_cold",
                    "img_cold_cache", "img_cached", "img_pinned", "skopeo_umoci"]}
        for _ in range(runs):
            cache = tempfile.mkdtemp(dir=tmp)
            results["curl"].append(curl_case(ref, descriptors))
            results["dir_cold"].append(serve_case([catalog]))
            results["img_cold"].append(serve_case([ref]))
            results["dir_cold_cache"].append(
                serve_case([catalog, "--cache-dir", tempfile.mkdtemp(dir=tmp)]))
            results["img_cold_cache"].append(serve_case([ref, "--cache-dir", cache]))
            results["dir_warm"].append(serve_case([catalog, "--cache-dir", warm_cache]))
            results["img_cached"].append(serve_case([ref, "--cache-dir", cache]))
            stored = [n for n in os.listdir(os.path.join(cache, "images")) if n.startswith("sha256-")]
            pinned = ref.rsplit(":", 1)[0] + "@sha256:" + stored[0][len("sha256-"):]
            results["img_pinned"].append(serve_case([pinned, "--cache-dir", cache]))
            results["skopeo_umoci"].append(skopeo_umoci_case(ref, tmp))
            shutil.rmtree(cache, ignore_errors=True)
        med = {k: {f: statistics.median(r[f] for r in v) for f in v[0]} for k, v in results.items()}
        print(f"catalog={catalog} image_bytes={size} runs={runs}")
        for k, v in med.items():
            print(k, " ".join(f"{f}={x:.0f}" for f, x in v.items()))
        baseline = med["curl"]["ms"] + med["dir_cold"]["ms"]
        print(f"img_cold / (curl + dir_cold) = {med['img_cold']['ms'] / baseline:.2f} (target <= 1.5)")
        baseline_cache = med["curl"]["ms"] + med["dir_cold_cache"]["ms"]
        print(f"img_cold_cache / (curl + dir_cold_cache) = {med['img_cold_cache']['ms'] / baseline_cache:.2f}")
        print(f"img_cached / dir_warm = {med['img_cached']['ms'] / med['dir_warm']['ms']:.2f}")
        print(f"img_pinned / dir_warm = {med['img_pinned']['ms'] / med['dir_warm']['ms']:.2f}")
        for case, base in [("img_cold", "dir_cold"), ("img_cold_cache", "dir_cold_cache")]:
            print(f"{case} peak - {base} peak = {(med[case]['hwm_kb'] - med[base]['hwm_kb']) / 1024:.1f} MiB"
                  f"; {case} peak - {base} RSS = {(med[case]['hwm_kb'] - med[base]['rss_kb']) / 1024:.1f} MiB (target <= 32)")
        print(f"img_cold / skopeo_umoci = {med['img_cold']['ms'] / med['skopeo_umoci']['ms']:.2f}")
    finally:
        registry.kill()
        registry.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
