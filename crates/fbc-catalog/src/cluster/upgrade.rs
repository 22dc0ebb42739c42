//! `cluster-upgrade`: which installed bundles block an OpenShift minor upgrade
//! through `olm.maxOpenShiftVersion`, and the way out of each.
//!
//! In: a catalog's tables, the installed bundles ([`Installed`]: from cluster
//! state or named on the command line) and the target minor. Out: a [`Verdict`]
//! per installed bundle, in the order given: its maximum (as its OLM reads it,
//! from the cluster object when there is one, else from the catalog), whether it
//! blocks, and the way out — the upgrade path its OLM would take to the first
//! bundle whose maximum allows the target (OLM v0: one install at a time along
//! the subscription's channel; OLM v1: the highest successor, again and again),
//! or "uninstall" when that path never reaches one.
//!
//! OLM checks one minor ahead of the cluster's current version; a bundle whose
//! maximum is below the target blocks the hop that would pass it, so it must be
//! upgraded (or removed) before the cluster reaches that hop.

use super::openshift::{self, MinorVersion, Reader};
use crate::graph::upgrade_path::{PathQuery, Semantics, upgrade_path};
use crate::model::Bundle;
use crate::tables::Tables;
use serde::Serialize;

/// Which OLM manages an installed bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Olm {
    /// A Subscription and its CSV.
    V0,
    /// A ClusterExtension.
    V1,
}

/// One installed bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Installed {
    /// Who installed it, for the report (`operators/etcd`, `ClusterExtension argocd`).
    pub owner: String,
    /// Its package.
    pub package: String,
    /// Its bundle name.
    pub bundle: String,
    /// The channel it follows (empty: the package's default channel).
    pub channel: String,
    /// Which OLM manages it.
    pub olm: Olm,
    /// The maximum as the cluster object carries it, when known (`Ok(None)`: the
    /// object says there is none); `None` to read it from the catalog.
    #[serde(skip)]
    pub on_cluster: Option<Result<Option<MinorVersion>, String>>,
}

/// The way out for a blocker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum WayOut {
    /// It does not block.
    None,
    /// Upgrade it along this path (bundle names, in install order) first.
    Upgrade {
        /// The bundles installed one after another, the last one allowing the target.
        path: Vec<String>,
        /// The last one's maximum, if it has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<MinorVersion>,
    },
    /// No path allows the target: uninstall it (or wait for a release that allows it).
    Uninstall {
        /// Why no upgrade helps, in plain words.
        reason: String,
    },
}

/// Where an installed bundle's maximum was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MaxSource {
    /// The cluster object (the installed CSV's annotation).
    Cluster,
    /// The catalog's bundle.
    Catalog,
    /// Neither has it (no CSV in the state, no such bundle in the catalog): unknown,
    /// so it is not counted as blocking.
    Unknown,
}

/// The answer for one installed bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// What is installed.
    pub installed: Installed,
    /// Its maximum, if it has one and it reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<MinorVersion>,
    /// Its OLM's error for a value it refuses (which blocks, as OLM fails closed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the maximum was read.
    pub read_from: MaxSource,
    /// Whether it blocks the target.
    pub blocks: bool,
    /// What to do about it.
    pub way_out: WayOut,
}

/// The maximum of a catalog bundle as `reader` reads its property list.
pub fn catalog_max(bundle: &Bundle, reader: Reader) -> Result<Option<MinorVersion>, String> {
    openshift::from_properties(
        bundle
            .properties
            .iter()
            .map(|p| (p.typ.as_str(), p.value_json.as_str())),
        reader,
    )
}

fn reader_of(olm: Olm) -> Reader {
    match olm {
        Olm::V0 => Reader::V0,
        Olm::V1 => Reader::V1,
    }
}

/// Whether a maximum (or a refused value) blocks `target`.
fn blocking(max: &Result<Option<MinorVersion>, String>, target: MinorVersion) -> bool {
    match max {
        Ok(Some(m)) => m.blocks(target),
        Ok(None) => false,
        Err(_) => true,
    }
}

/// The verdict for every installed bundle, in the order given.
pub fn check(tables: &Tables, installed: &[Installed], target: MinorVersion) -> Vec<Verdict> {
    installed
        .iter()
        .map(|i| verdict(tables, i, target))
        .collect()
}

fn verdict(tables: &Tables, installed: &Installed, target: MinorVersion) -> Verdict {
    let reader = reader_of(installed.olm);
    let package = tables.package(&installed.package).map(|(_, p)| p);
    let bundle = package.and_then(|p| p.bundle(&installed.bundle));
    let (max, read_from) = match (&installed.on_cluster, bundle) {
        (Some(on_cluster), _) => (on_cluster.clone(), MaxSource::Cluster),
        (None, Some(b)) => (catalog_max(b, reader), MaxSource::Catalog),
        (None, None) => (Ok(None), MaxSource::Unknown),
    };
    let blocks = blocking(&max, target);
    let way_out = if !blocks {
        WayOut::None
    } else if package.is_none() {
        WayOut::Uninstall {
            reason: format!("the catalog has no package {:?}", installed.package),
        }
    } else {
        way_out(tables, installed, target)
    };
    let (max, error) = match max {
        Ok(m) => (m, None),
        Err(e) => (None, Some(e)),
    };
    Verdict {
        installed: installed.clone(),
        max,
        error,
        read_from,
        blocks,
        way_out,
    }
}

/// Walks the path the installed bundle's OLM would take and stops at the first
/// bundle whose maximum (read from the catalog) allows `target`.
fn way_out(tables: &Tables, installed: &Installed, target: MinorVersion) -> WayOut {
    let query = PathQuery {
        package: installed.package.clone(),
        channel: installed.channel.clone(),
        from: installed.bundle.clone(),
        semantics: match installed.olm {
            Olm::V0 => Semantics::V0,
            Olm::V1 => Semantics::V1,
        },
        ..PathQuery::default()
    };
    let path = match upgrade_path(tables, &query) {
        Ok(path) => path,
        Err(e) => {
            return WayOut::Uninstall {
                reason: format!("no upgrade path: {e}"),
            };
        }
    };
    let Some(package) = tables.package(&installed.package).map(|(_, p)| p) else {
        return WayOut::Uninstall {
            reason: format!("the catalog has no package {:?}", installed.package),
        };
    };
    let reader = reader_of(installed.olm);
    let mut walked = Vec::new();
    for step in &path.steps {
        walked.push(step.to.clone());
        let max = package
            .bundle(&step.to)
            .map_or(Ok(None), |b| catalog_max(b, reader));
        if !blocking(&max, target) {
            return WayOut::Upgrade {
                path: walked,
                max: max.ok().flatten(),
            };
        }
    }
    let end = walked.last().unwrap_or(&installed.bundle);
    WayOut::Uninstall {
        reason: if walked.is_empty() {
            format!(
                "nothing in channel {:?} upgrades {} ({})",
                path.channel,
                installed.bundle,
                path.stuck_reason
                    .as_deref()
                    .unwrap_or("it is the channel head")
            )
        } else {
            format!(
                "the path in channel {:?} ends at {end}, which still does not allow {target}",
                path.channel
            )
        },
    }
}

#[cfg(test)]
mod tests;
