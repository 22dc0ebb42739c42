//! Graph lint: what catalog maintainers lose days to, and `opm validate` accepts.
//!
//! In: the tables (a catalog that validates), optionally one package. Out:
//! [`LintWarning`]s in (package, channel, entry, check) order, each naming the
//! file, document and line of the blob at fault:
//!
//! | check | finding |
//! |---|---|
//! | `dead-end` | a non-head entry from which OLM v0 installs nothing: subscribers on it stay forever |
//! | `skipped-on-chain` | an entry both skipped and on the `replaces` chain: OLM v0 hides it, so what it replaces may have no way up |
//! | `dangling-replaces`, `dangling-skips` | a `replaces` or `skips` naming a bundle of the package that is not an entry of the channel |
//! | `skip-range-self` | a `skipRange` containing its own entry's version (usually `<=` meant as `<`) |
//! | `skip-range-downgrade` | a `skipRange` containing a newer entry's version: subscribers there are offered this older bundle |
//! | `version-down` | a `replaces` step whose target has a version not lower than the replacer's |
//! | `near-known-name` | a property type or CSV annotation one or two edits from a known one (`olm.skiprange`) |
//! | `v0-v1-divergence` | an entry from which OLM v0 and OLM v1 install different bundles next |
//!
//! A missing `replaces` target at the tail of a channel, a `skips` naming a bundle
//! the catalog never had, and a skipRange covering pruned versions are normal
//! (the OLM docs recommend them) and are not reported.

use super::channel_index::ChannelIndex;
use super::upgrade_path::{Hops, Semantics};
use super::{GraphError, find_package};
use crate::model::csv::PackageParts;
use crate::model::{Bundle, Channel, Entry, Package};
use crate::source::Origin;
use crate::tables::{ChannelRef, Tables};
use serde::Serialize;

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LintWarning {
    /// Which check (see the module docs).
    pub check: &'static str,
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
            "{}: document {} (line {}): package {:?}",
            self.file, self.document, self.line, self.package
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

/// Property types OLM knows.
const KNOWN_PROPERTIES: &[&str] = &[
    "olm.package",
    "olm.package.required",
    "olm.gvk",
    "olm.gvk.required",
    "olm.bundle.object",
    "olm.csv.metadata",
    "olm.constraint",
    "olm.label",
    "olm.label.required",
    "olm.channel",
    "olm.deprecated",
    "olm.maxOpenShiftVersion",
    "olm.substitutesFor",
];

/// CSV annotations OLM reads.
const KNOWN_ANNOTATIONS: &[&str] = &[
    "olm.skipRange",
    "olm.substitutesFor",
    "olm.properties",
    "olm.maxOpenShiftVersion",
    "olm.operatorGroup",
    "olm.targetNamespaces",
];

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
        for (ci, c) in p.channels.iter().enumerate() {
            let chain = tables.chain(ChannelRef {
                package: pi,
                channel: ci as u32,
            });
            let hops = Hops {
                package: p,
                index: ChannelIndex::new(c, chain),
            };
            ChannelLint {
                p,
                c,
                hops: &hops,
                out: &mut out,
            }
            .run();
        }
        for b in &p.bundles {
            name_checks(p, b, &mut out);
        }
    }
    out.sort_by(|a, b| {
        (&a.package, &a.channel, &a.entry, a.check)
            .cmp(&(&b.package, &b.channel, &b.entry, b.check))
    });
    Ok(out)
}

fn warning(
    check: &'static str,
    origin: &Origin,
    p: &Package,
    channel: &str,
    entry: &str,
    message: String,
) -> LintWarning {
    LintWarning {
        check,
        file: origin.file.to_string(),
        document: origin.document,
        line: origin.line,
        package: p.name.clone(),
        channel: channel.to_string(),
        entry: entry.to_string(),
        message,
    }
}

/// The channel checks of one channel.
struct ChannelLint<'a, 'o> {
    p: &'a Package,
    c: &'a Channel,
    hops: &'a Hops<'a>,
    out: &'o mut Vec<LintWarning>,
}

impl ChannelLint<'_, '_> {
    fn push(&mut self, check: &'static str, entry: &str, message: String) {
        self.out.push(warning(
            check,
            &self.c.origin,
            self.p,
            &self.c.name,
            entry,
            message,
        ));
    }

    fn run(&mut self) {
        for e in &self.c.entries {
            self.hop_checks(e);
            self.skipped_on_chain(e);
            self.dangling(e);
            self.skip_range(e);
            self.version_down(e);
        }
    }

    fn version_of(&self, name: &str) -> Option<&semver::Version> {
        self.p.bundle(name).map(|b| &b.version)
    }

    /// `dead-end` and `v0-v1-divergence`: one hop of each OLM from the entry.
    fn hop_checks(&mut self, e: &Entry) {
        let Some(version) = self.version_of(&e.name).cloned() else {
            return;
        };
        let v0 = self
            .hops
            .hop(Semantics::V0, &e.name, &version)
            .ok()
            .map(|h| h.0);
        let v1 = self
            .hops
            .hop(Semantics::V1, &e.name, &version)
            .ok()
            .map(|h| h.0);
        let head = e.name == self.c.head_entry().name;
        if v0.is_none() && !head {
            let then = v1
                .as_ref()
                .map_or(String::new(), |n| format!(" (OLM v1 would move to {n:?})"));
            self.push("dead-end", &e.name, format!(
                "OLM v0 offers subscribers on {:?} nothing in channel {:?}: they stay there{then}; add {:?} to the replaces, skips or skipRange of a newer entry",
                e.name, self.c.name, e.name
            ));
        } else if v0 != v1 {
            let say = |s: &Option<String>| {
                s.as_ref()
                    .map_or_else(|| "stays".to_string(), |n| format!("moves to {n:?}"))
            };
            let message = format!(
                "from {:?}, OLM v0 {} (nearest the channel head) but OLM v1 {} (highest version)",
                e.name,
                say(&v0),
                say(&v1)
            );
            self.push("v0-v1-divergence", &e.name, message);
        }
    }

    /// `skipped-on-chain`: skipped and replaced; says who is left without a way up.
    fn skipped_on_chain(&mut self, e: &Entry) {
        let index = &self.hops.index;
        if !index.is_skipped(&e.name) || index.replaced_by(&e.name).is_empty() {
            return;
        }
        let mut message = format!(
            "{:?} is both skipped and replaced in channel {:?}: OLM v0 never installs a skipped entry",
            e.name, self.c.name
        );
        if !e.replaces.is_empty() {
            let version = self.version_of(&e.replaces).cloned();
            let stuck = match &version {
                Some(v) => self.hops.hop(Semantics::V0, &e.replaces, v).is_err(),
                None => index
                    .edges_from(&e.replaces, None)
                    .iter()
                    .all(|x| index.chain_position(x.entry).is_none()),
            };
            if stuck {
                message.push_str(&format!(
                    ", so subscribers on {:?} stay there under OLM v0 (OLM v1 moves them to {:?}); make a chain entry replace or skip {:?} too",
                    e.replaces, e.name, e.replaces
                ));
            }
        }
        self.push("skipped-on-chain", &e.name, message);
    }

    /// `dangling-replaces`, `dangling-skips`: a bundle the package has, missing
    /// from the channel (a name the package lacks is a pruned bundle: normal;
    /// versioned names are all a few edits apart, so typos cannot be told from them).
    fn dangling(&mut self, e: &Entry) {
        let targets = std::iter::once(("dangling-replaces", "replaces", &e.replaces))
            .chain(e.skips.iter().map(|s| ("dangling-skips", "skips", s)));
        let mut found = Vec::new();
        for (check, field, name) in targets {
            if name.is_empty() || self.hops.index.find(name).is_some() {
                continue;
            }
            if self.p.bundle(name).is_some() {
                found.push((check, format!(
                    "{field} {name:?}, a bundle of the package that is not an entry of channel {:?}: OLM upgrades only along the channel's own entries; add the entry",
                    self.c.name
                )));
            }
        }
        for (check, message) in found {
            self.push(check, &e.name, message);
        }
    }

    /// `skip-range-self`, `skip-range-downgrade` (validation already rejects
    /// a skipRange blang cannot parse).
    fn skip_range(&mut self, e: &Entry) {
        if e.skip_range.is_empty() {
            return;
        }
        let index = &self.hops.index;
        let Some(i) = index.find(&e.name) else {
            return;
        };
        let (Some(range), Some(own)) = (
            index.ranges().find(|(r, _)| *r == i).map(|(_, r)| r),
            self.version_of(&e.name),
        ) else {
            return;
        };
        let mut findings = Vec::new();
        if range.matches(own) {
            findings.push(("skip-range-self", format!(
                "skipRange {:?} contains the entry's own version {own}: did you mean an upper bound below it (\"<{own}\")?",
                e.skip_range
            )));
        }
        let newer: Vec<String> = self
            .c
            .entries
            .iter()
            .filter_map(|o| self.p.bundle(&o.name))
            .filter(|b| b.version.cmp_precedence(own).is_gt() && range.matches(&b.version))
            .map(|b| format!("{:?} ({})", b.name, b.version_text))
            .collect();
        if !newer.is_empty() {
            findings.push(("skip-range-downgrade", format!(
                "skipRange {:?} contains newer entries {}: subscribers on them are offered this older bundle",
                e.skip_range, newer.join(", ")
            )));
        }
        for (check, message) in findings {
            self.push(check, &e.name, message);
        }
    }

    /// `version-down`: a replaces step that does not go up.
    fn version_down(&mut self, e: &Entry) {
        let (Some(newer), Some(older)) = (self.p.bundle(&e.name), self.p.bundle(&e.replaces))
        else {
            return;
        };
        if older.version.cmp_precedence(&newer.version).is_lt() {
            return;
        }
        let message = format!(
            "replaces {:?} ({}), which is not older than {} ({})",
            older.name, older.version_text, newer.name, newer.version_text
        );
        self.push("version-down", &e.name, message);
    }
}

fn name_checks(p: &Package, b: &Bundle, out: &mut Vec<LintWarning>) {
    for prop in &b.properties {
        if let Some(known) = near_known(&prop.typ, KNOWN_PROPERTIES) {
            out.push(warning(
                "near-known-name",
                &b.origin,
                p,
                "",
                &b.name,
                format!(
                    "property type {:?} is not one OLM knows; did you mean {known:?}?",
                    prop.typ
                ),
            ));
        }
    }
    for key in annotation_keys(p, b) {
        if let Some(known) = near_known(&key, KNOWN_ANNOTATIONS) {
            out.push(warning(
                "near-known-name",
                &b.origin,
                p,
                "",
                &b.name,
                format!("CSV annotation {key:?} is not one OLM reads; did you mean {known:?}?"),
            ));
        }
    }
}

/// The annotation keys of a bundle's CSV (embedded, or synthesised from `olm.csv.metadata`).
fn annotation_keys(p: &Package, b: &Bundle) -> Vec<String> {
    let csv_json: Option<Vec<u8>> = match (b.csv_object, &b.csv_pieces) {
        (Some(i), _) => b.objects.get(i).map(|o| o.to_vec()),
        (None, Some(pieces)) => PackageParts::new(p)
            .ok()
            .map(|parts| pieces.chunks(&parts).concat()),
        (None, None) => None,
    };
    let csv: Option<serde_json::Value> = csv_json.and_then(|j| serde_json::from_slice(&j).ok());
    csv.as_ref()
        .and_then(|c| c.pointer("/metadata/annotations"))
        .and_then(|a| a.as_object())
        .map(|a| a.keys().cloned().collect())
        .unwrap_or_default()
}

/// The known name `name` is one or two edits (or only letter case) away from.
fn near_known(name: &str, known: &[&'static str]) -> Option<&'static str> {
    if known.contains(&name) {
        return None;
    }
    known.iter().copied().find(|k| {
        k.eq_ignore_ascii_case(name)
            || (name.len() > 4
                && k.len().abs_diff(name.len()) <= 2
                && super::edit_distance(name, k) <= 2)
    })
}
