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
//!        ▼ index (the api.Registry view: every reply pre-encoded)
//!   snapshot (arc-swap) ──▶ service ──▶ server ◀── app ◀── cli
//!        ▲
//!   cache, reload
//! ```
//!
//! | module | in → out |
//! |---|---|
//! | [`index`] | model → immutable tables with pre-encoded replies |
//! | [`browser`] | tables → the catalog browser's pages (search, package, SVG graph) |
//! | [`http_view`] | a snapshot's metas → catalogd's bytes (JSON Lines, gzip, validators), prepared once |
//! | [`catalog`] | directory → index, in one call with a report |
//! | [`cache`] | directory + cache dir → index, warm from disk when the digest matches |
//! | [`snapshot`] | index → the published, atomically swapped catalog |
//! | [`service`] | snapshot + requests → replies (`api.Registry` from the index, `fbc.v1.Graph` from the tables) |
//! | [`deadline`] | watchdogs for loads on file systems that may hang |
//! | [`metrics`] | events from every layer + scrape-time state → Prometheus text |
//! | [`tls`] | certificate files → TLS acceptors for the listeners, reloaded when the files change |
//! | [`reload`] | file changes, SIGHUP → new snapshots, or the last good one kept |
//! | [`server`] | config + catalog → listening gRPC server |
//! | [`http`] | config + catalog → listening HTTP server (catalogd's API) |
//! | [`app`] | a `ServeConfig` → a running server (bound address, reload, shutdown) |
//! | [`cli`] | command line → `ServeConfig` → the app; the graph commands, offline on tables or through a `fbc.v1.Graph` client |
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
pub mod browser;
pub mod cache;
pub mod catalog;
pub mod cli;
pub mod deadline;
pub mod graphql;
pub mod http;
pub mod http_view;
pub mod index;
pub mod metrics;
pub mod reload;
pub mod server;
pub mod service;
pub mod snapshot;
pub mod tls;
