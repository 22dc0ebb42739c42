//! OLM v1's bundle release: the `(version, release)` pair operator-controller
//! sorts bundles by.
//!
//! In: a bundle's version string, plus in explicit mode a separate release
//! string. Out: a [`VersionRelease`], ordered the way operator-controller's
//! `VersionRelease.Compare` orders them, or why the strings do not parse.
//!
//! - **Legacy mode** (`bundleutil.ParseLegacyVersionRelease`, used unless the
//!   `BundleReleaseSupport` gate is on and `olm.package` has a `release` key):
//!   the version is parsed with strict blang rules; if its build metadata,
//!   joined with dots, is at most 20 characters and every part is a valid
//!   prerelease identifier (alphanumerics and hyphens, numeric ones without
//!   leading zeros and within `u64`), it becomes the release and the build is
//!   cleared. `1.0.0+2` → (1.0.0, [2]); `1.0.0+git.abc` → (1.0.0, [git, abc]);
//!   `1.0.0+001` keeps its build and has no release.
//! - **Explicit mode** (`ParseExplicitRelease`): the release is given on its
//!   own (same rules, an empty string meaning none) and the build is kept.
//!
//! Order: blang precedence of the versions (build ignored), then no release
//! below any release, then releases like prerelease identifier lists (numeric
//! below alphanumeric, numbers by value, text bytewise, a longer list above its
//! prefix): `+10` > `+9`, `+a` > `+10`. Equality is this order's: versions
//! differing only in build metadata are equal.

use semver::Version;
use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;

/// The longest release operator-registry's `NewRelease` accepts.
pub const MAX_RELEASE_LEN: usize = 20;

/// One release identifier. Variant order is the comparison order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Identifier {
    /// Digits only, no leading zero, within `u64`.
    Numeric(u64),
    /// Anything else made of `[0-9A-Za-z-]`.
    Alphanumeric(String),
}

impl fmt::Display for Identifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Identifier::Numeric(n) => write!(f, "{n}"),
            Identifier::Alphanumeric(s) => f.write_str(s),
        }
    }
}

/// A release: dot-separated identifiers, empty for none. The derived order
/// (lexicographic, shorter first on a common prefix, empty first) is OLM's.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release(pub Vec<Identifier>);

impl Release {
    /// `declcfg.NewRelease`: empty → no release; otherwise at most
    /// [`MAX_RELEASE_LEN`] bytes of valid prerelease identifiers.
    pub fn parse(s: &str) -> Result<Release, ReleaseError> {
        if s.is_empty() {
            return Ok(Release::default());
        }
        let invalid = |why: &str| ReleaseError::Release {
            release: s.to_string(),
            reason: why.to_string(),
        };
        if s.len() > MAX_RELEASE_LEN {
            return Err(invalid("exceeds maximum length of 20 characters"));
        }
        let mut ids = Vec::new();
        for part in s.split('.') {
            ids.push(identifier(part).ok_or_else(|| invalid("invalid identifier"))?);
        }
        Ok(Release(ids))
    }

    /// Whether there is no release.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `blang.NewPRVersion`.
fn identifier(part: &str) -> Option<Identifier> {
    if part.is_empty() {
        return None;
    }
    if part.bytes().all(|b| b.is_ascii_digit()) {
        if part.len() > 1 && part.starts_with('0') {
            return None;
        }
        return part.parse().ok().map(Identifier::Numeric);
    }
    if part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Some(Identifier::Alphanumeric(part.to_string()));
    }
    None
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, id) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{id}")?;
        }
        Ok(())
    }
}

impl Serialize for Release {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a version or release does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    /// The version is not a strict semver (blang `Parse`) version.
    #[error("error parsing version {version:?}: {reason}")]
    Version {
        /// The version string.
        version: String,
        /// Why.
        reason: String,
    },
    /// The explicit release is not a release.
    #[error("invalid release {release:?}: {reason}")]
    Release {
        /// The release string.
        release: String,
        /// Why.
        reason: String,
    },
}

/// A bundle's version and release.
#[derive(Clone, Debug, Serialize)]
pub struct VersionRelease {
    /// The version; its build is cleared when it became the release (legacy).
    #[serde(serialize_with = "serialize_version")]
    pub version: Version,
    /// The release, empty for none.
    pub release: Release,
}

fn serialize_version<S: serde::Serializer>(v: &Version, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

impl VersionRelease {
    /// Legacy mode from a version string (strict blang parsing first).
    pub fn parse_legacy(version: &str) -> Result<VersionRelease, ReleaseError> {
        Ok(VersionRelease::from_legacy(parse_version(version)?))
    }

    /// Legacy mode from an already parsed version: the build metadata becomes
    /// the release when it parses as one.
    pub fn from_legacy(mut version: Version) -> VersionRelease {
        match Release::parse(version.build.as_str()) {
            Ok(release) if !release.is_empty() => {
                version.build = semver::BuildMetadata::EMPTY;
                VersionRelease { version, release }
            }
            _ => VersionRelease {
                version,
                release: Release::default(),
            },
        }
    }

    /// Explicit mode: version and release from separate fields, build kept.
    pub fn parse_explicit(version: &str, release: &str) -> Result<VersionRelease, ReleaseError> {
        Ok(VersionRelease {
            version: parse_version(version)?,
            release: Release::parse(release)?,
        })
    }
}

/// blang/semver v4 `Parse`: strict semver, numeric prerelease identifiers
/// within `u64`.
fn parse_version(s: &str) -> Result<Version, ReleaseError> {
    let fail = |reason: String| ReleaseError::Version {
        version: s.to_string(),
        reason,
    };
    let v = Version::parse(s).map_err(|e| fail(e.to_string()))?;
    if !super::blang::is_blang_version(&v) {
        return Err(fail("numeric prerelease identifier out of range".into()));
    }
    Ok(v)
}

impl Ord for VersionRelease {
    fn cmp(&self, other: &Self) -> Ordering {
        self.version
            .cmp_precedence(&other.version)
            .then_with(|| self.release.cmp(&other.release))
    }
}

impl PartialOrd for VersionRelease {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for VersionRelease {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for VersionRelease {}

impl fmt::Display for VersionRelease {
    /// The legacy spelling: the release as build metadata when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.release.is_empty() {
            write!(f, "{}", self.version)
        } else {
            let mut v = self.version.clone();
            v.build = semver::BuildMetadata::EMPTY;
            write!(f, "{v}+{}", self.release)
        }
    }
}

#[cfg(test)]
mod tests;
