//! The command line.

use crate::loopback::parse_loopback;
use clap::Parser;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// OLM v0 catalog clients against api.Registry over loopback: one connection each,
/// ListBundles syncs, point queries between.
#[derive(Debug, Parser)]
#[command(about)]
pub(crate) struct Args {
    /// Server (or balancer) address, IP:port; loopback only (127.0.0.0/8, ::1, localhost).
    #[arg(long, default_value = "127.0.0.1:50051", value_parser = parse_loopback)]
    pub(crate) addr: SocketAddr,
    /// Clients, each with its own connection.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=20_000))]
    pub(crate) clients: u32,
    /// The clients start evenly spread over this time.
    #[arg(long, default_value = "20s", value_parser = humantime::parse_duration)]
    pub(crate) ramp: Duration,
    /// Mean think time before each point query (exponentially distributed).
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
    pub(crate) think: Duration,
    /// Mean time between a client's syncs (each drawn from 0.8–1.2× this).
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    pub(crate) resync: Duration,
    /// Longest a call (a whole sync for ListBundles) may take before it counts as failed.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub(crate) timeout: Duration,
    /// Run this long, then stop; without it, standard input drives the phases.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub(crate) duration: Option<Duration>,
    /// Name of the first phase.
    #[arg(long, default_value = "run")]
    pub(crate) phase: String,
    /// PEM CA bundle: speak TLS to the server and trust these CAs.
    #[arg(long, value_name = "FILE")]
    pub(crate) tls_ca: Option<PathBuf>,
    /// Name the server's certificate must carry (with --tls-ca).
    #[arg(long, default_value = "localhost")]
    pub(crate) tls_domain: String,
    /// A package whose default channel names the replica answering; asked once per new
    /// connection to record where it landed.
    #[arg(long, value_name = "NAME")]
    pub(crate) marker_package: Option<String>,
    /// Interval of the progress lines on standard error.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub(crate) progress: Duration,
    /// Write the JSON report to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Seed of the clients' random choices.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Fail a call that never reached the server (refused after the server's GOAWAY,
    /// or dropped before it was sent) instead of sending it again on a new
    /// connection as grpc-go does (its "transparent retry").
    #[arg(long)]
    pub(crate) no_transparent_retry: bool,
}
