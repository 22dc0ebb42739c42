//! fbc-registry: a fast, hot-reloading server for OLM file-based catalogs,
//! wire-compatible with `opm serve`.
//!
//! ```text
//! catalog dir ──source──▶ blobs ──model──▶ validated model ──index──▶ Index
//!                                                                       │
//!   gRPC api.Registry, api.ExperimentalRegistry ◀──service◀── snapshot ◀┘
//!   grpc.health.v1, reflection                    (Catalog / Publisher, arc-swap)
//! ```
//!
//! | module | in → out |
//! |---|---|
//! | [`source`] | directory → blobs with their file, document and line |
//! | [`parallel`] | items → results in order, on every core |
//! | [`arena`] | large kept byte strings → dense shared blocks |
//! | [`model`] | blobs → validated packages, channels, bundles, or every diagnostic |
//! | [`version_range`] | range strings → matchers (blang for skipRange) |
//! | [`index`] | model → immutable tables with pre-encoded replies |
//! | [`catalog`] | directory → index, in one call with a report |
//! | [`cache`] | directory + cache dir → index, warm from disk when the digest matches |
//! | [`snapshot`] | index → the published, atomically swapped catalog |
//! | [`service`] | snapshot + requests → replies |
//! | [`reload`] | file changes, SIGHUP → new snapshots, or the last good one kept |
//! | [`server`] | config + catalog → listening gRPC server |
//! | [`cli`] | command line → the above |
//!
//! `model` and `index` do no I/O and know nothing of tokio or tonic's transport.
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

/// Generated protobuf messages and clients of package `api`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod api {
    include!(concat!(env!("OUT_DIR"), "/api.rs"));
}

/// Encoded descriptor set of `registry.proto` (with `google/protobuf/struct.proto`), for reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/registry_descriptor.bin"));

pub mod arena;
pub mod cache;
pub mod catalog;
pub mod cli;
pub mod deadline;
pub mod diagnostic;
pub mod index;
pub mod model;
pub mod parallel;
pub mod reload;
pub mod server;
pub mod service;
pub mod snapshot;
pub mod source;
pub mod version_range;
