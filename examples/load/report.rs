//! The report: one [`Row`] per RPC, printed as a table or as one JSON object
//! per line.

use crate::args::{Args, Rpc};
use crate::phase::Stats;

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

pub(crate) struct Row {
    pub(crate) rpc: Rpc,
    pub(crate) targets: usize,
    pub(crate) st: Stats,
    pub(crate) secs: f64,
}

impl Row {
    fn rate(&self, x: u64) -> f64 {
        if self.secs > 0.0 {
            x as f64 / self.secs
        } else {
            0.0
        }
    }

    pub(crate) fn json(&self, args: &Args) -> serde_json::Value {
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
            "mean_us": us(h.mean()),
            "p50_us": us(h.quantile(0.50)),
            "p99_us": us(h.quantile(0.99)),
            "p999_us": us(h.quantile(0.999)),
            "max_us": us(h.max),
            "first_error": self.st.first_error,
        })
    }
}

pub(crate) fn print_table(rows: &[Row]) {
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
