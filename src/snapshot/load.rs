//! Directory → index in one call: load, validate, index.
//!
//! In: a catalog root and [`LoadOptions`]. Out: a [`LoadedCatalog`] (the [`RegistryView`]
//! and a [`LoadReport`] of counts, timings and warnings), or every problem found as
//! [`Diagnostic`]s in a stable order.
//!
//! A load has no deadline of its own: callers set one (see [`crate::snapshot::deadline`]) and
//! report a miss with [`timeout_diagnostic`].

use crate::views::registry::{RegistryView, Stats};
use fbc_catalog::diagnostic::{Diagnostic, Kind, Location};
pub use fbc_catalog::load::LoadOptions;
use fbc_catalog::source::CatalogDigest;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A loaded catalog: its tables, its `api.Registry` view and how loading went.
#[derive(Debug)]
pub struct LoadedCatalog {
    /// The typed tables every view reads.
    pub tables: crate::views::registry::SnapshotTables,
    /// The `api.Registry` view: every reply pre-encoded.
    pub registry: RegistryView,
    /// Counts, timings and warnings.
    pub report: LoadReport,
    /// The filter it was served through, and the directory its files are then read
    /// from (see [`crate::snapshot::filtered`]); `None` for a catalog as it is.
    pub filter: Option<std::sync::Arc<FilteredSource>>,
}

impl LoadedCatalog {
    /// The directory its metas are read back from: `root`, the directory it was
    /// loaded from, or the filtered catalog's own.
    pub fn files_root<'a>(&'a self, root: &'a Path) -> &'a Path {
        self.filter.as_ref().map_or(root, |f| f.dir())
    }
}

/// What a successful load found and how long each stage took.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Counts.
    pub stats: Stats,
    /// Catalog files read.
    pub files: usize,
    /// The digest of the files read (see [`fbc_catalog::source::digest`]).
    pub digest: CatalogDigest,
    /// Bytes read.
    pub bytes: u64,
    /// Reading and parsing files.
    pub parse: Duration,
    /// Building and validating the model.
    pub validate: Duration,
    /// Building the index.
    pub index: Duration,
    /// Writing the catalog to its spill file and mapping it (see [`crate::snapshot::spill`]).
    pub spill: Duration,
    /// Bytes of the mapped file the catalog is served from: its spill file after a
    /// cold load (see [`crate::snapshot::spill`]) or the index cache after a warm
    /// start; 0 when it is held in the process's memory.
    pub mapped_bytes: u64,
    /// Warnings (e.g. replies too large for Go clients).
    pub warnings: Vec<String>,
    /// The digest of the filter the catalog was served through, when it was (see
    /// [`FilteredSource::digest`]).
    pub filter_digest: Option<String>,
}

impl LoadReport {
    /// Total load time.
    pub fn total(&self) -> Duration {
        self.parse + self.validate + self.index + self.spill
    }
}

/// Where a filtered catalog came from, and where it is read from (made by
/// [`crate::snapshot::filtered`]).
#[derive(Debug)]
pub struct FilteredSource {
    /// The filter file, as given.
    pub path: PathBuf,
    /// `sha256:` and the hex SHA-256 of the filter file's bytes as applied.
    pub digest: String,
    /// The private directory holding the filtered catalog (`catalog.json`); removed
    /// when the last snapshot reading it goes.
    pub(crate) scratch: tempfile::TempDir,
}

impl FilteredSource {
    /// The directory the filtered catalog is read from.
    pub fn dir(&self) -> &Path {
        self.scratch.path()
    }
}

static RELEASE_MEMORY: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Installs a function called after every load, once the load's temporaries are
/// freed, to hand memory back to the OS (the binary installs the allocator's
/// collect call; the library itself makes no allocator assumptions).
pub fn set_release_memory_hook(hook: fn()) {
    let _ = RELEASE_MEMORY.set(hook);
}

/// Hands the pages a load freed back to the OS (the hook the binary installed).
pub fn release_memory() {
    if let Some(release) = RELEASE_MEMORY.get() {
        release();
    }
}

static LOADING_HOOK: std::sync::OnceLock<fn(bool)> = std::sync::OnceLock::new();
static LOADS: std::sync::Mutex<usize> = std::sync::Mutex::new(0);

/// Installs a function told when the first load starts (`true`) and the last running
/// one ends (`false`): the binary has its allocator hand freed pages back at once
/// while loads run (their parse trees, freed file by file, set the peak) and
/// batch that work while it serves (where handing back at once costs calls).
pub fn set_loading_hook(hook: fn(bool)) {
    let _ = LOADING_HOOK.set(hook);
}

/// While alive, a load is running (see [`set_loading_hook`]): held by a cold load
/// and by what writes its result out (a spill, the index cache), whose transients
/// set the peak at scale.
pub struct Loading;

impl Loading {
    /// Marks a load as running until the guard is dropped.
    pub fn start() -> Loading {
        Self::count(
            |n| {
                *n += 1;
                *n == 1
            },
            true,
        );
        Loading
    }

    /// Applies `change` to the number of running loads; calls the hook with `state`
    /// when `change` says the count crossed zero. The lock is held across the hook so
    /// two crossings cannot reorder.
    fn count(change: impl FnOnce(&mut usize) -> bool, state: bool) {
        let mut loads = LOADS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if change(&mut loads)
            && let Some(hook) = LOADING_HOOK.get()
        {
            hook(state);
        }
    }
}

impl Drop for Loading {
    fn drop(&mut self) {
        Self::count(
            |n| {
                *n = n.saturating_sub(1);
                *n == 0
            },
            false,
        );
    }
}

/// Loads, validates and indexes the catalog at `root`.
pub fn load(root: &Path, options: &LoadOptions) -> Result<LoadedCatalog, Vec<Diagnostic>> {
    let _loading = Loading::start();
    let loaded = fbc_catalog::load::load_model(root, options)?;
    let t2 = Instant::now();
    let (digest, bytes, files, parse, validate) = (
        loaded.digest,
        loaded.bytes,
        loaded.files.len(),
        loaded.parse,
        loaded.validate,
    );
    let tables = loaded.tables(root, options.limits);
    let index = RegistryView::build(&tables).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| {
                Diagnostic::new(Kind::Invalid, e.location, e.message)
                    .package(&e.package)
                    .bundle(&e.bundle)
            })
            .collect::<Vec<_>>()
    })?;
    release_memory();
    let warnings = oversize_warnings(&index);
    let report = LoadReport {
        stats: index.stats().clone(),
        files,
        digest,
        bytes,
        parse,
        validate,
        index: t2.elapsed(),
        spill: Duration::ZERO,
        mapped_bytes: 0,
        warnings,
        filter_digest: None,
    };
    Ok(LoadedCatalog {
        tables: crate::views::registry::SnapshotTables::built(tables),
        registry: index,
        report,
        filter: None,
    })
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
pub fn oversize_warnings(index: &RegistryView) -> Vec<String> {
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
