//! Integration tests: the real server on a loopback port, a generated client.
//!
//! One binary, one module per concern:
//! - `conformance`: the reference project's own expectations (spec §7.1–§7.5);
//! - `reload`: hot reload from file changes, keep-last-good, consistency under reloads;
//! - `server`: health, reflection, status codes, request limits, startup rules.

mod cli;
mod conformance;
mod harness;
mod hostile_catalogs;
mod reload;
mod server;
