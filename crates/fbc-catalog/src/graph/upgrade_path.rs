//! The bundles a subscription passes through, one install at a time.
//!
//! In: the tables and a [`PathQuery`] (package, channel — the default channel when
//! empty —, the installed bundle, an optional target, the semantics). Out: a
//! [`UpgradePath`]: the steps with the edge behind each and the alternatives that
//! lost, and how it ended.
//!
//! OLM v0 (`Subscription`, the resolver's one hop per resolution):
//! 1. the candidates are the channel's chain entries (head first along
//!    `replaces`, entries some entry skips left out) that replace the current
//!    bundle, skip it, or have a skipRange containing its version; the current
//!    bundle itself is dropped (a skipRange may cover its own version);
//! 2. the candidate nearest the head wins; after it installs the walk goes on
//!    from it;
//! 3. it ends at the head, at the requested target, when nothing qualifies
//!    (stuck), or on a revisit. Dependencies are resolution's business, not this.
//!
//! OLM v1 takes, at each hop, the highest-version direct successor within the
//! channel (skipped entries stay visible, deprecated bundles last), as
//! [`super::successors`] orders them.

use super::channel_index::{ChannelIndex, EdgeInto};
use super::successors::{ReleaseMode, bundle_version};
use super::{EdgeKind, GraphError, find_package, name_list, near_names};
use crate::model::Package;
use crate::tables::Tables;
use crate::version_range::release::VersionRelease;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// Whose rules walk the path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Semantics {
    /// OLM v0: nearest the channel head first, skipped entries hidden.
    #[default]
    V0,
    /// OLM v1: highest version among direct successors.
    V1,
}

/// An upgrade-path question.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathQuery {
    /// The package.
    pub package: String,
    /// The channel; empty for the package's default channel.
    pub channel: String,
    /// The installed bundle's name; empty to find it by `from_version`.
    pub from: String,
    /// Its version: needed when the catalog no longer has the bundle, or to
    /// find the bundle when `from` is empty.
    pub from_version: Option<String>,
    /// Stop here if the path reaches it.
    pub to: Option<String>,
    /// Whose rules.
    pub semantics: Semantics,
    /// At most this many steps (0: a safe default).
    pub max_steps: usize,
}

/// How a path ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    /// It reached the channel head.
    ReachedHead,
    /// It reached the requested target.
    ReachedTarget,
    /// The installed bundle is the channel head.
    AlreadyAtHead,
    /// No candidate (or a revisit): the subscription stays where the path ends.
    Stuck,
}

/// One install.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// From this bundle.
    pub from: String,
    /// To this one.
    pub to: String,
    /// Through this edge of `to`'s entry.
    pub edge: EdgeKind,
    /// The other candidates of this hop, in the order they lost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UpgradePath {
    /// The channel walked.
    pub channel: String,
    /// The steps, in install order.
    pub steps: Vec<Step>,
    /// How it ended.
    pub outcome: Outcome,
    /// Why it is stuck, in plain words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck_reason: Option<String>,
}

/// The default cap on steps: no real channel is longer.
const DEFAULT_MAX_STEPS: usize = 10_000;

/// The upgrade path of `q` (see the module docs).
pub fn upgrade_path(tables: &Tables, q: &PathQuery) -> Result<UpgradePath, GraphError> {
    let (pi, package) = find_package(tables, &q.package)?;
    let channel_name = if q.channel.is_empty() {
        package.default_channel.as_str()
    } else {
        q.channel.as_str()
    };
    let ci = package
        .channels
        .iter()
        .position(|c| c.name == channel_name)
        .ok_or_else(|| GraphError::UnknownChannel {
            package: package.name.clone(),
            name: channel_name.to_string(),
            near: near_names(
                channel_name,
                package.channels.iter().map(|c| c.name.as_str()),
            ),
        })?;
    let q = name_the_start(package, q)?;
    let q = q.as_ref();
    let start = version_of(package, &q.from, q.from_version.as_deref())?;
    let index = ChannelIndex::of(tables, pi, ci)
        .ok_or_else(|| GraphError::InvalidArgument("channel index out of range".into()))?;
    let hops = Hops { package, index };
    Ok(hops.run(q, start))
}

/// `q` with its start named when only its version was given (a copy only
/// then): the path walks `replaces` and `skips`, which name bundles, so the
/// version must pick one.
fn name_the_start<'q>(
    package: &Package,
    q: &'q PathQuery,
) -> Result<Cow<'q, PathQuery>, GraphError> {
    if !q.from.is_empty() {
        return Ok(Cow::Borrowed(q));
    }
    let version = q.from_version.as_deref().unwrap_or_default();
    if version.is_empty() {
        return Err(GraphError::InvalidArgument(
            "name the installed bundle, or give its version".into(),
        ));
    }
    let found = super::installed::identify(package, "", version)?;
    if found.name.is_empty() {
        return Err(GraphError::InvalidArgument(format!(
            "no bundle of package {:?} has version {version}: name the installed bundle too, to walk from a bundle the catalog no longer has",
            package.name
        )));
    }
    Ok(Cow::Owned(PathQuery {
        from: found.name,
        ..q.clone()
    }))
}

/// The version of bundle `name`: the catalog's, or the one given when the
/// catalog does not have the bundle.
fn version_of(
    package: &Package,
    name: &str,
    given: Option<&str>,
) -> Result<semver::Version, GraphError> {
    if let Some(b) = package.bundle(name) {
        return Ok(b.version.clone());
    }
    match given {
        Some(v) => semver::Version::parse(v)
            .map_err(|e| GraphError::InvalidArgument(format!("version {v:?} of {name:?}: {e}"))),
        None => Err(GraphError::UnknownBundle {
            package: package.name.clone(),
            name: name.to_string(),
            near: near_names(name, package.bundles.iter().map(|b| b.name.as_str())),
        }),
    }
}

/// One channel's hops: what OLM v0 or v1 installs next from a bundle.
pub(super) struct Hops<'a> {
    pub(super) package: &'a Package,
    pub(super) index: ChannelIndex<'a>,
}

/// The next hop: the winner, its edge and the alternatives, or why there is none.
pub(super) type Hop = Result<(String, EdgeKind, Vec<String>), String>;

impl Hops<'_> {
    fn run(&self, q: &PathQuery, start: semver::Version) -> UpgradePath {
        let channel = self.index.channel;
        let head = &channel.head_entry().name;
        let max = if q.max_steps == 0 {
            DEFAULT_MAX_STEPS
        } else {
            q.max_steps
        };
        let mut steps: Vec<Step> = Vec::new();
        let mut current = q.from.clone();
        let mut version = start;
        let mut seen: BTreeSet<String> = BTreeSet::from([current.clone()]);
        let end = |steps: Vec<Step>, outcome, reason: Option<String>| UpgradePath {
            channel: channel.name.clone(),
            steps,
            outcome,
            stuck_reason: reason,
        };
        loop {
            if q.to.as_deref() == Some(current.as_str()) && !steps.is_empty() {
                return end(steps, Outcome::ReachedTarget, None);
            }
            if current == *head {
                let outcome = if steps.is_empty() {
                    Outcome::AlreadyAtHead
                } else {
                    Outcome::ReachedHead
                };
                return end(steps, outcome, None);
            }
            if steps.len() >= max {
                return end(
                    steps,
                    Outcome::Stuck,
                    Some(format!("stopped after {max} steps")),
                );
            }
            let hop = self.hop(q.semantics, &current, Some(&version));
            let (next, edge, alternatives) = match hop {
                Ok(hop) => hop,
                Err(reason) => return end(steps, Outcome::Stuck, Some(reason)),
            };
            if !seen.insert(next.clone()) {
                let reason = format!("the path comes back to {next:?}: a cycle");
                return end(steps, Outcome::Stuck, Some(reason));
            }
            version = self
                .package
                .bundle(&next)
                .map(|b| b.version.clone())
                .unwrap_or(version);
            steps.push(Step {
                from: std::mem::replace(&mut current, next.clone()),
                to: next,
                edge,
                alternatives,
            });
        }
    }

    /// The next hop from `current` under `semantics`; without a version no
    /// skipRange applies.
    pub(super) fn hop(
        &self,
        semantics: Semantics,
        current: &str,
        version: Option<&semver::Version>,
    ) -> Hop {
        match semantics {
            Semantics::V0 => self.v0_hop(current, version),
            Semantics::V1 => self.v1_hop(current, version),
        }
    }

    /// The direct edges from `current`, one per entry (the first kind of
    /// `replaces`, `skips`, `skipRange`).
    fn edges(&self, current: &str, version: Option<&semver::Version>) -> Vec<EdgeInto> {
        let mut edges = self.index.edges_from(current, version);
        edges.dedup_by_key(|e| e.entry);
        edges
    }

    /// OLM v0: chain entries with a direct edge, nearest the head first.
    fn v0_hop(&self, current: &str, version: Option<&semver::Version>) -> Hop {
        let mut found: Vec<(u32, EdgeInto)> = self
            .edges(current, version)
            .into_iter()
            .filter_map(|e| self.index.chain_position(e.entry).map(|at| (at, e)))
            .collect();
        found.sort_by_key(|(at, _)| *at);
        self.pick(found.into_iter().map(|(_, e)| e))
            .ok_or_else(|| self.v0_stuck_reason(current, version))
    }

    /// OLM v1: the direct successor with the highest (version, release),
    /// deprecated bundles last, skipped entries included.
    fn v1_hop(&self, current: &str, version: Option<&semver::Version>) -> Hop {
        let mut found: Vec<(bool, VersionRelease, EdgeInto)> = self
            .edges(current, version)
            .into_iter()
            .filter_map(|e| {
                let b = self.package.bundle(&self.index.entry(e.entry).name)?;
                Some((
                    b.deprecation.is_some(),
                    bundle_version(b, ReleaseMode::Legacy),
                    e,
                ))
            })
            .collect();
        found.sort_by(|(da, va, _), (db, vb, _)| da.cmp(db).then_with(|| vb.cmp(va)));
        self.pick(found.into_iter().map(|(_, _, e)| e))
            .ok_or_else(|| self.no_edge(current))
    }

    /// The first of `ordered` wins; the rest are the alternatives.
    fn pick(
        &self,
        mut ordered: impl Iterator<Item = EdgeInto>,
    ) -> Option<(String, EdgeKind, Vec<String>)> {
        let first = ordered.next()?;
        let name = |e: EdgeInto| self.index.entry(e.entry).name.clone();
        Some((name(first), first.kind, ordered.map(name).collect()))
    }

    fn no_edge(&self, current: &str) -> String {
        format!(
            "no entry of channel {:?} replaces {current:?}, skips it or has a skipRange containing its version",
            self.index.channel.name
        )
    }

    /// Why OLM v0 has nothing: no edge at all, or only edges into entries it
    /// hides (each named with the entries that skip it).
    fn v0_stuck_reason(&self, current: &str, version: Option<&semver::Version>) -> String {
        let hidden: Vec<String> = self
            .edges(current, version)
            .into_iter()
            .map(|e| {
                let name = &self.index.entry(e.entry).name;
                let skippers = name_list(
                    self.index
                        .edges
                        .skipped_by(name)
                        .iter()
                        .map(|&i| format!("{:?}", self.index.entry(i).name)),
                )
                .unwrap_or_default();
                format!("{name:?} (skipped by {skippers})")
            })
            .collect();
        if hidden.is_empty() {
            self.no_edge(current)
        } else {
            format!(
                "only {} would upgrade {current:?}, and OLM v0 hides it because another entry of channel {:?} skips it (OLM v1 would move)",
                hidden.join(", "),
                self.index.channel.name
            )
        }
    }
}
