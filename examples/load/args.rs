//! The command line: [`Args`], the [`Rpc`]s it can drive, and the duration parser
//! (addresses are checked by [`crate::loopback`]).

use crate::loopback::parse_loopback;
use clap::{Parser, ValueEnum};
use std::net::SocketAddr;
use std::time::Duration;

/// Longest accepted `--duration` or `--warmup`.
const MAX_PHASE: Duration = Duration::from_secs(3600);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Rpc {
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
    pub(crate) fn name(self) -> &'static str {
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
pub(crate) struct Args {
    /// Server address, IP:port; loopback only (127.0.0.0/8, ::1, or localhost).
    #[arg(long, default_value = "127.0.0.1:50051", value_parser = parse_loopback)]
    pub(crate) addr: SocketAddr,
    /// HTTP/2 connections (tonic channels).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub(crate) connections: u64,
    /// Concurrent calling tasks, spread over the connections.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub(crate) concurrency: u64,
    /// Measured time per RPC (e.g. 10s, 500ms, 1m).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub(crate) duration: Duration,
    /// Unmeasured time before each RPC's measurement.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub(crate) warmup: Duration,
    /// RPC to drive; repeat for several, run one after the other.
    #[arg(long = "rpc", required = true, ignore_case = true)]
    pub(crate) rpcs: Vec<Rpc>,
    /// Longest a single call may take before it counts as an error.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub(crate) timeout: Duration,
    /// At most this many calls per RPC (warm-up included).
    #[arg(long)]
    pub(crate) max_calls: Option<u64>,
    /// Print one JSON object per RPC on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
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

#[cfg(test)]
mod tests {
    use super::*;

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
