//! fbc-registry: a fast, hot-reloading server for OLM file-based catalogs,
//! wire-compatible with `opm serve`.
//!
//! The catalog core (loading, validation, the model, version ranges) is the
//! network-free library crate [`fbc_catalog`]; this crate builds the protocol views
//! on it and serves them.
//!
//! ```text
//! fbc_catalog: directory → validated model → tables (graph indexes per package)
//!        │
//!        ▼
//!   views (api.Registry replies, catalogd bytes, GraphQL, browser pages)
//!        │
//!        ▼
//!   snapshot (load, cache, publish atomically, reload) ─▶ grpc, http ─▶ app ─▶ cli
//!                                          metrics ◀── every layer   ▲
//!                                    transport (listeners, budgets, TLS)
//! ```
//!
//! `ls src` is the pipeline, lowest layer first; each module imports only those
//! above it in this table (`tests/architecture.rs` holds it so):
//!
//! | module | in → out |
//! |---|---|
//! | [`metrics`] | events from every layer + scrape-time state → Prometheus text |
//! | [`views`] | the model and tables → every protocol's view, built once per snapshot, no runtime |
//! | [`snapshot`] | a directory → the published, atomically swapped catalog, kept fresh by reloads |
//! | [`fleet`] | the catalogs one process serves, by name; the `--config` file's catalogs |
//! | [`transport`] | ports and accepted streams → tracked connections, budgets, TLS |
//! | [`grpc`] | a snapshot + gRPC calls → `api.Registry`, `fbc.v1.Graph`, health, reflection |
//! | [`http`] | a snapshot + HTTP requests → catalogd's API, GraphQL, the browser, metrics |
//! | [`app`] | a `ServeConfig` → a running server (bound addresses, reload, shutdown) |
//! | [`cli`] | command line → `ServeConfig` → the app; the graph commands, offline on tables or through a `fbc.v1.Graph` client |
// Module docs name their crate-private parts: the crate is read as a map of the server, and
// `cargo doc --document-private-items` renders those links.
#![allow(rustdoc::private_intra_doc_links)]
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

/// Generated protobuf messages and clients of package `api`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod api {
    include!(concat!(env!("OUT_DIR"), "/api.rs"));
}

/// Generated protobuf messages, client and server of package `fbc.v1`
/// (`proto/fbc/v1/graph.proto`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod fbc_v1 {
    include!(concat!(env!("OUT_DIR"), "/fbc.v1.rs"));
}

/// Encoded descriptor set of `registry.proto` and `fbc/v1/graph.proto` (with the
/// well-known types they import), for reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/registry_descriptor.bin"));

pub mod app;
pub mod cli;
pub mod fleet;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod grpc;
pub mod http;
pub mod metrics;
pub mod snapshot;
pub mod transport;
pub mod views;
