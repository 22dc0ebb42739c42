//! `explain-upgrade`: for each operator the cluster state shows, where it is,
//! what OLM does next, and — when nothing moves — why, with the smallest change
//! that would let it move.
//!
//! In: a catalog's tables and [`ClusterState`]. Out: a [`Report`]: one
//! [`v0::Explanation`] per Subscription (by namespace, then name), one
//! [`v1::ExtensionExplanation`] per ClusterExtension (by name), and a problem per
//! object that could not be explained (its package or channel is not in the
//! catalog), naming the object and the spec field.
//!
//! | module | in → out |
//! |---|---|
//! | [`v0`] | a Subscription (+ its CSV) → its channel, path, what holds it, fixes, lint findings |
//! | [`resolution`] | a Subscription's namespace → whether OLM v0's dependency resolution goes through |
//! | [`v1`] | a ClusterExtension → its successors path under channels, range and policy, and why none |

pub mod resolution;
pub mod v0;
pub mod v1;

use crate::cluster::state::ClusterState;
use crate::resolve;
use crate::tables::Tables;
use resolution::Resolution;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;
pub use v0::{Explanation, explain};
pub use v1::{ExtensionExplanation, explain_extension};

/// Everything `explain-upgrade` answers for one cluster state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// OLM v0 subscriptions, by namespace and name.
    pub subscriptions: Vec<Explanation>,
    /// OLM v1 cluster extensions, by name.
    pub extensions: Vec<ExtensionExplanation>,
    /// Objects that could not be explained, each named, by kind and name.
    pub problems: Vec<String>,
}

impl Report {
    /// Whether some operator cannot move although the catalog has something newer
    /// (or could not be explained at all).
    pub fn stuck(&self) -> bool {
        !self.problems.is_empty()
            || self
                .subscriptions
                .iter()
                .any(|e| !e.fixes.is_empty() || failed(e))
            || self
                .extensions
                .iter()
                .any(|e| !e.fixes.is_empty() || !e.left_out.is_empty())
    }
}

fn failed(e: &Explanation) -> bool {
    matches!(e.resolution, Some(Resolution::Fails { .. }))
}

/// Most Subscriptions and ClusterExtensions one report explains.
pub const MAX_EXPLAINED: usize = 2_000;

/// Explains every Subscription and ClusterExtension of `state` (see the module
/// docs); each namespace's resolution stops at `deadline`. More than
/// [`MAX_EXPLAINED`] objects is an error.
pub fn explain_state(
    tables: &Tables,
    state: &ClusterState,
    deadline: Option<Instant>,
) -> Result<Report, String> {
    let objects = state.subscriptions.len() + state.extensions.len();
    if objects > MAX_EXPLAINED {
        return Err(format!(
            "the cluster state has {objects} Subscriptions and ClusterExtensions; at most {MAX_EXPLAINED} are explained at once"
        ));
    }
    let limits = resolve::Limits {
        deadline,
        ..resolve::Limits::default()
    };
    let mut groups: HashMap<(String, String, String), resolution::Group> = HashMap::new();
    let mut report = Report::default();
    let mut subscriptions: Vec<_> = state.subscriptions.iter().collect();
    subscriptions.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    for s in subscriptions {
        let csv = state
            .csvs
            .iter()
            .find(|c| c.name == s.installed_csv && c.namespace == s.namespace);
        match explain(tables, s, csv) {
            Ok(mut e) => {
                let group = groups
                    .entry(resolution::group_key(s))
                    .or_insert_with(|| resolution::resolve_group(tables, state, s, &limits));
                let r = group.for_subscription(s, e.path.first());
                with_resolution(tables, &mut e, r);
                report.subscriptions.push(e);
            }
            Err(problem) => report.problems.push(format!(
                "Subscription {}/{} ({}): {problem}",
                s.namespace, s.name, s.origin
            )),
        }
    }
    let mut extensions: Vec<_> = state.extensions.iter().collect();
    extensions.sort_by(|a, b| a.name.cmp(&b.name));
    for x in extensions {
        match explain_extension(tables, x) {
            Ok(e) => report.extensions.push(e),
            Err(problem) => report.problems.push(format!(
                "ClusterExtension {} ({}): {problem}",
                x.name, x.origin
            )),
        }
    }
    Ok(report)
}

/// Adds what resolution says: a failure, or a dependency that rules out the
/// graph's next hop, is what holds the subscription; a different next bundle is said.
fn with_resolution(tables: &Tables, e: &mut Explanation, r: Resolution) {
    match &r {
        Resolution::Fails { error } => {
            e.summary = format!(
                "{}; but OLM v0 resolves nothing in this namespace: {error}",
                e.summary
            );
        }
        Resolution::Resolves {
            next: None,
            passed_over,
        } if !e.installed.is_empty() => {
            let held = e.path.first().and_then(|next| {
                passed_over
                    .iter()
                    .find(|a| a.candidate.starts_with(next.as_str()))
            });
            if let (Some(next), Some(held)) = (e.path.first(), held) {
                let reasons: Vec<&str> = held.reasons.iter().map(|r| r.plain.as_str()).collect();
                e.summary = format!(
                    "the graph's next hop is {next}, but OLM v0's resolution keeps {}: {}",
                    e.installed,
                    reasons.join("; ")
                );
                e.fixes
                    .extend(reasons.iter().map(|r| format!("dependency: {r}")));
            }
        }
        Resolution::Resolves {
            next: Some(next),
            passed_over,
        } if e.path.first() != Some(next) && !e.installed.is_empty() => {
            let reasons: Vec<&str> = e
                .path
                .first()
                .and_then(|hop| {
                    passed_over
                        .iter()
                        .find(|a| a.candidate.starts_with(hop.as_str()))
                })
                .map(|held| held.reasons.iter().map(|r| r.plain.as_str()).collect())
                .unwrap_or_default();
            e.summary = match (e.path.first(), reasons.is_empty()) {
                (Some(hop), false) => format!(
                    "OLM v0 installs {next} next, not the graph's next hop {hop}: {}",
                    reasons.join("; ")
                ),
                _ => format!("{}; OLM v0's resolution installs {next}", e.summary),
            };
            e.fixes
                .extend(reasons.iter().map(|r| format!("dependency: {r}")));
            // the path goes on from what OLM really installs
            e.path = std::iter::once(next.clone())
                .chain(v0::path_from(tables, e, next))
                .collect();
        }
        Resolution::Resolves { .. } => {}
    }
    e.resolution = Some(r);
}

#[cfg(test)]
mod tests;
