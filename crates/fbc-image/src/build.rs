//! Files → an OCI image, and images → an OCI image layout; no container engine.
//!
//! In: [`Layer`]s (each a list of [`Entry`]: directories, regular files read from disk,
//! symlinks, with owner and mode) and an [`ImageConfig`] (platform, user, entrypoint,
//! command, labels, exposed ports). Out: a [`BuiltImage`] — the gzip layer blobs, the
//! config and the manifest, each with its digest — and [`write_layout`], which writes one
//! image or a multi-platform index of several into an OCI layout under a tag.
//!
//! The bytes are reproducible: entries are written in the order given (callers sort),
//! with time 0, numeric owners only, no extended attributes; gzip at a fixed level with
//! no name or time; JSON with fixed key order. The same inputs give the same digests.

use crate::digest::Digest;
use crate::manifest::Platform;
use flate2::Compression;
use flate2::write::GzEncoder;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One entry of a layer.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Path in the image, relative (`bin/fbc-registry`).
    pub path: String,
    /// What it is.
    pub kind: EntryKind,
    /// Owner user and group ids.
    pub owner: (u64, u64),
    /// Permission bits.
    pub mode: u32,
}

/// What an entry is.
#[derive(Debug, Clone)]
pub enum EntryKind {
    /// A directory.
    Directory,
    /// A regular file with the contents of this file on disk.
    File(PathBuf),
    /// A regular file with these bytes.
    Bytes(Vec<u8>),
    /// A symbolic link to this target.
    Symlink(String),
}

/// The entries of one layer.
pub type Layer = Vec<Entry>;

/// What goes into the image config.
#[derive(Debug, Clone)]
pub struct ImageConfig {
    /// The platform the image is for.
    pub platform: Platform,
    /// `user` (`65532:65532`).
    pub user: String,
    /// `Entrypoint`.
    pub entrypoint: Vec<String>,
    /// `Cmd`.
    pub cmd: Vec<String>,
    /// `WorkingDir`.
    pub working_dir: String,
    /// `Labels`.
    pub labels: BTreeMap<String, String>,
    /// `ExposedPorts` (`50051/tcp`).
    pub exposed_ports: Vec<String>,
}

/// One blob and its digest.
#[derive(Debug, Clone)]
pub struct Blob {
    /// The bytes.
    pub data: Vec<u8>,
    /// Their digest.
    pub digest: Digest,
}

impl Blob {
    fn new(data: Vec<u8>) -> Blob {
        Blob {
            digest: Digest::of(&data),
            data,
        }
    }
}

/// A built image.
#[derive(Debug, Clone)]
pub struct BuiltImage {
    /// Its platform.
    pub platform: Platform,
    /// The compressed layers, in order.
    pub layers: Vec<Blob>,
    /// The config.
    pub config: Blob,
    /// The manifest.
    pub manifest: Blob,
}

/// The OCI media types written.
pub mod media {
    /// An image manifest.
    pub const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
    /// An image index.
    pub const INDEX: &str = "application/vnd.oci.image.index.v1+json";
    /// An image config.
    pub const CONFIG: &str = "application/vnd.oci.image.config.v1+json";
    /// A gzip layer.
    pub const LAYER: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
}

/// Builds one image from `layers` and `config`; the error names the entry that failed.
pub fn build(layers: &[Layer], config: &ImageConfig) -> Result<BuiltImage, String> {
    // Each layer on its own thread: compressing the binary and the catalog are the work.
    let built: Vec<Result<(String, Blob), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = layers
            .iter()
            .map(|layer| scope.spawn(|| compress(layer)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a layer's thread failed".into()))
            })
            .collect()
    });
    let mut blobs = Vec::with_capacity(layers.len());
    let mut diff_ids = Vec::with_capacity(layers.len());
    for layer in built {
        let (diff_id, blob) = layer?;
        diff_ids.push(diff_id);
        blobs.push(blob);
    }
    let ports: serde_json::Map<String, serde_json::Value> = config
        .exposed_ports
        .iter()
        .map(|p| (p.clone(), serde_json::json!({})))
        .collect();
    let mut platform =
        serde_json::json!({"architecture": config.platform.architecture, "os": config.platform.os});
    if let Some(variant) = &config.platform.variant {
        platform["variant"] = serde_json::json!(variant);
    }
    let mut image_config = platform.clone();
    image_config["config"] = serde_json::json!({
        "User": config.user,
        "ExposedPorts": ports,
        "Entrypoint": config.entrypoint,
        "Cmd": config.cmd,
        "WorkingDir": config.working_dir,
        "Labels": config.labels,
    });
    image_config["rootfs"] = serde_json::json!({"type": "layers", "diff_ids": diff_ids});
    let config_blob = Blob::new(json_bytes(&image_config)?);
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": media::MANIFEST,
        "config": {"mediaType": media::CONFIG, "digest": config_blob.digest.to_string(), "size": config_blob.data.len()},
        "layers": blobs.iter().map(|b| serde_json::json!({
            "mediaType": media::LAYER, "digest": b.digest.to_string(), "size": b.data.len()
        })).collect::<Vec<_>>(),
    });
    Ok(BuiltImage {
        platform: config.platform.clone(),
        layers: blobs,
        config: config_blob,
        manifest: Blob::new(json_bytes(&manifest)?),
    })
}

/// A layer's tar digest (its diff id) and its gzip blob.
fn compress(layer: &Layer) -> Result<(String, Blob), String> {
    let tar = tar_of(layer)?;
    let diff_id = Digest::of(&tar).to_string();
    let mut gz = GzEncoder::new(Vec::with_capacity(tar.len() / 3), Compression::new(6));
    gz.write_all(&tar)
        .map_err(|e| format!("compressing a layer: {e}"))?;
    let data = gz
        .finish()
        .map_err(|e| format!("compressing a layer: {e}"))?;
    Ok((diff_id, Blob::new(data)))
}

/// The index naming several images, one per platform.
pub fn index(images: &[BuiltImage]) -> Result<Blob, String> {
    let manifests: Vec<serde_json::Value> = images
        .iter()
        .map(|i| {
            let mut platform = serde_json::json!({"architecture": i.platform.architecture, "os": i.platform.os});
            if let Some(variant) = &i.platform.variant {
                platform["variant"] = serde_json::json!(variant);
            }
            serde_json::json!({"mediaType": media::MANIFEST, "digest": i.manifest.digest.to_string(),
                "size": i.manifest.data.len(), "platform": platform})
        })
        .collect();
    let index =
        serde_json::json!({"schemaVersion": 2, "mediaType": media::INDEX, "manifests": manifests});
    Ok(Blob::new(json_bytes(&index)?))
}

fn json_bytes(value: &serde_json::Value) -> Result<Vec<u8>, String> {
    serde_json::to_vec(value).map_err(|e| format!("encoding JSON: {e}"))
}

fn tar_of(layer: &Layer) -> Result<Vec<u8>, String> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    for entry in layer {
        let fail = |e: std::io::Error| format!("{}: {e}", entry.path);
        let mut header = tar::Header::new_gnu();
        header.set_mtime(0);
        header.set_uid(entry.owner.0);
        header.set_gid(entry.owner.1);
        header.set_mode(entry.mode);
        match &entry.kind {
            EntryKind::Directory => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_size(0);
                builder
                    .append_data(
                        &mut header,
                        format!("{}/", entry.path.trim_end_matches('/')),
                        std::io::empty(),
                    )
                    .map_err(fail)?;
            }
            EntryKind::File(source) => {
                let data = std::fs::read(source)
                    .map_err(|e| format!("{}: {}: {e}", entry.path, source.display()))?;
                header.set_entry_type(tar::EntryType::Regular);
                header.set_size(data.len() as u64);
                builder
                    .append_data(&mut header, &entry.path, data.as_slice())
                    .map_err(fail)?;
            }
            EntryKind::Bytes(data) => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_size(data.len() as u64);
                builder
                    .append_data(&mut header, &entry.path, data.as_slice())
                    .map_err(fail)?;
            }
            EntryKind::Symlink(target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                builder
                    .append_link(&mut header, &entry.path, target)
                    .map_err(fail)?;
            }
        }
    }
    builder
        .into_inner()
        .map_err(|e| format!("finishing a layer: {e}"))
}

/// Every file and directory under `dir`, as entries under `prefix`, sorted by path.
pub fn tree_entries(dir: &Path, prefix: &str, owner: (u64, u64)) -> Result<Layer, String> {
    let mut out = vec![Entry {
        path: prefix.to_string(),
        kind: EntryKind::Directory,
        owner,
        mode: 0o755,
    }];
    let mut stack = vec![(dir.to_path_buf(), prefix.to_string())];
    while let Some((at, inside)) = stack.pop() {
        let mut children: Vec<_> = std::fs::read_dir(&at)
            .map_err(|e| format!("{}: {e}", at.display()))?
            .filter_map(Result::ok)
            .collect();
        children.sort_by_key(|c| c.file_name());
        for child in children {
            let name = child.file_name().to_string_lossy().into_owned();
            let path = format!("{inside}/{name}");
            let meta = std::fs::metadata(child.path())
                .map_err(|e| format!("{}: {e}", child.path().display()))?;
            if meta.is_dir() {
                out.push(Entry {
                    path: path.clone(),
                    kind: EntryKind::Directory,
                    owner,
                    mode: 0o755,
                });
                stack.push((child.path(), path));
            } else if meta.is_file() {
                out.push(Entry {
                    path,
                    kind: EntryKind::File(child.path()),
                    owner,
                    mode: 0o644,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Writes `images` into the OCI layout `dir` (made if missing) under `tag`: the image's
/// manifest for one, an index of them for several. Returns the digest tagged.
pub fn write_layout(dir: &Path, images: &[BuiltImage], tag: &str) -> Result<Digest, String> {
    let blobs = dir.join("blobs").join("sha256");
    std::fs::create_dir_all(&blobs).map_err(|e| format!("{}: {e}", blobs.display()))?;
    let put = |blob: &Blob| -> Result<(), String> {
        let path = blobs.join(blob.digest.hex());
        std::fs::write(&path, &blob.data).map_err(|e| format!("{}: {e}", path.display()))
    };
    for image in images {
        for layer in &image.layers {
            put(layer)?;
        }
        put(&image.config)?;
        put(&image.manifest)?;
    }
    let (top, media_type) = match images {
        [one] => (one.manifest.clone(), media::MANIFEST),
        _ => {
            let index = index(images)?;
            put(&index)?;
            (index, media::INDEX)
        }
    };
    let layout_index = serde_json::json!({"schemaVersion": 2, "mediaType": media::INDEX, "manifests": [{
        "mediaType": media_type, "digest": top.digest.to_string(), "size": top.data.len(),
        "annotations": {crate::spec::REF_NAME: tag}}]});
    std::fs::write(dir.join("index.json"), json_bytes(&layout_index)?)
        .map_err(|e| e.to_string())?;
    std::fs::write(dir.join("oci-layout"), br#"{"imageLayoutVersion":"1.0.0"}"#)
        .map_err(|e| e.to_string())?;
    Ok(top.digest)
}
