//! Which bundle is installed, from what the asker knows: a name, a version, or both.
//!
//! In: a package and the name and version a question gave (either may be
//! empty). Out: an [`Identified`] bundle name — the one given, or the one bundle
//! of the package with that version — or, when several bundles share the
//! version, [`GraphError::AmbiguousVersion`] naming them.
//!
//! The upgrade edges (`replaces`, `skips`) name bundles, so a question that
//! gives only a version must first find the bundle: without this, only
//! skipRange edges could ever match (a person typing `3.3.0` into the
//! browser's "what next?" box would never see `3.3.1`, which replaces it).

use super::GraphError;
use crate::model::{Bundle, Package};

/// The installed bundle as a question will use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identified {
    /// Its name; empty when only a version was given and no bundle has it (a
    /// bundle pruned from the catalog: then only skipRanges can match it).
    pub name: String,
    /// Set when the name was looked up from the version, or not found: what
    /// the answer should say about it.
    pub note: Option<String>,
}

/// The bundles of `package` whose version is `version`: equal as semver
/// (build metadata included), or, for text that is not semver, equal as text.
/// In the package's bundle order (by name).
pub fn bundles_with_version<'a>(package: &'a Package, version: &str) -> Vec<&'a Bundle> {
    let parsed = semver::Version::parse(version).ok();
    package
        .bundles
        .iter()
        .filter(|b| match &parsed {
            Some(v) => b.version == *v,
            None => b.version_text == version,
        })
        .collect()
}

/// The installed bundle's name (see the module docs). A given name is kept as
/// it is (a bundle the catalog no longer has is fine); a version alone is
/// looked up.
pub fn identify(package: &Package, name: &str, version: &str) -> Result<Identified, GraphError> {
    if !name.is_empty() || version.is_empty() {
        return Ok(Identified {
            name: name.to_string(),
            note: None,
        });
    }
    match bundles_with_version(package, version).as_slice() {
        [] => Ok(Identified {
            name: String::new(),
            note: Some(format!(
                "no bundle of package {:?} has version {version}: only skipRanges can match it (name the installed bundle to follow replaces and skips)",
                package.name
            )),
        }),
        [one] => Ok(Identified {
            name: one.name.clone(),
            note: Some(format!(
                "version {version} is bundle {:?} of package {:?}",
                one.name, package.name
            )),
        }),
        many => Err(GraphError::AmbiguousVersion {
            package: package.name.clone(),
            version: version.to_string(),
            bundles: many.iter().map(|b| b.name.clone()).collect(),
        }),
    }
}
