//! `fbc.v1.Graph/Resolve` and `fbc-registry resolve`: the request in its two
//! forms (the JSON file, the proto message) and the one function that answers
//! it from a catalog's tables.
//!
//! In: a [`pb::ResolveRequest`] (or the request JSON, converted) and the
//! tables. Out: a [`pb::ResolveResponse`], or a status: INVALID_ARGUMENT for a
//! malformed request, FAILED_PRECONDITION where OLM would stop before solving
//! (its own text), DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED.

use crate::fbc_v1 as pb;
use fbc_catalog::resolve::request::{self, Request};
use fbc_catalog::resolve::solve::SolveError;
use fbc_catalog::resolve::{self as olm, Limits, Outcome, ResolveError};
use fbc_catalog::tables::Tables;
use serde_json::{Value, json};
use std::time::Instant;
use tonic::Status;

/// The request JSON (see `fbc_catalog::resolve::request`) as a proto message,
/// checked on the way.
pub fn request_from_json(text: &str) -> Result<pb::ResolveRequest, String> {
    let r: Request = request::parse(text).map_err(|e| e.to_string())?;
    let catalog_pb = |c: &request::CatalogRef| pb::CatalogRef {
        name: c.name.clone(),
        namespace: c.namespace.clone(),
        priority: c.priority,
    };
    Ok(pb::ResolveRequest {
        catalog: Some(catalog_pb(r.catalog())),
        catalogs: r.catalogs[1..].iter().map(catalog_pb).collect(),
        namespace: r.namespace,
        global_namespace: r.global_namespace,
        subscriptions: r
            .subscriptions
            .into_iter()
            .map(|s| pb::Subscription {
                name: s.name,
                package: s.package,
                channel: s.channel,
                starting_csv: s.starting_csv,
                installed_csv: s.installed_csv,
                catalog: s.catalog.name,
                catalog_namespace: s.catalog.namespace,
            })
            .collect(),
        installed: r
            .installed
            .into_iter()
            .map(|c| pb::InstalledCsv {
                name: c.name,
                package: c.package,
                version: c.version.to_string(),
                properties: c
                    .properties
                    .into_iter()
                    .map(|p| pb::JsonProperty {
                        r#type: p.typ,
                        value: p.value,
                    })
                    .collect(),
            })
            .collect(),
        snapshot_digest: String::new(),
        explain: false,
    })
}

/// The proto message as the request JSON, so both go through one reader.
fn request_of(r: &pb::ResolveRequest) -> Result<Request, Status> {
    let catalog = r.catalog.clone().unwrap_or_default();
    let mut installed = Vec::with_capacity(r.installed.len());
    for (i, c) in r.installed.iter().enumerate() {
        let mut properties = Vec::with_capacity(c.properties.len());
        for (k, p) in c.properties.iter().enumerate() {
            let value: Value = serde_json::from_str(&p.value).map_err(|e| {
                Status::invalid_argument(format!(
                    "installed[{i}].properties[{k}].value is not JSON: {e}"
                ))
            })?;
            properties.push(json!({"type": p.r#type, "value": value}));
        }
        installed.push(
            json!({"name": c.name, "package": c.package, "version": c.version,
            "properties": properties}),
        );
    }
    let subscriptions: Vec<Value> = r
        .subscriptions
        .iter()
        .map(|s| {
            json!({"name": s.name, "package": s.package, "channel": s.channel,
                "startingCSV": s.starting_csv, "installedCSV": s.installed_csv,
                "catalog": s.catalog, "catalogNamespace": s.catalog_namespace})
        })
        .collect();
    let catalog_json = |c: &pb::CatalogRef| json!({"name": c.name, "namespace": c.namespace, "priority": c.priority});
    let text = json!({
        "catalog": catalog_json(&catalog),
        "catalogs": r.catalogs.iter().map(catalog_json).collect::<Vec<_>>(),
        "namespace": r.namespace,
        "globalNamespace": r.global_namespace,
        "subscriptions": subscriptions,
        "installed": installed,
    })
    .to_string();
    request::parse(&text).map_err(|e| Status::invalid_argument(e.to_string()))
}

/// The names of `r`'s catalogs, in its order: the first, then `catalogs`.
pub fn catalog_names(r: &pb::ResolveRequest) -> Vec<String> {
    r.catalog
        .iter()
        .chain(&r.catalogs)
        .map(|c| c.name.clone())
        .collect()
}

/// Answers `r` from `catalogs` (the tables of each of its catalogs, in its
/// order), giving up at `deadline`.
pub fn resolve(
    catalogs: &[&Tables],
    r: &pb::ResolveRequest,
    deadline: Instant,
) -> Result<pb::ResolveResponse, Status> {
    let request = request_of(r)?;
    let limits = Limits {
        deadline: Some(deadline),
        ..Limits::default()
    };
    let answer = if r.explain {
        olm::resolve_explained(catalogs, &request, &limits).map(|(o, e)| (o, Some(e)))
    } else {
        olm::resolve(catalogs, &request, &limits).map(|o| (o, None))
    };
    let (outcome, explanation) = answer.map_err(|e| match e {
        ResolveError::Resolution(text) => Status::failed_precondition(text),
        ResolveError::Solve(e @ SolveError::TooLarge { .. }) => {
            Status::resource_exhausted(e.to_string())
        }
        ResolveError::Solve(e @ SolveError::DeadlineExceeded) => {
            Status::deadline_exceeded(e.to_string())
        }
        ResolveError::Solve(e) => Status::internal(e.to_string()),
    })?;
    let explanation = explanation.map(crate::views::graph::convert::resolve_explanation);
    Ok(match outcome {
        Outcome::Resolved(operators) => pb::ResolveResponse {
            operators: operators
                .into_iter()
                .map(|o| pb::Operator {
                    name: o.name,
                    package: o.package,
                    channel: o.channel,
                    replaces: o.replaces,
                    catalog: o.catalog,
                    catalog_namespace: o.catalog_namespace,
                    subscription: o.subscription,
                })
                .collect(),
            explanation,
            ..Default::default()
        },
        Outcome::Unsatisfiable { error, constraints } => pb::ResolveResponse {
            error,
            unsat_constraints: constraints,
            explanation,
            ..Default::default()
        },
    })
}
