#!/usr/bin/env python3
"""Re-packs the bundles a catalog carries as `olm.bundle.object` into bundle directories.

    python3 tools/bundles-from-catalog.py CATALOG_DIR OUT_DIR [--limit N]

For every `olm.bundle` with `olm.bundle.object` properties (in file order, then
document order): OUT_DIR/<bundle name>/manifests/NN-<kind>.json holds each object's
decoded bytes as they are in the catalog, metadata/annotations.yaml names the
package and the channels whose entries list the bundle. The result is what the
bundle image looked like, for `tools/render-diff.py` and the shared-catalog test;
nothing of a third-party catalog is copied into the repository.
"""
import argparse
import base64
import json
import os
import sys

import yaml


def documents(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    if text.lstrip().startswith("{"):
        dec = json.JSONDecoder()
        i = 0
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                return
            obj, i = dec.raw_decode(text, i)
            yield obj
    else:
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict):
                yield doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("catalog")
    ap.add_argument("out")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    blobs = []
    for root, dirs, files in os.walk(args.catalog):
        dirs.sort()
        for name in sorted(files):
            blobs.extend(documents(os.path.join(root, name)))
    channels = {}
    for b in blobs:
        if b.get("schema") == "olm.channel":
            for e in b.get("entries") or []:
                channels.setdefault((b.get("package"), e.get("name")), []).append(b.get("name"))
    count = 0
    for b in blobs:
        if b.get("schema") != "olm.bundle":
            continue
        objects = [p["value"]["data"] for p in b.get("properties") or [] if p.get("type") == "olm.bundle.object"]
        if not objects:
            continue
        target = os.path.join(args.out, b["name"])
        os.makedirs(os.path.join(target, "manifests"), exist_ok=True)
        os.makedirs(os.path.join(target, "metadata"), exist_ok=True)
        for i, data in enumerate(objects):
            raw = base64.b64decode(data)
            try:
                kind = json.loads(raw).get("kind", "object")
            except ValueError:
                kind = "object"
            with open(os.path.join(target, "manifests", f"{i:02d}-{kind.lower()}.json"), "wb") as f:
                f.write(raw)
        chans = sorted(channels.get((b.get("package"), b["name"]), []))
        annotations = {
            "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
            "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
            "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
            "operators.operatorframework.io.bundle.package.v1": b.get("package", ""),
            "operators.operatorframework.io.bundle.channels.v1": ",".join(chans),
        }
        with open(os.path.join(target, "metadata", "annotations.yaml"), "w") as f:
            yaml.safe_dump({"annotations": annotations}, f)
        count += 1
        if args.limit and count >= args.limit:
            break
    print(f"{count} bundles in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
