//! Directory → index in one call: load, validate, index.
//!
//! In: a catalog root and [`LoadOptions`]. Out: a [`LoadedCatalog`] (the [`Index`]
//! and a [`LoadReport`] of counts, timings and warnings), or every problem found as
//! [`Diagnostic`]s in a stable order.
//!
//! A load has no deadline of its own: callers set one (see [`crate::deadline`]) and
//! report a miss with [`timeout_diagnostic`].

use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::index::{Index, Stats};
use crate::source::{CatalogDigest, ParseLimits};
use crate::{model, source};
use std::path::Path;
use std::time::{Duration, Instant};

/// How a catalog is loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Bounds on files, documents, nesting and YAML aliases.
    pub limits: ParseLimits,
}

/// A loaded catalog: its index and how loading went.
#[derive(Debug)]
pub struct LoadedCatalog {
    /// The queryable index.
    pub index: Index,
    /// Counts, timings and warnings.
    pub report: LoadReport,
}

/// What a successful load found and how long each stage took.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Counts.
    pub stats: Stats,
    /// Catalog files read.
    pub files: usize,
    /// The digest of the files read (see [`crate::source::digest`]).
    pub digest: CatalogDigest,
    /// Bytes read.
    pub bytes: u64,
    /// Reading and parsing files.
    pub parse: Duration,
    /// Building and validating the model.
    pub validate: Duration,
    /// Building the index.
    pub index: Duration,
    /// Warnings (e.g. replies too large for Go clients).
    pub warnings: Vec<String>,
}

impl LoadReport {
    /// Total load time.
    pub fn total(&self) -> Duration {
        self.parse + self.validate + self.index
    }
}

static RELEASE_MEMORY: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Installs a function called after every load, once the load's temporaries are
/// freed, to hand memory back to the OS (the binary installs the allocator's
/// collect call; the library itself makes no allocator assumptions).
pub fn set_release_memory_hook(hook: fn()) {
    let _ = RELEASE_MEMORY.set(hook);
}

/// Loads, validates and indexes the catalog at `root`.
pub fn load(root: &Path, options: &LoadOptions) -> Result<LoadedCatalog, Vec<Diagnostic>> {
    let t0 = Instant::now();
    // Bundles are decoded on the worker that parsed them, file by file, so the
    // parsed trees of the whole catalog never exist at once; what the index keeps
    // of them (manifests) is written into dense arena blocks (see `crate::arena`).
    let limits = options.limits;
    let loaded = source::load_dir_with(root, &limits, |arena, blob| {
        model::decode_blob(arena, blob, &limits)
    });
    let parse = t0.elapsed();
    let files = loaded.files.len();
    let bytes = loaded.files.iter().map(|f| f.size).sum();
    let digest = CatalogDigest::of(&loaded.files);
    let t1 = Instant::now();
    let model = model::build_decoded(loaded)?;
    let validate = t1.elapsed();
    let t2 = Instant::now();
    let index = Index::build(&model).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| {
                Diagnostic::new(Kind::Invalid, e.location, e.message)
                    .package(&e.package)
                    .bundle(&e.bundle)
            })
            .collect::<Vec<_>>()
    })?;
    free_on_two_threads(model);
    if let Some(release) = RELEASE_MEMORY.get() {
        release();
    }
    let index_time = t2.elapsed();
    let warnings = oversize_warnings(&index);
    let report = LoadReport {
        stats: index.stats().clone(),
        files,
        bytes,
        digest,
        parse,
        validate,
        index: index_time,
        warnings,
    };
    Ok(LoadedCatalog { index, report })
}

/// The diagnostic of a load that missed its deadline.
pub fn timeout_diagnostic(root: &Path, timeout: Duration) -> Diagnostic {
    Diagnostic::new(
        Kind::Timeout,
        Location::file(root.display().to_string()),
        format!(
            "the catalog did not load within {} (limit --load-timeout): a file system that does not answer?",
            humantime::format_duration(timeout)
        ),
    )
}

/// Warnings for replies too large for Go clients' default receive limit.
pub fn oversize_warnings(index: &Index) -> Vec<String> {
    index
        .oversize_replies()
        .iter()
        .map(|o| {
            format!(
                "package {:?}, bundle {:?}: its GetBundle reply is {} bytes, above the 4 MiB a Go gRPC client accepts by default",
                o.package, o.bundle, o.bytes
            )
        })
        .collect()
}

/// Frees a model on two threads: a large one is hundreds of thousands of small
/// allocations and takes tens of milliseconds to free.
fn free_on_two_threads(mut model: model::Model) {
    let half = model.packages.split_off(model.packages.len() / 2);
    std::thread::scope(|scope| {
        // If no thread can be started, `half` is freed here instead.
        let _ = std::thread::Builder::new().spawn_scoped(scope, move || drop(half));
        drop(model);
    });
}
