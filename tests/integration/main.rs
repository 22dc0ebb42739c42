//! Integration tests: the real server on a loopback port, a generated client.
//!
//! One binary, one module per concern:
//! - `conformance`: the reference project's own expectations (operator-registry's serve, cache and registry tests);
//! - `catalogs`: several catalogs in one process, each failing and reloading on its own, the
//!   config file watched;
//! - `reload`: hot reload from file changes, keep-last-good, consistency under reloads;
//! - `server`: health, reflection, status codes, request limits, startup rules;
//! - `hostile_catalogs`: each hostile catalog file refused while the last good
//!   catalog serves; the cache rewritten by a reload;
//! - `graph`: `fbc.v1.Graph` and the graph CLI commands, offline and against the server;
//! - `cli`: the real binary: errors printed once, `--debug`, JSON diagnostics;
//! - `http`: catalogd's HTTP API: catalogd's own pinned cases, validators,
//!   ranges, gzip, HEAD, and a reload switching HTTP with gRPC;
//! - `browser_http`: the catalog browser's pages and assets over HTTP;
//! - `http_limits`: the HTTP server against hostile clients;
//! - `metrics`: `/metrics` of the real binary, parsed as Prometheus does, moving with
//!   calls, answers and reloads;
//! - `opm`: the binary as `/bin/opm` with OLM's pod command lines, and the cache directories
//!   that crash-loop `opm serve` (stale, opm's own, unwritable to a random UID) serving;
//! - `probe`: `fbc-registry probe` / `grpc_health_probe`'s exit codes against live, stopped,
//!   NOT_SERVING and health-less servers;
//! - `tls`: TLS and mutual TLS on both listeners, rotation, bad pairs, the probe over TLS;
//! - `hostile_clients`: unread streams, idle and silent connections, huge requests,
//!   shutdown with a stalled stream, the fd limit.
#![allow(
    unsafe_code,
    reason = "signals to the servers the tests start (libc::kill)"
)]

mod browser_http;
mod catalogs;
mod cli;
mod cluster_upgrade_cli;
mod conformance;
mod diff_cli;
mod explain_upgrade_cli;
mod filter_cli;
mod filter_differential;
mod graph;
mod graphql;
mod harness;
mod hostile_catalogs;
mod hostile_clients;
mod http;
mod http_client;
mod http_limits;
mod images;
mod metrics;
mod opm;
mod probe;
mod reload;
mod resolve_cli;
mod serve_filter;
mod server;
mod targets_cli;
mod tls;
