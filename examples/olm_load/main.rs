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
//!    (log-linear histogram, ≤ 0.4 % error), connections opened and where they landed;
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
//!
//! | module | what |
//! |---|---|
//! | `args` | the command line |
//! | `targets` | discovery: the point queries' targets, from the server |
//! | `client` | one client: its connection, syncs and point queries |
//! | `status` | a failed call's code, whether it may be sent again, its message |
//! | `record` | what the run records, per phase and per second, as JSON |
//! | `rng` | the clients' random choices |
//! | `histogram`, `loopback` | shared with `examples/load` |

mod args;
mod client;
// Shared with `load`, which also merges histograms across its workers.
#[allow(dead_code)]
#[path = "../load/histogram.rs"]
mod histogram;
#[path = "../load/loopback.rs"]
mod loopback;
mod record;
mod rng;
mod status;
mod targets;

use crate::args::Args;
use crate::client::{Client, ClientState, Dial};
use crate::histogram::Histogram;
use crate::record::{Record, Run, round3};
use crate::rng::Rng;
#[cfg(test)]
use crate::rng::Timing as _;
use crate::targets::{Targets, discover};
use clap::Parser;
use fbc_registry::api::registry_client::RegistryClient;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

/// Largest reply a client accepts.
pub(crate) const MAX_DECODING: usize = 64 * 1024 * 1024;
/// Discovery must be done within this.
pub(crate) const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(300);
/// Distinct sample messages kept per (RPC, code).
pub(crate) const SAMPLES: usize = 5;

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
            second: Histogram::new(),
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
            rng: Rng::mix(&[args.seed, i as u64]),
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
    fn random_draws_stay_in_range() {
        let mut rng = Rng::mix(&[7]);
        for _ in 0..1000 {
            assert!(rng.below(3) < 3);
            let j = rng.jitter(Duration::from_secs(10));
            assert!(j >= Duration::from_secs(8) && j <= Duration::from_secs(12));
            assert!(rng.exp(Duration::from_millis(10)) <= Duration::from_millis(200));
        }
    }
}
