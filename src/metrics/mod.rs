//! Prometheus metrics: what the server counts, and their text for `/metrics`.
//!
//! In: events from the layers that see them — a gRPC call ending (method,
//! status, duration), an HTTP answer (route, status, duration), a catalog load or
//! reload (result, duration, sizes), the index cache at start, a resolution —
//! and, at each scrape, the current snapshot, the connection registries and the
//! process (`/proc/self`). Out: the OpenMetrics text of one process-wide
//! registry ([`encode`]).
//!
//! Cardinality is bounded by construction: methods are the compiled-in gRPC
//! methods (anything else is `other`), routes are the HTTP router's templates
//! (`other` for the fallback), codes and results are small enums; no label ever
//! holds a request field. The catalog's digest is the one label that varies,
//! on a single info series that always shows the current snapshot only.

mod labels;
mod process;

pub use labels::{CacheResult, LoadResult, PollResult};

use labels::{Cache, GrpcCall, HttpAnswer, Load, Method, Pull, Route};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, OnceLock, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Something whose open connections a scrape reports.
pub trait ConnectionCount: Send + Sync {
    /// Connections open now.
    fn live(&self) -> usize;
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

fn latency() -> Histogram {
    // 0.25 ms to ~16 s, doubling.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 17))
}

fn load_latency() -> Histogram {
    // 10 ms to ~80 s.
    Histogram::new(exponential_buckets(0.01, 2.0, 14))
}

/// Every metric of the process.
struct Metrics {
    registry: Registry,
    grpc_calls: Family<GrpcCall, Counter>,
    grpc_seconds: Histograms<Method>,
    grpc_in_flight: Gauge,
    http_answers: Family<HttpAnswer, Counter>,
    http_seconds: Histograms<Route>,
    loads: Family<Load, Counter>,
    load_seconds: Histogram,
    last_success: Gauge<f64, AtomicU64>,
    packages: Gauge,
    channels: Gauge,
    bundles: Gauge,
    cache: Family<Cache, Counter>,
    solve_seconds: Histogram,
    pulls: Family<Pull, Counter>,
    pulled_bytes: Counter,
    last_poll: Gauge<f64, AtomicU64>,
}

/// What a scrape reads at that moment.
#[derive(Default)]
struct Live {
    catalog: Mutex<Option<Box<dyn ServedSnapshot>>>,
    connections: Mutex<Vec<(&'static str, Weak<dyn ConnectionCount>)>>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Live")
    }
}

static LIVE: OnceLock<std::sync::Arc<Live>> = OnceLock::new();

fn live() -> &'static std::sync::Arc<Live> {
    LIVE.get_or_init(Default::default)
}

fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        let mut m = Metrics {
            registry: Registry::default(),
            grpc_calls: Family::default(),
            grpc_seconds: Family::new_with_constructor(latency),
            grpc_in_flight: Gauge::default(),
            http_answers: Family::default(),
            http_seconds: Family::new_with_constructor(latency),
            loads: Family::default(),
            load_seconds: load_latency(),
            last_success: Gauge::default(),
            packages: Gauge::default(),
            channels: Gauge::default(),
            bundles: Gauge::default(),
            cache: Family::default(),
            solve_seconds: latency(),
            pulls: Family::default(),
            pulled_bytes: Counter::default(),
            last_poll: Gauge::default(),
        };
        let r = m.registry.sub_registry_with_prefix("fbc_registry");
        r.register(
            "grpc_calls",
            "gRPC calls ended, by method and status code",
            m.grpc_calls.clone(),
        );
        r.register(
            "grpc_call_seconds",
            "gRPC call duration, until the reply's last frame",
            m.grpc_seconds.clone(),
        );
        r.register(
            "grpc_calls_in_flight",
            "gRPC calls (streams) in progress",
            m.grpc_in_flight.clone(),
        );
        r.register(
            "http_requests",
            "HTTP answers, by route and status",
            m.http_answers.clone(),
        );
        r.register(
            "http_request_seconds",
            "HTTP time to the answer's head, by route",
            m.http_seconds.clone(),
        );
        r.register(
            "catalog_loads",
            "catalog loads and reloads, by result",
            m.loads.clone(),
        );
        r.register(
            "catalog_load_seconds",
            "duration of successful loads and reloads",
            m.load_seconds.clone(),
        );
        r.register(
            "catalog_last_success_timestamp_seconds",
            "when a catalog was last published",
            m.last_success.clone(),
        );
        r.register(
            "catalog_packages",
            "packages in the served catalog",
            m.packages.clone(),
        );
        r.register(
            "catalog_channels",
            "channels in the served catalog",
            m.channels.clone(),
        );
        r.register(
            "catalog_bundles",
            "bundles in the served catalog",
            m.bundles.clone(),
        );
        r.register(
            "index_cache_lookups",
            "index cache lookups at start, by result",
            m.cache.clone(),
        );
        r.register(
            "resolve_seconds",
            "fbc.v1.Graph/Resolve solve time",
            m.solve_seconds.clone(),
        );
        r.register(
            "image_polls",
            "polls of the catalog image's tag, by result (unchanged: same digest, nothing pulled)",
            m.pulls.clone(),
        );
        r.register(
            "image_pulled_bytes",
            "bytes of manifests, configs and layers pulled from registries",
            m.pulled_bytes.clone(),
        );
        r.register(
            "image_last_successful_poll_timestamp_seconds",
            "when the catalog image's tag was last resolved",
            m.last_poll.clone(),
        );
        r.register_collector(Box::new(live().clone()));
        m.registry.register_collector(Box::new(process::Process));
        m
    })
}

/// What a scrape reads from the catalog being served: the metrics sit below the
/// snapshot layer, so the snapshot's handle reports itself through this.
pub trait ServedSnapshot: Send + Sync {
    /// The snapshot served now, or `None` before the first load.
    fn served(&self) -> Option<SnapshotLabels>;
    /// True while shutting down (health NOT_SERVING).
    fn draining(&self) -> bool;
}

/// The served snapshot as the metrics label it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotLabels {
    /// 1 at start, +1 per reload.
    pub generation: u64,
    /// The catalog digest, as text.
    pub digest: String,
    /// The image it came from (reference as given, digest), when it did.
    pub image: Option<(String, String)>,
    /// The bytes it holds, by holder (see [`Held`]).
    pub memory: Vec<Held>,
}

/// Bytes one part of a snapshot holds (`fbc_registry_memory_bytes{holder, place}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// `registry` (the `api.Registry` replies and manifests), `http` (catalogd's
    /// JSON Lines and gzip), `graphql`, `browser`.
    pub holder: &'static str,
    /// Where the bytes are.
    pub place: Place,
    /// How many.
    pub bytes: usize,
}

impl Held {
    /// `bytes` held by `holder` in `place`.
    pub fn new(holder: &'static str, place: Place, bytes: usize) -> Held {
        Held {
            holder,
            place,
            bytes,
        }
    }
}

/// Where held bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The process's own (anonymous) memory.
    Memory,
    /// A mapped file: in the page cache, resident only where read, and dropped by
    /// the kernel under memory pressure.
    File,
}

impl Place {
    fn label(self) -> &'static str {
        match self {
            Place::Memory => "memory",
            Place::File => "file",
        }
    }
}

/// Reports `catalog`'s snapshot (generation, digest) at each scrape (the
/// server started last, in a process that starts several).
pub fn watch_catalog(catalog: Box<dyn ServedSnapshot>) {
    if let Ok(mut watched) = live().catalog.lock() {
        *watched = Some(catalog);
    }
    let _ = metrics();
}

/// Reports `count`'s open connections at each scrape, as `listener`.
pub fn watch_connections(listener: &'static str, count: Weak<dyn ConnectionCount>) {
    if let Ok(mut list) = live().connections.lock() {
        list.retain(|(_, c)| c.strong_count() > 0);
        list.push((listener, count));
    }
}

/// A gRPC call started; returns its label for [`call_ended`].
pub fn call_started(path: &str) -> &'static str {
    metrics().grpc_in_flight.inc();
    labels::method(path)
}

/// A gRPC call ended with `code` (`None`: the reply was dropped before its status).
pub fn call_ended(method: &'static str, code: Option<tonic::Code>, elapsed: Duration) {
    let m = metrics();
    m.grpc_in_flight.dec();
    m.grpc_calls
        .get_or_create(&GrpcCall::new(method, code))
        .inc();
    m.grpc_seconds
        .get_or_create(&Method { method })
        .observe(elapsed.as_secs_f64());
}

/// A gRPC call refused at admission (never started).
pub fn call_refused(path: &str, code: tonic::Code) {
    metrics()
        .grpc_calls
        .get_or_create(&GrpcCall::new(labels::method(path), Some(code)))
        .inc();
}

/// An HTTP answer on `route` (the router's label of its template).
pub fn http_answered(route: &'static str, status: u16, elapsed: Duration) {
    let m = metrics();
    m.http_answers
        .get_or_create(&HttpAnswer { route, status })
        .inc();
    m.http_seconds
        .get_or_create(&Route { route })
        .observe(elapsed.as_secs_f64());
}

/// A catalog load or reload that was published.
pub fn load_succeeded(elapsed: Duration, packages: usize, channels: usize, bundles: usize) {
    let m = metrics();
    m.loads
        .get_or_create(&Load {
            result: LoadResult::Success,
        })
        .inc();
    m.load_seconds.observe(elapsed.as_secs_f64());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    m.last_success.set(now);
    m.packages.set(packages as i64);
    m.channels.set(channels as i64);
    m.bundles.set(bundles as i64);
}

/// A poll of the catalog image's tag ended with `result`, having pulled `bytes`.
pub fn image_polled(result: PollResult, bytes: u64) {
    let m = metrics();
    if result != PollResult::Failure {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        m.last_poll.set(now);
    }
    m.pulls.get_or_create(&Pull { result }).inc();
    m.pulled_bytes.inc_by(bytes);
}

/// A reload whose catalog was refused (the last good one stays).
pub fn load_failed() {
    metrics()
        .loads
        .get_or_create(&Load {
            result: LoadResult::Failure,
        })
        .inc();
}

/// The index cache at start.
pub fn cache_lookup(result: CacheResult) {
    metrics().cache.get_or_create(&Cache { result }).inc();
}

/// One resolution's solve time.
pub fn resolved(elapsed: Duration) {
    metrics().solve_seconds.observe(elapsed.as_secs_f64());
}

/// The OpenMetrics text of every metric.
pub fn encode() -> String {
    let mut out = String::with_capacity(16 * 1024);
    if prometheus_client::encoding::text::encode(&mut out, &metrics().registry).is_err() {
        out.clear();
    }
    out
}

impl Collector for Live {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let (served, draining) = match self.catalog.lock() {
            Ok(watched) => match watched.as_ref() {
                Some(catalog) => (catalog.served(), catalog.draining()),
                None => (None, false),
            },
            Err(_) => (None, false),
        };
        if let Some(snapshot) = served {
            let generation = Gauge::<i64>::default();
            generation.set(snapshot.generation as i64);
            labels::encode(
                &mut encoder,
                "snapshot_generation",
                "generation of the served snapshot (1 at start, +1 per reload)",
                &generation,
            )?;
            let info = Info::new(vec![("digest".to_string(), snapshot.digest)]);
            labels::encode(
                &mut encoder,
                "snapshot",
                "the served snapshot's catalog digest",
                &info,
            )?;
            let family = Family::<labels::Holder, Gauge>::default();
            for held in &snapshot.memory {
                family
                    .get_or_create(&labels::Holder {
                        holder: held.holder,
                        place: held.place.label(),
                    })
                    .set(held.bytes as i64);
            }
            labels::encode(
                &mut encoder,
                "memory_bytes",
                "bytes the served snapshot holds, by holder (registry replies, and each view built so far: http, graphql, browser) and place (memory, or a mapped file the kernel can drop under pressure)",
                &family,
            )?;
            if let Some((reference, digest)) = snapshot.image {
                let info = Info::new(vec![
                    ("reference".to_string(), reference),
                    ("digest".to_string(), digest),
                ]);
                labels::encode(
                    &mut encoder,
                    "image",
                    "the image the served snapshot was unpacked from, and its digest",
                    &info,
                )?;
            }
        }
        let gauge = Gauge::<i64>::default();
        gauge.set(i64::from(draining));
        labels::encode(
            &mut encoder,
            "draining",
            "1 while shutting down (health NOT_SERVING)",
            &gauge,
        )?;
        if let Ok(list) = self.connections.lock() {
            let family = Family::<labels::Listener, Gauge>::default();
            for (listener, count) in list.iter() {
                if let Some(count) = count.upgrade() {
                    family
                        .get_or_create(&labels::Listener { listener })
                        .inc_by(count.live() as i64);
                }
            }
            labels::encode(
                &mut encoder,
                "open_connections",
                "connections open, by listener",
                &family,
            )?;
        }
        Ok(())
    }
}
