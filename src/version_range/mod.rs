//! Version ranges.
//!
//! In: a range string. Out: a parsed range that tests `semver::Version`s.
//!
//! OLM uses two grammars and they are not interchangeable: `skipRange` is parsed
//! with blang/semver v4 ([`blang`]: space-separated AND, `||` OR, full versions,
//! `x` wildcards only, prereleases not excluded), while OLM v1's
//! `ClusterExtension.spec.source.catalog.version` uses Masterminds/semver v3
//! (commas, `~`, `^`, partial versions, prereleases excluded unless named): a
//! later addition, beside it. Both compare by semver
//! precedence, ignoring build metadata.

pub mod blang;
pub mod release;
