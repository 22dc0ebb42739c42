//! The `--metrics-addr` listener: `GET /metrics`, Prometheus' scrape target.
//!
//! In: scrapes. Out: [`crate::metrics::encode`] as OpenMetrics text, on its own
//! port (so a NetworkPolicy can open it to the monitoring namespace only), with
//! the HTTP listener's limits and, unless `--metrics-tls=false`, its TLS; every
//! other path is a 404.

use super::body::PartsBody;
use super::errors::{self, Reply};
use super::{HttpLimits, listener};
use crate::transport::tls::Tls;
use axum::Router;
use axum::routing::any;
use http::{HeaderValue, Method, Response, header};
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;

/// The exposition format prometheus-client writes.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Serves `/metrics` on `listener` (over `tls` if given) until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    tls: Option<Arc<Tls>>,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()>,
) {
    let router = Router::new()
        .route(
            super::routes::paths::METRICS,
            any(|method: Method| async move { scrape(&method) }),
        )
        .fallback(|| async { errors::no_route() });
    listener::serve("metrics", tls, listener, router, limits, shutdown).await;
}

fn scrape(method: &Method) -> Reply {
    if method != Method::GET && method != Method::HEAD {
        return errors::method_not_allowed("GET, HEAD");
    }
    let text = crate::metrics::encode();
    let mut reply = Response::new(PartsBody::empty());
    let headers = reply.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(text.len()));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if method == Method::GET {
        *reply.body_mut() = PartsBody::new(vec![bytes::Bytes::from(text)]);
    }
    reply
}
