//! Listening gRPC server over a [`Catalog`], bounded against hostile clients.
//!
//! In: a bound listener, the catalog, [`TransportLimits`], a shutdown signal. Out:
//! the services of the reference (`api.Registry`, `api.ExperimentalRegistry`,
//! `grpc.health.v1.Health`, reflection v1 and v1alpha) until shutdown; then calls in
//! flight get `shutdown_grace` to finish, and every connection still open after it
//! is closed, so the server always stops.
//!
//! tonic's server runs the HTTP/2 side; this module feeds it connections it tracks
//! itself. Transport settings suit OLM's Go clients: plaintext HTTP/2, 100
//! concurrent streams per connection (grpc-go queues calls beyond the server's
//! limit; the resolver's GetPackage calls inside an open ListBundles stream fit),
//! server keepalive pings answered by any HTTP/2 client, and no keepalive demands on
//! clients (OLM's send no pings).
//!
//! | module | in → out |
//! |---|---|
//! | [`limits`] | flags → [`TransportLimits`], the memory bound, the fd limit |
//! | [`conn`] | accepted stream → IO wrapper with shared state and a kill switch |
//! | [`registry`] | live connections → evictions and timeout kills (the reaper) |
//! | [`budget`] | the server-wide counters: reply bytes waiting on slow clients, calls per pool |
//! | [`admission`] | requests → admitted calls with counted replies, or RESOURCE_EXHAUSTED |
//! | [`request`] | request bodies → the same, or a status once a prefix is too large |

pub mod admission;
pub mod budget;
pub mod conn;
pub mod limits;
pub mod registry;
pub mod request;
pub mod served_io;

pub use limits::{MAX_REQUEST_BYTES, TransportLimits};

use crate::service::graph::{Graph, GraphServer};
use crate::service::health::{Health, HealthServer};
use crate::service::{Experimental, ExperimentalRegistryServer, Registry, RegistryServer};
use crate::snapshot::Catalog;
use admission::AdmissionLayer;
use budget::Budget;
use registry::Registry as Connections;
use served_io::ServedIo;
use std::future::Future;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;

/// Binds `port` on all interfaces: dual-stack `[::]` (IPv4-mapped addresses on),
/// falling back to `0.0.0.0` where IPv6 is unavailable, like Go's `net.Listen(":port")`.
pub fn bind_all_interfaces(port: u16) -> std::io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let dual = (|| -> std::io::Result<std::net::TcpListener> {
        let socket = Socket::new(Domain::IPV6, Type::STREAM, Some(Protocol::TCP))?;
        socket.set_only_v6(false)?;
        socket.set_reuse_address(true)?;
        socket.bind(&SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)).into())?;
        socket.listen(1024)?;
        Ok(socket.into())
    })();
    let std_listener = match dual {
        Ok(l) => l,
        Err(_) => {
            let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
            socket.set_reuse_address(true)?;
            socket.bind(&SocketAddr::from((Ipv4Addr::UNSPECIFIED, port)).into())?;
            socket.listen(1024)?;
            socket.into()
        }
    };
    std_listener.set_nonblocking(true)?;
    TcpListener::from_std(std_listener)
}

/// Serves every service on `listener` until `shutdown` resolves; then stops
/// accepting, gives calls in flight `limits.shutdown_grace`, and closes every
/// connection left.
pub async fn serve(
    listener: TcpListener,
    catalog: Catalog,
    limits: TransportLimits,
    tls: Option<Arc<crate::tls::Tls>>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    log_limits(&catalog, &limits);
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
    let mut builder = tonic::transport::Server::builder();
    if let Some(age) = limits.max_connection_age {
        builder = builder.max_connection_age(age);
    }
    if let Some(grace) = limits.max_connection_age_grace {
        builder = builder.max_connection_age_grace(grace);
    }
    let server = builder
        .max_concurrent_streams(limits.max_concurrent_streams)
        .http2_keepalive_interval(limits.keepalive())
        .http2_keepalive_timeout(Some(limits.keepalive_timeout))
        .http2_max_pending_accept_reset_streams(Some(limits::MAX_PENDING_ACCEPT_RESETS))
        .http2_max_local_error_reset_streams(Some(limits::MAX_LOCAL_ERROR_RESETS))
        .http2_max_header_list_size(limits::MAX_HEADER_LIST_BYTES)
        .initial_stream_window_size(limits::STREAM_RECEIVE_WINDOW)
        .initial_connection_window_size(limits::CONNECTION_RECEIVE_WINDOW)
        .layer(AdmissionLayer::new(budget))
        .add_routes(routes(catalog))
        .serve_with_incoming_shutdown(incoming, signal);
    let grace = enforce_grace(stopping_rx, limits.shutdown_grace, &connections);
    tokio::select! {
        result = server => result,
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

/// The six services: registry, experimental registry, `fbc.v1.Graph`, health, and
/// both reflection versions, advertising all six as grpc-go does.
fn routes(catalog: Catalog) -> tonic::service::Routes {
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
    routes
        .add_service(RegistryServer::new(Registry::new(catalog.clone())))
        .add_service(ExperimentalRegistryServer::new(Experimental::new(
            catalog.clone(),
        )))
        .add_service(GraphServer::new(Graph::new(catalog.clone())))
        .add_service(HealthServer::new(Health::new(catalog)));
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

/// Accepted connections, registered and configured, as tonic's incoming stream. The
/// accept loop ends (closing the listener) when tonic drops the stream at shutdown.
fn incoming(
    listener: TcpListener,
    connections: Arc<Connections>,
    limits: TransportLimits,
    tls: Option<Arc<crate::tls::Tls>>,
) -> ReceiverStream<std::io::Result<ServedIo>> {
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(accept_loop(listener, connections, limits, tls, tx));
    ReceiverStream::new(rx)
}

/// The first pause after a failed accept; it doubles with each failure in a row.
pub const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
/// The longest pause after failed accepts.
pub const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

async fn accept_loop(
    listener: TcpListener,
    connections: Arc<Connections>,
    limits: TransportLimits,
    tls: Option<Arc<crate::tls::Tls>>,
    tx: mpsc::Sender<std::io::Result<ServedIo>>,
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
            if tx.send(Ok(ServedIo::Plain(io))).await.is_err() {
                return;
            }
            continue;
        };
        // The handshake runs on its own task: a slow client holds no accept.
        let acceptor = tls.acceptor(crate::tls::Protocol::Grpc);
        let (tx, timeout) = (tx.clone(), limits.handshake_timeout);
        tokio::spawn(async move {
            if let Some(io) = ServedIo::accept(io, Some(acceptor), timeout).await {
                let _ = tx.send(Ok(io)).await;
            }
        });
    }
}

/// Logs a failed accept; out of descriptors (or memory), frees one by eviction.
pub fn accept_failed(error: &std::io::Error, connections: &Connections) {
    if !out_of_resources(error) {
        tracing::debug!(%error, "accept failed");
        return;
    }
    let victim = connections.evict_one();
    tracing::warn!(
        %error,
        evicted = %victim.as_deref().map(peer_of).unwrap_or_default(),
        "cannot accept a connection: closed the connection inactive longest and backing off"
    );
}

fn peer_of(conn: &conn::ConnState) -> String {
    conn.peer.map(|p| p.to_string()).unwrap_or_default()
}

#[cfg(target_os = "linux")]
fn out_of_resources(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

#[cfg(not(target_os = "linux"))]
fn out_of_resources(error: &std::io::Error) -> bool {
    error.raw_os_error().is_some()
}

/// Nagle off (as Go does: small unary replies are not held back waiting for an
/// ACK) and TCP keepalive on, so a peer that vanished is found.
pub fn configure(stream: &TcpStream, limits: &TransportLimits) {
    let _ = stream.set_nodelay(true);
    let Some(idle) = limits.keepalive() else {
        return;
    };
    let probe = (limits.keepalive_timeout / 3).max(Duration::from_secs(1));
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(idle)
        .with_interval(probe);
    #[cfg(target_os = "linux")]
    let keepalive = keepalive.with_retries(3);
    let _ = socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive);
}

/// Logs the limits in force and the worst-case memory they allow (see
/// [`TransportLimits`]).
fn log_limits(catalog: &Catalog, limits: &TransportLimits) {
    let largest_reply = catalog
        .load()
        .and_then(|s| s.index.oversize_replies().iter().map(|o| o.bytes).max())
        .unwrap_or(0)
        .max(crate::index::GO_CLIENT_MAX_RECEIVE) as u64;
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
