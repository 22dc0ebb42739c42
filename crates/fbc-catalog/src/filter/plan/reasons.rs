//! Every input bundle's fate in words: the [`Decision`]s of a plan.
//!
//! In: the input's tables, the planned packages and the plan. Out: one
//! decision per input bundle, by package then bundle: kept (the strongest
//! reason of its channels, what selected it, notes the guarantees left) or
//! dropped (why: not selected and by what rule, or selected but removed by
//! the channel repair, naming the head it could not reach).

use super::{Decision, PackagePlan, PackageWork, Plan, Verdict};
use crate::filter::config::Selection;
use crate::filter::{Dropped, Keep};
use crate::model::Package;
use crate::tables::Tables;
use std::collections::BTreeMap;

/// Every input bundle's decision, by package then bundle.
pub(super) fn decisions(
    tables: &Tables,
    work: &BTreeMap<String, PackageWork>,
    plan: &Plan,
) -> Vec<Decision> {
    let mut out = Vec::new();
    for package in tables.packages() {
        let pw = work.get(&package.name);
        let pp = plan.package(&package.name);
        for bundle in &package.bundles {
            out.push(decision(package, bundle.name.as_str(), pw, pp));
        }
    }
    out
}

fn decision(
    package: &Package,
    bundle: &str,
    pw: Option<&PackageWork>,
    pp: Option<&PackagePlan>,
) -> Decision {
    let mut channels = Vec::new();
    let mut keep: Option<Keep> = None;
    let mut notes = Vec::new();
    for c in pp.map(|p| p.channels.as_slice()).unwrap_or_default() {
        if let Some(b) = c.bundles.iter().find(|b| b.name == bundle) {
            channels.push(c.name.clone());
            keep = Some(keep.map_or(b.keep, |k| k.min(b.keep)));
            notes.extend(b.note.clone());
        }
    }
    let reason = match (pw, keep) {
        (None, _) => "its package is not selected".to_string(),
        (Some(pw), Some(k)) => kept_reason(pw, bundle, k, &channels, &notes),
        (Some(pw), None) => dropped_reason(pw, bundle),
    };
    Decision {
        package: package.name.clone(),
        bundle: bundle.to_string(),
        verdict: keep.map_or(Verdict::Dropped, Verdict::Kept),
        channels,
        reason,
    }
}

fn kept_reason(
    pw: &PackageWork,
    bundle: &str,
    keep: Keep,
    channels: &[String],
    notes: &[String],
) -> String {
    let mut reason = match keep {
        Keep::Selected | Keep::Dependency => pw.reasons.get(bundle).cloned().unwrap_or_default(),
        Keep::Head => pw.reasons.get(bundle).cloned().unwrap_or_else(|| {
            format!(
                "the head of {}, kept so the channel has one",
                channels.join(", ")
            )
        }),
        Keep::Path => format!(
            "on an upgrade path to the head of {}, kept so kept bundles still reach it",
            channels.join(", ")
        ),
    };
    for n in notes {
        reason.push_str("; ");
        reason.push_str(n);
    }
    reason
}

fn dropped_reason(pw: &PackageWork, bundle: &str) -> String {
    for cw in pw.channels.values() {
        let entries = &cw.channel().entries;
        if let Some((_, why)) = cw
            .dropped
            .iter()
            .find(|(i, _)| entries[**i as usize].name == bundle)
        {
            let head = &entries[cw.target as usize].name;
            return match why {
                Dropped::NoPathToHead => format!(
                    "selected, but no upgrade edge leads from it to {head}, the head of {}",
                    cw.channel().name
                ),
                Dropped::Stranded => format!(
                    "selected, but it would be stranded in {} (neither on {head}'s replaces chain nor skipped)",
                    cw.channel().name
                ),
            };
        }
    }
    if pw.reasons.contains_key(bundle) {
        return "selected, but not kept in any channel".to_string();
    }
    // the selection of a configured channel holding the bundle, else the package's
    let selection = pw.config.as_ref().map(|c| {
        c.channels
            .iter()
            .find(|cf| {
                pw.package
                    .channel(&cf.name)
                    .is_some_and(|ch| ch.entries.iter().any(|e| e.name == bundle))
            })
            .map_or(&c.selection, |cf| &cf.selection)
    });
    match selection {
        None => "its package is not selected; only what dependencies need is kept".to_string(),
        _ if pw.channels.is_empty() => "no channel of its package is kept".to_string(),
        Some(Selection::HeadsOnly) => "not a channel head (heads only)".to_string(),
        Some(Selection::Range { text, .. }) => format!("its version is not in {text:?}"),
        Some(Selection::Bundles(_)) => "not named in bundles".to_string(),
        _ => "not in a kept channel".to_string(),
    }
}
