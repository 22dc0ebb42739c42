//! OLM v0 catalog clients against one `api.Registry` address: a fleet's worth of
//! catalog operators, one HTTP/2 connection each (issue #33, items 4 and 5).
//!
//! ```text
//! cargo build --release --locked --example olm_load
//! target/release/examples/olm_load --addr 127.0.0.1:50051 --clients 1000 --duration 2m
//! tools/fleet.py     # 3 replicas behind HAProxy, reloads, a rolling restart (deploy/fleet/)
//! tools/soak.py      # 30 minutes of mixed load on one TLS server (docs/soak.md)
//! ```
//!
//! 1. **Discovery**, on a connection of its own that is not counted: one ListBundles
//!    (bundles, `replaces`, provided GVKs) and GetPackage of each package (channels).
//!    Each GetBundleThatReplaces and GetDefaultBundleThatProvides target is asked once
//!    and kept only if it answers, so a failure later is the server's, not a question
//!    with no answer. The `--marker-package` is left out of the targets.
//! 2. **Clients**, started evenly over `--ramp`, each with its own tonic `Channel` (one
//!    HTTP/2 connection, opened lazily, and opened again by tonic once the server's
//!    GOAWAY has closed it), doing what OLM v0's catalog operator does with a
//!    CatalogSource:
//!    - a **sync** at start and then every `--resync` (0.8–1.2× at random; OLM's
//!      snapshot TTL is 5 min): ListBundles, drained, with a GetPackage for each package
//!      as it first appears in the stream, inside the open stream, as OLM's
//!      `registrySource.Snapshot` does. The ListBundles latency is the whole sync;
//!    - between syncs, after an exponentially distributed think time (mean `--think`),
//!      one of GetBundle, GetBundleForChannel, GetBundleThatReplaces (OLM's
//!      GetReplacementBundleInPackageChannel) and GetDefaultBundleThatProvides (OLM's
//!      GetBundleThatProvides), equally likely, on a random target;
//!    - with `--marker-package NAME`, after each new connection, GetPackage(NAME): each
//!      replica serves that package with its own name as the default channel
//!      (tools/fleet.py writes it), so the answer says which replica the connection
//!      landed on. It is recorded as `GetPackage(marker)`, failures included.
//! 3. **Phases**: with `--duration`, one phase (`--phase`) for that long. Otherwise the
//!    lines of standard input drive it: `phase NAME` starts a phase, `event TEXT` notes
//!    a moment on the timeline, `stop` (or the end of input) stops. A call is counted in
//!    the phase during which it ends. After the stop, calls in flight end (or time out);
//!    no call is cancelled.
//! 4. **Report** (JSON, on standard output or `--output`): per phase, calls, failures by
//!    RPC and status code with sample messages, latency quantiles per RPC and overall
//!    (log-linear histogram, ≤ 1.6 % error), connections opened and where they landed;
//!    and a timeline with one entry a second: calls, failures, p50/p99/max of the calls
//!    that ended in that second, and how many clients are on each replica. A progress
//!    line goes to standard error every `--progress`.
//!
//! A failed call is any call that does not end in OK within `--timeout`: its status
//! code, or `CLIENT_TIMEOUT`. One exception, as OLM's client (grpc-go) behaves: a call
//! that provably never reached the server — hyper dropped it unsent because the
//! connection was closing, or HTTP/2 refused it because the server's GOAWAY had
//! arrived — is sent again at once (at most 3 times, within the timeout) on a new
//! connection, and counted as a transparent retry, not a failure. grpc-go stops using a
//! connection at the server's first GOAWAY and retries the calls the GOAWAY refused;
//! tonic's channel instead fails the calls that race with it, which would count the
//! client's reconnection as the server's failures (`--no-transparent-retry` counts
//! them). A call cut off after it was sent is never retried. Only loopback addresses
//! are accepted.

use clap::Parser;
use fbc_registry::api;
use fbc_registry::api::registry_client::RegistryClient;
use prost::Message as _;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::io::BufRead as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Status};

/// Largest reply a client accepts.
const MAX_DECODING: usize = 64 * 1024 * 1024;
/// Discovery must be done within this.
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(300);
/// Distinct sample messages kept per (RPC, code).
const SAMPLES: usize = 5;

/// OLM v0 catalog clients against api.Registry over loopback: one connection each,
/// ListBundles syncs, point queries between.
#[derive(Debug, Parser)]
#[command(about)]
struct Args {
    /// Server (or balancer) address, IP:port; loopback only (127.0.0.0/8, ::1, localhost).
    #[arg(long, default_value = "127.0.0.1:50051", value_parser = parse_loopback)]
    addr: SocketAddr,
    /// Clients, each with its own connection.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=20_000))]
    clients: u32,
    /// The clients start evenly spread over this time.
    #[arg(long, default_value = "20s", value_parser = humantime::parse_duration)]
    ramp: Duration,
    /// Mean think time before each point query (exponentially distributed).
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
    think: Duration,
    /// Mean time between a client's syncs (each drawn from 0.8–1.2× this).
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    resync: Duration,
    /// Longest a call (a whole sync for ListBundles) may take before it counts as failed.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    timeout: Duration,
    /// Run this long, then stop; without it, standard input drives the phases.
    #[arg(long, value_parser = humantime::parse_duration)]
    duration: Option<Duration>,
    /// Name of the first phase.
    #[arg(long, default_value = "run")]
    phase: String,
    /// PEM CA bundle: speak TLS to the server and trust these CAs.
    #[arg(long, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
    /// Name the server's certificate must carry (with --tls-ca).
    #[arg(long, default_value = "localhost")]
    tls_domain: String,
    /// A package whose default channel names the replica answering; asked once per new
    /// connection to record where it landed.
    #[arg(long, value_name = "NAME")]
    marker_package: Option<String>,
    /// Interval of the progress lines on standard error.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    progress: Duration,
    /// Write the JSON report to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Seed of the clients' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fail a call that never reached the server (refused after the server's GOAWAY,
    /// or dropped before it was sent) instead of sending it again on a new
    /// connection as grpc-go does (its "transparent retry").
    #[arg(long)]
    no_transparent_retry: bool,
}

fn parse_loopback(s: &str) -> Result<SocketAddr, String> {
    let addr = match s.strip_prefix("localhost:") {
        Some(port) => {
            let port: u16 = port.parse().map_err(|_| format!("bad port in {s:?}"))?;
            SocketAddr::from((Ipv4Addr::LOCALHOST, port))
        }
        None => s
            .parse::<SocketAddr>()
            .map_err(|_| format!("{s:?} is not IP:port (e.g. 127.0.0.1:50051)"))?,
    };
    let loopback = match addr.ip() {
        IpAddr::V4(ip) => ip.octets()[0] == 127,
        IpAddr::V6(ip) => ip == Ipv6Addr::LOCALHOST,
    };
    if loopback {
        Ok(addr)
    } else {
        Err(format!(
            "refusing {addr}: only loopback addresses may be load-tested"
        ))
    }
}

// ---------------------------------------------------------------------------
// Random choices: SplitMix64, one generator per client.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// 0 ≤ x < n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponentially distributed with this mean (capped at 20× it).
    fn exp(&mut self, mean: Duration) -> Duration {
        let u = 1.0 - self.unit();
        mean.mul_f64((-u.ln()).min(20.0))
    }

    /// Uniform in 0.8–1.2× `d`.
    fn jitter(&mut self, d: Duration) -> Duration {
        d.mul_f64(0.8 + 0.4 * self.unit())
    }
}

// ---------------------------------------------------------------------------
// Latencies: a log-linear histogram of microseconds.

const SUB_BITS: u32 = 5;
const SUB: usize = 1 << SUB_BITS;
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB;

/// Values below 2·SUB are exact; above, each power of two is cut into SUB buckets,
/// so a bucket's midpoint is within 1/(2·SUB) (1.6 %) of any value in it.
#[derive(Clone)]
struct Hist {
    counts: Vec<u64>,
    total: u64,
    sum: u64,
    max: u64,
}

impl Hist {
    fn new() -> Self {
        Hist {
            counts: vec![0; BUCKETS],
            total: 0,
            sum: 0,
            max: 0,
        }
    }

    fn index(v: u64) -> usize {
        if v < (2 * SUB) as u64 {
            v as usize
        } else {
            let shift = 63 - v.leading_zeros() - SUB_BITS;
            ((shift as usize) << SUB_BITS) + (v >> shift) as usize
        }
    }

    fn midpoint(i: usize) -> u64 {
        if i < 2 * SUB {
            return i as u64;
        }
        let shift = (i >> SUB_BITS) - 1;
        let lo = (((i & (SUB - 1)) | SUB) as u64) << shift;
        lo + ((1u64 << shift) - 1) / 2
    }

    fn record(&mut self, micros: u64) {
        self.counts[Self::index(micros)] += 1;
        self.total += 1;
        self.sum = self.sum.saturating_add(micros);
        self.max = self.max.max(micros);
    }

    fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::midpoint(i).min(self.max);
            }
        }
        self.max
    }

    fn json(&self) -> Value {
        json!({
            "count": self.total,
            "mean": self.sum.checked_div(self.total).unwrap_or(0),
            "p50": self.quantile(0.50),
            "p90": self.quantile(0.90),
            "p99": self.quantile(0.99),
            "p999": self.quantile(0.999),
            "max": self.max,
        })
    }
}

// ---------------------------------------------------------------------------
// What the run records.

#[derive(Default)]
struct Failure {
    count: u64,
    samples: Vec<String>,
}

struct Phase {
    name: String,
    start: f64,
    end: Option<f64>,
    all: Hist,
    by_rpc: BTreeMap<&'static str, Hist>,
    failures: BTreeMap<(&'static str, &'static str), Failure>,
    retried: BTreeMap<(&'static str, &'static str), Failure>,
    connects: u64,
    landings: BTreeMap<String, u64>,
    bytes: u64,
}

impl Phase {
    fn new(name: &str, start: f64) -> Self {
        Phase {
            name: name.to_owned(),
            start,
            end: None,
            all: Hist::new(),
            by_rpc: BTreeMap::new(),
            failures: BTreeMap::new(),
            retried: BTreeMap::new(),
            connects: 0,
            landings: BTreeMap::new(),
            bytes: 0,
        }
    }

    fn failed(&self) -> u64 {
        self.failures.values().map(|f| f.count).sum()
    }

    fn json(&self, now: f64) -> Value {
        let end = self.end.unwrap_or(now);
        let secs = (end - self.start).max(1e-9);
        let list = |map: &BTreeMap<(&'static str, &'static str), Failure>| -> Vec<Value> {
            map.iter()
                .map(|((rpc, code), f)| {
                    json!({"rpc": rpc, "code": code, "count": f.count, "samples": f.samples})
                })
                .collect()
        };
        let mut by_code: BTreeMap<&str, u64> = BTreeMap::new();
        for ((_, code), f) in &self.failures {
            *by_code.entry(code).or_default() += f.count;
        }
        let mut latency = Map::new();
        latency.insert("all".to_owned(), self.all.json());
        for (rpc, h) in &self.by_rpc {
            latency.insert((*rpc).to_owned(), h.json());
        }
        json!({
            "name": self.name,
            "start_s": round3(self.start),
            "end_s": round3(end),
            "duration_s": round3(secs),
            "calls": self.all.total,
            "failed": self.failed(),
            "failed_by_code": by_code,
            "calls_per_s": round3(self.all.total as f64 / secs),
            "reply_mb": round3(self.bytes as f64 / 1e6),
            "latency_us": latency,
            "failures": list(&self.failures),
            "transparent_retries": self.retried.values().map(|f| f.count).sum::<u64>(),
            "transparent_retries_by_cause": list(&self.retried),
            "connects": self.connects,
            "landings": self.landings,
        })
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Everything recorded, behind one lock (calls are counted in microseconds; the
/// lock is held for a few hundred nanoseconds per call).
struct Record {
    phases: Vec<Phase>,
    second: Hist,
    second_failed: u64,
    timeline: Vec<Value>,
    events: Vec<Value>,
    /// Replica names, interned: a client's `on` is an index + 1 (0: not known).
    replicas: Vec<String>,
}

struct Run {
    t0: Instant,
    record: Mutex<Record>,
    /// Per client: the replica its connection landed on (index into `replicas` + 1).
    on: Vec<AtomicUsize>,
    started: AtomicU64,
}

impl Run {
    fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    fn lock(&self) -> MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn phase<'a>(r: &'a mut MutexGuard<'_, Record>) -> Option<&'a mut Phase> {
        r.phases.last_mut()
    }

    fn ok(&self, rpc: &'static str, took: Duration, bytes: usize) {
        let us = took.as_micros() as u64;
        let mut r = self.lock();
        r.second.record(us);
        if let Some(p) = Self::phase(&mut r) {
            p.all.record(us);
            p.by_rpc.entry(rpc).or_insert_with(Hist::new).record(us);
            p.bytes += bytes as u64;
        }
    }

    fn failed(&self, rpc: &'static str, took: Duration, code: &'static str, message: String) {
        let us = took.as_micros() as u64;
        let mut r = self.lock();
        r.second.record(us);
        r.second_failed += 1;
        if let Some(p) = Self::phase(&mut r) {
            p.all.record(us);
            p.by_rpc.entry(rpc).or_insert_with(Hist::new).record(us);
            let f = p.failures.entry((rpc, code)).or_default();
            f.count += 1;
            if f.samples.len() < SAMPLES && !f.samples.contains(&message) {
                f.samples.push(message);
            }
        }
    }

    /// A call that never reached the server, sent again on a new connection.
    fn retried(&self, rpc: &'static str, code: &'static str, message: String) {
        let mut r = self.lock();
        if let Some(p) = Self::phase(&mut r) {
            let f = p.retried.entry((rpc, code)).or_default();
            f.count += 1;
            if f.samples.len() < SAMPLES && !f.samples.contains(&message) {
                f.samples.push(message);
            }
        }
    }

    fn connected(&self) {
        let mut r = self.lock();
        if let Some(p) = Self::phase(&mut r) {
            p.connects += 1;
        }
    }

    fn landed(&self, client: usize, replica: &str) {
        let mut r = self.lock();
        let id = match r.replicas.iter().position(|n| n == replica) {
            Some(i) => i + 1,
            None => {
                r.replicas.push(replica.to_owned());
                r.replicas.len()
            }
        };
        if let Some(p) = Self::phase(&mut r) {
            *p.landings.entry(replica.to_owned()).or_default() += 1;
        }
        drop(r);
        if let Some(slot) = self.on.get(client) {
            slot.store(id, Ordering::Relaxed);
        }
    }

    fn start_phase(&self, name: &str) {
        let now = self.now();
        let mut r = self.lock();
        if let Some(p) = r.phases.last_mut() {
            p.end = Some(now);
        }
        r.phases.push(Phase::new(name, now));
        r.events
            .push(json!({"t": round3(now), "text": format!("phase {name}")}));
        eprintln!("olm_load: t={now:.1}s phase {name}");
    }

    fn event(&self, text: &str) {
        let now = self.now();
        self.lock()
            .events
            .push(json!({"t": round3(now), "text": text}));
    }

    /// How many clients are on each replica now.
    fn spread(&self, replicas: &[String]) -> BTreeMap<String, u64> {
        let mut counts = vec![0u64; replicas.len() + 1];
        for slot in &self.on {
            let i = slot.load(Ordering::Relaxed);
            if let Some(c) = counts.get_mut(i) {
                *c += 1;
            }
        }
        let mut out = BTreeMap::new();
        for (i, c) in counts.into_iter().enumerate() {
            if c == 0 {
                continue;
            }
            let name = if i == 0 {
                "unknown".to_owned()
            } else {
                replicas[i - 1].clone()
            };
            out.insert(name, c);
        }
        out
    }

    /// Closes the current second: one timeline entry.
    fn tick(&self) -> Value {
        let now = self.now();
        let mut r = self.lock();
        let second = std::mem::replace(&mut r.second, Hist::new());
        let failed = std::mem::take(&mut r.second_failed);
        let phase = r.phases.last().map(|p| p.name.clone()).unwrap_or_default();
        let replicas = r.replicas.clone();
        drop(r);
        let spread = self.spread(&replicas);
        let entry = json!({
            "t": now.round() as u64,
            "phase": phase,
            "calls": second.total,
            "failed": failed,
            "p50_us": second.quantile(0.5),
            "p99_us": second.quantile(0.99),
            "max_us": second.max,
            "clients": self.started.load(Ordering::Relaxed),
            "by_replica": spread,
        });
        self.lock().timeline.push(entry.clone());
        entry
    }
}

/// gRPC's name of a status code.
fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Whether a failed call provably never reached the server: hyper dropped it before
/// it was sent (the connection was closing), or HTTP/2 refused it because the server's
/// GOAWAY had arrived (opened after it, or above its last stream id). grpc-go sends
/// such a call again, at once, on another connection, without its caller knowing
/// (transparent retry); OLM's client is grpc-go. A call cut off after it was sent
/// (the connection ended under it) is not one of these.
fn unprocessed(status: &Status) -> bool {
    let mut source = std::error::Error::source(status);
    while let Some(e) = source {
        if e.downcast_ref::<hyper::Error>()
            .is_some_and(|h| h.is_canceled())
        {
            return true;
        }
        if e.downcast_ref::<h2::Error>().is_some_and(|h| {
            h.is_go_away() && h.is_remote() && h.reason() == Some(h2::Reason::NO_ERROR)
        }) {
            return true;
        }
        source = e.source();
    }
    false
}

/// Transparent retries of one call at most (grpc-go's are bounded by its throttle).
const MAX_TRANSPARENT_RETRIES: u32 = 3;

/// A status's message and the chain of errors under it, for the samples.
fn describe(status: &Status) -> String {
    let mut text = status.message().to_owned();
    let mut source = std::error::Error::source(status);
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text.chars().take(300).collect()
}

// ---------------------------------------------------------------------------
// One connection per client, and a count of each time it is opened.

struct ClientState {
    /// A connection was opened since the marker was last asked.
    fresh: AtomicBool,
}

/// The client's TCP connector: tonic calls it for the first connection and again
/// after each connection ends (its TLS, when configured, goes over the stream).
#[derive(Clone)]
struct Dial {
    addr: SocketAddr,
    run: Arc<Run>,
    me: Arc<ClientState>,
}

impl tower::Service<http::Uri> for Dial {
    type Response = hyper_util::rt::TokioIo<TcpStream>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: http::Uri) -> Self::Future {
        let (addr, run, me) = (self.addr, self.run.clone(), self.me.clone());
        Box::pin(async move {
            let stream = TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            run.connected();
            me.fresh.store(true, Ordering::Relaxed);
            Ok(hyper_util::rt::TokioIo::new(stream))
        })
    }
}

// ---------------------------------------------------------------------------
// Targets of the point queries.

#[derive(Default)]
struct Targets {
    bundles: Vec<api::GetBundleRequest>,
    heads: Vec<api::GetBundleInChannelRequest>,
    replaces: Vec<api::GetReplacementRequest>,
    provides: Vec<api::GetDefaultProviderRequest>,
    dropped_replaces: usize,
    dropped_provides: usize,
    packages: usize,
}

async fn discover(
    client: &mut RegistryClient<Channel>,
    marker: Option<&str>,
) -> Result<Targets, String> {
    let mut t = Targets::default();
    let mut stream = client
        .list_bundles(api::ListBundlesRequest {})
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
        .into_inner();
    let mut packages = Vec::new();
    let mut gvks = std::collections::BTreeSet::new();
    let mut replaces = Vec::new();
    while let Some(b) = stream
        .message()
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
    {
        if Some(b.package_name.as_str()) == marker {
            continue;
        }
        if !packages.contains(&b.package_name) {
            packages.push(b.package_name.clone());
        }
        if !b.replaces.is_empty() {
            replaces.push(api::GetReplacementRequest {
                csv_name: b.replaces.clone(),
                pkg_name: b.package_name.clone(),
                channel_name: b.channel_name.clone(),
            });
        }
        for g in b.provided_apis {
            gvks.insert((g.group, g.version, g.kind, g.plural));
        }
        t.bundles.push(api::GetBundleRequest {
            pkg_name: b.package_name,
            channel_name: b.channel_name,
            csv_name: b.csv_name,
        });
    }
    t.packages = packages.len();
    for name in packages {
        let package = client
            .get_package(api::GetPackageRequest { name: name.clone() })
            .await
            .map_err(|s| format!("GetPackage {name:?}: {s}"))?
            .into_inner();
        for ch in package.channels {
            t.heads.push(api::GetBundleInChannelRequest {
                pkg_name: name.clone(),
                channel_name: ch.name,
            });
        }
    }
    for r in replaces {
        match client.get_bundle_that_replaces(r.clone()).await {
            Ok(_) => t.replaces.push(r),
            Err(_) => t.dropped_replaces += 1,
        }
    }
    for (group, version, kind, plural) in gvks {
        let r = api::GetDefaultProviderRequest {
            group,
            version,
            kind,
            plural,
        };
        match client.get_default_bundle_that_provides(r.clone()).await {
            Ok(_) => t.provides.push(r),
            Err(_) => t.dropped_provides += 1,
        }
    }
    if let Some(name) = marker {
        client
            .get_package(api::GetPackageRequest {
                name: name.to_owned(),
            })
            .await
            .map_err(|s| format!("--marker-package {name:?}: {s}"))?;
    }
    if t.bundles.is_empty() {
        return Err("the catalog lists no bundles".to_owned());
    }
    Ok(t)
}

// ---------------------------------------------------------------------------
// A client.

struct Client {
    index: usize,
    run: Arc<Run>,
    targets: Arc<Targets>,
    me: Arc<ClientState>,
    registry: RegistryClient<Channel>,
    rng: Rng,
    timeout: Duration,
    marker: Option<String>,
    transparent_retry: bool,
}

impl Client {
    /// Runs the call `make` makes, bounded by the timeout (retries included), sends it
    /// again while it provably never reached the server (see [`unprocessed`]), and
    /// records the outcome under `rpc`.
    async fn call<T, F, Fut>(&self, rpc: &'static str, mut make: F) -> Option<T>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<(T, usize), Status>>,
    {
        let t = Instant::now();
        let attempts = async {
            let mut retries = 0;
            loop {
                match make().await {
                    Err(status)
                        if self.transparent_retry
                            && retries < MAX_TRANSPARENT_RETRIES
                            && unprocessed(&status) =>
                    {
                        retries += 1;
                        self.run
                            .retried(rpc, code_name(status.code()), describe(&status));
                    }
                    outcome => return outcome,
                }
            }
        };
        match tokio::time::timeout(self.timeout, attempts).await {
            Ok(Ok((value, bytes))) => {
                self.run.ok(rpc, t.elapsed(), bytes);
                Some(value)
            }
            Ok(Err(status)) => {
                self.run.failed(
                    rpc,
                    t.elapsed(),
                    code_name(status.code()),
                    describe(&status),
                );
                None
            }
            Err(_) => {
                self.run.failed(
                    rpc,
                    t.elapsed(),
                    "CLIENT_TIMEOUT",
                    format!("no answer within {:?}", self.timeout),
                );
                None
            }
        }
    }

    /// OLM's snapshot: ListBundles, and GetPackage of each package as it first
    /// appears, inside the open stream.
    async fn sync(&self) {
        let this = self;
        self.call("ListBundles", || async move {
            let mut registry = this.registry.clone();
            let mut stream = registry
                .list_bundles(api::ListBundlesRequest {})
                .await?
                .into_inner();
            let mut seen = HashSet::new();
            let mut bytes = 0;
            while let Some(b) = stream.message().await? {
                bytes += b.encoded_len();
                if seen.insert(b.package_name.clone()) {
                    let name = b.package_name;
                    this.call("GetPackage", || {
                        let mut r = this.registry.clone();
                        let name = name.clone();
                        async move {
                            let p = r
                                .get_package(api::GetPackageRequest { name })
                                .await?
                                .into_inner();
                            Ok(((), p.encoded_len()))
                        }
                    })
                    .await;
                }
            }
            Ok(((), bytes))
        })
        .await;
    }

    /// One point query, on a random target.
    async fn point(&mut self) {
        let t = self.targets.clone();
        let kind = self.rng.below(4);
        let r = self.registry.clone();
        match kind {
            1 if !t.heads.is_empty() => {
                let req = t.heads[self.rng.below(t.heads.len())].clone();
                self.call("GetBundleForChannel", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_bundle_for_channel(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
            2 if !t.replaces.is_empty() => {
                let req = t.replaces[self.rng.below(t.replaces.len())].clone();
                self.call("GetBundleThatReplaces", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_bundle_that_replaces(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
            3 if !t.provides.is_empty() => {
                let req = t.provides[self.rng.below(t.provides.len())].clone();
                self.call("GetDefaultBundleThatProvides", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_default_bundle_that_provides(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
            _ => {
                let req = t.bundles[self.rng.below(t.bundles.len())].clone();
                self.call("GetBundle", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_bundle(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
        }
    }

    /// Where the connection just opened landed.
    async fn whoami(&self) {
        let Some(name) = self.marker.clone() else {
            return;
        };
        if !self.me.fresh.swap(false, Ordering::Relaxed) {
            return;
        }
        let answer = self
            .call("GetPackage(marker)", || {
                let (mut r, name) = (self.registry.clone(), name.clone());
                async move {
                    let p = r
                        .get_package(api::GetPackageRequest { name })
                        .await?
                        .into_inner();
                    let size = p.encoded_len();
                    Ok((p.default_channel_name, size))
                }
            })
            .await;
        if let Some(replica) = answer {
            self.run.landed(self.index, &replica);
        }
    }

    async fn run(mut self, resync: Duration, think: Duration, mut stop: watch::Receiver<bool>) {
        let mut next_sync = Instant::now();
        loop {
            if *stop.borrow() {
                break;
            }
            self.whoami().await;
            let now = Instant::now();
            if now >= next_sync {
                self.sync().await;
                next_sync = Instant::now() + self.rng.jitter(resync);
                continue;
            }
            let pause = self.rng.exp(think).min(next_sync - now);
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                _ = stop.changed() => break,
            }
            if Instant::now() >= next_sync {
                continue;
            }
            self.point().await;
        }
    }
}

// ---------------------------------------------------------------------------
// The run.

fn endpoint(args: &Args) -> Result<Endpoint, String> {
    let scheme = if args.tls_ca.is_some() {
        "https"
    } else {
        "http"
    };
    let mut ep = Endpoint::from_shared(format!("{scheme}://{}", args.addr))
        .map_err(|e| format!("bad address {}: {e}", args.addr))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5));
    if let Some(ca) = &args.tls_ca {
        let pem = std::fs::read(ca).map_err(|e| format!("--tls-ca {}: {e}", ca.display()))?;
        let tls = ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(pem))
            .domain_name(args.tls_domain.clone());
        ep = ep.tls_config(tls).map_err(|e| format!("TLS: {e}"))?;
    }
    Ok(ep)
}

/// Standard input's commands, read on a thread of their own.
fn control(run: Arc<Run>, stop: watch::Sender<bool>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let line = line.trim();
            let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
            match cmd {
                "phase" if !rest.trim().is_empty() => run.start_phase(rest.trim()),
                "event" => run.event(rest.trim()),
                "stop" => break,
                "" => {}
                _ => eprintln!("olm_load: unknown command {line:?} (phase NAME, event TEXT, stop)"),
            }
        }
        let _ = stop.send(true);
    });
}

async fn run(args: Args) -> Result<Value, String> {
    let ep = endpoint(&args)?;
    let channel = ep
        .connect()
        .await
        .map_err(|e| format!("cannot connect to {}: {e}", args.addr))?;
    let mut probe = RegistryClient::new(channel).max_decoding_message_size(MAX_DECODING);
    let t = Instant::now();
    let targets = tokio::time::timeout(
        DISCOVERY_TIMEOUT,
        discover(&mut probe, args.marker_package.as_deref()),
    )
    .await
    .map_err(|_| format!("discovery took longer than {DISCOVERY_TIMEOUT:?}"))??;
    drop(probe);
    eprintln!(
        "olm_load: {} in {:.2?}: {} packages, {} bundles, {} channels, {} replaced ({} without answer, left out), {} provided GVKs ({} without a default provider, left out)",
        args.addr,
        t.elapsed(),
        targets.packages,
        targets.bundles.len(),
        targets.heads.len(),
        targets.replaces.len(),
        targets.dropped_replaces,
        targets.provides.len(),
        targets.dropped_provides
    );
    let targets = Arc::new(targets);
    let run = Arc::new(Run {
        t0: Instant::now(),
        record: Mutex::new(Record {
            phases: Vec::new(),
            second: Hist::new(),
            second_failed: 0,
            timeline: Vec::new(),
            events: Vec::new(),
            replicas: Vec::new(),
        }),
        on: (0..args.clients).map(|_| AtomicUsize::new(0)).collect(),
        started: AtomicU64::new(0),
    });
    run.start_phase(&args.phase);
    let (stop_tx, stop_rx) = watch::channel(false);
    match args.duration {
        Some(d) => {
            let stop = stop_tx;
            tokio::spawn(async move {
                tokio::time::sleep(d).await;
                let _ = stop.send(true);
            });
        }
        None => control(run.clone(), stop_tx),
    }

    // The ticker: one timeline entry a second, a progress line now and then.
    let ticker = {
        let run = run.clone();
        let every = args.progress.as_secs().max(1);
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(Duration::from_secs(1));
            interval.tick().await;
            let (mut calls, mut failed, mut n) = (0u64, 0u64, 0u64);
            loop {
                interval.tick().await;
                let e = run.tick();
                calls += e["calls"].as_u64().unwrap_or(0);
                failed += e["failed"].as_u64().unwrap_or(0);
                n += 1;
                if n % every == 0 {
                    eprintln!(
                        "olm_load: t={}s {} clients {} calls/s {} failed p99 {} us, on {}",
                        e["t"],
                        e["clients"],
                        calls / every,
                        failed,
                        e["p99_us"],
                        e["by_replica"]
                    );
                    calls = 0;
                    failed = 0;
                }
            }
        })
    };

    // The clients, started evenly over the ramp.
    let mut tasks = tokio::task::JoinSet::new();
    let step = args.ramp / args.clients.max(1);
    let start = Instant::now();
    for i in 0..args.clients as usize {
        if *stop_rx.borrow() {
            break;
        }
        tokio::time::sleep_until(start + step * i as u32).await;
        let me = Arc::new(ClientState {
            fresh: AtomicBool::new(false),
        });
        let dial = Dial {
            addr: args.addr,
            run: run.clone(),
            me: me.clone(),
        };
        let channel = ep.connect_with_connector_lazy(dial);
        let client = Client {
            index: i,
            run: run.clone(),
            targets: targets.clone(),
            me,
            registry: RegistryClient::new(channel).max_decoding_message_size(MAX_DECODING),
            rng: Rng(args.seed.wrapping_mul(0x1000_0000_01B3) ^ (i as u64 + 1)),
            timeout: args.timeout,
            marker: args.marker_package.clone(),
            transparent_retry: !args.no_transparent_retry,
        };
        tasks.spawn(client.run(args.resync, args.think, stop_rx.clone()));
        run.started.fetch_add(1, Ordering::Relaxed);
    }
    let mut stop = stop_rx.clone();
    while !*stop.borrow() {
        if stop.changed().await.is_err() {
            break;
        }
    }
    run.event("stop");
    eprintln!("olm_load: stopping; waiting for calls in flight");
    let drained = tokio::time::timeout(args.timeout + Duration::from_secs(5), async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        eprintln!("olm_load: some clients did not finish within the timeout");
    }
    ticker.abort();
    run.tick();
    Ok(report(&args, &run, &targets))
}

fn report(args: &Args, run: &Run, targets: &Targets) -> Value {
    let now = run.now();
    let mut r = run.lock();
    if let Some(p) = r.phases.last_mut() {
        p.end.get_or_insert(now);
    }
    let phases: Vec<Value> = r.phases.iter().map(|p| p.json(now)).collect();
    let mut by_code: BTreeMap<String, u64> = BTreeMap::new();
    let (mut calls, mut failed, mut connects, mut retried) = (0, 0, 0, 0);
    for p in &r.phases {
        calls += p.all.total;
        failed += p.failed();
        connects += p.connects;
        retried += p.retried.values().map(|f| f.count).sum::<u64>();
        for ((_, code), f) in &p.failures {
            *by_code.entry((*code).to_owned()).or_default() += f.count;
        }
    }
    let replicas = r.replicas.clone();
    let timeline = std::mem::take(&mut r.timeline);
    let events = std::mem::take(&mut r.events);
    drop(r);
    json!({
        "tool": "olm_load",
        "config": {
            "addr": args.addr.to_string(),
            "clients": args.clients,
            "tls": args.tls_ca.is_some(),
            "ramp_s": args.ramp.as_secs_f64(),
            "think_s": args.think.as_secs_f64(),
            "resync_s": args.resync.as_secs_f64(),
            "timeout_s": args.timeout.as_secs_f64(),
            "marker_package": args.marker_package,
            "seed": args.seed,
            "transparent_retry": !args.no_transparent_retry,
        },
        "targets": {
            "packages": targets.packages,
            "bundles": targets.bundles.len(),
            "channels": targets.heads.len(),
            "replaces": targets.replaces.len(),
            "replaces_left_out": targets.dropped_replaces,
            "provides": targets.provides.len(),
            "provides_left_out": targets.dropped_provides,
        },
        "totals": {
            "calls": calls,
            "failed": failed,
            "failed_by_code": by_code,
            "transparent_retries": retried,
            "connects": connects,
            "duration_s": round3(now),
        },
        "phases": phases,
        "clients_by_replica_at_end": run.spread(&replicas),
        "events": events,
        "timeline": timeline,
    })
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    let output = args.output.clone();
    match run(args).await {
        Ok(report) => {
            let text = format!("{report:#}\n");
            let written = match &output {
                Some(path) => std::fs::write(path, text)
                    .map_err(|e| format!("cannot write {}: {e}", path.display())),
                None => {
                    print!("{text}");
                    Ok(())
                }
            };
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("olm_load: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(e) => {
            eprintln!("olm_load: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_are_close() {
        let mut h = Hist::new();
        for v in 1..=10_000u64 {
            h.record(v);
        }
        for (q, want) in [(0.5, 5_000.0), (0.99, 9_900.0), (0.999, 9_990.0)] {
            let got = h.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.02, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(1.0), 10_000);
        assert_eq!(Hist::new().quantile(0.5), 0);
    }

    #[test]
    fn histogram_buckets_are_contiguous() {
        let mut last = 0;
        for v in [0u64, 1, 63, 64, 65, 127, 128, 1 << 20, u64::MAX] {
            let i = Hist::index(v);
            assert!(i >= last && i < BUCKETS, "{v} -> {i}");
            last = i;
        }
    }

    #[test]
    fn only_loopback() {
        assert!(parse_loopback("127.0.0.1:1").is_ok());
        assert!(parse_loopback("[::1]:1").is_ok());
        assert!(parse_loopback("localhost:50051").is_ok());
        assert!(parse_loopback("10.0.0.1:1").is_err());
        assert!(parse_loopback("0.0.0.0:1").is_err());
    }

    #[test]
    fn random_draws_stay_in_range() {
        let mut rng = Rng(7);
        for _ in 0..1000 {
            assert!(rng.below(3) < 3);
            let j = rng.jitter(Duration::from_secs(10));
            assert!(j >= Duration::from_secs(8) && j <= Duration::from_secs(12));
            assert!(rng.exp(Duration::from_millis(10)) <= Duration::from_millis(200));
        }
    }
}
