//! The HTTP server: catalogd's API over the same snapshot as gRPC.
//!
//! In: a bound listener, the [`Catalog`], an [`HttpConfig`], a shutdown signal.
//! Out: catalogd's contract (`/catalogs/{name}/api/v1/all` and `/metas`) with
//! Go's `ServeContent` semantics (preconditions, ranges) and gzhttp's encoding,
//! from bytes each snapshot prepares once ([`crate::views::catalogd`]). Every request
//! reads the snapshot current when it arrives, so a reload switches HTTP and
//! gRPC together. The view of each new snapshot is built as soon as it is
//! published, so the first request after a reload does not pay for it.
//!
//! | module | in → out |
//! |---|---|
//! | [`listener`] | accepted connections → hyper HTTP/1.1, bounded and reaped |
//! | [`canned`] | hyper's own error heads (400, 414, 431) → the same security headers as every answer |
//! | [`routes`] | paths → handlers; Go's 404 for the rest |
//! | [`catalogd`] | `/all`, `/metas` → catalogd's answers |
//! | [`icons`] | `/icons/{package}` → a package's icon, cacheable, never HTML |
//! | [`graphql`] | `POST /graphql` → catalogd's GraphQL answers ([`crate::views::graphql`]) |
//! | [`browser`] | `/`, `/packages/{name}`, `/assets/…` → the catalog browser's pages |
//! | [`graph`] | `/graph`, `/successors`, `/readiness` → the upgrade graph, OLM v1's successors and readiness (ours) |
//! | [`across`] | `/api/v1/catalogs`, `/api/v1/packages?q=`, `…/{package}/providers` → questions across every catalog (ours) |
//! | [`content`] | a prepared resource + request → 200/206/304/412/416 with the headers |
//! | [`conditional`] | request headers + validators → Go's precondition verdict |
//! | [`range`] | `Range` → byte ranges, multipart bodies |
//! | [`encoding`] | `Accept-Encoding` → gzip or identity, as gzhttp decides |
//! | [`gotime`], [`goquery`] | header dates, query strings → as Go reads them |
//! | [`metrics`] | `--metrics-addr`: `GET /metrics` → Prometheus text |
//! | [`workers`] | computed answers → at most one per core at a time |
//! | [`errors`] | status + message → Go's `http.Error` answer |
//! | [`body`] | prepared parts → bounded frames; calls counted, stalls clocked |

pub(crate) mod across;
pub(crate) mod body;
pub(crate) mod browser;
pub(crate) mod canned;
pub(crate) mod catalogd;
pub(crate) mod conditional;
pub(crate) mod content;
pub(crate) mod encoding;
pub(crate) mod errors;
pub(crate) mod goquery;
pub(crate) mod gotime;
pub(crate) mod graph;
pub(crate) mod graphql;
pub(crate) mod icons;
pub(crate) mod listener;
pub(crate) mod metrics;
pub(crate) mod range;
pub(crate) mod routes;
pub(crate) mod status;
pub(crate) mod workers;

use crate::fleet::Fleet;
use crate::snapshot::Catalog;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// What HTTP clients may hold and how long they may take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections at once; at the cap a new one closes the one inactive longest.
    pub max_connections: usize,
    /// A request head (or a new connection's first byte) must arrive within this.
    pub header_read_timeout: Duration,
    /// The largest request head (request line and headers).
    pub max_header_bytes: usize,
    /// A kept-alive connection with no request in progress is closed after this.
    pub idle_timeout: Duration,
    /// An answer the client has stopped reading for this long closes its connection.
    pub stall_timeout: Duration,
    /// No answer may take longer than this to send (catalogd's WriteTimeout).
    pub write_timeout: Duration,
    /// At shutdown, how long answers in flight may take before connections close.
    pub shutdown_grace: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(5),
            max_header_bytes: 16 * 1024,
            idle_timeout: Duration::from_secs(60),
            stall_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(5 * 60),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// The HTTP server's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpConfig {
    /// The catalog's name in `/catalogs/{name}/…` (a DNS-1123 subdomain) when the
    /// server has one catalog; each catalog's own name when it has several.
    pub catalog_name: String,
    /// Client limits.
    pub limits: HttpLimits,
    /// Serve the catalog browser (`/`, `/packages/…`, `/assets/…`).
    pub browser: bool,
    /// Build the HTTP view and the browser's cards as each snapshot is published
    /// (`--eager-views`), instead of when the first request needs them.
    pub eager_views: bool,
}

/// Serves HTTP (over TLS when `tls` is given) on `listener` until `shutdown`
/// resolves, then drains (see [`listener`]).
pub async fn serve(
    listener: TcpListener,
    fleet: Arc<Fleet>,
    config: HttpConfig,
    tls: Option<Arc<crate::transport::tls::Tls>>,
    shutdown: impl Future<Output = ()>,
) {
    let api = catalogd::ApiState { fleet };
    listener::serve(
        "http",
        tls,
        listener,
        routes::router(api, config.browser),
        config.limits,
        shutdown,
    )
    .await;
}

/// Builds the HTTP view and the browser's cards of every snapshot of `catalog` as it
/// is published (the app runs one per served catalog with `--eager-views`; without
/// it each view is built when a request first needs it).
pub async fn warm_views(catalog: Catalog) {
    let mut generations = catalog.generations();
    loop {
        generations.borrow_and_update();
        if let Some(snapshot) = catalog.load() {
            let started = std::time::Instant::now();
            match snapshot.http_view().await {
                Ok(view) => {
                    let bytes = view.bytes();
                    tracing::info!(
                        generation = snapshot.generation,
                        metas = view.len(),
                        jsonl_bytes = bytes.jsonl,
                        gzip_bytes = bytes.gzip,
                        build_ms = started.elapsed().as_millis() as u64,
                        "HTTP view ready"
                    );
                }
                Err(error) => tracing::warn!(%error, "HTTP view not built"),
            }
            let started = std::time::Instant::now();
            match snapshot.browser().await {
                Ok(browser) => tracing::info!(
                    generation = snapshot.generation,
                    packages = browser.cards.len(),
                    build_ms = started.elapsed().as_millis() as u64,
                    "catalog browser ready"
                ),
                Err(error) => tracing::warn!(%error, "catalog browser not built"),
            }
        }
        if generations.changed().await.is_err() {
            return;
        }
    }
}
