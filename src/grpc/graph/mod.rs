//! `fbc.v1.Graph`: upgrade-graph questions over the current snapshot.
//!
//! In: a [`Catalog`] handle and decoded `fbc.v1` requests. Out: replies naming
//! the snapshot they came from, or a status with a real code. Each call loads
//! the snapshot once and answers from it alone; the answering is
//! [`answer`]'s, shared with the offline CLI. Work that can take more than
//! microseconds (decoding the tables on first use after a warm start, long
//! walks, lint) runs on the blocking pool, never on the I/O threads; at most
//! one resolution per core runs at a time, the rest wait within their deadline.
//! [`crate::views::graph::json`] turns replies into the JSON (and text) the CLI prints and the HTTP
//! API serves, so both say the same.

pub mod answer;
pub(crate) mod catalog_diff;
pub mod cluster;
pub(crate) mod resolve;

use crate::fbc_v1 as pb;
use crate::fleet::Fleet;
use crate::snapshot::{Catalog, Snapshot};
use fbc_catalog::source::ParseLimits;
use fbc_catalog::tables::Tables;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

pub use pb::graph_server::GraphServer;

/// What every reply says about the snapshot it came from.
pub fn snapshot_info(s: &Snapshot) -> pb::SnapshotInfo {
    pb::SnapshotInfo {
        digest: s.digest.to_string(),
        generation: s.generation,
        loaded_at: Some(prost_types::Timestamp::from(s.published)),
        image_reference: s
            .image
            .as_ref()
            .map(|i| i.reference.clone())
            .unwrap_or_default(),
        image_digest: s
            .image
            .as_ref()
            .map(|i| i.digest.to_string())
            .unwrap_or_default(),
        filter_path: s
            .filter
            .as_ref()
            .map(|f| f.path.display().to_string())
            .unwrap_or_default(),
        filter_digest: s
            .filter
            .as_ref()
            .map(|f| f.digest.clone())
            .unwrap_or_default(),
    }
}

/// The current snapshot, checked against the digest a request insists on.
fn snapshot(catalog: &Catalog, digest: &str) -> Result<Arc<Snapshot>, Status> {
    let snap = catalog
        .load()
        .ok_or_else(|| Status::unavailable("the catalog has not been loaded yet"))?;
    if !digest.is_empty() && digest != snap.digest.to_string() {
        return Err(Status::failed_precondition(format!(
            "catalog snapshot changed: the request asks for {digest}, the server serves {}",
            snap.digest
        )));
    }
    Ok(snap)
}

fn tables(snap: &Snapshot) -> Result<&Tables, Status> {
    snap.tables
        .get()
        .map_err(|e| Status::internal(format!("the catalog's tables cannot be read: {e}")))
}

/// Runs `f` on the snapshot's tables on the blocking pool.
async fn on_tables<T: Send + 'static>(
    snap: Arc<Snapshot>,
    f: impl FnOnce(&Tables) -> Result<T, Status> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(move || f(tables(&snap)?))
        .await
        .map_err(|e| Status::internal(format!("a graph worker failed: {e}")))?
}

type CatalogStream = Pin<Box<dyn Stream<Item = Result<pb::ExportCatalogResponse, Status>> + Send>>;
type ExportStream = Pin<Box<dyn Stream<Item = Result<pb::ExportGraphResponse, Status>> + Send>>;

/// `fbc.v1.Graph` over a catalog.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The catalog of the port; `None` on a server-wide port.
    catalog: Option<Catalog>,
    /// Every catalog of the server, for requests that name one.
    fleet: Arc<Fleet>,
    /// One permit per core for resolutions (SAT solving is CPU-bound).
    solving: Arc<tokio::sync::Semaphore>,
    /// One `DiffCatalog` at a time: each holds an uploaded catalog in memory.
    diffing: Arc<tokio::sync::Semaphore>,
}

impl Graph {
    /// A solver's permit (one per core), waited for at most `budget`.
    async fn solver(&self, budget: Duration) -> Result<tokio::sync::OwnedSemaphorePermit, Status> {
        tokio::time::timeout(budget, self.solving.clone().acquire_owned())
            .await
            .map_err(|_| Status::deadline_exceeded("every solver was busy until the deadline"))?
            .map_err(|_| Status::unavailable("the server is stopping"))
    }

    /// The service over `catalog` (`None`: a server-wide port), and over every
    /// catalog of `fleet` for requests that name one.
    pub fn new(catalog: Option<Catalog>, fleet: Arc<Fleet>) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Graph {
            catalog,
            fleet,
            solving: Arc::new(tokio::sync::Semaphore::new(cores)),
            diffing: Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }

    /// The catalog a request names (`name`), or the port's own.
    fn target(&self, name: &str) -> Result<Catalog, Status> {
        let served = || format!("this server serves [{}]", self.fleet.names().join(" "));
        if !name.is_empty() {
            return self
                .fleet
                .get(name)
                .map(|m| m.catalog.clone())
                .ok_or_else(|| Status::not_found(format!("no catalog {name:?}; {}", served())));
        }
        if let Some(own) = &self.catalog {
            return Ok(own.clone());
        }
        match self.fleet.members().as_slice() {
            [only] => Ok(only.catalog.clone()),
            _ => Err(Status::invalid_argument(format!(
                "name a catalog (the request's catalog field): {}",
                served()
            ))),
        }
    }
}

/// Longest a resolution may run, whatever the call's deadline.
const MAX_RESOLVE_TIME: Duration = Duration::from_secs(30);

/// The call's `grpc-timeout` (`100m`, `30S`, …), if it sent one.
fn call_timeout<T>(request: &Request<T>) -> Option<Duration> {
    let text = request.metadata().get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// Streams one snapshot's package graphs, each built when the client is ready for it.
struct Export {
    snapshot: Arc<Snapshot>,
    info: pb::SnapshotInfo,
    packages: std::vec::IntoIter<u32>,
    format: pb::Format,
}

impl Iterator for Export {
    type Item = Result<pb::ExportGraphResponse, Status>;

    fn next(&mut self) -> Option<Self::Item> {
        let index = self.packages.next()?;
        let tables = match tables(&self.snapshot) {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        Some(
            answer::export_one(tables, index, self.format).map(|mut reply| {
                reply.snapshot = Some(self.info.clone());
                reply
            }),
        )
    }
}

#[tonic::async_trait]
impl pb::graph_server::Graph for Graph {
    async fn check_range(
        &self,
        request: Request<pb::CheckRangeRequest>,
    ) -> Result<Response<pb::CheckRangeResponse>, Status> {
        let mut reply = answer::check_range(request.get_ref())?;
        reply.snapshot = self
            .catalog
            .as_ref()
            .and_then(|c| c.load())
            .map(|s| snapshot_info(&s));
        Ok(Response::new(reply))
    }

    async fn get_successors(
        &self,
        request: Request<pb::GetSuccessorsRequest>,
    ) -> Result<Response<pb::GetSuccessorsResponse>, Status> {
        let r = request.into_inner();
        let snap = snapshot(&self.target(&r.catalog)?, &r.snapshot_digest)?;
        let info = snapshot_info(&snap);
        let mut reply = on_tables(snap, move |t| answer::successors(t, &r)).await?;
        reply.snapshot = Some(info);
        Ok(Response::new(reply))
    }

    async fn get_upgrade_path(
        &self,
        request: Request<pb::GetUpgradePathRequest>,
    ) -> Result<Response<pb::GetUpgradePathResponse>, Status> {
        let r = request.into_inner();
        let snap = snapshot(&self.target(&r.catalog)?, &r.snapshot_digest)?;
        let info = snapshot_info(&snap);
        let mut reply = on_tables(snap, move |t| answer::upgrade_path(t, &r)).await?;
        reply.snapshot = Some(info);
        Ok(Response::new(reply))
    }

    type ExportGraphStream = ExportStream;

    async fn export_graph(
        &self,
        request: Request<pb::ExportGraphRequest>,
    ) -> Result<Response<Self::ExportGraphStream>, Status> {
        let r = request.into_inner();
        let format = answer::export_format(r.format)?;
        let snap = snapshot(&self.target(&r.catalog)?, &r.snapshot_digest)?;
        let package = r.package;
        let packages =
            on_tables(snap.clone(), move |t| answer::export_packages(t, &package)).await?;
        let export = Export {
            info: snapshot_info(&snap),
            snapshot: snap,
            packages: packages.into_iter(),
            format,
        };
        Ok(Response::new(Box::pin(tokio_stream::iter(export))))
    }

    async fn lint(
        &self,
        request: Request<pb::LintRequest>,
    ) -> Result<Response<pb::LintResponse>, Status> {
        let r = request.into_inner();
        let snap = snapshot(&self.target(&r.catalog)?, &r.snapshot_digest)?;
        let info = snapshot_info(&snap);
        let mut reply = on_tables(snap, move |t| answer::lint(t, &r)).await?;
        reply.snapshot = Some(info);
        Ok(Response::new(reply))
    }

    type ExportCatalogStream = CatalogStream;

    async fn export_catalog(
        &self,
        request: Request<pb::ExportCatalogRequest>,
    ) -> Result<Response<Self::ExportCatalogStream>, Status> {
        let r = request.into_inner();
        let snap = snapshot(&self.target(&r.catalog)?, &r.snapshot_digest)?;
        let chunks = catalog_diff::export(&snap, snapshot_info(&snap)).await?;
        Ok(Response::new(Box::pin(tokio_stream::iter(chunks))))
    }

    async fn diff_catalog(
        &self,
        request: Request<tonic::Streaming<pb::DiffCatalogRequest>>,
    ) -> Result<Response<pb::DiffCatalogResponse>, Status> {
        let _permit = self.diffing.clone().try_acquire_owned().map_err(|_| {
            Status::resource_exhausted("another DiffCatalog is running on this server; try again")
        })?;
        let upload = catalog_diff::receive(request.into_inner()).await?;
        let snap = snapshot(&self.target(&upload.catalog)?, &upload.snapshot_digest)?;
        let info = snapshot_info(&snap);
        let reply = on_tables(snap, move |t| catalog_diff::answer(t, &upload.bytes, info)).await?;
        Ok(Response::new(reply))
    }

    async fn explain_upgrade(
        &self,
        request: Request<pb::ExplainUpgradeRequest>,
    ) -> Result<Response<pb::ExplainUpgradeResponse>, Status> {
        let budget = call_timeout(&request).map_or(MAX_RESOLVE_TIME, |t| t.min(MAX_RESOLVE_TIME));
        let deadline = Instant::now() + budget;
        let r = request.into_inner();
        let snap = snapshot(&self.target(&r.catalog)?, &r.snapshot_digest)?;
        let info = snapshot_info(&snap);
        // each namespace's resolution is a SAT solve: one permit per core, as Resolve
        let permit = self.solver(budget).await?;
        let mut reply = on_tables(snap, move |t| {
            let _permit = permit;
            cluster::explain_upgrade(t, &r, &ParseLimits::default(), Some(deadline))
        })
        .await?;
        reply.snapshot = Some(info);
        Ok(Response::new(reply))
    }

    async fn check_cluster_upgrade(
        &self,
        request: Request<pb::CheckClusterUpgradeRequest>,
    ) -> Result<Response<pb::CheckClusterUpgradeResponse>, Status> {
        let r = request.into_inner();
        let snap = snapshot(&self.target(&r.catalog)?, &r.snapshot_digest)?;
        let info = snapshot_info(&snap);
        let mut reply = on_tables(snap, move |t| {
            cluster::check_cluster_upgrade(t, &r, &ParseLimits::default())
        })
        .await?;
        reply.snapshot = Some(info);
        Ok(Response::new(reply))
    }

    async fn resolve(
        &self,
        request: Request<pb::ResolveRequest>,
    ) -> Result<Response<pb::ResolveResponse>, Status> {
        let budget = call_timeout(&request).map_or(MAX_RESOLVE_TIME, |t| t.min(MAX_RESOLVE_TIME));
        let deadline = Instant::now() + budget;
        let r = request.into_inner();
        // The catalog the request's CatalogRef names, when the server serves one of
        // that name; else the port's own.
        let named = r
            .catalog
            .as_ref()
            .map(|c| c.name.as_str())
            .filter(|n| self.fleet.get(n).is_some())
            .unwrap_or_default();
        let snap = snapshot(&self.target(named)?, &r.snapshot_digest)?;
        let info = snapshot_info(&snap);
        // The request's other catalogs: those served under their names; the rest hold nothing.
        let others: Vec<Option<Arc<Snapshot>>> = resolve::catalog_names(&r)
            .iter()
            .skip(1)
            .map(|name| self.fleet.get(name).and_then(|m| m.catalog.load()))
            .collect();
        let permit = self.solver(budget).await?;
        let mut reply = on_tables(snap, move |t| {
            let _permit = permit;
            let empty = Tables::empty();
            let mut catalogs = vec![t];
            for other in &others {
                catalogs.push(match other {
                    Some(s) => tables(s)?,
                    None => &empty,
                });
            }
            let started = Instant::now();
            let reply = resolve::resolve(&catalogs, &r, deadline);
            crate::metrics::resolved(started.elapsed());
            reply
        })
        .await?;
        reply.snapshot = Some(info);
        Ok(Response::new(reply))
    }
}
