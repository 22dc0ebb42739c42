//! Images for tests: tar layers with any entry (hostile ones included), compressed as asked, and
//! OCI image layouts holding them. Behind the `test-util` feature.

use crate::digest::Digest;
use std::io::Write;
use std::path::Path;

/// A tar stream built entry by entry. Names are written into the header as given (no checks),
/// so hostile names (`../x`, `/etc/x`) can be made.
#[derive(Default)]
pub struct Tar {
    builder: Option<tar::Builder<Vec<u8>>>,
}

impl Tar {
    /// An empty archive.
    pub fn new() -> Tar {
        Tar {
            builder: Some(tar::Builder::new(Vec::new())),
        }
    }

    fn append(mut self, kind: tar::EntryType, name: &str, link: Option<&str>, data: &[u8]) -> Tar {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_size(data.len() as u64);
        header.set_mode(if kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        let name_field = &mut header.as_old_mut().name;
        let n = name.len().min(name_field.len());
        name_field[..n].copy_from_slice(&name.as_bytes()[..n]);
        if let Some(link) = link {
            let field = &mut header.as_old_mut().linkname;
            let n = link.len().min(field.len());
            field[..n].copy_from_slice(&link.as_bytes()[..n]);
        }
        header.set_cksum();
        if let Some(b) = self.builder.as_mut() {
            b.append(&header, data)
                .expect("appending to an in-memory tar");
        }
        self
    }

    /// A regular file.
    pub fn file(self, name: &str, data: &[u8]) -> Tar {
        self.append(tar::EntryType::Regular, name, None, data)
    }

    /// A regular file whose header claims `size` bytes (the data is zeros): a tar bomb entry.
    pub fn sized_file(self, name: &str, size: usize) -> Tar {
        self.append(tar::EntryType::Regular, name, None, &vec![0u8; size])
    }

    /// A directory.
    pub fn dir(self, name: &str) -> Tar {
        self.append(tar::EntryType::Directory, name, None, b"")
    }

    /// A symlink.
    pub fn symlink(self, name: &str, target: &str) -> Tar {
        self.append(tar::EntryType::Symlink, name, Some(target), b"")
    }

    /// A hard link.
    pub fn hard_link(self, name: &str, target: &str) -> Tar {
        self.append(tar::EntryType::Link, name, Some(target), b"")
    }

    /// An entry of another type (a FIFO, a device…).
    pub fn special(self, name: &str, kind: tar::EntryType) -> Tar {
        self.append(kind, name, None, b"")
    }

    /// The archive's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        match self.builder.take() {
            Some(b) => b.into_inner().expect("finishing an in-memory tar"),
            None => Vec::new(),
        }
    }
}

/// `data` gzip-compressed.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).expect("gzip in memory");
    gz.finish().expect("gzip in memory")
}

/// `data` zstd-compressed.
pub fn zstd(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

/// An image config with `labels`.
pub fn config(labels: &[(&str, &str)]) -> Vec<u8> {
    let labels: serde_json::Map<String, serde_json::Value> = labels
        .iter()
        .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(*v)))
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "architecture": "amd64",
        "os": "linux",
        "config": {"Labels": labels},
        "rootfs": {"type": "layers", "diff_ids": []}
    }))
    .expect("serialising a config")
}

/// An OCI image manifest for `config` and `layers` (all blobs given as their bytes).
pub fn manifest(config: &[u8], layers: &[Vec<u8>]) -> Vec<u8> {
    let descriptor = |media: &str, bytes: &[u8]| serde_json::json!({"mediaType": media, "digest": Digest::of(bytes).to_string(), "size": bytes.len()});
    serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": descriptor("application/vnd.oci.image.config.v1+json", config),
        "layers": layers.iter().map(|l| descriptor("application/vnd.oci.image.layer.v1.tar+gzip", l)).collect::<Vec<_>>(),
    }))
    .expect("serialising a manifest")
}

/// An OCI index of `manifests`, each with its platform (`os/arch`) when given.
pub fn index(manifests: &[(&[u8], Option<&str>)]) -> Vec<u8> {
    let entries: Vec<serde_json::Value> = manifests
        .iter()
        .map(|(bytes, platform)| {
            let mut entry = serde_json::json!({
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": Digest::of(bytes).to_string(),
                "size": bytes.len(),
            });
            if let Some((os, arch)) = platform.and_then(|p| p.split_once('/')) {
                entry["platform"] = serde_json::json!({"os": os, "architecture": arch});
            }
            entry
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": entries,
    }))
    .expect("serialising an index")
}

/// Writes `blob` into the layout at `root`.
pub fn put_blob(root: &Path, blob: &[u8]) -> Digest {
    let digest = Digest::of(blob);
    let dir = root.join("blobs").join("sha256");
    std::fs::create_dir_all(&dir).expect("blobs dir");
    std::fs::write(dir.join(digest.hex()), blob).expect("writing a blob");
    digest
}

/// Writes an OCI layout at `root` whose `index.json` lists `tops` (blob bytes, tag), having
/// written `blobs` (every other blob) first.
pub fn layout(root: &Path, blobs: &[&[u8]], tops: &[(&[u8], Option<&str>)]) {
    std::fs::create_dir_all(root).expect("layout dir");
    std::fs::write(
        root.join("oci-layout"),
        br#"{"imageLayoutVersion":"1.0.0"}"#,
    )
    .expect("oci-layout");
    for blob in blobs {
        put_blob(root, blob);
    }
    let entries: Vec<serde_json::Value> = tops
        .iter()
        .map(|(bytes, tag)| {
            let digest = put_blob(root, bytes);
            let media = serde_json::from_slice::<serde_json::Value>(bytes)
                .ok()
                .and_then(|v| v["mediaType"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "application/vnd.oci.image.manifest.v1+json".to_owned());
            let mut entry = serde_json::json!({"mediaType": media, "digest": digest.to_string(), "size": bytes.len()});
            if let Some(tag) = tag {
                entry["annotations"] = serde_json::json!({crate::spec::REF_NAME: tag});
            }
            entry
        })
        .collect();
    let index = serde_json::json!({"schemaVersion": 2, "manifests": entries});
    std::fs::write(
        root.join("index.json"),
        serde_json::to_vec(&index).expect("index"),
    )
    .expect("index.json");
}

/// A tar stream holding every file of `dir` under `configs/` (the directory first, files in
/// path order): a catalog directory as a catalog image's layer.
pub fn configs_tar(dir: &Path) -> Vec<u8> {
    configs_tars(dir, 1).swap_remove(0)
}

/// `n` tar streams (at least one) holding the files of `dir` under `configs/`, dealt out in
/// path order (file `i` in stream `i % n`), each with the directory first: a catalog
/// directory as a catalog image of `n` layers.
pub fn configs_tars(dir: &Path, n: usize) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    let n = n.max(1);
    (0..n)
        .map(|layer| {
            files
                .iter()
                .skip(layer)
                .step_by(n)
                .fold(Tar::new().dir("configs/"), |tar, path| {
                    let rel = path.strip_prefix(dir).expect("under dir").display();
                    tar.file(
                        &format!("configs/{rel}"),
                        &std::fs::read(path).expect("read"),
                    )
                })
                .finish()
        })
        .collect()
}

/// A one-image layout at `root` tagged `tag`: the configs label `/configs` and `layers` (tar
/// streams, gzip-compressed here).
pub fn catalog_layout(root: &Path, tag: &str, layers: &[Vec<u8>]) {
    let config = config(&[(crate::spec::CONFIGS_LABEL, "/configs")]);
    let layers: Vec<Vec<u8>> = layers.iter().map(|l| gzip(l)).collect();
    let manifest = manifest(&config, &layers);
    let mut blobs: Vec<&[u8]> = vec![&config];
    blobs.extend(layers.iter().map(Vec::as_slice));
    layout(root, &blobs, &[(&manifest, Some(tag))]);
}
