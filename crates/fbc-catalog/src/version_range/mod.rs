//! Version ranges and bundle versions, as OLM reads them.
//!
//! In: a range string, or a bundle's version (and release). Out: a parsed range
//! that tests `semver::Version`s, or a `(version, release)` pair with OLM v1's
//! order.
//!
//! OLM uses two range grammars and they are not interchangeable:
//!
//! - [`blang`] (blang/semver v4): OLM v0's `skipRange` and
//!   `olm.package.required`, and OLM v1's successor test. Space-separated AND,
//!   `||` OR, full versions, `x` wildcards only, prereleases not excluded.
//! - [`masterminds`] (Masterminds/semver v3.4+): OLM v1's
//!   `ClusterExtension.spec.source.catalog.version`. Commas or spaces, `~`, `^`,
//!   hyphen ranges, partial versions, prereleases excluded unless the OR group
//!   names one.
//!
//! Both compare by semver precedence, ignoring build metadata. [`release`]
//! splits OLM v1's release off a bundle version and orders the pairs. [`check`]
//! answers "does this range match these versions?" in either grammar.
//! [`intervals`] turns a blang range into spans of the version line, for indexes.
//!
//! The module uses only `semver`, `serde` and `thiserror`: no I/O, no async.

pub mod blang;
pub mod check;
pub(crate) mod go_text;
pub mod intervals;
pub mod masterminds;
pub mod release;
