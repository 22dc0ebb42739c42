//! "Does this range match these versions?", in either grammar.
//!
//! In: a [`Grammar`], a range string and version strings. Out: a [`RangeCheck`]
//! (the range as read, one [`VersionCheck`] per version, in the order given), or
//! the range's parse error in the Go library's words.
//!
//! Versions are read as OLM reads a bundle's: strictly (`1.2` is not a
//! version). Under [`Grammar::Masterminds`] a version is tested as
//! operator-controller tests a bundle ([`super::masterminds::matches_bundle_version`]:
//! a legacy release in the build metadata is split off first, and build metadata
//! never matters).

use super::{blang, masterminds};
use serde::Serialize;

/// Which range grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grammar {
    /// blang/semver v4: OLM v0's `skipRange` and `olm.package.required`.
    Blang,
    /// Masterminds/semver v3: OLM v1's `ClusterExtension` version range.
    Masterminds,
}

/// One version's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VersionCheck {
    /// The version as given.
    pub version: String,
    /// Whether the range contains it.
    #[serde(rename = "match")]
    pub matches: bool,
    /// Why it is not a version (then `matches` is false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RangeCheck {
    /// The range as the library reads it (wildcards and operators expanded).
    pub expanded: String,
    /// One per version, in the order given.
    pub results: Vec<VersionCheck>,
}

/// A parsed range, as a test on versions.
type Matcher = Box<dyn Fn(&semver::Version) -> bool>;

/// Checks `versions` against `range` (see the module docs); `Err` is the
/// range's parse error.
pub fn check(grammar: Grammar, range: &str, versions: &[String]) -> Result<RangeCheck, String> {
    let (expanded, matcher): (String, Matcher) = match grammar {
        Grammar::Blang => {
            let r = blang::parse(range).map_err(|e| e.to_string())?;
            (r.to_string(), Box::new(move |v| r.matches(v)))
        }
        Grammar::Masterminds => {
            let c = masterminds::parse(range).map_err(|e| e.to_string())?;
            let expanded = c.expanded().to_string();
            (
                expanded,
                Box::new(move |v| masterminds::matches_bundle_version(&c, v)),
            )
        }
    };
    let results = versions
        .iter()
        .map(|text| match parse_version(text) {
            Ok(v) => VersionCheck {
                version: text.clone(),
                matches: matcher(&v),
                error: None,
            },
            Err(e) => VersionCheck {
                version: text.clone(),
                matches: false,
                error: Some(e),
            },
        })
        .collect();
    Ok(RangeCheck { expanded, results })
}

/// A version as blang's strict `Parse` reads it.
fn parse_version(text: &str) -> Result<semver::Version, String> {
    let v = semver::Version::parse(text).map_err(|e| format!("invalid version {text:?}: {e}"))?;
    if blang::is_blang_version(&v) {
        Ok(v)
    } else {
        Err(format!(
            "invalid version {text:?}: a numeric prerelease identifier is out of range"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn matches(grammar: Grammar, range: &str, list: &[&str]) -> Vec<bool> {
        let r = check(grammar, range, &versions(list)).expect("parses");
        r.results.iter().map(|c| c.matches).collect()
    }

    #[test]
    fn the_two_grammars_disagree_where_olm_does() {
        // blang does not exclude prereleases; Masterminds does unless the group names one.
        assert_eq!(
            matches(Grammar::Blang, "<2.0.0", &["2.0.0-rc.1", "1.9.9"]),
            [true, true]
        );
        assert_eq!(
            matches(Grammar::Masterminds, "<2.0.0", &["2.0.0-rc.1", "1.9.9"]),
            [false, true]
        );
        // a comma separates in Masterminds only
        assert!(check(Grammar::Blang, ">=1.0.0, <2.0.0", &[]).is_err());
        assert_eq!(
            matches(Grammar::Masterminds, ">=1.0.0, <2.0.0", &["1.5.0"]),
            [true]
        );
        // seed 001's wildcard and tilde tables
        assert_eq!(
            matches(
                Grammar::Masterminds,
                "1.11.x",
                &["1.11.0", "1.11.9", "1.12.0"]
            ),
            [true, true, false]
        );
        assert_eq!(
            matches(Grammar::Masterminds, "~1.12", &["1.12.5", "1.13.0"]),
            [true, false]
        );
        assert_eq!(
            matches(Grammar::Masterminds, "^0.2.3", &["0.2.9", "0.3.0"]),
            [true, false]
        );
    }

    #[test]
    fn a_legacy_release_never_matters_to_a_masterminds_range() {
        assert_eq!(
            matches(Grammar::Masterminds, "=1.0.0", &["1.0.0+2"]),
            [true]
        );
    }

    #[test]
    fn bad_versions_are_per_version_errors_and_bad_ranges_the_whole_answer() {
        let r = check(Grammar::Blang, ">=1.0.0", &versions(&["1.2", "1.0.0"])).expect("parses");
        assert!(
            r.results[0]
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with("invalid version \"1.2\""))
        );
        assert!(r.results[1].matches);
        assert_eq!(r.expanded, ">=1.0.0");
        let bad = check(Grammar::Masterminds, ">=1 <", &[]).expect_err("bad range");
        assert!(bad.starts_with("improper constraint"), "{bad}");
        assert_eq!(
            check(Grammar::Blang, "1.2.x", &[])
                .expect("parses")
                .expanded,
            ">=1.2.0 <1.3.0"
        );
    }
}
