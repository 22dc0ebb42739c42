//! Directory → index in one call: load, validate, index.
//!
//! In: a catalog root. Out: an [`Index`] and a [`LoadReport`] (counts, timings,
//! warnings), or every problem found, as displayable lines in a stable order.

use crate::index::{Index, Stats};
use crate::{model, source};
use std::path::Path;
use std::time::{Duration, Instant};

/// What a successful load found and how long each stage took.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Counts.
    pub stats: Stats,
    /// Catalog files read.
    pub files: usize,
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
pub fn load(root: &Path) -> Result<(Index, LoadReport), Vec<String>> {
    let t0 = Instant::now();
    // Bundles are decoded on the worker that parsed them, file by file, so the
    // parsed trees of the whole catalog never exist at once; what the index keeps
    // of them (manifests) is written into dense arena blocks (see `crate::arena`).
    let loaded = source::load_dir_with(root, model::decode_blob);
    let parse = t0.elapsed();
    let files = loaded.files.len();
    let bytes = loaded.files.iter().map(|(_, s)| s).sum();
    let t1 = Instant::now();
    let model = model::build_decoded(loaded)
        .map_err(|diags| diags.iter().map(ToString::to_string).collect::<Vec<_>>())?;
    let validate = t1.elapsed();
    let t2 = Instant::now();
    let index = Index::build(&model)
        .map_err(|errs| errs.iter().map(ToString::to_string).collect::<Vec<_>>())?;
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
        parse,
        validate,
        index: index_time,
        warnings,
    };
    Ok((index, report))
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
