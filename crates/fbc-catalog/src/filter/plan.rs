//! Tables + a configuration → the [`Plan`]: what the output keeps and why.
//!
//! In: the input's tables, a [`FilterConfig`], [`FilterOptions`]. Out: per kept
//! package its default channel and channels, per channel its head and kept
//! bundles (input entry order) with why; and every input bundle's [`Decision`].
//! Steps: select per channel ([`super::select`]), make each channel valid
//! (`channel`), add what dependencies need ([`super::deps`]) and make those
//! channels valid, until nothing changes; then settle default channels.

use super::channel::ChannelWork;
use super::config::{FilterConfig, PackageFilter, Selection};
use super::deps::{self, Needed};
use super::select::{ChannelSelection, select};
use super::{FilterError, FilterOptions, Keep};
use crate::graph::near_names;
use crate::model::Package;
use crate::tables::Tables;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

mod reasons;

/// A kept bundle of a channel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeptBundle {
    /// Bundle name.
    pub name: String,
    /// Why it is kept.
    pub keep: Keep,
    /// What the guarantees could not give it, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A channel of the output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChannelPlan {
    /// Channel name.
    pub name: String,
    /// Its head in the output.
    pub head: String,
    /// Kept bundles, in the input's entry order.
    pub bundles: Vec<KeptBundle>,
}

/// A package of the output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackagePlan {
    /// Package name.
    pub name: String,
    /// Its default channel in the output.
    pub default_channel: String,
    /// Its default channel in the input.
    pub input_default_channel: String,
    /// Channels by name.
    pub channels: Vec<ChannelPlan>,
}

/// Kept or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// In the output, for this reason (the strongest of its channels).
    Kept(Keep),
    /// Not in the output.
    Dropped,
}

/// What happened to one input bundle, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Package.
    pub package: String,
    /// Bundle.
    pub bundle: String,
    /// Kept or dropped.
    pub verdict: Verdict,
    /// The output channels it is in.
    pub channels: Vec<String>,
    /// Why, in words.
    pub reason: String,
}

/// What the output keeps (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// Kept packages by name.
    pub packages: Vec<PackagePlan>,
    /// Every input bundle's fate, by package then bundle name.
    pub decisions: Vec<Decision>,
}

impl Plan {
    /// The kept package `name`.
    pub fn package(&self, name: &str) -> Option<&PackagePlan> {
        self.packages
            .binary_search_by(|p| p.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.packages[i])
    }

    /// Whether bundle `bundle` of `package` is kept.
    pub fn keeps_bundle(&self, package: &str, bundle: &str) -> bool {
        self.package(package).is_some_and(|p| {
            p.channels
                .iter()
                .any(|c| c.bundles.iter().any(|b| b.name == bundle))
        })
    }
}

/// One package being planned.
struct PackageWork<'a> {
    index: u32,
    package: &'a Package,
    config: Option<PackageFilter>,
    channels: BTreeMap<String, ChannelWork<'a>>,
    /// Why each selected bundle was selected (first reason found).
    reasons: BTreeMap<String, String>,
    /// Channels the selection emptied.
    emptied: BTreeSet<String>,
}

/// Plans the filter of `tables` by `config` (see the module docs).
pub fn plan(
    tables: &Tables,
    config: &FilterConfig,
    options: &FilterOptions,
) -> Result<Plan, FilterError> {
    plan_with(&mut deps::Resolutions::new(tables), config, options)
}

/// [`plan`], resolving dependencies through `resolutions` (which keeps them
/// for the output check).
pub fn plan_with(
    resolutions: &mut deps::Resolutions,
    config: &FilterConfig,
    options: &FilterOptions,
) -> Result<Plan, FilterError> {
    let tables = resolutions.tables();
    let config = config.listed(tables.packages().iter().map(|p| p.name.clone()));
    let mut work: BTreeMap<String, PackageWork> = BTreeMap::new();
    for pf in &config.packages {
        let (index, package) = tables.package(&pf.name).ok_or_else(|| {
            let near = near_names(&pf.name, tables.packages().iter().map(|p| p.name.as_str()));
            FilterError::Config(format!(
                "{}: package {:?} is not in the catalog{}",
                pf.place,
                pf.name,
                did_you_mean(&near)
            ))
        })?;
        let mut pw = PackageWork {
            index,
            package,
            config: Some(pf.clone()),
            channels: BTreeMap::new(),
            reasons: BTreeMap::new(),
            emptied: BTreeSet::new(),
        };
        for (ci, selection) in channel_selections(package, pf)? {
            let channel = &package.channels[ci];
            match select(package, channel, selection) {
                Some(chosen) => {
                    let cw = start_channel(tables, &mut pw, ci, &chosen);
                    pw.channels.insert(channel.name.clone(), cw);
                }
                None => {
                    pw.emptied.insert(channel.name.clone());
                }
            }
        }
        work.insert(pf.name.clone(), pw);
    }
    settle_all(&mut work);
    if options.dependencies {
        add_dependencies(resolutions, &mut work)?;
    }
    finish(tables, work)
}

fn did_you_mean(near: &[String]) -> String {
    if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", near.join(", "))
    }
}

/// The channels a package's configuration names (all of them when it names
/// none), by index, with their selections.
fn channel_selections<'c>(
    package: &Package,
    pf: &'c PackageFilter,
) -> Result<Vec<(usize, &'c Selection)>, FilterError> {
    if pf.channels.is_empty() {
        return Ok((0..package.channels.len())
            .map(|ci| (ci, &pf.selection))
            .collect());
    }
    pf.channels
        .iter()
        .map(|cf| {
            let ci = package
                .channels
                .iter()
                .position(|c| c.name == cf.name)
                .ok_or_else(|| {
                    let near =
                        near_names(&cf.name, package.channels.iter().map(|c| c.name.as_str()));
                    FilterError::Config(format!(
                        "{}: package {:?} has no channel {:?}{}",
                        cf.place,
                        package.name,
                        cf.name,
                        did_you_mean(&near)
                    ))
                })?;
            Ok((ci, &cf.selection))
        })
        .collect()
}

/// A channel's work with its selection kept.
fn start_channel<'a>(
    tables: &'a Tables,
    pw: &mut PackageWork<'a>,
    ci: usize,
    chosen: &ChannelSelection,
) -> ChannelWork<'a> {
    let channel = &pw.package.channels[ci];
    let index = pw.index;
    let build = |target: u32| {
        let mut cw = ChannelWork::of(tables, index, ci, target);
        for &i in chosen.selected.keys() {
            cw.keep(i, Keep::Selected);
        }
        cw
    };
    let cw = raise_target(tables, pw.package, ci, chosen, build);
    for (&i, why) in &chosen.selected {
        pw.reasons
            .entry(channel.entries[i as usize].name.clone())
            .or_insert_with(|| format!("{why} (channel {})", channel.name));
    }
    cw
}

/// The channel's work with the selection's target head, or — when that head leaves
/// selected bundles without an upgrade path (a window that stops below a head which
/// skips them) — with the first entry above it on OLM v0's walk toward the input head
/// that keeps every selected bundle; that entry is kept as the `head`. The
/// selection's own target when no entry does better.
fn raise_target<'a>(
    tables: &'a Tables,
    package: &Package,
    ci: usize,
    chosen: &ChannelSelection,
    build: impl Fn(u32) -> ChannelWork<'a>,
) -> ChannelWork<'a> {
    use crate::graph::upgrade_path::{PathQuery, Semantics, upgrade_path};
    let channel = &package.channels[ci];
    let lost = |cw: &ChannelWork| {
        let mut trial = cw.clone();
        trial.settle();
        chosen
            .selected
            .keys()
            .filter(|i| !trial.kept.contains_key(i))
            .count()
    };
    let first = build(chosen.target);
    if chosen.target as usize == channel.head || lost(&first) == 0 {
        return first;
    }
    let query = PathQuery {
        package: package.name.clone(),
        channel: channel.name.clone(),
        from: channel.entries[chosen.target as usize].name.clone(),
        semantics: Semantics::V0,
        ..PathQuery::default()
    };
    let steps = upgrade_path(tables, &query)
        .map(|p| p.steps)
        .unwrap_or_default();
    for step in steps {
        let Some(i) = channel.entries.iter().position(|e| e.name == step.to) else {
            continue;
        };
        let raised = build(i as u32);
        if lost(&raised) == 0 {
            return raised;
        }
    }
    first
}

fn settle_all(work: &mut BTreeMap<String, PackageWork>) {
    for pw in work.values_mut() {
        for cw in pw.channels.values_mut() {
            cw.settle();
        }
    }
}

/// Adds what the kept bundles' dependencies need, until nothing changes.
fn add_dependencies<'a>(
    resolutions: &mut deps::Resolutions<'a>,
    work: &mut BTreeMap<String, PackageWork<'a>>,
) -> Result<(), FilterError> {
    let tables = resolutions.tables();
    let mut asked: BTreeSet<(String, String)> = BTreeSet::new();
    for _ in 0..deps::MAX_ROUNDS {
        let kept = kept_bundles(work);
        let fresh: Vec<(String, String)> =
            kept.into_iter().filter(|k| !asked.contains(k)).collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let needed = deps::needed(resolutions, &fresh);
        asked.extend(fresh);
        for n in needed {
            add_needed(tables, work, n);
        }
        settle_all(work);
    }
    Err(FilterError::Config(format!(
        "dependencies still growing after {} rounds",
        deps::MAX_ROUNDS
    )))
}

fn kept_bundles(work: &BTreeMap<String, PackageWork>) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (p, pw) in work {
        for cw in pw.channels.values() {
            for &i in cw.kept.keys() {
                out.insert((p.clone(), cw.channel().entries[i as usize].name.clone()));
            }
        }
    }
    out
}

/// Keeps one bundle a dependency needs, in the channel the resolver took it from.
fn add_needed<'a>(tables: &'a Tables, work: &mut BTreeMap<String, PackageWork<'a>>, n: Needed) {
    let Some((index, package)) = tables.package(&n.package) else {
        return;
    };
    let Some(ci) = package.channels.iter().position(|c| c.name == n.channel) else {
        return;
    };
    let channel = &package.channels[ci];
    let Some(entry) = channel.entries.iter().position(|e| e.name == n.bundle) else {
        return;
    };
    let pw = work
        .entry(n.package.clone())
        .or_insert_with(|| PackageWork {
            index,
            package,
            config: None,
            channels: BTreeMap::new(),
            reasons: BTreeMap::new(),
            emptied: BTreeSet::new(),
        });
    pw.reasons
        .entry(n.bundle.clone())
        .or_insert_with(|| format!("{} depends on it (chosen by the resolver)", n.by));
    if !pw.channels.contains_key(&channel.name) {
        let cw = ChannelWork::of(tables, index, ci, entry as u32);
        pw.channels.insert(channel.name.clone(), cw);
    }
    if let Some(cw) = pw.channels.get_mut(&channel.name) {
        cw.keep(entry as u32, Keep::Dependency);
    }
}

/// The default channel of each package, the plans, and every decision.
fn finish<'a>(
    tables: &'a Tables,
    mut work: BTreeMap<String, PackageWork<'a>>,
) -> Result<Plan, FilterError> {
    for pw in work.values_mut() {
        default_channel(tables, pw)?;
    }
    let mut plan = Plan::default();
    for (name, pw) in &work {
        plan.packages.push(package_plan(name, pw));
    }
    plan.decisions = reasons::decisions(tables, &work, &plan);
    Ok(plan)
}

/// Checks (or, for a package only dependencies brought, keeps) the default channel.
fn default_channel<'a>(tables: &'a Tables, pw: &mut PackageWork<'a>) -> Result<(), FilterError> {
    let package = pw.package;
    let wanted = pw
        .config
        .as_ref()
        .and_then(|c| c.default_channel.clone())
        .unwrap_or_else(|| package.default_channel.clone());
    if pw.channels.contains_key(&wanted) {
        return Ok(());
    }
    let kept: Vec<&str> = pw.channels.keys().map(String::as_str).collect();
    match &pw.config {
        Some(pf) if pf.default_channel.is_some() => Err(FilterError::Config(format!(
            "{}: package {:?}: defaultChannel {wanted:?} is not in the filtered output (its channels: {})",
            pf.place,
            package.name,
            kept.join(", ")
        ))),
        Some(pf) if pw.emptied.contains(&wanted) => Err(FilterError::Config(format!(
            "{}: package {:?}: the selection leaves the default channel {wanted:?} empty; set defaultChannel to one of: {}",
            pf.place,
            package.name,
            kept.join(", ")
        ))),
        Some(pf) => Err(FilterError::Config(format!(
            "{}: package {:?}: the default channel {wanted:?} is filtered out; list it, or set defaultChannel to one of: {}",
            pf.place,
            package.name,
            kept.join(", ")
        ))),
        None => {
            // A package only dependencies brought in keeps its default channel's head.
            let Some(ci) = package.channels.iter().position(|c| c.name == wanted) else {
                return Ok(());
            };
            let channel = &package.channels[ci];
            let mut cw = ChannelWork::of(tables, pw.index, ci, channel.head as u32);
            cw.settle();
            pw.reasons
                .entry(channel.head_entry().name.clone())
                .or_insert_with(|| {
                    format!("head of {wanted}, kept so the package's default channel exists")
                });
            pw.channels.insert(wanted, cw);
            Ok(())
        }
    }
}

fn package_plan(name: &str, pw: &PackageWork) -> PackagePlan {
    let package = pw.package;
    let default_channel = pw
        .config
        .as_ref()
        .and_then(|c| c.default_channel.clone())
        .unwrap_or_else(|| package.default_channel.clone());
    let channels = pw
        .channels
        .iter()
        .map(|(cname, cw)| {
            let entries = &cw.channel().entries;
            ChannelPlan {
                name: cname.clone(),
                head: entries[cw.target as usize].name.clone(),
                bundles: cw
                    .kept
                    .iter()
                    .map(|(&i, &keep)| KeptBundle {
                        name: entries[i as usize].name.clone(),
                        keep,
                        note: cw.notes.get(&i).cloned(),
                    })
                    .collect(),
            }
        })
        .collect();
    PackagePlan {
        name: name.to_string(),
        default_channel,
        input_default_channel: package.default_channel.clone(),
        channels,
    }
}
