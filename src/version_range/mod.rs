//! Version ranges.
//!
//! In: a range string. Out: a parsed range that tests `semver::Version`s.
//!
//! OLM uses two grammars and they are not interchangeable (see
//! `docs/version-ranges.md`): `skipRange` is parsed with blang/semver v4
//! ([`blang`]), while OLM v1's `ClusterExtension.spec.source.catalog.version` uses
//! Masterminds/semver v3 (a later addition, beside it). Both compare by semver
//! precedence, ignoring build metadata.

pub mod blang;
