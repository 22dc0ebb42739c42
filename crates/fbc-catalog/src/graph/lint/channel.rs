//! The channel checks: one hop of each OLM from every installed bundle, and what
//! the entries' `replaces`, `skips` and `skipRange` say about each other.
//!
//! In: one channel with its edge index. Out: findings pushed onto the lint's list.

use super::{LintWarning, Severity, finding};
use crate::graph::name_list;
use crate::graph::successors::{ReleaseMode, bundle_version};
use crate::graph::upgrade_path::{Hops, Semantics};
use crate::model::{Channel, Entry, Package};
use std::collections::BTreeSet;

/// Runs every channel check on the channel of `hops`.
pub(super) fn check(hops: &Hops, out: &mut Vec<LintWarning>) {
    let mut lint = ChannelLint {
        p: hops.package,
        c: hops.index.channel,
        hops,
        out,
    };
    for e in &lint.c.entries {
        lint.hop_checks(&e.name, true);
        lint.skipped_on_chain(e);
        lint.dangling(e);
        lint.skip_range(e);
        lint.version_down(e);
    }
    for name in lint.absent_names() {
        lint.hop_checks(&name, false);
    }
}

struct ChannelLint<'a, 'o> {
    p: &'a Package,
    c: &'a Channel,
    hops: &'a Hops<'a>,
    out: &'o mut Vec<LintWarning>,
}

impl ChannelLint<'_, '_> {
    fn push(&mut self, check: &'static str, severity: Severity, entry: &str, message: String) {
        let w = finding(
            check,
            severity,
            &self.c.origin,
            self.p,
            &self.c.name,
            entry,
            message,
        );
        self.out.push(w);
    }

    fn version_of(&self, name: &str) -> Option<&semver::Version> {
        self.p.bundle(name).map(|b| &b.version)
    }

    /// Names the entries replace or skip that are not entries: bundles pruned
    /// from the channel, whose subscribers still need a way up.
    fn absent_names(&self) -> BTreeSet<String> {
        self.c
            .entries
            .iter()
            .flat_map(|e| std::iter::once(&e.replaces).chain(&e.skips))
            .filter(|n| !n.is_empty() && self.hops.index.find(n).is_none())
            .cloned()
            .collect()
    }

    /// `stranded` (entries only) and `v0-v1-divergence`: one hop of each OLM
    /// from `name`, an entry or a pruned name.
    fn hop_checks(&mut self, name: &str, is_entry: bool) {
        let version = self.version_of(name).cloned();
        let v0_hop = self.hops.hop(Semantics::V0, name, version.as_ref());
        let why_not = v0_hop.as_ref().err().cloned().unwrap_or_default();
        let v0 = v0_hop.ok().map(|h| h.0);
        let v1 = self
            .hops
            .hop(Semantics::V1, name, version.as_ref())
            .ok()
            .map(|h| h.0);
        let head = name == self.c.head_entry().name;
        if is_entry && v0.is_none() && !head {
            let then = v1
                .as_ref()
                .map_or(String::new(), |n| format!(" (OLM v1 would move to {n:?})"));
            let message = format!(
                "OLM v0 offers subscribers on {name:?} nothing in channel {:?}: they stay there{then}; {why_not}; add {name:?} to the replaces, skips or skipRange of a newer entry OLM v0 installs",
                self.c.name
            );
            self.push("stranded", Severity::Warning, name, message);
        } else if v0 != v1 {
            let say = |s: &Option<String>| {
                s.as_ref()
                    .map_or_else(|| "stays".to_string(), |n| format!("moves to {n:?}"))
            };
            let gone = if is_entry {
                ""
            } else {
                " (no longer an entry)"
            };
            let message = format!(
                "from {name:?}{gone}, OLM v0 {} (nearest the channel head) but OLM v1 {} (highest version)",
                say(&v0),
                say(&v1)
            );
            self.push("v0-v1-divergence", Severity::Warning, name, message);
        }
    }

    /// `skipped-on-chain`: skipped and replaced; says by whom, and who is left
    /// without a way up.
    fn skipped_on_chain(&mut self, e: &Entry) {
        let index = &self.hops.index;
        let named = |entries: &[u32]| {
            name_list(
                entries
                    .iter()
                    .map(|&i| format!("{:?}", index.entry(i).name)),
            )
        };
        let (Some(skippers), Some(replacers)) = (
            named(index.edges.skipped_by(&e.name)),
            named(index.replaced_by(&e.name)),
        ) else {
            return;
        };
        let mut message = format!(
            "{:?} is both skipped and replaced in channel {:?} ({skippers} skips it, {replacers} replaces it): OLM v0 never installs a skipped entry",
            e.name, self.c.name
        );
        if !e.replaces.is_empty() {
            let version = self.version_of(&e.replaces).cloned();
            if self
                .hops
                .hop(Semantics::V0, &e.replaces, version.as_ref())
                .is_err()
            {
                message.push_str(&format!(
                    ", so subscribers on {:?} stay there under OLM v0 (OLM v1 moves them to {:?}); make a chain entry replace or skip {:?} too",
                    e.replaces, e.name, e.replaces
                ));
            }
        }
        self.push("skipped-on-chain", Severity::Warning, &e.name, message);
    }

    /// `dangling-replaces`, `dangling-skips` (info): a name that is not an
    /// entry: a bundle of another channel (a cross-channel edge, the documented
    /// way to let subscribers switch channels), or no bundle at all (pruned, or
    /// a typo the catalog cannot tell from one).
    fn dangling(&mut self, e: &Entry) {
        let targets = std::iter::once(("dangling-replaces", "replaces", &e.replaces))
            .chain(e.skips.iter().map(|s| ("dangling-skips", "skips", s)));
        let mut found = Vec::new();
        for (check, field, name) in targets {
            if name.is_empty() || self.hops.index.find(name).is_some() {
                continue;
            }
            let elsewhere: Vec<&str> = self
                .p
                .channels
                .iter()
                .filter(|c| c.entries.iter().any(|o| o.name == *name))
                .map(|c| c.name.as_str())
                .collect();
            found.push((check, if elsewhere.is_empty() {
                format!("{field} {name:?}, which is no bundle of the package: fine if it was pruned, a typo otherwise")
            } else {
                format!(
                    "{field} {name:?}, an entry of channel(s) {} but not of {:?}: subscribers switching channels from it can upgrade here",
                    elsewhere.join(", "),
                    self.c.name
                )
            }));
        }
        for (check, message) in found {
            self.push(check, Severity::Info, &e.name, message);
        }
    }

    /// `skip-range-empty`, `skip-range-self`, `skip-range-downgrade`
    /// (validation already rejects a skipRange blang cannot parse).
    fn skip_range(&mut self, e: &Entry) {
        let index = &self.hops.index;
        let Some(i) = index.find(&e.name) else {
            return;
        };
        let (Some(range), Some(own)) = (index.edges.range_of(i), self.version_of(&e.name)) else {
            return;
        };
        let covered: Vec<&crate::model::Bundle> = index
            .edges
            .covered_by_range_of(i)
            .into_iter()
            .map(|o| index.entry(o))
            .filter(|o| o.name != e.name)
            .filter_map(|o| self.p.bundle(&o.name))
            .collect();
        let newer = name_list(
            covered
                .iter()
                .filter(|b| b.version.cmp_precedence(own).is_gt())
                .map(|b| format!("{:?} ({})", b.name, b.version_text)),
        );
        let mut findings = Vec::new();
        if covered.is_empty() {
            findings.push(("skip-range-empty", Severity::Info, format!(
                "skipRange {:?} contains no other entry of channel {:?}: fine if it covers pruned versions",
                e.skip_range, self.c.name
            )));
        }
        if range.matches(own) {
            findings.push(("skip-range-self", Severity::Info, format!(
                "skipRange {:?} contains the entry's own version {own}: did you mean an upper bound below it (\"<{own}\")?",
                e.skip_range
            )));
        }
        if let Some(newer) = newer {
            findings.push(("skip-range-downgrade", Severity::Warning, format!(
                "skipRange {:?} contains newer entries {}: subscribers on them are offered this older bundle",
                e.skip_range,
                newer
            )));
        }
        for (check, severity, message) in findings {
            self.push(check, severity, &e.name, message);
        }
    }

    /// `version-down`: a replaces step that does not go up, in OLM v1's
    /// (version, release) order (so `1.0.0+2` replacing `1.0.0` goes up).
    fn version_down(&mut self, e: &Entry) {
        let (Some(newer), Some(older)) = (self.p.bundle(&e.name), self.p.bundle(&e.replaces))
        else {
            return;
        };
        let order = |b| bundle_version(b, ReleaseMode::Legacy);
        if order(older) < order(newer) {
            return;
        }
        let message = format!(
            "replaces {:?} ({}), which is not older than {} ({})",
            older.name, older.version_text, newer.name, newer.version_text
        );
        self.push("version-down", Severity::Warning, &e.name, message);
    }
}
