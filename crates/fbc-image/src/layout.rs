//! An OCI image layout directory → one image's config and layer files, every blob checked.
//!
//! In: a [`LayoutRef`] (the directory and which manifest), the wanted [`Platform`],
//! [`ImageLimits`]. Out: an [`Image`]: the digest the reference resolved to (the entry of
//! `index.json`, an index's digest for a multi-platform image, as catalogd reports it), the
//! image config's labels and the layer files in order, each checked against its descriptor's
//! size and digest before it is returned. Errors name the layout and what was read.

use crate::digest::{Digest, FileCheckError};
use crate::limits::ImageLimits;
use crate::manifest::{
    self, Blob, Document, ManifestError, Platform, PlatformChoice, REF_NAME, select_platform,
};
use crate::reference::{LayoutRef, LayoutSelect};
use crate::unpack::LayerFile;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// One image read from a layout.
#[derive(Debug, Clone)]
pub struct Image {
    /// What the reference resolved to.
    pub digest: Digest,
    /// The image config's labels.
    pub labels: BTreeMap<String, String>,
    /// The layer blobs, in manifest order.
    pub layers: Vec<LayerFile>,
}

/// Why a layout could not be read.
#[derive(Debug, thiserror::Error)]
#[error("OCI layout {layout}: {kind}")]
pub struct LayoutError {
    /// The layout directory.
    pub layout: String,
    /// What went wrong.
    pub kind: LayoutErrorKind,
}

/// What went wrong reading a layout.
#[derive(Debug, thiserror::Error)]
pub enum LayoutErrorKind {
    /// A file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// No `oci-layout` file: not a layout.
    #[error("not an OCI image layout (no oci-layout file)")]
    NotALayout,
    /// A document was refused.
    #[error("{0}")]
    Manifest(ManifestError),
    /// `index.json` is an image manifest, not an index.
    #[error("index.json is not an image index")]
    IndexNotIndex,
    /// Nothing matches the selection.
    #[error("no manifest {wanted} in index.json (it has {available})")]
    NotFound {
        /// What was asked for.
        wanted: String,
        /// What there is.
        available: String,
    },
    /// `oci-layout:PATH` without a tag, and the layout has several manifests.
    #[error("index.json has {0} manifests; name one with oci-layout:PATH:TAG or @sha256:…")]
    Ambiguous(usize),
    /// An index inside an index inside an index.
    #[error("manifest {0} nests indexes more than two deep")]
    TooDeep(Digest),
    /// A blob failed its check.
    #[error("blob {digest}: {source}")]
    Blob {
        /// The blob.
        digest: Digest,
        /// Why.
        source: FileCheckError,
    },
}

/// Reads the image `reference` names.
pub fn open(
    reference: &LayoutRef,
    platform: &Platform,
    limits: &ImageLimits,
) -> Result<Image, LayoutError> {
    let fail = |kind| LayoutError {
        layout: reference.path.display().to_string(),
        kind,
    };
    let root = &reference.path;
    if !root.join("oci-layout").is_file() {
        return Err(fail(LayoutErrorKind::NotALayout));
    }
    let index_bytes = read_limited(&root.join("index.json"), limits).map_err(fail)?;
    let index = match manifest::parse_document(&index_bytes, limits) {
        Ok(Document::Index(index)) => index,
        Ok(Document::Image(_)) => return Err(fail(LayoutErrorKind::IndexNotIndex)),
        Err(e) => return Err(fail(LayoutErrorKind::Manifest(e))),
    };
    let chosen = choose(&index, &reference.select).map_err(fail)?;
    let image = resolve(root, &chosen, platform, limits, 0).map_err(fail)?;
    let (config, layers) =
        manifest::blobs(&image, limits).map_err(|e| fail(LayoutErrorKind::Manifest(e)))?;
    let config_bytes = read_blob(root, &config, limits).map_err(fail)?;
    let labels =
        manifest::labels(&config_bytes, limits).map_err(|e| fail(LayoutErrorKind::Manifest(e)))?;
    let mut files = Vec::with_capacity(layers.len());
    for layer in layers {
        let path = blob_path(root, &layer.digest);
        layer
            .digest
            .check_file(&path, layer.size)
            .map_err(|source| {
                fail(LayoutErrorKind::Blob {
                    digest: layer.digest.clone(),
                    source,
                })
            })?;
        files.push(LayerFile {
            digest: layer.digest,
            path,
        });
    }
    Ok(Image {
        digest: chosen.digest,
        labels,
        layers: files,
    })
}

fn blob_path(root: &Path, digest: &Digest) -> PathBuf {
    root.join("blobs").join("sha256").join(digest.hex())
}

fn read_limited(path: &Path, limits: &ImageLimits) -> Result<Vec<u8>, LayoutErrorKind> {
    let io_err = |source| LayoutErrorKind::Io {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io_err)?;
    let mut bytes = Vec::new();
    file.take(limits.max_document_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    Ok(bytes)
}

/// A document blob (a manifest or config), read within the document limit and checked.
fn read_blob(root: &Path, blob: &Blob, limits: &ImageLimits) -> Result<Vec<u8>, LayoutErrorKind> {
    if blob.size > limits.max_document_bytes {
        return Err(LayoutErrorKind::Manifest(ManifestError::TooLarge {
            what: "manifest or config",
            size: blob.size,
            limit: crate::limits::Limit::Document,
        }));
    }
    let bytes = read_limited(&blob_path(root, &blob.digest), limits)?;
    let blob_err = |source| LayoutErrorKind::Blob {
        digest: blob.digest.clone(),
        source,
    };
    if bytes.len() as u64 != blob.size {
        return Err(blob_err(FileCheckError::Digest(
            crate::digest::DigestError::Size {
                digest: blob.digest.clone(),
                expected: blob.size,
                actual: bytes.len() as u64,
            },
        )));
    }
    blob.digest
        .check(&bytes)
        .map_err(|e| blob_err(FileCheckError::Digest(e)))?;
    Ok(bytes)
}

/// The `index.json` entry the selection names.
fn choose(
    index: &oci_spec::image::ImageIndex,
    select: &LayoutSelect,
) -> Result<Blob, LayoutErrorKind> {
    let entries: Vec<(Option<&str>, Blob)> = index
        .manifests()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let digest = d.digest().to_string().parse().map_err(|source| {
                LayoutErrorKind::Manifest(ManifestError::Digest {
                    what: format!("index.json entry {i}"),
                    source,
                })
            })?;
            let tag = d
                .annotations()
                .as_ref()
                .and_then(|a| a.get(REF_NAME))
                .map(String::as_str);
            Ok((
                tag,
                Blob {
                    digest,
                    size: d.size(),
                },
            ))
        })
        .collect::<Result<_, LayoutErrorKind>>()?;
    let available = || {
        entries
            .iter()
            .map(|(tag, blob)| tag.map_or_else(|| blob.digest.to_string(), str::to_owned))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let found = match select {
        LayoutSelect::Only if entries.len() == 1 => entries.first().map(|(_, b)| b.clone()),
        LayoutSelect::Only if entries.len() > 1 => {
            return Err(LayoutErrorKind::Ambiguous(entries.len()));
        }
        LayoutSelect::Only => None,
        LayoutSelect::Tag(tag) => entries
            .iter()
            .find(|(t, _)| *t == Some(tag.as_str()))
            .map(|(_, b)| b.clone()),
        LayoutSelect::Digest(digest) => entries
            .iter()
            .find(|(_, b)| b.digest == *digest)
            .map(|(_, b)| b.clone()),
    };
    found.ok_or_else(|| LayoutErrorKind::NotFound {
        wanted: match select {
            LayoutSelect::Only => "at all".to_owned(),
            LayoutSelect::Tag(tag) => format!("tagged {tag}"),
            LayoutSelect::Digest(d) => d.to_string(),
        },
        available: if entries.is_empty() {
            "none".to_owned()
        } else {
            available()
        },
    })
}

/// The image manifest `blob` is, or leads to through an index for `platform`.
fn resolve(
    root: &Path,
    blob: &Blob,
    platform: &Platform,
    limits: &ImageLimits,
    depth: usize,
) -> Result<oci_spec::image::ImageManifest, LayoutErrorKind> {
    let bytes = read_blob(root, blob, limits)?;
    let index = match manifest::parse_document(&bytes, limits).map_err(LayoutErrorKind::Manifest)? {
        Document::Image(image) => return Ok(*image),
        Document::Index(index) => index,
    };
    if depth >= 1 {
        return Err(LayoutErrorKind::TooDeep(blob.digest.clone()));
    }
    match select_platform(&index, platform).map_err(LayoutErrorKind::Manifest)? {
        PlatformChoice::Match(entry) => resolve(
            root,
            &Blob {
                digest: entry.digest,
                size: entry.size,
            },
            platform,
            limits,
            depth + 1,
        ),
        PlatformChoice::Candidates(candidates) => {
            let mut images = Vec::with_capacity(candidates.len());
            for entry in &candidates {
                let blob = Blob {
                    digest: entry.digest.clone(),
                    size: entry.size,
                };
                images.push(resolve(root, &blob, platform, limits, depth + 1)?);
            }
            manifest::any_platform(images, platform, &candidates).map_err(LayoutErrorKind::Manifest)
        }
    }
}

#[cfg(test)]
mod tests;
