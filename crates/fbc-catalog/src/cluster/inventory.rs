//! The installed bundles a cluster state shows, as `cluster-upgrade` checks them.
//!
//! In: a catalog's tables and [`ClusterState`] (or bundle names). Out: one
//! [`Installed`] per installed bundle — each Subscription's installed CSV, every
//! other CSV (OLM v0 counts them all), each ClusterExtension's bundle — with the
//! maximum the cluster object carries when it has one, and notes for what could
//! not be placed. The order is the state's: subscriptions, other CSVs, extensions.

use super::openshift;
use super::state::ClusterState;
use super::upgrade::{Installed, Olm};
use crate::tables::Tables;
use std::collections::BTreeSet;

/// The installed bundles of `state`, and notes (see the module docs).
pub fn from_state(tables: &Tables, state: &ClusterState) -> (Vec<Installed>, Vec<String>) {
    let mut notes = Vec::new();
    let mut out = Vec::new();
    let mut covered = BTreeSet::new();
    for s in &state.subscriptions {
        if s.installed_csv.is_empty() {
            notes.push(format!(
                "subscription {}/{}: nothing installed yet",
                s.namespace, s.name
            ));
            continue;
        }
        let csv = state
            .csvs
            .iter()
            .find(|c| c.name == s.installed_csv && c.namespace == s.namespace);
        covered.insert((s.namespace.clone(), s.installed_csv.clone()));
        out.push(Installed {
            owner: format!("{}/{}", s.namespace, s.name),
            package: s.package.clone(),
            bundle: s.installed_csv.clone(),
            channel: s.channel.clone(),
            olm: Olm::V0,
            on_cluster: csv.map(|c| v0_max(c.olm_properties.as_deref())),
        });
    }
    for c in &state.csvs {
        if covered.contains(&(c.namespace.clone(), c.name.clone())) {
            continue;
        }
        let package = match package_of(tables, &c.name) {
            Ok(Some(p)) => p,
            Ok(None) => String::new(),
            Err(e) => {
                notes.push(format!("CSV {}/{}: {e}", c.namespace, c.name));
                String::new()
            }
        };
        out.push(Installed {
            owner: format!("{}/{} (no subscription)", c.namespace, c.name),
            package,
            bundle: c.name.clone(),
            channel: String::new(),
            olm: Olm::V0,
            on_cluster: Some(v0_max(c.olm_properties.as_deref())),
        });
    }
    for e in &state.extensions {
        if e.installed_name.is_empty() {
            notes.push(format!(
                "ClusterExtension {}: nothing installed yet",
                e.name
            ));
            continue;
        }
        if e.channels.len() > 1 {
            notes.push(format!(
                "ClusterExtension {}: the way out is looked for in channel {:?}, the first of {}",
                e.name,
                e.channels[0],
                e.channels.len()
            ));
        }
        out.push(Installed {
            owner: format!("ClusterExtension {}", e.name),
            package: e.package.clone(),
            bundle: e.installed_name.clone(),
            channel: e.channels.first().cloned().unwrap_or_default(),
            olm: Olm::V1,
            // OLM v1 reads the bundle image's CSV annotation; the catalog's properties stand in
            on_cluster: None,
        });
    }
    (out, notes)
}

/// OLM v0's maximum from a CSV's `operatorframework.io/properties` annotation.
fn v0_max(annotation: Option<&str>) -> Result<Option<openshift::MinorVersion>, String> {
    match annotation {
        Some(annotation) => openshift::from_v0_annotation(annotation),
        None => Ok(None),
    }
}

/// An installed bundle named directly, as OLM v0 installs it.
pub fn named(tables: &Tables, name: &str) -> Result<Installed, String> {
    let package = package_of(tables, name)?
        .ok_or_else(|| format!("no package of the catalog has a bundle named {name:?}"))?;
    Ok(Installed {
        owner: "--installed".into(),
        package,
        bundle: name.into(),
        channel: String::new(),
        olm: Olm::V0,
        on_cluster: None,
    })
}

/// The package whose bundle is named `name`, if exactly one has it.
pub fn package_of(tables: &Tables, name: &str) -> Result<Option<String>, String> {
    let owners: Vec<&str> = tables
        .packages()
        .iter()
        .filter(|p| p.bundle(name).is_some())
        .map(|p| p.name.as_str())
        .collect();
    match owners.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some((*one).to_owned())),
        many => Err(format!(
            "bundle {name:?} is in several packages: {}",
            many.join(", ")
        )),
    }
}
