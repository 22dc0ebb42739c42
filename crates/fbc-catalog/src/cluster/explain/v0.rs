//! `explain-upgrade` for OLM v0: where a subscription's installed bundle sits, what
//! OLM does next, and — when nothing moves — why, and the smallest change that
//! would let it move.
//!
//! In: a catalog's tables and a [`Subscription`] read from cluster state. Out: an
//! [`Explanation`]: the installed bundle and its channel's head, the next hop and
//! the whole path OLM v0 takes (one install at a time, `graph::upgrade_path`), what
//! holds it (a manual approval pending, nothing installed yet, no edge), the
//! smallest catalog or spec change that would let it move, and the graph-lint
//! findings about the installed bundle's channel.

use super::resolution::Resolution;
use crate::cluster::state::{Approval, InstalledCsv, Subscription};
use crate::graph::lint::{self, LintWarning};
use crate::graph::upgrade_path::{Outcome, PathQuery, Semantics, upgrade_path};
use crate::tables::Tables;
use serde::Serialize;

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// `namespace/name` of the subscription.
    pub subscription: String,
    /// The package.
    pub package: String,
    /// The channel walked (the subscription's, or the package's default).
    pub channel: String,
    /// The installed bundle, or empty.
    pub installed: String,
    /// The channel's head.
    pub head: String,
    /// The bundles OLM v0 installs next, in order (the first is the next hop).
    pub path: Vec<String>,
    /// Plain words: what OLM does now, or why nothing moves.
    pub summary: String,
    /// The smallest changes that would let it move, when it is stuck.
    pub fixes: Vec<String>,
    /// Graph-lint findings about the channel walked (name checks left out).
    pub findings: Vec<LintWarning>,
    /// `olm.deprecations` messages about the package, the channel and the
    /// installed bundle, in that order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deprecations: Vec<String>,
    /// What OLM v0's resolution of the subscription's namespace says, when the
    /// cluster state was there to ask ([`super::explain_state`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

/// Explains `s` against `tables`; `csv` is its installed CSV when the cluster
/// state has it (its version places a bundle the catalog no longer has).
pub fn explain(
    tables: &Tables,
    s: &Subscription,
    csv: Option<&InstalledCsv>,
) -> Result<Explanation, String> {
    let (_, package) = tables
        .package(&s.package)
        .ok_or_else(|| format!("the catalog has no package {:?} (spec.name)", s.package))?;
    let channel_name = if s.channel.is_empty() {
        package.default_channel.clone()
    } else {
        s.channel.clone()
    };
    let channel = package
        .channels
        .iter()
        .find(|c| c.name == channel_name)
        .ok_or_else(|| {
            format!(
                "package {:?} has no channel {channel_name:?} (spec.channel); it has: {}",
                s.package,
                package
                    .channels
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    let head = channel.head_entry().name.clone();
    let mut out = Explanation {
        subscription: format!("{}/{}", s.namespace, s.name),
        package: s.package.clone(),
        channel: channel_name.clone(),
        installed: s.installed_csv.clone(),
        head: head.clone(),
        path: Vec::new(),
        summary: String::new(),
        fixes: Vec::new(),
        findings: Vec::new(),
        deprecations: [
            package
                .deprecation
                .as_ref()
                .map(|m| format!("package {:?}: {m}", package.name)),
            channel
                .deprecation
                .as_ref()
                .map(|m| format!("channel {channel_name:?}: {m}")),
            package
                .bundle(&s.installed_csv)
                .and_then(|b| b.deprecation.as_ref())
                .map(|m| format!("bundle {:?}: {m}", s.installed_csv)),
        ]
        .into_iter()
        .flatten()
        .collect(),
        resolution: None,
    };
    if s.installed_csv.is_empty() {
        let first = if s.starting_csv.is_empty() {
            &head
        } else {
            &s.starting_csv
        };
        out.path.push(first.clone());
        out.summary = format!("nothing is installed yet: OLM v0 installs {first} first");
        return Ok(out);
    }
    let query = PathQuery {
        package: s.package.clone(),
        channel: channel_name.clone(),
        from: s.installed_csv.clone(),
        from_version: csv.map(|c| c.version.clone()).filter(|v| !v.is_empty()),
        semantics: Semantics::V0,
        ..PathQuery::default()
    };
    let path = upgrade_path(tables, &query).map_err(|e| e.to_string())?;
    out.path = path.steps.iter().map(|step| step.to.clone()).collect();
    out.findings =
        lint::lint_channel(tables, &s.package, &channel_name).map_err(|e| e.to_string())?;
    let pending = s.approval == Approval::Manual && s.state == "UpgradePending";
    out.summary = match (path.outcome, out.path.first()) {
        (Outcome::AlreadyAtHead, _) => format!(
            "{} is the head of channel {channel_name:?}: nothing newer to install",
            s.installed_csv
        ),
        (_, Some(next)) if pending => format!(
            "an InstallPlan waits for approval (installPlanApproval: Manual) to install {}; OLM v0 does not look again until it is approved or deleted",
            if s.current_csv.is_empty() {
                next
            } else {
                &s.current_csv
            }
        ),
        (_, Some(next)) => format!(
            "OLM v0 installs {next} next, then the rest of the path ({} install(s) to {})",
            out.path.len(),
            out.path.last().unwrap_or(next)
        ),
        (_, None) => format!(
            "stuck at {}: {}",
            s.installed_csv,
            path.stuck_reason
                .clone()
                .unwrap_or_else(|| "no way up".into())
        ),
    };
    if out.path.is_empty() && path.outcome == Outcome::Stuck {
        out.fixes = fixes(tables, s, &channel_name, &head);
    } else if channel.deprecation.is_some() && out.path.is_empty() {
        // at the head of a deprecated channel: the way on is another channel
        out.fixes = other_channels(tables, s, &channel_name);
    }
    Ok(out)
}

/// The rest of `e`'s path after `from` (an entry of its channel), as the graph walks it.
pub(super) fn path_from(tables: &Tables, e: &Explanation, from: &str) -> Vec<String> {
    let query = PathQuery {
        package: e.package.clone(),
        channel: e.channel.clone(),
        from: from.to_owned(),
        semantics: Semantics::V0,
        ..PathQuery::default()
    };
    upgrade_path(tables, &query)
        .map(|p| p.steps.into_iter().map(|step| step.to).collect())
        .unwrap_or_default()
}

/// The smallest changes that would unstick `s`: in the catalog, an edge from the
/// head; on the cluster, another channel of the package that has a way up.
fn fixes(tables: &Tables, s: &Subscription, channel: &str, head: &str) -> Vec<String> {
    let mut fixes = vec![format!(
        "catalog: add {installed:?} to the skips of {head} in channel {channel:?} (or a skipRange on {head} that contains its version)",
        installed = s.installed_csv
    )];
    fixes.extend(other_channels(tables, s, channel));
    fixes
}

/// For each other channel of the package with a way up from the installed
/// bundle: moving the subscription there, and what OLM v0 installs next.
fn other_channels(tables: &Tables, s: &Subscription, channel: &str) -> Vec<String> {
    let mut fixes = Vec::new();
    let Some((_, package)) = tables.package(&s.package) else {
        return fixes;
    };
    for other in package.channels.iter().filter(|c| c.name != channel) {
        let query = PathQuery {
            package: s.package.clone(),
            channel: other.name.clone(),
            from: s.installed_csv.clone(),
            semantics: Semantics::V0,
            ..PathQuery::default()
        };
        if let Ok(path) = upgrade_path(tables, &query)
            && let Some(first) = path.steps.first()
        {
            fixes.push(format!(
                "subscription: set spec.channel to {:?}, where OLM v0 installs {} next",
                other.name, first.to
            ));
        }
    }
    fixes
}

#[cfg(test)]
mod tests;
