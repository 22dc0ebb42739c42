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
    let (name, digest) = match text.rsplit_once('@') {
        Some((name, digest)) => {
            let digest = digest.parse().map_err(|source| SourceError::Digest {
                reference: arg.to_owned(),
                source,
            })?;
            (name, Some(digest))
        }
        None => (text, None),
    };
    let (name, tag) = match name.rsplit_once(':') {
        // A colon after the last slash starts a tag; before it, it was the port.
        Some((repo, tag)) if !tag.contains('/') => (repo, Some(tag)),
        _ => (name, None),
    };
    if let Some(tag) = tag
        && !is_tag(tag)
    {
        return Err(invalid(&format!(
            "the tag {tag:?} is not [A-Za-z0-9_][A-Za-z0-9._-]{{0,127}}"
        )));
    }
    let Some((registry, repository)) = name.split_once('/') else {
        return Err(invalid("it names no repository"));
    };
    if repository.len() > 255 {
        return Err(invalid("the repository is longer than 255 characters"));
    }
    if !is_domain(registry) {
        return Err(invalid(&format!(
            "{registry:?} is not a registry host[:port]"
        )));
    }
    if let Some(component) = repository.split('/').find(|c| !is_path_component(c)) {
        return Err(invalid(&format!(
            "the repository component {component:?} is not lowercase letters and digits joined by '.', '_', '__' or '-'"
        )));
    }
    Ok(RegistryRef {
        registry: registry.to_owned(),
        repository: repository.to_owned(),
        tag: match (tag, &digest) {
            (Some(tag), _) => Some(tag.to_owned()),
            (None, None) => Some("latest".to_owned()),
            (None, Some(_)) => None,
        },
        digest,
    })
}

// The reference grammar is distribution's (`reference/regexp.go`), written out here because
// oci-spec's parser compiles that grammar as one large regex on first use: ~80 ms, eight times
// a warm start. A property test holds these functions to oci-spec's answers.

/// `host[:port]`: dot-separated components of letters, digits and inner hyphens, and an
/// optional numeric port (distribution 2.8's grammar has no bracketed IPv6 addresses).
fn is_domain(s: &str) -> bool {
    let (host, port) = match s.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (s, None),
    };
    port.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && host.split('.').all(|c| {
            let b = c.as_bytes();
            !b.is_empty()
                && b.iter().all(|x| x.is_ascii_alphanumeric() || *x == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`.
fn is_path_component(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |x: u8| x.is_ascii_lowercase() || x.is_ascii_digit();
    if b.is_empty() || !alnum(b[0]) || !alnum(b[b.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if alnum(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !alnum(b[i]) {
            i += 1;
        }
        let separator = &b[start..i];
        let ok = separator == b"."
            || separator == b"_"
            || separator == b"__"
            || separator.iter().all(|x| *x == b'-');
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests;
