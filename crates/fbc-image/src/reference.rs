//! A catalog argument → where the catalog comes from.
//!
//! In: one command-line argument. Out: a [`CatalogSource`]. The rules, in order:
//!
//! 1. `oci-layout:PATH` is an OCI image layout directory; `PATH@sha256:HEX` picks a manifest by
//!    digest, `PATH:TAG` by its `org.opencontainers.image.ref.name` annotation (the last `:`
//!    starts a tag only when what follows is a valid tag, so `PATH` may itself hold colons), and
//!    bare `PATH` takes the layout's only manifest.
//! 2. `docker://REF` is a registry reference, whatever is on disk.
//! 3. An argument that exists on disk is a directory, as it always was.
//! 4. `HOST[:PORT]/REPO[:TAG][@sha256:…]` whose first segment names a host (it holds a `.` or a
//!    `:`, or is `localhost`) is a registry reference. Like catalogd, there is no Docker Hub
//!    shorthand: `ubuntu` or `library/ubuntu` are not references.
//! 5. Anything else is a directory, so a mistyped path gets the loader's usual "not found".

use crate::digest::{Digest, DigestError};
use std::fmt;
use std::path::PathBuf;

/// Where a catalog comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogSource {
    /// A catalog directory on disk.
    Directory(PathBuf),
    /// An image in an OCI image layout directory.
    Layout(LayoutRef),
    /// An image in a registry.
    Registry(RegistryRef),
}

/// An image in an OCI image layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutRef {
    /// The layout's directory (holding `oci-layout` and `index.json`).
    pub path: PathBuf,
    /// Which of the layout's manifests.
    pub select: LayoutSelect,
}

/// How a manifest is chosen from a layout's `index.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutSelect {
    /// The index's only manifest (an error when it has several).
    Only,
    /// The manifest annotated `org.opencontainers.image.ref.name: TAG`.
    Tag(String),
    /// The manifest with this digest.
    Digest(Digest),
}

/// An image in a registry: `registry/repository` with a tag, a digest, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryRef {
    /// `HOST[:PORT]`.
    pub registry: String,
    /// The repository path under the registry.
    pub repository: String,
    /// The tag (`latest` when neither a tag nor a digest is given).
    pub tag: Option<String>,
    /// The digest, which wins over the tag when both are given.
    pub digest: Option<Digest>,
}

impl RegistryRef {
    /// True when the reference names a digest: it never changes, so it is never polled.
    pub fn is_pinned(&self) -> bool {
        self.digest.is_some()
    }

    /// The same repository at `digest` (what a tag resolved to).
    pub fn at(&self, digest: Digest) -> RegistryRef {
        RegistryRef {
            tag: None,
            digest: Some(digest),
            ..self.clone()
        }
    }
}

impl fmt::Display for RegistryRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

impl fmt::Display for CatalogSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogSource::Directory(path) => write!(f, "{}", path.display()),
            CatalogSource::Layout(layout) => {
                write!(f, "oci-layout:{}", layout.path.display())?;
                match &layout.select {
                    LayoutSelect::Only => Ok(()),
                    LayoutSelect::Tag(tag) => write!(f, ":{tag}"),
                    LayoutSelect::Digest(digest) => write!(f, "@{digest}"),
                }
            }
            CatalogSource::Registry(reference) => write!(f, "{reference}"),
        }
    }
}

/// Why an argument is not a catalog source.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The reference does not parse.
    #[error("{reference:?} is not an image reference: {reason}")]
    Reference {
        /// The argument as given.
        reference: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The digest part does not parse.
    #[error("{reference:?}: {source}")]
    Digest {
        /// The argument as given.
        reference: String,
        /// What is wrong with the digest.
        source: DigestError,
    },
}

const LAYOUT_PREFIX: &str = "oci-layout:";
const DOCKER_PREFIX: &str = "docker://";
/// Longest reference accepted (catalogd's ClusterCatalog limit).
pub const MAX_REFERENCE_LEN: usize = 1000;

impl CatalogSource {
    /// Classifies one command-line argument (see the module's rules).
    pub fn parse(arg: &str) -> Result<CatalogSource, SourceError> {
        if let Some(rest) = arg.strip_prefix(LAYOUT_PREFIX) {
            return parse_layout(arg, rest).map(CatalogSource::Layout);
        }
        if let Some(rest) = arg.strip_prefix(DOCKER_PREFIX) {
            return parse_registry(arg, rest).map(CatalogSource::Registry);
        }
        if std::path::Path::new(arg).exists() || !names_a_host(arg) {
            return Ok(CatalogSource::Directory(PathBuf::from(arg)));
        }
        parse_registry(arg, arg).map(CatalogSource::Registry)
    }
}

/// True when `arg`'s first `/`-segment is a registry host and a repository follows.
fn names_a_host(arg: &str) -> bool {
    match arg.split_once('/') {
        Some((host, rest)) => {
            !rest.is_empty() && (host.contains('.') || host.contains(':') || host == "localhost")
        }
        None => false,
    }
}

fn parse_layout(arg: &str, rest: &str) -> Result<LayoutRef, SourceError> {
    let (path, select) = if let Some((path, digest)) = rest.rsplit_once('@') {
        let digest = digest.parse().map_err(|source| SourceError::Digest {
            reference: arg.to_owned(),
            source,
        })?;
        (path, LayoutSelect::Digest(digest))
    } else {
        match rest.rsplit_once(':') {
            Some((path, tag)) if is_tag(tag) && !path.is_empty() => {
                (path, LayoutSelect::Tag(tag.to_owned()))
            }
            _ => (rest, LayoutSelect::Only),
        }
    };
    if path.is_empty() {
        return Err(SourceError::Reference {
            reference: arg.to_owned(),
            reason: "the layout's path is empty".to_owned(),
        });
    }
    Ok(LayoutRef {
        path: PathBuf::from(path),
        select,
    })
}

/// A tag: `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}` (the distribution spec's grammar).
fn is_tag(s: &str) -> bool {
    let bytes = s.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && (bytes[0].is_ascii_alphanumeric() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn parse_registry(arg: &str, text: &str) -> Result<RegistryRef, SourceError> {
    let invalid = |reason: &str| SourceError::Reference {
        reference: arg.to_owned(),
        reason: reason.to_owned(),
    };
    if text.len() > MAX_REFERENCE_LEN {
        return Err(invalid("longer than 1000 characters"));
    }
    if !names_a_host(text) {
        return Err(invalid(
            "it must start with a registry host, as in quay.io/org/catalog:tag or 127.0.0.1:5000/catalog:tag",
        ));
    }
    // The distribution grammar (repository components, tag and digest syntax) is oci-spec's.
    let parsed: oci_spec::distribution::Reference = text
        .parse()
        .map_err(|e: oci_spec::distribution::ParseError| invalid(&e.to_string()))?;
    let digest = match parsed.digest() {
        Some(d) => Some(d.parse().map_err(|source| SourceError::Digest {
            reference: arg.to_owned(),
            source,
        })?),
        None => None,
    };
    let tag = match (parsed.tag(), &digest) {
        (Some(tag), _) => Some(tag.to_owned()),
        (None, None) => Some("latest".to_owned()),
        (None, Some(_)) => None,
    };
    Ok(RegistryRef {
        registry: parsed.registry().to_owned(),
        repository: parsed.repository().to_owned(),
        tag,
        digest,
    })
}

#[cfg(test)]
mod tests;
