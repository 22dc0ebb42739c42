//! Load generator for `api.Registry` (ours, `opm serve`, or `examples/baseline-server.rs`).
//!
//! ```text
//! cargo run --release --example load -- --addr 127.0.0.1:50051 \
//!     --connections 4 --concurrency 64 --duration 10s --warmup 2s \
//!     --rpc GetBundle --rpc GetPackage [--json]
//! ```
//!
//! 1. Discovery, from the server itself: ListPackages, GetPackage of each package
//!    (channel heads), and one ListBundles for the (package, channel, bundle,
//!    replaces) tuples and the provided GVKs. The targets per RPC are:
//!    - GetPackage: every package, in ListPackages order;
//!    - GetBundleForChannel: every (package, channel), in GetPackage order;
//!    - GetBundle: every ListBundles message (package, channel, csvName);
//!    - GetBundleThatReplaces: every ListBundles message with a `replaces`,
//!      asking for (replaces, package, channel);
//!    - GetChannelEntriesThatProvide: every distinct provided (group, version, kind),
//!      sorted;
//!    - ListBundles: the one request.
//!
//!    `examples/baseline-server.rs` derives the same lists in the same order.
//! 2. One phase per `--rpc`, in the order given: `--concurrency` tasks spread over
//!    `--connections` HTTP/2 connections (one tonic `Channel` each) issue calls
//!    back to back, each cycling through the targets from its own offset, for
//!    `--warmup` then `--duration`. A streaming call is the whole stream drained.
//!    Calls in flight when the time is up are cancelled and not counted; calls
//!    completing during the warm-up are not counted either. Each call is also
//!    bounded by `--timeout` (then counted as an error), and `--max-calls` caps the
//!    number of calls of a phase.
//! 3. Per RPC: calls, errors, calls/s, MB/s (10^6 bytes of reply payload per
//!    second, the sum of `encoded_len()` of the messages received), and latency
//!    p50/p99/p99.9/max from a log-linear histogram (< 0.4 % error).
//!
//! Only loopback addresses are accepted: 127.0.0.0/8 and ::1.

use clap::{Parser, ValueEnum};
use fbc_registry::api;
use fbc_registry::api::registry_client::RegistryClient;
use prost::Message;
use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tonic::transport::{Channel, Endpoint};

/// Largest reply a client accepts.
const MAX_DECODING: usize = 64 * 1024 * 1024;
/// Discovery must be done within this.
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest accepted `--duration` or `--warmup`.
const MAX_PHASE: Duration = Duration::from_secs(3600);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Rpc {
    #[value(name = "GetBundle")]
    GetBundle,
    #[value(name = "GetPackage")]
    GetPackage,
    #[value(name = "GetBundleThatReplaces")]
    GetBundleThatReplaces,
    #[value(name = "GetChannelEntriesThatProvide")]
    GetChannelEntriesThatProvide,
    #[value(name = "GetBundleForChannel")]
    GetBundleForChannel,
    #[value(name = "ListBundles")]
    ListBundles,
}

impl Rpc {
    fn name(self) -> &'static str {
        match self {
            Rpc::GetBundle => "GetBundle",
            Rpc::GetPackage => "GetPackage",
            Rpc::GetBundleThatReplaces => "GetBundleThatReplaces",
            Rpc::GetChannelEntriesThatProvide => "GetChannelEntriesThatProvide",
            Rpc::GetBundleForChannel => "GetBundleForChannel",
            Rpc::ListBundles => "ListBundles",
        }
    }
}

/// Load generator for api.Registry over loopback.
#[derive(Debug, Parser)]
#[command(about)]
struct Args {
    /// Server address, IP:port; loopback only (127.0.0.0/8, ::1, or localhost).
    #[arg(long, default_value = "127.0.0.1:50051", value_parser = parse_loopback)]
    addr: SocketAddr,
    /// HTTP/2 connections (tonic channels).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=1024))]
    connections: u64,
    /// Concurrent calling tasks, spread over the connections.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    concurrency: u64,
    /// Measured time per RPC (e.g. 10s, 500ms, 1m).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    duration: Duration,
    /// Unmeasured time before each RPC's measurement.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    warmup: Duration,
    /// RPC to drive; repeat for several, run one after the other.
    #[arg(long = "rpc", required = true, ignore_case = true)]
    rpcs: Vec<Rpc>,
    /// Longest a single call may take before it counts as an error.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    timeout: Duration,
    /// At most this many calls per RPC (warm-up included).
    #[arg(long)]
    max_calls: Option<u64>,
    /// Print one JSON object per RPC on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

fn parse_loopback(s: &str) -> Result<SocketAddr, String> {
    let addr = match s.strip_prefix("localhost:") {
        Some(port) => {
            let port: u16 = port.parse().map_err(|_| format!("bad port in {s:?}"))?;
            SocketAddr::from((Ipv4Addr::LOCALHOST, port))
        }
        None => s
            .parse::<SocketAddr>()
            .map_err(|_| format!("{s:?} is not IP:port (e.g. 127.0.0.1:50051 or [::1]:50051)"))?,
    };
    let loopback = match addr.ip() {
        IpAddr::V4(ip) => ip.octets()[0] == 127,
        IpAddr::V6(ip) => ip == Ipv6Addr::LOCALHOST,
    };
    if loopback {
        Ok(addr)
    } else {
        Err(format!(
            "refusing {addr}: only loopback addresses (127.0.0.0/8, ::1) may be load-tested"
        ))
    }
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (number, unit) = match s.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (e.g. 10s, 500ms, 1m)"))?;
    let seconds = match unit {
        "ms" => value / 1e3,
        "s" => value,
        "m" => value * 60.0,
        _ => return Err(format!("{s:?}: unit must be ms, s or m")),
    };
    let d = Duration::try_from_secs_f64(seconds).map_err(|e| format!("{s:?}: {e}"))?;
    if d > MAX_PHASE {
        return Err(format!("{s:?} is longer than {}s", MAX_PHASE.as_secs()));
    }
    Ok(d)
}

// ---------------------------------------------------------------------------
// Histogram

/// Log-linear histogram of u64 values (nanoseconds): values below 2^(SUB_BITS+1)
/// are exact; above, each power of two is cut into 2^SUB_BITS equal buckets, so a
/// bucket's midpoint is within 1/2^(SUB_BITS+1) (0.4 %) of any value in it.
struct Histogram {
    counts: Vec<u64>,
    total: u64,
    min: u64,
    max: u64,
}

const SUB_BITS: u32 = 7;
const SUB: usize = 1 << SUB_BITS;
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB;

impl Histogram {
    fn new() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            total: 0,
            min: u64::MAX,
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

    /// Lowest and highest value of bucket `i`.
    fn bounds(i: usize) -> (u64, u64) {
        if i < SUB {
            return (i as u64, i as u64);
        }
        let shift = (i >> SUB_BITS) - 1;
        let top = ((i & (SUB - 1)) | SUB) as u64;
        let lo = top << shift;
        (lo, lo + ((1u64 << shift) - 1))
    }

    fn record(&mut self, v: u64) {
        self.counts[Self::index(v)] += 1;
        self.total += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The value at quantile `q` (0..=1): the midpoint of its bucket, within [min,
    /// max]; the maximum itself for the last rank.
    fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        if rank == self.total {
            return self.max;
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = Self::bounds(i);
                return (lo + (hi - lo) / 2).clamp(self.min, self.max);
            }
        }
        self.max
    }
}

// ---------------------------------------------------------------------------
// Targets

#[derive(Default)]
struct Targets {
    packages: Vec<api::GetPackageRequest>,
    heads: Vec<api::GetBundleInChannelRequest>,
    bundles: Vec<api::GetBundleRequest>,
    replaces: Vec<api::GetReplacementRequest>,
    provides: Vec<api::GetAllProvidersRequest>,
}

impl Targets {
    fn count(&self, rpc: Rpc) -> usize {
        match rpc {
            Rpc::GetPackage => self.packages.len(),
            Rpc::GetBundleForChannel => self.heads.len(),
            Rpc::GetBundle => self.bundles.len(),
            Rpc::GetBundleThatReplaces => self.replaces.len(),
            Rpc::GetChannelEntriesThatProvide => self.provides.len(),
            Rpc::ListBundles => 1,
        }
    }
}

async fn discover(client: &mut RegistryClient<Channel>) -> Result<Targets, String> {
    let mut t = Targets::default();
    let mut names = client
        .list_packages(api::ListPackageRequest {})
        .await
        .map_err(|s| format!("ListPackages: {s}"))?
        .into_inner();
    while let Some(p) = names
        .message()
        .await
        .map_err(|s| format!("ListPackages: {s}"))?
    {
        t.packages.push(api::GetPackageRequest { name: p.name });
    }
    for p in &t.packages {
        let package = client
            .get_package(p.clone())
            .await
            .map_err(|s| format!("GetPackage {:?}: {s}", p.name))?
            .into_inner();
        for ch in package.channels {
            t.heads.push(api::GetBundleInChannelRequest {
                pkg_name: p.name.clone(),
                channel_name: ch.name,
            });
        }
    }
    let mut bundles = client
        .list_bundles(api::ListBundlesRequest {})
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
        .into_inner();
    let mut gvks = BTreeSet::new();
    while let Some(b) = bundles
        .message()
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
    {
        if !b.replaces.is_empty() {
            t.replaces.push(api::GetReplacementRequest {
                csv_name: b.replaces,
                pkg_name: b.package_name.clone(),
                channel_name: b.channel_name.clone(),
            });
        }
        for g in b.provided_apis {
            gvks.insert((g.group, g.version, g.kind));
        }
        t.bundles.push(api::GetBundleRequest {
            pkg_name: b.package_name,
            channel_name: b.channel_name,
            csv_name: b.csv_name,
        });
    }
    t.provides = gvks
        .into_iter()
        .map(|(group, version, kind)| api::GetAllProvidersRequest {
            group,
            version,
            kind,
            plural: String::new(),
        })
        .collect();
    Ok(t)
}

// ---------------------------------------------------------------------------
// Calls

/// Payload bytes of a drained stream.
async fn drain<M: Message + Default>(mut s: tonic::Streaming<M>) -> Result<u64, tonic::Status> {
    let mut bytes = 0;
    while let Some(m) = s.message().await? {
        bytes += m.encoded_len() as u64;
    }
    Ok(bytes)
}

fn pick<T: Clone>(v: &[T], i: usize) -> T {
    v[i % v.len()].clone()
}

/// One call of `rpc` on target `i`; returns the reply payload size.
async fn call(
    client: &mut RegistryClient<Channel>,
    rpc: Rpc,
    t: &Targets,
    i: usize,
) -> Result<u64, tonic::Status> {
    Ok(match rpc {
        Rpc::GetPackage => {
            let r = client.get_package(pick(&t.packages, i)).await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetBundleForChannel => {
            let r = client.get_bundle_for_channel(pick(&t.heads, i)).await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetBundle => {
            let r = client.get_bundle(pick(&t.bundles, i)).await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetBundleThatReplaces => {
            let r = client
                .get_bundle_that_replaces(pick(&t.replaces, i))
                .await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetChannelEntriesThatProvide => {
            let r = client
                .get_channel_entries_that_provide(pick(&t.provides, i))
                .await?;
            drain(r.into_inner()).await?
        }
        Rpc::ListBundles => {
            let r = client.list_bundles(api::ListBundlesRequest {}).await?;
            drain(r.into_inner()).await?
        }
    })
}

// ---------------------------------------------------------------------------
// Phases

struct Stats {
    calls: u64,
    errors: u64,
    bytes: u64,
    hist: Histogram,
    first_error: Option<String>,
}

impl Stats {
    fn new() -> Self {
        Stats {
            calls: 0,
            errors: 0,
            bytes: 0,
            hist: Histogram::new(),
            first_error: None,
        }
    }

    fn merge(&mut self, other: Stats) {
        self.calls += other.calls;
        self.errors += other.errors;
        self.bytes += other.bytes;
        self.hist.merge(&other.hist);
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

struct Window {
    measure_start: Instant,
    end: Instant,
    timeout: Duration,
    /// Calls left in the phase, if bounded.
    budget: Option<Arc<AtomicU64>>,
}

async fn worker(
    mut client: RegistryClient<Channel>,
    rpc: Rpc,
    targets: Arc<Targets>,
    mut i: usize,
    w: Arc<Window>,
) -> Stats {
    let mut st = Stats::new();
    loop {
        let started = Instant::now();
        if started >= w.end {
            break;
        }
        if let Some(b) = &w.budget
            && b.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_err()
        {
            break;
        }
        let deadline = (started + w.timeout).min(w.end);
        let result = tokio::time::timeout_at(deadline, call(&mut client, rpc, &targets, i)).await;
        i = i.wrapping_add(1);
        let done = Instant::now();
        let counted = done >= w.measure_start;
        match result {
            Ok(Ok(bytes)) => {
                if counted {
                    st.calls += 1;
                    st.bytes += bytes;
                    st.hist
                        .record(u64::try_from((done - started).as_nanos()).unwrap_or(u64::MAX));
                }
            }
            Ok(Err(status)) => {
                if counted {
                    st.errors += 1;
                }
                st.first_error
                    .get_or_insert_with(|| format!("{:?}: {}", status.code(), status.message()));
            }
            // Out of time: the run is over, the call is dropped uncounted.
            Err(_) if deadline >= w.end => break,
            Err(_) => {
                if counted {
                    st.errors += 1;
                }
                st.first_error
                    .get_or_insert_with(|| format!("timed out after {:?}", w.timeout));
            }
        }
    }
    st
}

async fn run_phase(
    rpc: Rpc,
    channels: &[Channel],
    targets: &Arc<Targets>,
    args: &Args,
) -> (Stats, Duration) {
    let n = targets.count(rpc);
    let concurrency = args.concurrency as usize;
    let start = Instant::now();
    let w = Arc::new(Window {
        measure_start: start + args.warmup,
        end: start + args.warmup + args.duration,
        timeout: args.timeout,
        budget: args.max_calls.map(|m| Arc::new(AtomicU64::new(m))),
    });
    let mut tasks = JoinSet::new();
    for task in 0..concurrency {
        let client = RegistryClient::new(channels[task % channels.len()].clone())
            .max_decoding_message_size(MAX_DECODING);
        let offset = task * n / concurrency;
        tasks.spawn(worker(client, rpc, targets.clone(), offset, w.clone()));
    }
    // Workers stop by themselves at `end`; this only guards against a stuck runtime.
    let hard_stop = w.end + Duration::from_secs(10);
    let mut total = Stats::new();
    loop {
        match tokio::time::timeout_at(hard_stop, tasks.join_next()).await {
            Ok(Some(Ok(st))) => total.merge(st),
            Ok(Some(Err(e))) => eprintln!("load: {}: a worker failed: {e}", rpc.name()),
            Ok(None) => break,
            Err(_) => {
                eprintln!(
                    "load: {}: workers did not stop in time; aborted",
                    rpc.name()
                );
                tasks.abort_all();
                break;
            }
        }
    }
    let measured = Instant::now()
        .min(w.end)
        .saturating_duration_since(w.measure_start);
    (total, measured)
}

// ---------------------------------------------------------------------------
// Report

fn fmt_ns(ns: u64) -> String {
    let ns = ns as f64;
    if ns < 1e3 {
        format!("{ns:.0}ns")
    } else if ns < 1e6 {
        format!("{:.1}µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2}ms", ns / 1e6)
    } else {
        format!("{:.3}s", ns / 1e9)
    }
}

struct Row {
    rpc: Rpc,
    targets: usize,
    st: Stats,
    secs: f64,
}

impl Row {
    fn rate(&self, x: u64) -> f64 {
        if self.secs > 0.0 {
            x as f64 / self.secs
        } else {
            0.0
        }
    }

    fn json(&self, args: &Args) -> serde_json::Value {
        let us = |ns: u64| ns as f64 / 1e3;
        let h = &self.st.hist;
        serde_json::json!({
            "rpc": self.rpc.name(),
            "addr": args.addr.to_string(),
            "connections": args.connections,
            "concurrency": args.concurrency,
            "duration_s": self.secs,
            "targets": self.targets,
            "calls": self.st.calls,
            "errors": self.st.errors,
            "calls_per_s": self.rate(self.st.calls),
            "bytes": self.st.bytes,
            "mb_per_s": self.rate(self.st.bytes) / 1e6,
            "p50_us": us(h.quantile(0.50)),
            "p99_us": us(h.quantile(0.99)),
            "p999_us": us(h.quantile(0.999)),
            "max_us": us(h.max),
            "first_error": self.st.first_error,
        })
    }
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<29} {:>7} {:>9} {:>6} {:>10} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "rpc", "targets", "calls", "errors", "calls/s", "MB/s", "p50", "p99", "p99.9", "max"
    );
    for r in rows {
        let h = &r.st.hist;
        println!(
            "{:<29} {:>7} {:>9} {:>6} {:>10.0} {:>8.1} {:>9} {:>9} {:>9} {:>9}",
            r.rpc.name(),
            r.targets,
            r.st.calls,
            r.st.errors,
            r.rate(r.st.calls),
            r.rate(r.st.bytes) / 1e6,
            fmt_ns(h.quantile(0.50)),
            fmt_ns(h.quantile(0.99)),
            fmt_ns(h.quantile(0.999)),
            fmt_ns(if h.total == 0 { 0 } else { h.max }),
        );
    }
}

// ---------------------------------------------------------------------------

async fn run(args: Args) -> Result<(), String> {
    let endpoint = Endpoint::from_shared(format!("http://{}", args.addr))
        .map_err(|e| format!("bad address {}: {e}", args.addr))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5));
    let mut channels = Vec::new();
    for _ in 0..args.connections {
        channels.push(
            endpoint
                .connect()
                .await
                .map_err(|e| format!("cannot connect to {}: {e}", args.addr))?,
        );
    }
    let mut client =
        RegistryClient::new(channels[0].clone()).max_decoding_message_size(MAX_DECODING);
    let t0 = Instant::now();
    let targets = tokio::time::timeout(DISCOVERY_TIMEOUT, discover(&mut client))
        .await
        .map_err(|_| format!("discovery took longer than {DISCOVERY_TIMEOUT:?}"))??;
    eprintln!(
        "load: {} in {:.2?}: {} packages, {} channels, {} bundle copies, {} with replaces, {} provided GVKs",
        args.addr,
        t0.elapsed(),
        targets.packages.len(),
        targets.heads.len(),
        targets.bundles.len(),
        targets.replaces.len(),
        targets.provides.len()
    );
    eprintln!(
        "load: {} connections, {} concurrent calls, warm-up {:?}, measure {:?} per RPC",
        args.connections, args.concurrency, args.warmup, args.duration
    );
    let targets = Arc::new(targets);
    let mut rows = Vec::new();
    for &rpc in &args.rpcs {
        let n = targets.count(rpc);
        if n == 0 {
            eprintln!("load: {}: no targets discovered; skipped", rpc.name());
            continue;
        }
        let (st, measured) = run_phase(rpc, &channels, &targets, &args).await;
        if let Some(e) = &st.first_error {
            eprintln!("load: {}: first error: {e}", rpc.name());
        }
        let row = Row {
            rpc,
            targets: n,
            st,
            secs: measured.as_secs_f64(),
        };
        if args.json {
            println!("{}", row.json(&args));
        }
        rows.push(row);
    }
    if !args.json {
        print_table(&rows);
    }
    Ok(())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("load: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_contiguous_and_tight() {
        let mut prev_hi = None;
        for i in 0..BUCKETS {
            let (lo, hi) = Histogram::bounds(i);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1, "bucket {i}");
            }
            assert_eq!(Histogram::index(lo), i);
            assert_eq!(Histogram::index(hi), i);
            assert!((hi - lo) as f64 <= lo as f64 / 127.0, "bucket {i}");
            prev_hi = Some(hi);
        }
        assert_eq!(prev_hi, Some(u64::MAX));
    }

    #[test]
    fn quantiles_within_one_percent() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for (q, want) in [
            (0.5, 50_000_000.0),
            (0.99, 99_000_000.0),
            (0.999, 99_900_000.0),
        ] {
            let got = h.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.01, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(1.0), 100_000_000);
    }

    #[test]
    fn only_loopback() {
        assert!(parse_loopback("127.0.0.1:1").is_ok());
        assert!(parse_loopback("127.9.9.9:1").is_ok());
        assert!(parse_loopback("[::1]:1").is_ok());
        assert!(parse_loopback("localhost:50051").is_ok());
        assert!(parse_loopback("10.0.0.1:1").is_err());
        assert!(parse_loopback("[::ffff:127.0.0.1]:1").is_err());
        assert!(parse_loopback("0.0.0.0:1").is_err());
        assert!(parse_loopback("example.com:1").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_duration("10h").is_err());
        assert!(parse_duration("x").is_err());
    }
}
