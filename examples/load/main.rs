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
//!
//! Modules: [`args`] (the command line), [`targets`] (discovery), [`calls`] (one
//! call), [`phase`] (workers and their stats), [`histogram`] (latencies),
//! [`report`] (table or JSON), [`loopback`] (the address check); `histogram` and
//! `loopback` are shared with `olm_load`.

mod args;
mod calls;
mod histogram;
mod loopback;
mod phase;
mod report;
mod targets;

use args::Args;
use clap::Parser;
use fbc_registry::api::registry_client::RegistryClient;
use phase::run_phase;
use report::{Row, print_table};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use targets::discover;
use tokio::time::Instant;
use tonic::transport::Endpoint;

/// Largest reply a client accepts.
pub(crate) const MAX_DECODING: usize = 64 * 1024 * 1024;
/// Discovery must be done within this.
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(300);

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
