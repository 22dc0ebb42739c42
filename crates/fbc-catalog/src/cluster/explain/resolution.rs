//! Whether OLM v0's dependency resolution goes through for a subscription's
//! namespace, as it stands in cluster state.
//!
//! In: a catalog's tables, the cluster state and one [`Subscription`]. Out: a
//! [`Resolution`]: the bundle OLM v0 installs next for that subscription (or
//! none), or the resolver's own failure text (`constraints not satisfiable: …`).
//!
//! OLM resolves every subscription of a namespace together, next to the CSVs
//! installed there, so a dependency one operator cannot get holds back all of
//! them. The request built here is [`crate::resolve`]'s: the catalog is the
//! subscription's CatalogSource (its namespace is taken as OLM's global one, as on
//! OpenShift), the namespace's subscriptions of that catalog, and the namespace's
//! CSVs with the properties OLM wrote on them (`operatorframework.io/properties`;
//! without it, or without the CSV, the catalog's bundle of that name stands in).
//! Subscriptions of other catalogs are left out: their catalogs are not here.
//!
//! When nothing in the group can make the solver differ from the graph walk (no
//! dependency or `olm.deprecated` property, no API two packages provide, every
//! channel named: [`graph_decides`]) the solver is not run and the graph's next
//! hop is the answer — the differential test against OLM v0.25 covers both ways.

use crate::cluster::state::{ClusterState, InstalledCsv, Subscription};
use crate::model::Bundle;
use crate::resolve::explain::{Alternative, Explanation as Explained};
use crate::resolve::{self, Operator, Outcome, request};
use crate::tables::Tables;
use serde::Serialize;
use serde_json::{Value, json};

/// What OLM v0's resolution of the namespace says about the subscription.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "outcome")]
pub enum Resolution {
    /// It resolves; `next` is the bundle installed for the subscription, if any.
    Resolves {
        /// The bundle, or none when the subscription stays where it is.
        #[serde(skip_serializing_if = "Option::is_none")]
        next: Option<String>,
        /// Bundles of the package OLM v0 prefers but cannot install, each with
        /// the constraints that rule it out (a dependency nothing provides, …).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        passed_over: Vec<Alternative>,
    },
    /// It does not: the resolver's words.
    Fails {
        /// `constraints not satisfiable: …`, or the error OLM stops with.
        error: String,
    },
}

/// One resolution of a namespace against one catalog: what every subscription
/// there of that catalog gets.
#[derive(Clone, Debug)]
pub struct Group {
    /// The solver's answer; `None` when the graph decides ([`graph_decides`]).
    outcome: Option<Result<(Vec<Operator>, Explained), String>>,
}

/// The subscriptions resolved together: namespace, catalog name, catalog namespace.
pub fn group_key(s: &Subscription) -> (String, String, String) {
    (
        s.namespace.clone(),
        s.source.clone(),
        s.source_namespace.clone(),
    )
}

/// Resolves `s`'s namespace (see the module docs) within `limits`.
pub fn resolve_group(
    tables: &Tables,
    state: &ClusterState,
    s: &Subscription,
    limits: &resolve::Limits,
) -> Group {
    if graph_decides(tables, state, s) {
        return Group { outcome: None };
    }
    let outcome = match request::parse(&request_json(tables, state, s).to_string()) {
        Err(e) => Err(format!("the cluster state does not make a resolution: {e}")),
        Ok(request) => match resolve::resolve_explained(&[tables], &request, limits) {
            Ok((Outcome::Resolved(operators), why)) => Ok((operators, why)),
            Ok((Outcome::Unsatisfiable { error, .. }, _)) => Err(error),
            Err(e) => Err(e.to_string()),
        },
    };
    Group {
        outcome: Some(outcome),
    }
}

impl Group {
    /// What the group's resolution says about `s`, whose graph walk installs
    /// `graph_next` next.
    pub fn for_subscription(&self, s: &Subscription, graph_next: Option<&String>) -> Resolution {
        match &self.outcome {
            None => Resolution::Resolves {
                next: graph_next.cloned(),
                passed_over: Vec::new(),
            },
            Some(Err(error)) => Resolution::Fails {
                error: error.clone(),
            },
            Some(Ok((operators, why))) => Resolution::Resolves {
                next: operators
                    .iter()
                    .find(|o| {
                        o.subscription
                            .as_deref()
                            .is_some_and(|subs| subs.split(',').any(|n| n == s.name))
                    })
                    .map(|o| o.name.clone()),
                passed_over: why
                    .choices
                    .iter()
                    .find(|c| c.package == s.package)
                    .map(|c| c.passed_over.clone())
                    .unwrap_or_default(),
            },
        }
    }
}

/// The property types that make resolution more than the graph: dependencies,
/// and OLM v0's own deprecation (a bundle it will not pick).
const BEYOND_THE_GRAPH: [&str; 5] = [
    "olm.gvk.required",
    "olm.package.required",
    "olm.label.required",
    "olm.constraint",
    "olm.deprecated",
];

/// Whether OLM v0's resolution of `s`'s group can only pick what the graph walk
/// picks, so the solver need not run (it reads every bundle of the catalog): each
/// subscription names its channel, no bundle of the group's packages carries a
/// property of [`BEYOND_THE_GRAPH`], no two of the packages provide one API, and
/// every CSV of the namespace belongs to a subscription of the group and says
/// nothing of dependencies.
fn graph_decides(tables: &Tables, state: &ClusterState, s: &Subscription) -> bool {
    let group: Vec<&Subscription> = state
        .subscriptions
        .iter()
        .filter(|o| group_key(o) == group_key(s))
        .collect();
    if group.iter().any(|o| o.channel.is_empty()) {
        return false;
    }
    let mut apis: std::collections::HashMap<(&str, &str, &str), &str> = Default::default();
    for o in &group {
        let Some((_, package)) = tables.package(&o.package) else {
            return false;
        };
        for b in &package.bundles {
            if b.properties
                .iter()
                .any(|p| BEYOND_THE_GRAPH.contains(&p.typ.as_str()))
            {
                return false;
            }
            for g in b.provided_gvks() {
                let key = (g.group.as_str(), g.version.as_str(), g.kind.as_str());
                if *apis.entry(key).or_insert(package.name.as_str()) != package.name {
                    return false;
                }
            }
        }
    }
    state
        .csvs
        .iter()
        .filter(|c| c.namespace == s.namespace)
        .all(|c| {
            group.iter().any(|o| o.installed_csv == c.name)
                && !c
                    .olm_properties
                    .as_deref()
                    .is_some_and(|text| BEYOND_THE_GRAPH.iter().any(|t| text.contains(t)))
        })
}

/// The request: `s`'s catalog and namespace, the subscriptions there of that
/// catalog whose package the catalog has, and the CSVs there.
fn request_json(tables: &Tables, state: &ClusterState, s: &Subscription) -> Value {
    let same_catalog = |o: &Subscription| {
        o.namespace == s.namespace
            && o.source == s.source
            && o.source_namespace == s.source_namespace
    };
    let catalog = if s.source.is_empty() {
        "catalog"
    } else {
        &s.source
    };
    let subscriptions: Vec<Value> = state
        .subscriptions
        .iter()
        .filter(|o| same_catalog(o) && (o.name == s.name || tables.package(&o.package).is_some()))
        .map(|o| {
            json!({
                "name": o.name, "package": o.package, "channel": o.channel,
                "startingCSV": o.starting_csv, "installedCSV": o.installed_csv,
            })
        })
        .collect();
    let mut installed: Vec<Value> = state
        .csvs
        .iter()
        .filter(|c| c.namespace == s.namespace)
        .map(|c| installed_json(tables, state, c))
        .collect();
    // a subscription's installed CSV the state left out: the catalog's bundle stands in
    for o in state.subscriptions.iter().filter(|o| same_catalog(o)) {
        let listed = state
            .csvs
            .iter()
            .any(|c| c.namespace == o.namespace && c.name == o.installed_csv);
        if let (false, Some(bundle)) = (listed, catalog_bundle(tables, &o.installed_csv)) {
            installed.push(json!({
                "name": o.installed_csv, "package": o.package,
                "version": bundle.version_text, "properties": catalog_properties(bundle),
            }));
        }
    }
    json!({
        "catalog": {"name": catalog, "namespace": s.source_namespace},
        "namespace": s.namespace,
        "globalNamespace": s.source_namespace,
        "subscriptions": subscriptions,
        "installed": installed,
    })
}

/// An installed CSV as the request has it: its package from the subscription
/// that installed it, or the catalog; its properties from OLM's annotation.
fn installed_json(tables: &Tables, state: &ClusterState, c: &InstalledCsv) -> Value {
    let package = state
        .subscriptions
        .iter()
        .find(|s| s.namespace == c.namespace && s.installed_csv == c.name)
        .map(|s| s.package.clone())
        .or_else(|| {
            tables
                .packages()
                .iter()
                .find(|p| p.bundle(&c.name).is_some())
                .map(|p| p.name.clone())
        })
        .unwrap_or_default();
    // OLM writes the annotation from the catalog's properties; without it, the
    // catalog's bundle is the best account of what the CSV provides
    let properties = c
        .olm_properties
        .as_deref()
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .and_then(|v| v.get("properties").cloned())
        .filter(Value::is_array)
        .or_else(|| catalog_bundle(tables, &c.name).map(catalog_properties))
        .unwrap_or_else(|| json!([]));
    json!({"name": c.name, "package": package, "version": c.version, "properties": properties})
}

/// The catalog's bundle named `name`, if one package has it.
fn catalog_bundle<'t>(tables: &'t Tables, name: &str) -> Option<&'t Bundle> {
    if name.is_empty() {
        return None;
    }
    tables.packages().iter().find_map(|p| p.bundle(name))
}

/// A bundle's properties as OLM copies them onto its CSV (not the manifests).
fn catalog_properties(bundle: &Bundle) -> Value {
    let list: Vec<Value> = bundle
        .properties
        .iter()
        .filter(|p| !matches!(p.typ.as_str(), "olm.bundle.object" | "olm.csv.metadata"))
        .filter_map(|p| {
            let value: Value = serde_json::from_str(&p.value_json).ok()?;
            Some(json!({"type": p.typ, "value": value}))
        })
        .collect();
    Value::Array(list)
}
