//! Upgrade graphs, answered from the tables exactly as OLM computes them.
//!
//! In: a catalog's [`Tables`] and a question. Out: a typed answer:
//!
//! | module | question | semantics |
//! |---|---|---|
//! | [`successors`] | what may an installed bundle move to? | OLM v1 (operator-controller) |
//! | [`providers`] | which catalog's bundle would be installed, by priority, and why? | OLM v1 across catalogs |
//! | [`upgrade_path`] | which bundles will a subscription pass through? | OLM v0 one hop at a time, or v1 |
//! | [`export`] | what does a package's graph look like (JSON, DOT, Mermaid)? | both, edges by kind |
//! | [`lint`] | what in a channel will surprise a maintainer? | warnings opm validate does not give |
//! | [`installed`] | which bundle is installed, when only its version is known? | the bundle names the edges need |
//!
//! Everything here is plain graph code over the tables' indexes (chains in OLM
//! v0 order, entries per channel, versions): no solver, no I/O.

pub mod channel_index;
pub mod export;
pub mod installed;
pub mod lint;
pub mod providers;
pub mod successors;
pub mod upgrade_path;

use crate::tables::Tables;
use serde::Serialize;

/// How one entry reaches another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    /// The entry's `replaces` names the bundle.
    Replaces,
    /// The entry's `skips` lists the bundle.
    Skips,
    /// The entry's `skipRange` contains the bundle's version.
    SkipRange,
    /// The same version and release (OLM v1's "stay").
    SameVersion,
}

impl EdgeKind {
    /// The name the CLI and the graph formats use: `replaces`, `skips`, `skipRange`, `sameVersion`.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Replaces => "replaces",
            EdgeKind::Skips => "skips",
            EdgeKind::SkipRange => "skipRange",
            EdgeKind::SameVersion => "sameVersion",
        }
    }
}

/// An edge that allows a move, in the channel that declares it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Edge {
    /// How.
    pub kind: EdgeKind,
    /// The channel whose entry declares it (empty for `sameVersion`).
    pub channel: String,
    /// The skipRange, for `skipRange` edges.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub skip_range: String,
}

/// Why a graph question has no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// No such package; the nearest names, if any.
    #[error("package {name:?} not found{}", suggest(.near))]
    UnknownPackage {
        /// The name asked for.
        name: String,
        /// Packages with similar names.
        near: Vec<String>,
    },
    /// No such channel in the package.
    #[error("channel {name:?} not found in package {package:?}{}", suggest(.near))]
    UnknownChannel {
        /// The package.
        package: String,
        /// The channel asked for.
        name: String,
        /// Channels with similar names.
        near: Vec<String>,
    },
    /// No such bundle in the package.
    #[error("bundle {name:?} not found in package {package:?}{}", suggest(.near))]
    UnknownBundle {
        /// The package.
        package: String,
        /// The bundle asked for.
        name: String,
        /// Bundles with similar names.
        near: Vec<String>,
    },
    /// A request value that does not parse (a range, a version).
    #[error("{0}")]
    InvalidArgument(String),
    /// Only a version was given, and several bundles of the package have it.
    #[error(
        "version {version} is that of {} bundles of package {package:?}: {}; name the installed one",
        .bundles.len(),
        .bundles.join(", ")
    )]
    AmbiguousVersion {
        /// The package.
        package: String,
        /// The version given.
        version: String,
        /// The bundles with that version, by name.
        bundles: Vec<String>,
    },
    /// An answer bigger than any client could use (a hostile catalog's graph).
    #[error(
        "the graph of package {package:?} has {edges} edges, more than the {limit} an export may hold"
    )]
    TooLarge {
        /// The package.
        package: String,
        /// How many edges it has (skipRange edges counted per span).
        edges: usize,
        /// The limit.
        limit: usize,
    },
}

fn suggest(near: &[String]) -> String {
    if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", near.join(", "))
    }
}

/// Up to three of `names` closest to `target` (edit distance at most a third of
/// its length, or containing it), nearest first.
pub fn near_names<'a>(target: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let limit = (target.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = names
        .into_iter()
        .filter_map(|n| {
            let d = edit_distance(target, n);
            (d <= limit || (!target.is_empty() && n.contains(target))).then_some((d, n))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_string())
        .collect()
}

/// Levenshtein distance over characters (inputs are names, at most a few hundred
/// characters: request fields are capped long before this).
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// At most [`NAMES_LISTED`] names joined by commas, then how many more; `None`
/// for none. A finding's message stays readable when a range covers thousands.
pub(crate) fn name_list(names: impl Iterator<Item = String>) -> Option<String> {
    let names: Vec<String> = names.collect();
    let (shown, rest) = names.split_at(names.len().min(NAMES_LISTED));
    let mut text = shown.join(", ");
    if !rest.is_empty() {
        text.push_str(&format!(" and {} more", rest.len()));
    }
    (!names.is_empty()).then_some(text)
}

/// How many names a finding lists before "and N more".
const NAMES_LISTED: usize = 10;

/// The package named `name`, or [`GraphError::UnknownPackage`] with near names.
pub fn find_package<'a>(
    tables: &'a Tables,
    name: &str,
) -> Result<(u32, &'a crate::model::Package), GraphError> {
    tables
        .package(name)
        .ok_or_else(|| GraphError::UnknownPackage {
            name: name.to_string(),
            near: near_names(name, tables.packages().iter().map(|p| p.name.as_str())),
        })
}

#[cfg(test)]
mod tests;
