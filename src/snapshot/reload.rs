//! Hot reload: file changes and SIGHUP → a new snapshot, or the old one kept.
//!
//! In: the catalog root, the one [`Publisher`], and triggers (file-system events
//! from a notify watcher, SIGHUP, [`ReloadHandle::trigger`]). Out: new snapshot
//! generations, published atomically; failed rebuilds logged and counted.
//!
//! # Rules
//!
//! 1. **Coalesce**: after a trigger, wait until nothing has happened for the
//!    debounce interval (trailing edge), but never longer than [`MAX_DEBOUNCE_WAIT`]
//!    in total, so a directory that changes forever still gets reloaded.
//! 2. **One rebuild at a time**, on a blocking thread, off the request path.
//!    Triggers that arrive meanwhile queue as one pending reload, which runs next
//!    and re-reads the whole tree: the latest state on disk always wins.
//! 3. **Keep the last good catalog**: a rebuild that fails to load or validate
//!    never replaces the served snapshot; every error is logged with its file and
//!    counted in [`ReloadStats`]. Health stays SERVING.
//! 4. **Watch what Kubernetes and editors do**: the root is watched recursively
//!    (write-then-rename saves, `cp -r`, `git checkout`, ConfigMap `..data` symlink
//!    swaps) and its parent directory too, so a root that is deleted and
//!    re-created or renamed over is seen; the watch is re-armed after every reload.
//!    Access events (our own reads) are ignored.
//! 5. In-flight calls finish on the snapshot they started with; new calls see
//!    the new one (see [`crate::snapshot`]).
//! 6. **Bounded**: a rebuild that has not finished within the load timeout fails
//!    like an invalid catalog. Its thread (blocked in a file system that stopped
//!    answering, say) is left behind, and no new rebuild starts until it ends, so
//!    stuck threads never pile up. Rebuilds run on threads of their own, not the
//!    runtime's blocking pool, so a stuck one never delays shutdown.
//! 7. **The cache follows**: with an index cache directory, every successful
//!    reload rewrites the cache (see [`crate::snapshot::cache::store`]) before the next
//!    rebuild starts, so a restart finds the catalog that was being served.

use crate::snapshot::Publisher;
use crate::snapshot::deadline::Overdue;
use crate::snapshot::load::{self, LoadOptions, LoadedCatalog};
use fbc_catalog::diagnostic::Diagnostic;
use notify::{EventKind, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// A debounce never delays a reload by more than this.
pub const MAX_DEBOUNCE_WAIT: Duration = Duration::from_secs(5);

/// How reloading is set up.
#[derive(Clone, Debug)]
pub struct ReloadConfig {
    /// The catalog root.
    pub root: PathBuf,
    /// Watch the file system (SIGHUP and [`ReloadHandle::trigger`] work either way).
    pub watch: bool,
    /// Quiet time after the last change before a rebuild starts.
    pub debounce: Duration,
    /// Reload on SIGHUP.
    pub sighup: bool,
    /// Parse limits.
    pub options: LoadOptions,
    /// A rebuild still running after this long fails.
    pub load_timeout: Duration,
    /// The index cache directory to rewrite after each successful reload.
    pub cache_dir: Option<PathBuf>,
}

/// Counters of reload outcomes (exported as metrics when those land).
#[derive(Debug, Default)]
pub struct ReloadStats {
    /// Successful reloads (new generations published).
    pub succeeded: AtomicU64,
    /// Rebuilds that failed; the previous snapshot stayed.
    pub failed: AtomicU64,
    /// Duration of the last successful rebuild, in microseconds.
    pub last_rebuild_us: AtomicU64,
}

/// Handle on the reload task.
#[derive(Clone, Debug)]
pub struct ReloadHandle {
    trigger: mpsc::Sender<()>,
    /// Outcome counters.
    pub stats: Arc<ReloadStats>,
}

impl ReloadHandle {
    /// Asks for a reload (coalesced with any pending one).
    pub fn trigger(&self) {
        let _ = self.trigger.try_send(());
    }
}

/// Starts the reload task on the current tokio runtime.
pub fn spawn(config: ReloadConfig, publisher: Publisher) -> ReloadHandle {
    let (tx, rx) = mpsc::channel(1);
    let stats = Arc::new(ReloadStats::default());
    let handle = ReloadHandle {
        trigger: tx.clone(),
        stats: stats.clone(),
    };
    if config.sighup {
        spawn_sighup(tx.clone());
    }
    // Armed before returning, so no change made after `spawn` returns is missed.
    let watcher = if config.watch {
        arm_watcher(&config.root, &tx)
    } else {
        None
    };
    tokio::spawn(run(config, publisher, watcher, tx, rx, stats));
    handle
}

#[cfg(unix)]
fn spawn_sighup(tx: mpsc::Sender<()>) {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::hangup()) {
        Ok(mut hup) => {
            tokio::spawn(async move {
                while hup.recv().await.is_some() {
                    tracing::info!("SIGHUP: reloading the catalog");
                    let _ = tx.try_send(());
                }
            });
        }
        Err(e) => tracing::warn!(error = %e, "cannot listen for SIGHUP; reload on signal is off"),
    }
}

#[cfg(not(unix))]
fn spawn_sighup(_tx: mpsc::Sender<()>) {}

async fn run(
    config: ReloadConfig,
    mut publisher: Publisher,
    mut watcher: Option<notify::RecommendedWatcher>,
    tx: mpsc::Sender<()>,
    mut rx: mpsc::Receiver<()>,
    stats: Arc<ReloadStats>,
) {
    let mut stuck: Option<Overdue> = None;
    while rx.recv().await.is_some() {
        let first = Instant::now();
        loop {
            let left = MAX_DEBOUNCE_WAIT.saturating_sub(first.elapsed());
            if left.is_zero() {
                break;
            }
            match tokio::time::timeout(config.debounce.min(left), rx.recv()).await {
                Ok(Some(())) => continue,
                Ok(None) => return,
                Err(_) => break,
            }
        }
        if let Some(stuck) = &stuck
            && !stuck.is_finished()
        {
            stats.failed.fetch_add(1, Ordering::Relaxed);
            crate::metrics::load_failed();
            tracing::error!(
                "a previous reload is still stuck reading the catalog; not starting another; still serving the last good catalog"
            );
            continue;
        }
        stuck = None;
        let started = Instant::now();
        match rebuild(&config).await {
            Ok(loaded) => {
                publish(&mut publisher, loaded, &config, &stats, started, first).await;
            }
            Err(failure) => {
                let failed = stats.failed.fetch_add(1, Ordering::Relaxed) + 1;
                crate::metrics::load_failed();
                for d in &failure.diagnostics {
                    tracing::warn!("reload rejected: {d}");
                }
                tracing::error!(
                    errors = failure.diagnostics.len(),
                    failed_reloads = failed,
                    "the changed catalog is invalid; still serving the last good catalog"
                );
                stuck = failure.overdue;
            }
        }
        if config.watch {
            // The root may have been replaced: watch whatever is there now.
            drop(watcher.take());
            watcher = arm_watcher(&config.root, &tx);
        }
    }
}

/// Logs a published catalog: one line with counts, sizes, timings and digest, then
/// its warnings. For the first load and every reload alike.
pub fn log_loaded(dir: &Path, report: &load::LoadReport, generation: u64, message: &str) {
    let s = &report.stats;
    crate::metrics::load_succeeded(report.total(), s.packages, s.channels, s.bundles);
    tracing::info!(
        configs = %dir.display(),
        generation,
        digest = %report.digest,
        packages = s.packages,
        channels = s.channels,
        bundles = s.bundles,
        channel_entries = s.copies,
        files = report.files,
        bytes = report.bytes,
        index_bytes = s.encoded_bytes,
        load_ms = report.total().as_millis() as u64,
        parse_ms = report.parse.as_millis() as u64,
        validate_ms = report.validate.as_millis() as u64,
        index_ms = report.index.as_millis() as u64,
        "{message}"
    );
    for w in &report.warnings {
        tracing::warn!("{w}");
    }
}

/// Why a rebuild produced no catalog.
struct RebuildFailure {
    diagnostics: Vec<Diagnostic>,
    /// The load's thread, when it missed its deadline.
    overdue: Option<Overdue>,
}

/// Loads the catalog on a thread of its own (see rule 6) and waits at most the
/// load timeout for it.
async fn rebuild(config: &ReloadConfig) -> Result<LoadedCatalog, RebuildFailure> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let root = config.root.clone();
    let options = config.options;
    let thread = std::thread::Builder::new()
        .name("catalog-reload".into())
        .spawn(move || {
            let _ = tx.send(load::load(&root, &options));
        });
    let internal = |message: String| RebuildFailure {
        diagnostics: vec![Diagnostic::new(
            fbc_catalog::diagnostic::Kind::Internal,
            fbc_catalog::diagnostic::Location::file(config.root.display().to_string()),
            message,
        )],
        overdue: None,
    };
    let thread = thread.map_err(|e| internal(format!("cannot start the reload thread: {e}")))?;
    match tokio::time::timeout(config.load_timeout, rx).await {
        Ok(Ok(result)) => result.map_err(|diagnostics| RebuildFailure {
            diagnostics,
            overdue: None,
        }),
        Ok(Err(_)) => Err(internal("the reload thread failed (it panicked)".into())),
        Err(_) => Err(RebuildFailure {
            diagnostics: vec![load::timeout_diagnostic(&config.root, config.load_timeout)],
            overdue: Some(Overdue::new(thread)),
        }),
    }
}

/// Publishes a rebuilt catalog, logs it, and rewrites the cache (rule 7).
async fn publish(
    publisher: &mut Publisher,
    loaded: LoadedCatalog,
    config: &ReloadConfig,
    stats: &ReloadStats,
    started: Instant,
    first_trigger: Instant,
) {
    let report = loaded.report.clone();
    let generation = publisher.publish(loaded);
    stats.succeeded.fetch_add(1, Ordering::Relaxed);
    stats
        .last_rebuild_us
        .store(started.elapsed().as_micros() as u64, Ordering::Relaxed);
    log_loaded(&config.root, &report, generation, "catalog reloaded");
    tracing::debug!(
        generation,
        since_change_ms = first_trigger.elapsed().as_millis() as u64,
        "reload latency"
    );
    let (Some(dir), Some(snapshot)) = (config.cache_dir.clone(), publisher.current()) else {
        return;
    };
    let digest = report.digest;
    let written = tokio::task::spawn_blocking(move || {
        crate::snapshot::cache::store(&dir, &snapshot.tables, &snapshot.registry, digest)
            .map_err(|e| (dir, e))
    })
    .await;
    match written {
        Ok(Ok(())) => tracing::info!(generation, digest = %digest, "index cache rewritten"),
        Ok(Err((dir, e))) => tracing::warn!(
            cache = %dir.display(),
            error = %e,
            "cannot rewrite the index cache after the reload; a restart will rebuild it"
        ),
        Err(e) => tracing::warn!(error = %e, "the cache writer failed"),
    }
}

/// Watches `root` recursively and its parent for the root itself being replaced.
fn arm_watcher(root: &Path, tx: &mpsc::Sender<()>) -> Option<notify::RecommendedWatcher> {
    let root_abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let filter_root = root_abs.clone();
    let tx = tx.clone();
    let handler = move |res: notify::Result<notify::Event>| match res {
        Ok(event) => {
            if matches!(event.kind, EventKind::Access(_)) {
                return;
            }
            if event.paths.iter().any(|p| p.starts_with(&filter_root)) || event.paths.is_empty() {
                let _ = tx.try_send(());
            }
        }
        Err(e) => tracing::warn!(error = %e, "file watch error"),
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch the catalog; reload with SIGHUP instead");
            return None;
        }
    };
    if let Some(parent) = root_abs.parent()
        && let Err(e) = watcher.watch(parent, RecursiveMode::NonRecursive)
    {
        tracing::debug!(error = %e, dir = %parent.display(), "cannot watch the catalog's parent directory");
    }
    if let Err(e) = watcher.watch(&root_abs, RecursiveMode::Recursive) {
        tracing::warn!(error = %e, root = %root_abs.display(), "cannot watch the catalog; waiting for it to reappear");
    }
    Some(watcher)
}
