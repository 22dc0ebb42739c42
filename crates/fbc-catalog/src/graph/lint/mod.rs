//! Graph lint: what catalog maintainers lose days to, and `opm validate` accepts.
//!
//! In: the tables (a catalog that validates), optionally one package. Out:
//! [`LintWarning`]s in (package, channel, entry, check) order, each with a
//! [`Severity`] and the file, document and line of the blob at fault:
//!
//! | check | severity | finding |
//! |---|---|---|
//! | `stranded` | warning | a non-head entry from which OLM v0 installs nothing: subscribers on it stay forever |
//! | `skipped-on-chain` | warning | an entry both skipped and on the `replaces` chain: OLM v0 hides it, so what it replaces may have no way up |
//! | `dangling-replaces`, `dangling-skips` | info | a `replaces` or `skips` naming no entry of the channel: another channel's bundle (a cross-channel edge) or nothing (a pruned bundle, or a typo) |
//! | `skip-range-empty` | info | a `skipRange` containing no other entry of its channel (normal when the range covers pruned versions) |
//! | `skip-range-self` | info | a `skipRange` containing its own entry's version (usually `<=` meant as `<`) |
//! | `skip-range-downgrade` | warning | a `skipRange` containing a newer entry's version: subscribers there are offered this older bundle |
//! | `version-down` | warning | a `replaces` step whose target is not older than the replacer, in OLM v1's (version, release) order |
//! | `near-known-name` | warning | a property type or CSV annotation a letter or two from a known one (`olm.skiprange`) |
//! | `v0-v1-divergence` | warning | an installed bundle (an entry, or a name the entries replace or skip) from which OLM v0 and OLM v1 install different bundles next |
//!
//! A channel with several heads or none does not validate, so it never gets here:
//! the diagnostic's hint names the entries at fault
//! ([`crate::diagnostic::Diagnostic::hint`]).

mod channel;
mod names;

use super::channel_index::ChannelIndex;
use super::upgrade_path::Hops;
use super::{GraphError, find_package};
use crate::model::Package;
use crate::source::Origin;
use crate::tables::Tables;
use serde::Serialize;

/// How much a finding matters: `--deny-warnings` fails on warnings, never on info.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Likely a mistake: subscribers are stuck, skip a version, or are offered a downgrade.
    Warning,
    /// Worth knowing, often intended (a pruned channel's tail).
    Info,
}

impl Severity {
    /// `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LintWarning {
    /// Which check (see the module docs).
    pub check: &'static str,
    /// How much it matters.
    pub severity: Severity,
    /// File of the blob at fault, relative to the catalog root.
    pub file: String,
    /// Its document number in the file.
    pub document: usize,
    /// Its first line.
    pub line: usize,
    /// Package.
    pub package: String,
    /// Channel, when the finding is about one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub channel: String,
    /// Entry or bundle, when the finding is about one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub entry: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl std::fmt::Display for LintWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}: document {} (line {}): package {:?}",
            self.severity.as_str(),
            self.file,
            self.document,
            self.line,
            self.package
        )?;
        if !self.channel.is_empty() {
            write!(f, ", channel {:?}", self.channel)?;
        }
        if !self.entry.is_empty() {
            write!(f, ", entry {:?}", self.entry)?;
        }
        write!(f, ": {} [{}]", self.message, self.check)
    }
}

/// Every finding for the catalog, or for one package.
pub fn lint(tables: &Tables, package: Option<&str>) -> Result<Vec<LintWarning>, GraphError> {
    let packages: Vec<(u32, &Package)> = match package {
        Some(name) => vec![find_package(tables, name)?],
        None => tables
            .packages()
            .iter()
            .enumerate()
            .map(|(i, p)| (i as u32, p))
            .collect(),
    };
    let mut out = Vec::new();
    for (pi, p) in packages {
        for ci in 0..p.channels.len() {
            let Some(index) = ChannelIndex::of(tables, pi, ci) else {
                continue;
            };
            channel::check(&Hops { package: p, index }, &mut out);
        }
        for b in &p.bundles {
            names::name_checks(p, b, &mut out);
        }
    }
    out.sort_by(|a, b| {
        (&a.package, &a.channel, &a.entry, a.check, &a.message)
            .cmp(&(&b.package, &b.channel, &b.entry, b.check, &b.message))
    });
    Ok(out)
}

/// The graph findings of one channel of `package` (no name checks): what
/// `explain-upgrade` shows beside a subscription, at the cost of one channel.
pub fn lint_channel(
    tables: &Tables,
    package: &str,
    channel: &str,
) -> Result<Vec<LintWarning>, GraphError> {
    let (pi, p) = find_package(tables, package)?;
    let mut out = Vec::new();
    if let Some(ci) = p.channels.iter().position(|c| c.name == channel)
        && let Some(index) = ChannelIndex::of(tables, pi, ci)
    {
        channel::check(&Hops { package: p, index }, &mut out);
    }
    out.sort_by(|a, b| (&a.entry, a.check, &a.message).cmp(&(&b.entry, b.check, &b.message)));
    Ok(out)
}

/// A finding about the blob read at `origin`.
fn finding(
    check: &'static str,
    severity: Severity,
    origin: &Origin,
    p: &Package,
    channel: &str,
    entry: &str,
    message: String,
) -> LintWarning {
    LintWarning {
        check,
        severity,
        file: origin.file.to_string(),
        document: origin.document,
        line: origin.line,
        package: p.name.clone(),
        channel: channel.to_string(),
        entry: entry.to_string(),
        message,
    }
}
