//! Two catalogs → what changed, and what that does to people with something installed.
//!
//! In: the tables of an OLD and a NEW catalog. Out: a [`CatalogDiff`]: packages,
//! channels, bundles, upgrade edges, channel heads, default channels, deprecations,
//! properties and related images added, removed or changed ([`content`]), and the
//! consequences ([`impact`]): for every bundle of OLD on an upgrade path, its OLM v0
//! path to the channel head in OLD and in NEW — newly stranded, broken, lengthened,
//! shortened or rerouted — and its OLM v1 successors in both; bundles gone from every
//! channel. Rendered as text or markdown by [`render`]; serialised as JSON as it is.
//!
//! Every list is sorted (package, then channel, then bundle, by name); the same two
//! catalogs always give the same diff, and a catalog against itself gives an empty one.
//!
//! | module | in → out |
//! |---|---|
//! | [`content`] | two packages → their [`PackageDiff`] |
//! | [`impact`] | two catalogs → [`Impact`]: paths and successors per installed bundle |
//! | [`render`] | a diff → text or markdown |

pub mod content;
pub mod impact;
pub mod render;

use crate::tables::Tables;
use serde::Serialize;

pub use content::{BundleDiff, ChannelDiff, EdgeRef, PackageDiff, PropertyRef};
pub use impact::{Impact, PathChange, PathKind, SuccessorChange};

/// A value before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change<T> {
    /// In OLD.
    pub old: T,
    /// In NEW.
    pub new: T,
}

impl<T: PartialEq> Change<T> {
    /// `Some` when `old` and `new` differ.
    pub fn of(old: T, new: T) -> Option<Change<T>> {
        (old != new).then_some(Change { old, new })
    }
}

/// Everything that differs between two catalogs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CatalogDiff {
    /// Packages only in NEW, by name.
    pub packages_added: Vec<String>,
    /// Packages only in OLD, by name.
    pub packages_removed: Vec<String>,
    /// Packages in both that differ, by name.
    pub packages: Vec<PackageDiff>,
    /// What the changes do to installed bundles.
    pub impact: Impact,
}

impl CatalogDiff {
    /// Whether the two catalogs are the same in everything compared.
    pub fn is_empty(&self) -> bool {
        self.packages_added.is_empty()
            && self.packages_removed.is_empty()
            && self.packages.is_empty()
            && self.impact.is_empty()
    }

    /// Whether anything was removed: a package, a channel, a bundle or a channel entry.
    pub fn has_removals(&self) -> bool {
        !self.packages_removed.is_empty()
            || self.packages.iter().any(|p| {
                !p.channels_removed.is_empty()
                    || !p.bundles_removed.is_empty()
                    || p.channels.iter().any(|c| !c.entries_removed.is_empty())
            })
    }

    /// Counts for a summary line and for CI.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            packages_added: self.packages_added.len(),
            packages_removed: self.packages_removed.len(),
            packages_changed: self.packages.len(),
            ..Summary::default()
        };
        for p in &self.packages {
            s.channels_added += p.channels_added.len();
            s.channels_removed += p.channels_removed.len();
            s.bundles_added += p.bundles_added.len();
            s.bundles_removed += p.bundles_removed.len();
            s.bundles_changed += p.bundles.len();
            s.heads_moved += p.channels.iter().filter(|c| c.head.is_some()).count();
        }
        for path in &self.impact.paths {
            match path.kind {
                PathKind::Stranded => s.stranded += 1,
                PathKind::Broken => s.broken_paths += 1,
                PathKind::Lengthened => s.lengthened += 1,
                PathKind::Shortened => s.shortened += 1,
                PathKind::Rerouted => s.rerouted += 1,
            }
        }
        s.bundles_gone = self.impact.bundles_gone.len();
        s.successors_lost = self
            .impact
            .successors
            .iter()
            .filter(|c| !c.lost.is_empty())
            .count();
        s
    }
}

/// How much changed, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Packages only in NEW.
    pub packages_added: usize,
    /// Packages only in OLD.
    pub packages_removed: usize,
    /// Packages in both that differ.
    pub packages_changed: usize,
    /// Channels only in NEW, over packages in both.
    pub channels_added: usize,
    /// Channels only in OLD, over packages in both.
    pub channels_removed: usize,
    /// Bundles only in NEW, over packages in both.
    pub bundles_added: usize,
    /// Bundles only in OLD, over packages in both.
    pub bundles_removed: usize,
    /// Bundles in both that differ.
    pub bundles_changed: usize,
    /// Channels whose head changed.
    pub heads_moved: usize,
    /// Bundles of OLD's channels in no channel of NEW.
    pub bundles_gone: usize,
    /// Installed bundles newly without any upgrade (see [`PathKind::Stranded`]).
    pub stranded: usize,
    /// Paths to the head that no longer get there (see [`PathKind::Broken`]).
    pub broken_paths: usize,
    /// Paths that take more steps.
    pub lengthened: usize,
    /// Paths that take fewer steps.
    pub shortened: usize,
    /// Paths as long as before through other bundles.
    pub rerouted: usize,
    /// Bundles that lost an OLM v1 successor.
    pub successors_lost: usize,
}

/// The diff of `old` and `new` (see the module docs).
pub fn diff(old: &Tables, new: &Tables) -> CatalogDiff {
    let mut out = CatalogDiff::default();
    for p in old.packages() {
        match new.package(&p.name) {
            None => out.packages_removed.push(p.name.clone()),
            Some((_, n)) => {
                if let Some(d) = content::package(p, n) {
                    out.packages.push(d);
                }
            }
        }
    }
    out.packages_added = new
        .packages()
        .iter()
        .filter(|p| old.package(&p.name).is_none())
        .map(|p| p.name.clone())
        .collect();
    out.impact = impact::impact(old, new);
    out
}

#[cfg(test)]
mod tests;
