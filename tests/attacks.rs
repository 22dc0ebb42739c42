//! The named attacks on a real server (the binary as a child process), on its gRPC
//! listener (HTTP/2) and its HTTP listener (HTTP/1.1), each in plain text and over
//! TLS: rapid reset, CONTINUATION flood, HPACK bomb, SETTINGS and PING floods, zero
//! window and window-update abuse, streams opened and never read, oversized and
//! endless headers, slowloris and slow POST, TLS handshake floods. Each must end
//! with the attacker's connection closed with the right GOAWAY or status, the
//! server's memory and CPU bounded, and a well-behaved client on another connection
//! answered within 1 s all along (`probe`).
//!
//! One test at a time (the budgets are CPU time and latency on a 2-core machine, so
//! the attacks must not share it with each other). docs/security.md lists them.

#[path = "integration/harness/catalogs.rs"]
mod catalogs;
#[path = "attacks/frames.rs"]
mod frames;
#[path = "attacks/h2.rs"]
mod h2;
#[path = "attacks/http1.rs"]
mod http1;
#[path = "attacks/probe.rs"]
mod probe;
#[path = "integration/harness/process.rs"]
#[allow(dead_code)]
mod process;
#[path = "attacks/suite.rs"]
mod suite;
#[path = "attacks/target.rs"]
mod target;
#[path = "attacks/tls.rs"]
mod tls;

fn main() {
    let mut args = libtest_mimic::Arguments::from_args();
    args.test_threads = Some(1);
    libtest_mimic::run(&args, suite::trials()).exit();
}
