//! `explain-upgrade` for OLM v1: what a ClusterExtension has installed, what
//! operator-controller installs next under its channels, version range and
//! upgrade constraint policy, and — when nothing moves — which newer bundles were
//! left out and why, with the smallest spec or catalog change that would let it move.
//!
//! In: a catalog's tables and a [`ClusterExtension`] read from cluster state. Out:
//! an [`ExtensionExplanation`]. The successor rules are [`crate::graph::successors`]'s;
//! the path repeats them one install at a time, as operator-controller does on
//! each reconcile. Spec fixes are found by asking again with the one field changed
//! (no range, every channel, `SelfCertified`) and kept only when the answer moves.

use crate::cluster::state::ClusterExtension;
use crate::graph::successors::{
    Installed, Policy, RejectKind, Rejected, SuccessorQuery, Successors, successors,
};
use crate::tables::Tables;
use serde::Serialize;

/// At most this many installs in a path: no real package has more.
const MAX_PATH: usize = 1_000;

/// The answer for one ClusterExtension.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionExplanation {
    /// `metadata.name`.
    pub extension: String,
    /// The package.
    pub package: String,
    /// The installed bundle, or empty.
    pub installed: String,
    /// Its version, or empty.
    pub installed_version: String,
    /// The bundles OLM v1 installs next, in order (the first is the next one).
    pub path: Vec<String>,
    /// Plain words: what OLM v1 does now, or why nothing moves.
    pub summary: String,
    /// Newer bundles the spec or the graph leaves out, with why: those of the
    /// considered channels first, then the rest, each highest version first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<Rejected>,
    /// The smallest changes that would let it move, when it is stuck.
    pub fixes: Vec<String>,
    /// What OLM v1 would say besides (dependencies it refuses, unknown channels,
    /// skipRanges that do not parse).
    pub warnings: Vec<String>,
}

/// Explains `e` against `tables`; an error names the spec field at fault.
pub fn explain_extension(
    tables: &Tables,
    e: &ClusterExtension,
) -> Result<ExtensionExplanation, String> {
    if tables.package(&e.package).is_none() {
        return Err(format!(
            "the catalog has no package {:?} (spec.source.catalog.packageName)",
            e.package
        ));
    }
    let query = query_of(e);
    let first = successors(tables, &query).map_err(|err| err.to_string())?;
    let mut out = ExtensionExplanation {
        extension: e.name.clone(),
        package: e.package.clone(),
        installed: e.installed_name.clone(),
        installed_version: e.installed_version.clone(),
        path: Vec::new(),
        summary: String::new(),
        left_out: Vec::new(),
        fixes: Vec::new(),
        warnings: first.warnings.clone(),
    };
    let Some(selected) = first.selected.clone() else {
        out.summary = format!("nothing moves: {}", message(&first));
        out.fixes = spec_fixes(tables, e);
        return Ok(out);
    };
    if e.installed_name.is_empty() && e.installed_version.is_empty() {
        out.path.push(selected.clone());
        out.summary = format!(
            "nothing is installed yet: OLM v1 installs {selected}, the highest version the spec allows"
        );
        return Ok(out);
    }
    out.path = walk(tables, &query, &selected);
    if let Some(next) = out.path.first() {
        out.summary = format!(
            "OLM v1 installs {next} next, then the rest of the path ({} install(s) to {})",
            out.path.len(),
            out.path.last().unwrap_or(next)
        );
        return Ok(out);
    }
    out.left_out = newer_left_out(tables, &query, &first);
    if out.left_out.is_empty() {
        out.summary = format!(
            "{} is the newest bundle the spec allows: nothing newer to install",
            e.installed_name
        );
        return Ok(out);
    }
    out.summary = format!(
        "stuck at {}: {} newer bundle(s) left out; the highest, {}: {}",
        e.installed_name,
        out.left_out.len(),
        out.left_out[0].name,
        out.left_out[0].reason
    );
    out.fixes = spec_fixes(tables, e);
    // an edge helps only a bundle the spec allows and the graph leaves out
    if let Some(target) = out.left_out.iter().find(|r| r.kind == RejectKind::NoEdge) {
        out.fixes.push(format!(
            "catalog: add {:?} to the skips of {} (or a skipRange on it that contains {})",
            e.installed_name, target.name, e.installed_version
        ));
    }
    Ok(out)
}

/// The successor question a ClusterExtension asks.
fn query_of(e: &ClusterExtension) -> SuccessorQuery {
    SuccessorQuery {
        package: e.package.clone(),
        installed: (!e.installed_name.is_empty() || !e.installed_version.is_empty()).then(|| {
            Installed {
                name: e.installed_name.clone(),
                version: e.installed_version.clone(),
                release: None,
            }
        }),
        version_range: e.version_range.clone(),
        channels: e.channels.clone(),
        policy: e.policy,
        ..SuccessorQuery::default()
    }
}

/// The installs after the installed bundle, `selected` first: each next one is
/// what OLM v1 selects from the one before, until it selects the bundle it is on
/// (or the installed version: a bundle may be named by version only).
fn walk(tables: &Tables, query: &SuccessorQuery, selected: &str) -> Vec<String> {
    let Some((_, package)) = tables.package(&query.package) else {
        return Vec::new();
    };
    let (installed_name, installed_version) = query
        .installed
        .as_ref()
        .map(|i| (i.name.as_str(), i.version.as_str()))
        .unwrap_or_default();
    let mut path: Vec<String> = Vec::new();
    let mut next = selected.to_owned();
    while let Some(bundle) = package.bundle(&next) {
        let installed = next == installed_name || bundle.version_text == installed_version;
        if installed || path.contains(&next) || path.len() >= MAX_PATH {
            break;
        }
        path.push(next.clone());
        let mut q = query.clone();
        q.installed = Some(Installed {
            name: next.clone(),
            version: bundle.version_text.clone(),
            release: None,
        });
        match successors(tables, &q).ok().and_then(|s| s.selected) {
            Some(after) if after != next => next = after,
            _ => break,
        }
    }
    path
}

/// The bundles newer than the installed one that the query leaves out: those of
/// the considered channels first, each part highest version first.
fn newer_left_out(tables: &Tables, query: &SuccessorQuery, answer: &Successors) -> Vec<Rejected> {
    let mut q = query.clone();
    q.explain = true;
    let Ok(explained) = successors(tables, &q) else {
        return Vec::new();
    };
    let Ok(installed) = semver::Version::parse(
        query
            .installed
            .as_ref()
            .map(|i| i.version.as_str())
            .unwrap_or_default(),
    ) else {
        return Vec::new();
    };
    let mut newer: Vec<(semver::Version, Rejected)> = explained
        .rejected
        .into_iter()
        .filter(|r| !answer.candidates.iter().any(|c| c.name == r.name))
        .filter_map(|r| {
            let v = semver::Version::parse(&r.version).ok()?;
            (v > installed).then_some((v, r))
        })
        .collect();
    // the graph's and the range's reasons first: those are about the channels asked for
    newer.sort_by(|(a, ra), (b, rb)| {
        (ra.kind == RejectKind::NotInChannels)
            .cmp(&(rb.kind == RejectKind::NotInChannels))
            .then_with(|| b.cmp(a))
            .then_with(|| ra.name.cmp(&rb.name))
    });
    newer.into_iter().map(|(_, r)| r).collect()
}

/// Each one-field change of the spec under which OLM v1 would move, in words.
fn spec_fixes(tables: &Tables, e: &ClusterExtension) -> Vec<String> {
    let mut fixes = Vec::new();
    let moves = |changed: &ClusterExtension| -> Option<String> {
        let selected = successors(tables, &query_of(changed)).ok()?.selected?;
        let version = tables
            .package(&e.package)
            .and_then(|(_, p)| p.bundle(&selected))
            .map(|b| b.version_text.as_str());
        (selected != e.installed_name && version != Some(e.installed_version.as_str()))
            .then_some(selected)
    };
    if let Some(range) = e.version_range.as_deref().filter(|r| !r.is_empty()) {
        let mut wider = e.clone();
        wider.version_range = None;
        if let Some(to) = moves(&wider) {
            fixes.push(format!(
                "spec: widen spec.source.catalog.version ({range:?}) to include {to}'s version; without it OLM v1 installs {to}"
            ));
        }
    }
    if !e.channels.is_empty() {
        let mut every = e.clone();
        every.channels.clear();
        if let Some(to) = moves(&every) {
            let channels = channels_of(tables, &e.package, &to);
            fixes.push(format!(
                "spec: add channel {} to spec.source.catalog.channels; OLM v1 then installs {to}",
                channels.join(" or ")
            ));
        }
    }
    if e.policy == Policy::CatalogProvided && !e.installed_name.is_empty() {
        let mut any = e.clone();
        any.policy = Policy::SelfCertified;
        if let Some(to) = moves(&any) {
            fixes.push(format!(
                "spec: set upgradeConstraintPolicy: SelfCertified; OLM v1 then installs {to} without a catalog edge (and would allow downgrades: use with care)"
            ));
        }
    }
    fixes
}

/// The channels `bundle` is an entry of, quoted, by name.
fn channels_of(tables: &Tables, package: &str, bundle: &str) -> Vec<String> {
    let Some((_, p)) = tables.package(package) else {
        return Vec::new();
    };
    let mut names: Vec<String> = p
        .channels
        .iter()
        .filter(|c| c.entries.iter().any(|entry| entry.name == bundle))
        .map(|c| format!("{:?}", c.name))
        .collect();
    names.sort();
    names
}

/// OLM v1's own message when nothing qualifies.
fn message(answer: &Successors) -> String {
    answer
        .message
        .clone()
        .unwrap_or_else(|| "no bundle qualifies".into())
}

#[cfg(test)]
mod tests;
