//! Integration tests: the real server on a loopback port, a generated client.
//!
//! One binary, one module per concern:
//! - `conformance`: the reference project's own expectations (spec §7.1–§7.5);
//! - `shared_catalogs`: every real catalog in `../shared/catalogs` (path from
//!   `FBC_SHARED_CATALOGS`; skipped outside CI when unset, fails in CI);
//! - `reload`: hot reload from file changes, keep-last-good, consistency under reloads;
//! - `server`: health, reflection, status codes, request limits, startup rules;
//! - `hostile_clients`: unread streams, idle and silent connections, huge requests,
//!   shutdown with a stalled stream, the fd limit.

mod conformance;
mod harness;
mod hostile_clients;
mod reload;
mod server;
mod shared_catalogs;
