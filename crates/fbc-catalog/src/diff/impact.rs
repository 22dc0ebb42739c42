//! Two catalogs → what the change does to installed bundles.
//!
//! In: the OLD and NEW tables. Out: [`Impact`]:
//! - **paths** (OLM v0): for every entry of every channel of OLD that has a path to its
//!   channel's head there ([`crate::graph::upgrade_path`]), the path in NEW from the
//!   same bundle (found by name, or by version once it is gone) in the same channel:
//!   - [`PathKind::Stranded`]: the bundle left the channel and no entry of NEW replaces,
//!     skips or skipRange-covers it: a subscription on it is stuck;
//!   - [`PathKind::Broken`]: a path no longer reaches the head (the bundle is still in
//!     the channel, or the path stops on the way), or the channel is gone;
//!   - [`PathKind::Lengthened`], [`PathKind::Shortened`]: it reaches the head in more or
//!     fewer installs; [`PathKind::Rerouted`]: as many, through other bundles.
//!     Entries already stuck in OLD are not reported (nothing was lost).
//! - **successors** (OLM v1, `CatalogProvided`): for every bundle of OLD that is in a
//!   channel, its successors in OLD and in NEW ([`crate::graph::successors`]), when the
//!   sets or the selected one differ: the ones lost, the ones gained, and the pick.
//! - **bundles gone**: bundles in a channel of OLD and in no channel of NEW (removed
//!   packages included).
//!
//! Packages missing from NEW are listed as removed by the diff itself; their bundles
//! are counted as gone, and their paths are not walked one by one.

use crate::graph::successors::{Installed, SuccessorQuery, successors};
use crate::graph::upgrade_path::{Outcome, PathQuery, Semantics, UpgradePath, upgrade_path};
use crate::model::Package;
use crate::tables::Tables;
use serde::Serialize;
use std::collections::BTreeSet;

/// What the change does to installed bundles (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Impact {
    /// Bundles on a channel of OLD that are on no channel of NEW.
    pub bundles_gone: Vec<BundleRef>,
    /// OLM v0 paths that changed, by package, channel and bundle.
    pub paths: Vec<PathChange>,
    /// OLM v1 successors that changed, by package and bundle.
    pub successors: Vec<SuccessorChange>,
}

impl Impact {
    /// Whether nothing changed for anyone.
    pub fn is_empty(&self) -> bool {
        self.bundles_gone.is_empty() && self.paths.is_empty() && self.successors.is_empty()
    }
}

/// A bundle of a package.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BundleRef {
    /// The package.
    pub package: String,
    /// The bundle.
    pub bundle: String,
    /// Its version.
    pub version: String,
}

/// How an OLM v0 path changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathKind {
    /// The bundle left the channel and nothing in NEW upgrades from it.
    Stranded,
    /// A path that reached the head no longer does.
    Broken,
    /// It reaches the head in more installs.
    Lengthened,
    /// It reaches the head in fewer installs.
    Shortened,
    /// It reaches the head in as many installs, through other bundles.
    Rerouted,
}

impl PathKind {
    /// The kebab-case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            PathKind::Stranded => "stranded",
            PathKind::Broken => "broken",
            PathKind::Lengthened => "lengthened",
            PathKind::Shortened => "shortened",
            PathKind::Rerouted => "rerouted",
        }
    }
}

/// One installed bundle's OLM v0 path, before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PathChange {
    /// The package.
    pub package: String,
    /// The channel subscribed to.
    pub channel: String,
    /// The installed bundle.
    pub bundle: String,
    /// Its version.
    pub version: String,
    /// What changed.
    pub kind: PathKind,
    /// The bundles installed one after another in OLD (the head last).
    pub old_path: Vec<String>,
    /// The same in NEW, as far as it goes.
    pub new_path: Vec<String>,
    /// Why it stops, when it does not reach the head in NEW.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One installed bundle's OLM v1 successors, before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SuccessorChange {
    /// The package.
    pub package: String,
    /// The installed bundle.
    pub bundle: String,
    /// Its version.
    pub version: String,
    /// Successors in OLD only.
    pub lost: Vec<String>,
    /// Successors in NEW only.
    pub gained: Vec<String>,
    /// The one OLM v1 picks in OLD.
    pub old_selected: Option<String>,
    /// The one it picks in NEW.
    pub new_selected: Option<String>,
}

/// The impact of going from `old` to `new` (see the module docs).
pub fn impact(old: &Tables, new: &Tables) -> Impact {
    let mut out = Impact::default();
    for p in old.packages() {
        let new_package = new.package(&p.name).map(|(_, n)| n);
        out.bundles_gone.extend(gone(p, new_package));
        if new_package.is_none() {
            continue;
        }
        for c in &p.channels {
            let mut names: Vec<&str> = c.entries.iter().map(|e| e.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            for name in names {
                if let Some(change) = path_change(old, new, p, &c.name, name) {
                    out.paths.push(change);
                }
            }
        }
        for b in p.bundles.iter().filter(|b| in_a_channel(p, &b.name)) {
            if let Some(change) = successor_change(old, new, p, &b.name) {
                out.successors.push(change);
            }
        }
    }
    out
}

/// Bundles of `old`'s channels that are in none of `new`'s.
fn gone(old: &Package, new: Option<&Package>) -> Vec<BundleRef> {
    let kept: BTreeSet<&str> = new
        .map(|n| {
            n.channels
                .iter()
                .flat_map(|c| c.entries.iter().map(|e| e.name.as_str()))
                .collect()
        })
        .unwrap_or_default();
    old.bundles
        .iter()
        .filter(|b| in_a_channel(old, &b.name) && !kept.contains(b.name.as_str()))
        .map(|b| BundleRef {
            package: old.name.clone(),
            bundle: b.name.clone(),
            version: b.version_text.clone(),
        })
        .collect()
}

fn in_a_channel(p: &Package, bundle: &str) -> bool {
    p.channels
        .iter()
        .any(|c| c.entries.iter().any(|e| e.name == bundle))
}

/// The OLM v0 path of `bundle` in `channel`, compared; `None` when it did not reach the
/// head in OLD or changed in nothing.
fn path_change(
    old: &Tables,
    new: &Tables,
    package: &Package,
    channel: &str,
    bundle: &str,
) -> Option<PathChange> {
    let version = package.bundle(bundle).map(|b| b.version_text.clone())?;
    let query = PathQuery {
        package: package.name.clone(),
        channel: channel.to_owned(),
        from: bundle.to_owned(),
        from_version: Some(version.clone()),
        semantics: Semantics::V0,
        ..PathQuery::default()
    };
    let before = upgrade_path(old, &query).ok()?;
    if before.outcome != Outcome::ReachedHead {
        return None;
    }
    let old_path = installs(&before);
    let in_new_channel = new
        .package(&package.name)
        .and_then(|(_, p)| p.channel(channel))
        .map(|c| c.entries.iter().any(|e| e.name == bundle));
    let change = |kind, new_path, reason| PathChange {
        package: package.name.clone(),
        channel: channel.to_owned(),
        bundle: bundle.to_owned(),
        version: version.clone(),
        kind,
        old_path: old_path.clone(),
        new_path,
        reason,
    };
    let Some(still_there) = in_new_channel else {
        let why = format!("channel {channel} is not in the new catalog");
        return Some(change(PathKind::Broken, Vec::new(), Some(why)));
    };
    // A bundle NEW no longer has is walked by its name and version, as OLM v0 walks
    // from the installed CSV.
    let after = match upgrade_path(new, &query) {
        Ok(after) => after,
        Err(e) => {
            let kind = if still_there {
                PathKind::Broken
            } else {
                PathKind::Stranded
            };
            return Some(change(kind, Vec::new(), Some(e.to_string())));
        }
    };
    let new_path = installs(&after);
    match after.outcome {
        Outcome::ReachedHead | Outcome::AlreadyAtHead | Outcome::ReachedTarget => {
            let kind = match new_path.len().cmp(&old_path.len()) {
                std::cmp::Ordering::Greater => PathKind::Lengthened,
                std::cmp::Ordering::Less => PathKind::Shortened,
                std::cmp::Ordering::Equal if new_path != old_path => PathKind::Rerouted,
                std::cmp::Ordering::Equal => return None,
            };
            Some(change(kind, new_path, None))
        }
        Outcome::Stuck => {
            let kind = if !still_there && new_path.is_empty() {
                PathKind::Stranded
            } else {
                PathKind::Broken
            };
            Some(change(kind, new_path, after.stuck_reason))
        }
    }
}

/// The bundles a path installs, in order.
fn installs(path: &UpgradePath) -> Vec<String> {
    path.steps.iter().map(|s| s.to.clone()).collect()
}

/// The OLM v1 successors of `bundle`, compared; `None` when they are the same.
fn successor_change(
    old: &Tables,
    new: &Tables,
    package: &Package,
    bundle: &str,
) -> Option<SuccessorChange> {
    let b = package.bundle(bundle)?;
    let query = SuccessorQuery {
        package: package.name.clone(),
        installed: Some(Installed {
            name: b.name.clone(),
            version: b.version_text.clone(),
            release: b.release.clone(),
        }),
        ..SuccessorQuery::default()
    };
    let names = |tables: &Tables| {
        successors(tables, &query).map(|s| {
            let set: BTreeSet<String> = s
                .candidates
                .into_iter()
                .map(|c| c.name)
                .filter(|n| n != bundle)
                .collect();
            (set, s.selected.filter(|n| n != bundle))
        })
    };
    let (before, old_selected) = names(old).ok()?;
    let (after, new_selected) = names(new).unwrap_or_default();
    if before == after && old_selected == new_selected {
        return None;
    }
    Some(SuccessorChange {
        package: package.name.clone(),
        bundle: bundle.to_owned(),
        version: b.version_text.clone(),
        lost: before.difference(&after).cloned().collect(),
        gained: after.difference(&before).cloned().collect(),
        old_selected,
        new_selected,
    })
}
