"""Bundle directories → bundle images in a throwaway Debian `docker-registry` on loopback.

Shared by tools/render-diff.py and the benchmarks: `Registry()` starts
`docker-registry serve` with its own config and storage in a temporary directory on a
port it picks; `push_bundle(registry, bundle_dir, repo, tag)` packs the directory's
`manifests/` and `metadata/` into one gzip layer (sorted entries, owner 0, time 0:
the same bytes every run), labels the image from `metadata/annotations.yaml` (or from
`image-labels.json` beside the two directories, for bundles whose annotations are the
point of the test), writes an OCI layout and copies it with skopeo.
"""
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import threading

LABEL_KEYS = [
    "operators.operatorframework.io.bundle.mediatype.v1",
    "operators.operatorframework.io.bundle.manifests.v1",
    "operators.operatorframework.io.bundle.metadata.v1",
    "operators.operatorframework.io.bundle.package.v1",
    "operators.operatorframework.io.bundle.channels.v1",
    "operators.operatorframework.io.bundle.channel.default.v1",
]


class Registry:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="bundle-registry-")
        config = os.path.join(self.dir, "config.yml")
        with open(config, "w") as f:
            f.write(
                "version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: true\n"
                f"storage:\n  filesystem:\n    rootdirectory: {self.dir}/storage\n"
                "http:\n  addr: 127.0.0.1:0\n  secret: s\n"
            )
        self.proc = subprocess.Popen(
            ["docker-registry", "serve", config],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.host = None
        for line in self.proc.stderr:
            m = re.search(r"listening on (?:\[::\]|127\.0\.0\.1):(\d+)", line)
            if m:
                self.host = f"127.0.0.1:{m.group(1)}"
                break
        if not self.host:
            raise RuntimeError("docker-registry did not start")
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def _tar_layer(bundle_dir):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for top in ("manifests", "metadata"):
            base = os.path.join(bundle_dir, top)
            if not os.path.isdir(base):
                continue
            for root, dirs, files in os.walk(base):
                dirs.sort()
                rel_root = os.path.relpath(root, bundle_dir)
                info = tarfile.TarInfo(rel_root + "/")
                info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
                tar.addfile(info)
                for name in sorted(files):
                    path = os.path.join(root, name)
                    with open(path, "rb") as f:
                        data = f.read()
                    info = tarfile.TarInfo(os.path.join(rel_root, name))
                    info.size, info.mode, info.mtime = len(data), 0o644, 0
                    tar.addfile(info, io.BytesIO(data))
    tar_bytes = raw.getvalue()
    gz = io.BytesIO()
    with gzip.GzipFile(fileobj=gz, mode="wb", mtime=0) as g:
        g.write(tar_bytes)
    return tar_bytes, gz.getvalue()


def labels_of(bundle_dir):
    override = os.path.join(bundle_dir, "image-labels.json")
    if os.path.exists(override):
        with open(override) as f:
            return json.load(f)
    import yaml
    labels = {}
    path = os.path.join(bundle_dir, "metadata", "annotations.yaml")
    try:
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
        for k in LABEL_KEYS:
            v = (doc.get("annotations") or {}).get(k)
            if v is not None:
                labels[k] = str(v)
    except (OSError, yaml.YAMLError, AttributeError):
        pass
    return labels


def _blob(layout, data):
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(layout, "blobs", "sha256", digest)
    with open(path, "wb") as f:
        f.write(data)
    return "sha256:" + digest


def push_bundle(registry, bundle_dir, repo, tag="v1"):
    """Pushes `bundle_dir` as HOST/repo:tag; returns the reference."""
    layout = tempfile.mkdtemp(prefix="bundle-layout-")
    try:
        os.makedirs(os.path.join(layout, "blobs", "sha256"))
        tar_bytes, gz = _tar_layer(bundle_dir)
        config = {
            "architecture": "amd64", "os": "linux",
            "config": {"Labels": labels_of(bundle_dir)},
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(tar_bytes).hexdigest()]},
        }
        config_bytes = json.dumps(config, sort_keys=True).encode()
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                       "digest": _blob(layout, config_bytes), "size": len(config_bytes)},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                        "digest": _blob(layout, gz), "size": len(gz)}],
        }
        manifest_bytes = json.dumps(manifest, sort_keys=True).encode()
        index = {"schemaVersion": 2, "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": _blob(layout, manifest_bytes), "size": len(manifest_bytes),
            "annotations": {"org.opencontainers.image.ref.name": tag}}]}
        with open(os.path.join(layout, "index.json"), "w") as f:
            json.dump(index, f)
        with open(os.path.join(layout, "oci-layout"), "w") as f:
            json.dump({"imageLayoutVersion": "1.0.0"}, f)
        ref = f"{registry.host}/{repo}:{tag}"
        subprocess.run(
            ["skopeo", "copy", "--quiet", "--dest-tls-verify=false",
             f"oci:{layout}:{tag}", f"docker://{ref}"],
            check=True)
        return ref
    finally:
        shutil.rmtree(layout, ignore_errors=True)
