//! The HTTP/1.1 listener: accepted connections, bounded, served by hyper.
//!
//! In: a bound listener, the router, [`HttpLimits`], a shutdown signal. Out:
//! every connection served until shutdown; then the listener closes, each
//! connection finishes the answer in flight (keep-alive off), and whatever is
//! still open after the grace is closed. The gRPC server's connection registry
//! does the bookkeeping: at the cap a new connection closes the one inactive
//! longest; the reaper closes connections that send nothing, sit idle between
//! requests, or stop reading an answer. hyper bounds the request head (size and
//! time); bodies are never read except by routes that take one, under their caps.

use super::HttpLimits;
use super::body::{Tracked, WriteDeadline};
use super::canned::{SECURITY_HEADERS, SecureCanned};
use crate::transport::accept::{
    ACCEPT_BACKOFF_MAX, ACCEPT_BACKOFF_MIN, accept_failed, configure, limit_unsent,
};
use crate::transport::budget::Budget;
use crate::transport::connections::Connections;
use crate::transport::limits::TransportLimits;
use crate::transport::served_io::ServedIo;
use crate::transport::watched::ConnCall;
use axum::Router;
use http::{HeaderValue, Request, header};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Serves `router` on `listener` until `shutdown` resolves (see the module
/// docs); its connections are reported to the metrics as `listener_name`.
pub async fn serve(
    listener_name: &'static str,
    tls: Option<Arc<crate::transport::tls::Tls>>,
    listener: TcpListener,
    router: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()>,
) {
    let connections = Connections::new(Arc::new(Budget::new(usize::MAX, usize::MAX)));
    let counted: Arc<dyn crate::metrics::ConnectionCount> = connections.clone();
    crate::metrics::watch_connections(listener_name, Arc::downgrade(&counted));
    let transport = reaper_limits(&limits);
    let reaper = connections.spawn_reaper(transport.clone());
    let (stopping, stop) = watch::channel(false);
    tokio::pin!(shutdown);
    let mut backoff = ACCEPT_BACKOFF_MIN;
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                accept_failed(&error, &connections);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        backoff = ACCEPT_BACKOFF_MIN;
        configure(&stream, &transport);
        limit_unsent(&stream);
        if connections.live_count() >= limits.max_connections
            && let Some(victim) = connections.evict_one()
        {
            tracing::warn!(
                peer = %victim.peer.map(|p| p.to_string()).unwrap_or_default(),
                max_connections = limits.max_connections,
                "HTTP connection limit reached: closed the connection inactive longest"
            );
        }
        let io = connections.register(stream, Some(peer));
        let acceptor = tls
            .as_ref()
            .map(|t| t.acceptor(crate::transport::tls::Protocol::Http));
        let (router, limits, stop) = (router.clone(), limits.clone(), stop.clone());
        tokio::spawn(async move {
            let timeout = limits.header_read_timeout;
            if let Some(io) = ServedIo::accept(io, acceptor, timeout).await {
                connection(io, router, limits, stop).await;
            }
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    let deadline = Instant::now() + limits.shutdown_grace;
    while connections.live_count() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    connections.kill_all();
    reaper.abort();
}

/// The transport settings of HTTP connections: the reaper's timeouts, and the
/// TCP keepalive the gRPC listener sets too.
fn reaper_limits(limits: &HttpLimits) -> TransportLimits {
    TransportLimits {
        max_connections: limits.max_connections,
        idle_timeout: limits.idle_timeout,
        handshake_timeout: limits.header_read_timeout,
        stall_timeout: limits.stall_timeout,
        ..TransportLimits::default()
    }
}

/// Serves one connection until it closes, or finishes its answer at shutdown.
async fn connection(
    io: ServedIo,
    router: Router,
    limits: HttpLimits,
    mut stop: watch::Receiver<bool>,
) {
    let state = io.conn().state().clone();
    let io = SecureCanned::new(io, state.clone());
    let write_timeout = limits.write_timeout;
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let call = ConnCall::start(state.clone());
        let deadline = Instant::now() + write_timeout;
        let mut router = router.clone();
        async move {
            let request = request.map(axum::body::Body::new);
            let Ok(mut response) = tower::Service::call(&mut router, request).await;
            secure(response.headers_mut());
            Ok::<_, Infallible>(
                response.map(|body| Tracked::new(body, Some(call), WriteDeadline(deadline))),
            )
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_header_size(limits.max_header_bytes)
        .keep_alive(true);
    let served = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(served);
    tokio::select! {
        _ = served.as_mut() => return,
        _ = stop.wait_for(|s| *s) => {}
    }
    served.as_mut().graceful_shutdown();
    let _ = served.await;
}

/// Headers on every answer ([`SECURITY_HEADERS`]): no MIME sniffing, no
/// referrer, and for anything that did not set its own policy, a
/// Content-Security-Policy that allows nothing (an API answer opened in a
/// browser runs no script and loads nothing). hyper's own error answers get
/// them from [`SecureCanned`].
fn secure(headers: &mut http::HeaderMap) {
    const fn header(i: usize) -> (http::HeaderName, HeaderValue) {
        (
            http::HeaderName::from_static(SECURITY_HEADERS[i].0),
            HeaderValue::from_static(SECURITY_HEADERS[i].1),
        )
    }
    const SECURE: [(http::HeaderName, HeaderValue); 3] = [header(0), header(1), header(2)];
    for (name, value) in SECURE {
        if name == header::CONTENT_SECURITY_POLICY {
            headers.entry(name).or_insert(value);
        } else {
            headers.insert(name, value);
        }
    }
}
