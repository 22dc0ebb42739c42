//! A graph-aware catalog filter: the packages, channels and versions a
//! [`config::FilterConfig`] selects, plus what keeps the result valid and
//! upgradable, minus nothing that is needed.
//!
//! In: the tables of a valid catalog and a filter configuration. Out: a [`Plan`]
//! (per package and channel, the kept bundles and why; every input bundle's
//! verdict and reason), the filtered catalog's metas ([`write`]), and a check
//! of the guarantees on the filtered catalog itself ([`check`]).
//!
//! | module | in → out |
//! |---|---|
//! | [`config`] | filter file text → a checked [`config::FilterConfig`] |
//! | [`select`] | a channel + its package's config → the selected entries and the head |
//! | `channel` | a selection → a valid kept set (one head, nothing stranded, OLM v0 paths kept) |
//! | [`deps`] | kept bundles → the bundles their dependencies need, as the resolver picks them |
//! | [`write`] | the plan + the input metas → the output metas (JSON, input order) |
//! | [`check`] | the output catalog → every guarantee verified, or what fails |
//!
//! Guarantees, each verified by [`check`] on the output: it validates as opm
//! would (one head per channel, a default channel that exists — changed only
//! when the configuration names it); every kept bundle from which OLM v0 reached
//! its channel's head in the input still reaches the output head (or carries a
//! note saying why not); edges are never rewritten, so OLM v1's successors of a
//! kept bundle are its input successors that were kept; the dependencies of
//! kept bundles resolve inside the output (unless turned off).

mod channel;
pub mod check;
pub mod config;
pub mod deps;
mod plan;
pub mod select;
pub mod write;

pub use plan::{ChannelPlan, Decision, KeptBundle, PackagePlan, Plan, Verdict, plan, plan_with};

use crate::model::ChainRule;
use crate::tables::Tables;
use serde::Serialize;

/// Why a bundle is in the output, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Keep {
    /// The configuration selects it.
    Selected,
    /// A kept bundle depends on it (the resolver chose it).
    Dependency,
    /// Its channel's head: kept so the channel has one.
    Head,
    /// On an upgrade path between kept bundles and the head.
    Path,
}

impl Keep {
    /// The reason in words.
    pub fn as_str(self) -> &'static str {
        match self {
            Keep::Selected => "selected",
            Keep::Dependency => "dependency",
            Keep::Head => "head",
            Keep::Path => "path",
        }
    }
}

/// Why a selected bundle is not in a channel of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dropped {
    /// No upgrade edge leads from it to the channel's head inside the channel.
    NoPathToHead,
    /// Neither on the head's replaces chain nor skipped, and nothing could make it so.
    Stranded,
}

/// Filter options beside the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterOptions {
    /// Add the bundles kept bundles' dependencies need (default on).
    pub dependencies: bool,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions { dependencies: true }
    }
}

/// A filtered catalog: the plan, its metas and stream, and its tables (checked).
#[derive(Debug)]
pub struct Filtered {
    /// What is kept and why.
    pub plan: Plan,
    /// The output metas, in input order.
    pub metas: Vec<write::OutputMeta>,
    /// The output as a JSON stream, one meta per line.
    pub stream: Vec<u8>,
    /// The output's tables, every guarantee checked on them.
    pub output: Tables,
}

/// Filters `tables` by `config`: plans, writes and checks the output (see the
/// module docs). `rule` is the chain rule the input was loaded under.
pub fn filter(
    tables: &Tables,
    config: &config::FilterConfig,
    options: &FilterOptions,
    rule: ChainRule,
) -> Result<Filtered, FilterError> {
    let mut resolutions = deps::Resolutions::new(tables);
    let plan = plan_with(&mut resolutions, config, options)?;
    let json = tables
        .metas()
        .json()
        .map_err(|e| FilterError::Metas(e.to_string()))?;
    let metas = write::output_metas(&plan, tables.metas().rows(), &json)?;
    let stream = write::json_lines(&metas);
    let dependencies = options.dependencies.then_some(&mut resolutions);
    let limits = tables.metas().files().map(|f| f.limits).unwrap_or_default();
    let output = check::check(tables, &plan, &stream, rule, &limits, dependencies)?;
    Ok(Filtered {
        plan,
        metas,
        stream,
        output,
    })
}

/// Why a catalog cannot be filtered as configured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// The configuration names something the catalog lacks, or asks for what
    /// cannot be (a default channel that is filtered out without an override).
    #[error("{0}")]
    Config(String),
    /// The input metas could not be read back.
    #[error("{0}")]
    Metas(String),
    /// The output fails a guarantee: a bug, reported rather than written.
    #[error(transparent)]
    Check(#[from] check::CheckError),
}

#[cfg(test)]
mod tests;
