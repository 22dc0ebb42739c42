//! Listening gRPC server over a [`Catalog`], bounded against hostile clients.
//!
//! In: a bound listener, the catalog, [`TransportLimits`], a shutdown signal. Out:
//! the services of the reference (`api.Registry`, `api.ExperimentalRegistry`,
//! `grpc.health.v1.Health`, reflection v1 and v1alpha) until shutdown; then calls in
//! flight get `shutdown_grace` to finish, and every connection still open after it
//! is closed, so the server always stops.
//!
//! hyper's HTTP/2 server runs each connection ([`http2`]); tonic provides the
//! routes and codecs. Transport settings suit OLM's Go clients: plaintext HTTP/2, 100
//! concurrent streams per connection (grpc-go queues calls beyond the server's
//! limit; the resolver's GetPackage calls inside an open ListBundles stream fit),
//! server keepalive pings answered by any HTTP/2 client, and no keepalive demands on
//! clients (OLM's send no pings).
//!
//! | module | in → out |
//! |---|---|
//! | [`admission`] | requests → admitted calls with counted replies, or RESOURCE_EXHAUSTED |
//! | [`request`] | request bodies → the same, or a status once a prefix is too large |
//! | [`registry`] | `api.Registry` / `api.ExperimentalRegistry` calls → pre-encoded replies from the snapshot |
//! | [`graph`] | `fbc.v1.Graph` calls → answers from the snapshot's tables (shared with the CLI and HTTP) |
//! | [`catalogs`] | `fbc.v1.Catalogs` calls → questions across every catalog of the fleet |
//! | [`health`] | `grpc.health.v1` → SERVING / NOT_SERVING |
//! | [`http2`] | connections + the routes → served HTTP/2 connections, each sent away at its own age |
//! | [`wire`] | the codec that writes pre-encoded replies as they are |
//!
//! The connection handling under it (listeners, the connection list, budgets,
//! TLS) is [`crate::transport`]'s, shared with the HTTP server.

pub(crate) mod admission;
pub(crate) mod catalogs;
pub mod graph;
pub(crate) mod health;
pub(crate) mod http2;
pub(crate) mod registry;
pub(crate) mod request;
pub mod wire;

use crate::snapshot::Catalog;
use crate::transport::accept::{
    ACCEPT_BACKOFF_MAX, ACCEPT_BACKOFF_MIN, accept_failed, configure, peer_of,
};
use crate::transport::budget::Budget;
use crate::transport::connections::Connections;
use crate::transport::limits::TransportLimits;
use crate::transport::served_io::ServedIo;
use admission::AdmissionLayer;
use catalogs::{Catalogs, CatalogsServer};
use graph::{Graph, GraphServer};
use health::{Health, HealthServer};
use registry::{Experimental, ExperimentalRegistryServer, Registry, RegistryServer};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;

/// What a port serves.
#[derive(Clone, Debug)]
pub enum Services {
    /// One catalog: `api.Registry`, `api.ExperimentalRegistry`, `fbc.v1.Graph`, health
    /// and reflection, as `opm serve`'s port (and each catalog's own port), with
    /// `fbc.v1.Catalogs` over the whole fleet.
    Catalog {
        /// The catalog this port serves.
        catalog: Catalog,
        /// Every catalog of the server.
        fleet: Arc<crate::fleet::Fleet>,
    },
    /// The server-wide port of a server with several catalogs: health per catalog
    /// name, `fbc.v1.Catalogs`, and reflection.
    Fleet(Arc<crate::fleet::Fleet>),
}

/// Serves `services` on `listener` until `shutdown` resolves; then stops
/// accepting, gives calls in flight `limits.shutdown_grace`, and closes every
/// connection left.
pub async fn serve(
    listener: TcpListener,
    services: Services,
    limits: TransportLimits,
    tls: Option<Arc<crate::transport::tls::Tls>>,
    shutdown: impl Future<Output = ()> + Send,
) {
    if let Services::Catalog { catalog, .. } = &services {
        log_limits(catalog, &limits);
    }
    let budget = Arc::new(Budget::new(
        limits.max_buffered_reply_bytes,
        limits.max_inflight_calls,
    ));
    let connections = Connections::new(budget.clone());
    let counted: Arc<dyn crate::metrics::ConnectionCount> = connections.clone();
    crate::metrics::watch_connections("grpc", Arc::downgrade(&counted));
    let _reaper = AbortOnDrop(connections.spawn_reaper(limits.clone()));
    let (stopping_tx, stopping_rx) = oneshot::channel::<()>();
    let signal = async move {
        shutdown.await;
        // Health went NOT_SERVING before this signal (app::ServerHandle::shutdown).
        let _ = stopping_tx.send(());
    };
    let incoming = incoming(listener, connections.clone(), limits.clone(), tls);
    let service = tower::ServiceBuilder::new()
        .layer(AdmissionLayer::new(budget))
        .service(routes(services).prepare());
    let server = http2::serve(incoming, service, limits.clone(), signal);
    let grace = enforce_grace(stopping_rx, limits.shutdown_grace, &connections);
    tokio::select! {
        () = server => {}
        never = grace => match never {},
    }
}

/// After the shutdown signal and the grace, closes every connection still open
/// (again every 100 ms, for any accepted meanwhile). Never completes.
async fn enforce_grace(
    stopping: oneshot::Receiver<()>,
    grace: Duration,
    connections: &Connections,
) -> std::convert::Infallible {
    if stopping.await.is_ok() {
        tokio::time::sleep(grace).await;
        loop {
            let closed = connections.kill_all();
            if closed > 0 {
                tracing::warn!(
                    connections = closed,
                    grace_ms = grace.as_millis() as u64,
                    "shutdown grace elapsed: closing the connections still open"
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    std::future::pending().await
}

/// For one catalog, the six services: registry, experimental registry, `fbc.v1.Graph`,
/// health, and both reflection versions, advertising all six as grpc-go does; for a
/// fleet, health and reflection.
fn routes(services: Services) -> tonic::service::Routes {
    let descriptors = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(crate::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(
                tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
            )
    };
    let mut routes = tonic::service::Routes::builder();
    match services {
        Services::Catalog { catalog, fleet } => {
            routes
                .add_service(CatalogsServer::new(Catalogs::new(fleet.clone())))
                .add_service(RegistryServer::new(Registry::new(catalog.clone())))
                .add_service(ExperimentalRegistryServer::new(Experimental::new(
                    catalog.clone(),
                )))
                .add_service(GraphServer::new(Graph::new(
                    Some(catalog.clone()),
                    fleet.clone(),
                )))
                .add_service(HealthServer::new(Health::new(catalog)));
        }
        Services::Fleet(fleet) => {
            routes
                .add_service(CatalogsServer::new(Catalogs::new(fleet.clone())))
                .add_service(GraphServer::new(Graph::new(None, fleet.clone())))
                .add_service(HealthServer::new(Health::fleet(fleet)));
        }
    }
    match (descriptors().build_v1(), descriptors().build_v1alpha()) {
        (Ok(v1), Ok(v1alpha)) => {
            routes.add_service(v1).add_service(v1alpha);
        }
        // The descriptor sets are compiled in; failing here is a build defect.
        _ => tracing::error!(
            "server reflection is unavailable: the embedded descriptor set did not decode"
        ),
    }
    routes.routes()
}

/// Accepted connections, registered and configured (and through TLS). The accept
/// loop ends (closing the listener) when the server drops the stream at shutdown.
fn incoming(
    listener: TcpListener,
    connections: Arc<Connections>,
    limits: TransportLimits,
    tls: Option<Arc<crate::transport::tls::Tls>>,
) -> ReceiverStream<ServedIo> {
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(accept_loop(listener, connections, limits, tls, tx));
    ReceiverStream::new(rx)
}

async fn accept_loop(
    listener: TcpListener,
    connections: Arc<Connections>,
    limits: TransportLimits,
    tls: Option<Arc<crate::transport::tls::Tls>>,
    tx: mpsc::Sender<ServedIo>,
) {
    let mut backoff = ACCEPT_BACKOFF_MIN;
    loop {
        let accepted = tokio::select! {
            _ = tx.closed() => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                accept_failed(&e, &connections);
                tokio::select! {
                    _ = tx.closed() => return,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        backoff = ACCEPT_BACKOFF_MIN;
        configure(&stream, &limits);
        if connections.live_count() >= limits.max_connections
            && let Some(victim) = connections.evict_one()
        {
            tracing::warn!(
                peer = %peer_of(&victim),
                max_connections = limits.max_connections,
                "connection limit reached: closed the connection inactive longest"
            );
        }
        let io = connections.register(stream, Some(peer));
        let Some(tls) = &tls else {
            if tx.send(ServedIo::Plain(io)).await.is_err() {
                return;
            }
            continue;
        };
        // The handshake runs on its own task: a slow client holds no accept.
        let acceptor = tls.acceptor(crate::transport::tls::Protocol::Grpc);
        let (tx, timeout) = (tx.clone(), limits.handshake_timeout);
        tokio::spawn(async move {
            if let Some(io) = ServedIo::accept(io, Some(acceptor), timeout).await {
                let _ = tx.send(io).await;
            }
        });
    }
}

/// Logs the limits in force and the worst-case memory they allow (see
/// [`TransportLimits`]).
fn log_limits(catalog: &Catalog, limits: &TransportLimits) {
    let largest_reply = catalog
        .load()
        .and_then(|s| s.registry.oversize_replies().iter().map(|o| o.bytes).max())
        .unwrap_or(0)
        .max(crate::views::registry::GO_CLIENT_MAX_RECEIVE) as u64;
    tracing::debug!(
        max_connections = limits.max_connections,
        max_inflight_calls = limits.max_inflight_calls,
        max_concurrent_streams = limits.max_concurrent_streams,
        max_buffered_reply_bytes = limits.max_buffered_reply_bytes,
        worst_case_transport_bytes = limits.memory_bound(largest_reply),
        "transport limits"
    );
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
