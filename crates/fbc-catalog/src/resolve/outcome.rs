//! The answer OLM would give: the operators to install, or why none can be.
//!
//! In: the problem and how solving ended. Out: an [`Outcome`]: the operators
//! from the catalog (installed CSVs left out), each with what it replaces and
//! the subscriptions it serves, sorted by name then channel; or OLM's
//! `constraints not satisfiable: …` text with its constraints.

use super::entries::{Entries, Source};
use super::request::Request;
use super::variables::{Kind, Problem};
use serde::Serialize;

/// One operator to install.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Operator {
    /// The bundle.
    pub name: String,
    /// Its package.
    pub package: String,
    /// The channel it comes from.
    pub channel: String,
    /// What it replaces: the installed CSV it upgrades, else its entry's `replaces`.
    pub replaces: String,
    /// The catalog's name.
    pub catalog: String,
    /// The catalog's namespace.
    pub catalog_namespace: String,
    /// The subscriptions it satisfies, comma-separated; absent for a dependency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscription: Option<String>,
}

/// How a resolution ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// What to install.
    Resolved(Vec<Operator>),
    /// Nothing fits: OLM's error and the constraints it names, sorted.
    Unsatisfiable {
        /// `constraints not satisfiable: …`.
        error: String,
        /// The constraints, one message each.
        constraints: Vec<String>,
    },
}

/// The operators of the installed variables `installed`.
pub fn operators(
    problem: &Problem,
    entries: &Entries,
    request: &Request,
    installed: &[usize],
) -> Vec<Operator> {
    let mut subs: Vec<_> = request.subscriptions.iter().collect();
    subs.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out: Vec<Operator> = installed
        .iter()
        .filter_map(|&v| {
            let Kind::Bundle(e) = problem.vars[v].kind else {
                return None;
            };
            let e = &entries.all[e];
            let Source::Catalog(k) = e.source else {
                return None;
            };
            let catalog = &request.catalogs[k];
            let serving: Vec<&str> = subs
                .iter()
                .filter(|s| {
                    s.package == e.package && (s.channel.is_empty() || s.channel == e.channel)
                })
                .map(|s| s.name.as_str())
                .collect();
            Some(Operator {
                name: e.name.clone(),
                package: e.package.clone(),
                channel: e.channel.clone(),
                replaces: problem.vars[v]
                    .replaces
                    .clone()
                    .unwrap_or_else(|| e.replaces.clone()),
                catalog: catalog.name.clone(),
                catalog_namespace: catalog.namespace.clone(),
                subscription: (!serving.is_empty()).then(|| serving.join(",")),
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.name, &a.channel).cmp(&(&b.name, &b.channel)));
    out
}

/// OLM's text for constraints that cannot hold together.
pub fn unsatisfiable(constraints: Vec<String>) -> Outcome {
    let error = if constraints.is_empty() {
        "constraints not satisfiable".to_owned()
    } else {
        format!("constraints not satisfiable: {}", constraints.join(", "))
    };
    Outcome::Unsatisfiable { error, constraints }
}
