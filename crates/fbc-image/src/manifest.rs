//! Manifest, index and image-config documents → what to unpack.
//!
//! In: the bytes of a manifest or index (from a registry or a layout), the bytes of an image
//! config, [`ImageLimits`]. Out: a [`Document`] (an image manifest or an index), the platform
//! entry to follow in an index ([`select_platform`]), the image's [`Blob`] list after the layer
//! limits, and the configs directory named by the label
//! `operators.operatorframework.io.index.configs.v1` ([`configs_dir`]).
//!
//! The schemas are oci-spec's (Docker v2 manifests and manifest lists parse as the same
//! structures); the image config is read for its labels only, so configs written by any builder
//! are accepted.

use crate::digest::{Digest, DigestError};
use crate::limits::{ImageLimits, Limit};
pub use crate::spec::{ACCEPTED_MANIFEST_TYPES, CONFIGS_LABEL, REF_NAME};
use oci_spec::image::{Descriptor, ImageIndex, ImageManifest};
use std::collections::BTreeMap;
use std::fmt;

/// A parsed manifest document.
#[derive(Debug)]
pub enum Document {
    /// One image.
    Image(Box<ImageManifest>),
    /// Several, usually one per platform.
    Index(Box<ImageIndex>),
}

/// Why a document was refused.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// Larger than the document limit.
    #[error("the {what} is {size} bytes, over {limit}")]
    TooLarge {
        /// Which document.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit's name.
        limit: Limit,
    },
    /// Not a manifest or index this project reads.
    #[error("the {what} is not valid: {reason}")]
    Invalid {
        /// Which document.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A descriptor's digest is not a sha256 digest.
    #[error("{what}: {source}")]
    Digest {
        /// Which descriptor.
        what: String,
        /// What is wrong with it.
        source: DigestError,
    },
    /// Too many layers, or too many bytes of them.
    #[error("the image has {value} {what}, over {limit}")]
    OverLimit {
        /// "layers" or "bytes of layers".
        what: &'static str,
        /// The image's figure.
        value: u64,
        /// The limit's name.
        limit: Limit,
    },
    /// No index entry for the wanted platform, and the entries differ.
    #[error("the index has no image for {wanted} (it has {available}); choose one with --platform")]
    NoPlatform {
        /// The platform asked for.
        wanted: Platform,
        /// The index's platforms, comma-separated.
        available: String,
    },
    /// The config has no configs-directory label.
    #[error("the image is not a catalog: its config has no label {CONFIGS_LABEL} ({labels})")]
    NoConfigsLabel {
        /// The labels it has, or "it has no labels".
        labels: String,
    },
}

/// Parses a manifest or an index. Docker schema 1 and anything else is refused.
pub fn parse_document(bytes: &[u8], limits: &ImageLimits) -> Result<Document, ManifestError> {
    check_size("manifest", bytes.len() as u64, limits)?;
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        media_type: Option<String>,
        schema_version: Option<u64>,
        manifests: Option<serde::de::IgnoredAny>,
    }
    let invalid = |reason: String| ManifestError::Invalid {
        what: "manifest",
        reason,
    };
    let probe: Probe = serde_json::from_slice(bytes).map_err(|e| invalid(e.to_string()))?;
    if probe.schema_version != Some(2) {
        return Err(invalid(format!(
            "schemaVersion is {:?}; only schema 2 (OCI, Docker v2) is read",
            probe.schema_version
        )));
    }
    let is_index = match probe.media_type.as_deref() {
        Some(t) if t.ends_with("index.v1+json") || t.ends_with("manifest.list.v2+json") => true,
        Some(t) if t.ends_with("manifest.v1+json") || t.ends_with("manifest.v2+json") => false,
        Some(other) => return Err(invalid(format!("unsupported media type {other:?}"))),
        None => probe.manifests.is_some(),
    };
    if is_index {
        let index: ImageIndex =
            serde_json::from_slice(bytes).map_err(|e| invalid(e.to_string()))?;
        Ok(Document::Index(Box::new(index)))
    } else {
        let image: ImageManifest =
            serde_json::from_slice(bytes).map_err(|e| invalid(e.to_string()))?;
        Ok(Document::Image(Box::new(image)))
    }
}

fn check_size(what: &'static str, size: u64, limits: &ImageLimits) -> Result<(), ManifestError> {
    if size > limits.max_document_bytes {
        return Err(ManifestError::TooLarge {
            what,
            size,
            limit: Limit::Document,
        });
    }
    Ok(())
}

/// An `os/architecture[/variant]` platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    /// `linux`, …
    pub os: String,
    /// `amd64`, `arm64`, … (Go's names, as images use).
    pub architecture: String,
    /// `v8`, … when given.
    pub variant: Option<String>,
}

impl Platform {
    /// The platform this process runs on, in Go's names.
    pub fn current() -> Platform {
        let architecture = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "x86" => "386",
            "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
            "s390x" => "s390x",
            other => other,
        };
        Platform {
            os: std::env::consts::OS.to_owned(),
            architecture: architecture.to_owned(),
            variant: None,
        }
    }

    /// Parses `os/architecture[/variant]` (the `--platform` flag).
    pub fn parse(s: &str) -> Option<Platform> {
        let mut parts = s.split('/');
        let os = parts.next().filter(|p| !p.is_empty())?;
        let architecture = parts.next().filter(|p| !p.is_empty())?;
        let variant = parts.next().map(str::to_owned);
        if parts.next().is_some() || variant.as_deref() == Some("") {
            return None;
        }
        Some(Platform {
            os: os.to_owned(),
            architecture: architecture.to_owned(),
            variant,
        })
    }

    fn of(descriptor: &Descriptor) -> Option<Platform> {
        descriptor.platform().as_ref().map(|p| Platform {
            os: p.os().to_string(),
            architecture: p.architecture().to_string(),
            variant: p.variant().clone(),
        })
    }

    /// True when `self` (an index entry's platform) serves `wanted`; a wanted platform without
    /// a variant takes any variant.
    fn serves(&self, wanted: &Platform) -> bool {
        self.os == wanted.os
            && self.architecture == wanted.architecture
            && (wanted.variant.is_none() || self.variant == wanted.variant)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.os, self.architecture)?;
        if let Some(v) = &self.variant {
            write!(f, "/{v}")?;
        }
        Ok(())
    }
}

/// A manifest an index points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its digest.
    pub digest: Digest,
    /// Its size in bytes.
    pub size: u64,
    /// Its platform, when the index gives one.
    pub platform: Option<Platform>,
}

/// What an index offers for a wanted platform.
#[derive(Debug, PartialEq, Eq)]
pub enum PlatformChoice {
    /// The first entry for the platform.
    Match(Entry),
    /// No entry is for the platform: these are the image entries (attestations left out). The
    /// caller takes the first when all of them name the same image config, and refuses
    /// otherwise with [`ManifestError::NoPlatform`] ([`no_platform`]).
    Candidates(Vec<Entry>),
}

/// Chooses the entry of `index` for `wanted`, in index order.
pub fn select_platform(
    index: &ImageIndex,
    wanted: &Platform,
) -> Result<PlatformChoice, ManifestError> {
    let mut candidates = Vec::new();
    for (i, d) in index.manifests().iter().enumerate() {
        let platform = Platform::of(d);
        // BuildKit's attestation manifests carry the platform unknown/unknown.
        if platform.as_ref().is_some_and(|p| p.os == "unknown") {
            continue;
        }
        let entry = Entry {
            digest: descriptor_digest(d, || format!("index entry {i}"))?,
            size: d.size(),
            platform,
        };
        if entry.platform.as_ref().is_some_and(|p| p.serves(wanted)) {
            return Ok(PlatformChoice::Match(entry));
        }
        candidates.push(entry);
    }
    Ok(PlatformChoice::Candidates(candidates))
}

/// The image taken when no index entry is for `wanted`: the first of `images` (the
/// candidates' manifests, in order) when all of them name one config, else the
/// [`no_platform`] error.
pub fn any_platform(
    images: Vec<ImageManifest>,
    wanted: &Platform,
    candidates: &[Entry],
) -> Result<ImageManifest, ManifestError> {
    let same_config = images
        .windows(2)
        .all(|w| w[0].config().digest() == w[1].config().digest());
    match images.into_iter().next() {
        Some(first) if same_config => Ok(first),
        _ => Err(no_platform(wanted, candidates)),
    }
}

/// The error for an index with no entry for `wanted` whose entries differ.
pub fn no_platform(wanted: &Platform, candidates: &[Entry]) -> ManifestError {
    let available = candidates
        .iter()
        .map(|e| {
            e.platform
                .as_ref()
                .map_or("no platform".to_owned(), Platform::to_string)
        })
        .collect::<Vec<_>>()
        .join(", ");
    ManifestError::NoPlatform {
        wanted: wanted.clone(),
        available,
    }
}

fn descriptor_digest(d: &Descriptor, what: impl Fn() -> String) -> Result<Digest, ManifestError> {
    d.digest()
        .to_string()
        .parse()
        .map_err(|source| ManifestError::Digest {
            what: what(),
            source,
        })
}

/// A layer (or the config) blob to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    /// Its digest.
    pub digest: Digest,
    /// Its size as stored.
    pub size: u64,
}

/// The config blob and the layer blobs of `image`, in order, after the layer limits.
pub fn blobs(
    image: &ImageManifest,
    limits: &ImageLimits,
) -> Result<(Blob, Vec<Blob>), ManifestError> {
    let config = Blob {
        digest: descriptor_digest(image.config(), || "the config descriptor".to_owned())?,
        size: image.config().size(),
    };
    check_size("image config", config.size, limits)?;
    let layers = image.layers();
    if layers.len() > limits.max_layers {
        return Err(ManifestError::OverLimit {
            what: "layers",
            value: layers.len() as u64,
            limit: Limit::Layers,
        });
    }
    let mut total = 0u64;
    let mut out = Vec::with_capacity(layers.len());
    for (i, d) in layers.iter().enumerate() {
        total = total.saturating_add(d.size());
        out.push(Blob {
            digest: descriptor_digest(d, || format!("layer {i}"))?,
            size: d.size(),
        });
    }
    if total > limits.max_image_bytes {
        return Err(ManifestError::OverLimit {
            what: "bytes of layers",
            value: total,
            limit: Limit::ImageSize,
        });
    }
    Ok((config, out))
}

/// The image config's labels (sorted), read leniently: only `config.Labels` matters here.
pub fn labels(
    config: &[u8],
    limits: &ImageLimits,
) -> Result<BTreeMap<String, String>, ManifestError> {
    check_size("image config", config.len() as u64, limits)?;
    #[derive(serde::Deserialize)]
    struct ImageConfig {
        config: Option<Inner>,
    }
    #[derive(serde::Deserialize)]
    struct Inner {
        #[serde(rename = "Labels")]
        labels: Option<BTreeMap<String, String>>,
    }
    let parsed: ImageConfig =
        serde_json::from_slice(config).map_err(|e| ManifestError::Invalid {
            what: "image config",
            reason: e.to_string(),
        })?;
    Ok(parsed.config.and_then(|c| c.labels).unwrap_or_default())
}

/// The configs directory the label names, or an error listing the labels the image has.
pub fn configs_dir(labels: &BTreeMap<String, String>) -> Result<String, ManifestError> {
    match labels.get(CONFIGS_LABEL) {
        Some(dir) => Ok(dir.clone()),
        None if labels.is_empty() => Err(ManifestError::NoConfigsLabel {
            labels: "it has no labels".to_owned(),
        }),
        None => Err(ManifestError::NoConfigsLabel {
            labels: format!(
                "it has {}",
                labels
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

#[cfg(test)]
mod tests;
