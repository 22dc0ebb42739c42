//! `fbc.v1.Catalogs`: questions across every catalog of the server.
//!
//! In: the [`Fleet`] and decoded requests. Out: the catalogs, packages found
//! across them, and OLM v1's choice of catalog for a package — the answers of
//! `/api/v1/catalogs`, `/api/v1/packages` and `…/providers`
//! ([`crate::views::across`]) as messages. Questions run on the blocking pool
//! against one snapshot per catalog ([`crate::fleet::across`]).

use super::graph::snapshot_info;
use crate::fbc_v1 as pb;
use crate::fleet::Fleet;
use crate::fleet::across::across;
use crate::views::across::{self as views, MAX_QUERY, SearchHit};
use fbc_catalog::graph::GraphError;
use fbc_catalog::graph::providers::{Providers, Verdict};
use fbc_catalog::graph::successors::SuccessorQuery;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub use pb::catalogs_server::CatalogsServer;

/// `fbc.v1.Catalogs` over a fleet.
#[derive(Clone, Debug)]
pub struct Catalogs {
    fleet: Arc<Fleet>,
}

impl Catalogs {
    /// The service over `fleet`.
    pub fn new(fleet: Arc<Fleet>) -> Self {
        Catalogs { fleet }
    }
}

fn failed(e: crate::views::catalogd::ViewError) -> Status {
    Status::internal(e.to_string())
}

#[tonic::async_trait]
impl pb::catalogs_server::Catalogs for Catalogs {
    async fn list_catalogs(
        &self,
        _request: Request<pb::ListCatalogsRequest>,
    ) -> Result<Response<pb::ListCatalogsResponse>, Status> {
        let catalogs = self
            .fleet
            .members()
            .iter()
            .map(|m| {
                let snapshot = m.catalog.load();
                pb::CatalogInfo {
                    name: m.name.to_string(),
                    priority: m.priority,
                    source: m.source.clone(),
                    port: m.port.map_or(0, u32::from),
                    serving: m.serving(),
                    snapshot: snapshot.as_ref().map(|s| snapshot_info(s)),
                    // The registry view's count: no table decoding on the I/O thread.
                    packages: snapshot
                        .as_ref()
                        .map_or(0, |s| s.registry.stats().packages as u32),
                }
            })
            .collect();
        Ok(Response::new(pb::ListCatalogsResponse { catalogs }))
    }

    async fn search_packages(
        &self,
        request: Request<pb::SearchPackagesRequest>,
    ) -> Result<Response<pb::SearchPackagesResponse>, Status> {
        let query = request.into_inner().query;
        if query.len() > MAX_QUERY {
            return Err(Status::invalid_argument(format!(
                "query is longer than {MAX_QUERY} bytes"
            )));
        }
        let reply = across(&self.fleet, move |shelves| pb::SearchPackagesResponse {
            catalogs: shelves.iter().map(|s| s.name.to_string()).collect(),
            packages: views::search(shelves, &query)
                .into_iter()
                .map(hit)
                .collect(),
        })
        .await
        .map_err(failed)?;
        Ok(Response::new(reply))
    }

    async fn get_providers(
        &self,
        request: Request<pb::GetProvidersRequest>,
    ) -> Result<Response<pb::GetProvidersResponse>, Status> {
        let r = request.into_inner();
        let q = SuccessorQuery {
            package: r.package,
            version_range: (!r.version_range.is_empty()).then_some(r.version_range),
            channels: r.channels,
            ..SuccessorQuery::default()
        };
        match across(&self.fleet, move |shelves| views::provider(shelves, &q))
            .await
            .map_err(failed)?
        {
            Ok(answer) => Ok(Response::new(providers(answer))),
            Err(GraphError::InvalidArgument(m)) => Err(Status::invalid_argument(m)),
            Err(other) => Err(Status::invalid_argument(other.to_string())),
        }
    }
}

/// A JSON name of a serialisable unit enum (`noMatch`, `displayName`).
fn name_of(value: impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

fn hit(h: SearchHit) -> pb::PackageHit {
    pb::PackageHit {
        catalog: h.catalog,
        priority: h.priority,
        package: h.package,
        display_name: h.display_name,
        provider: h.provider,
        description: h.description,
        default_channel: h.default_channel,
        channels: h
            .channels
            .into_iter()
            .map(|c| pb::ChannelHead {
                name: c.name,
                head: c.head,
                version: c.version,
                deprecated: c.deprecated,
            })
            .collect(),
        versions: h.versions,
        apis: h.apis,
        keywords: h.keywords,
        deprecated: h.deprecated,
        matched: h.matched.into_iter().map(name_of).collect(),
    }
}

fn verdict(v: Verdict) -> pb::CatalogVerdict {
    pb::CatalogVerdict {
        catalog: v.catalog,
        priority: v.priority,
        standing: name_of(v.standing),
        bundle: v.bundle.unwrap_or_default(),
        version: v.version.unwrap_or_default(),
        deprecated: v.deprecated,
        candidates: v.candidates as u32,
        reason: v.reason,
    }
}

fn providers(p: Providers) -> pb::GetProvidersResponse {
    pb::GetProvidersResponse {
        package: p.package,
        catalog: p.catalog.unwrap_or_default(),
        bundle: p.bundle.unwrap_or_default(),
        version: p.version.unwrap_or_default(),
        message: p.message.unwrap_or_default(),
        catalogs: p.catalogs.into_iter().map(verdict).collect(),
    }
}
