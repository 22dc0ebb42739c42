//! fbc-catalog: read, validate and query OLM file-based catalogs (FBC).
//!
//! The catalog core of fbc-registry, usable by any Rust program that wants to read
//! a catalog: it has no network dependencies (no tokio, tonic, hyper or prost).
//!
//! ```text
//! catalog dir ──source──▶ blobs ──model──▶ validated model ──tables──▶ Tables
//!                 │                  │
//!            diagnostic ◀────────────┘   (every problem as a typed value)
//! ```
//!
//! | module | in → out |
//! |---|---|
//! | [`parallel`] | items → results in order, on every core |
//! | [`arena`] | large kept byte strings → dense shared blocks |
//! | [`source`] | directory → blobs with their file, document and line; limits; digest |
//! | [`diagnostic`] | loader and model problems → typed values |
//! | [`version_range`] | range strings → matchers (blang for skipRange) |
//! | [`model`] | blobs → validated packages, channels, bundles, or every diagnostic |
//! | [`tables`] | validated model → immutable typed tables (chains, providers, requirements, metas) |
//! | [`graph`] | tables → upgrade answers: v1 successors, upgrade paths, graph exports, lint |
//! | [`resolve`] | tables + a request → OLM v0's dependency resolution, with CEL and explanations |
//! | [`filter`] | tables + a filter configuration → the kept set, why, the filtered metas, checked |
//! | [`cluster`] | cluster state (Subscriptions, CSVs, ClusterExtensions) + tables → what the catalog means for that cluster |
//! | [`render`] | bundle directories and catalog blobs → `opm render`'s FBC stream |
//! | [`template`] | basic and semver templates + rendered bundles → the catalog they describe |
//! | [`load`] | directory → tables, in one call with timings and digest |
//! | [`catalogd`] | names and metas → what catalogd derives from them (name checks, the GraphQL schema) |
//!
//! Layers import one way, top to bottom of this table (`tests/architecture.rs` in the
//! workspace root checks it).
//!
//! # Example
//!
//! ```no_run
//! let loaded = fbc_catalog::load::load_model(
//!     std::path::Path::new("catalogs/example"),
//!     &fbc_catalog::load::LoadOptions::default(),
//! );
//! match loaded {
//!     Ok(loaded) => {
//!         for package in &loaded.model.packages {
//!             println!("{}: default channel {}", package.name, package.default_channel);
//!         }
//!     }
//!     Err(problems) => problems.iter().for_each(|p| eprintln!("{p}")),
//! }
//! ```
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod arena;
pub mod catalogd;
pub mod cluster;
pub mod diagnostic;
pub mod diff;
pub mod filter;
pub mod graph;
pub mod load;
pub mod model;
pub mod parallel;
pub mod render;
pub mod resolve;
pub mod source;
pub mod tables;
pub mod template;
pub mod version_range;
