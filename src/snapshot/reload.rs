//! Hot reload: file changes, SIGHUP and new images → a new snapshot, or the old one kept.
//!
//! In: the catalog root, the one [`Publisher`], and triggers (file-system events
//! from a notify watcher, SIGHUP, [`ReloadHandle::trigger`]), and new image directories
//! from the poller ([`ReloadHandle::swap`]). Out: new snapshot generations, published
//! atomically; failed rebuilds logged and counted; a swap's outcome answered to its sender.
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
//! 7. **An image swap is a reload of another directory**: the poller hands over the
//!    unpacked directory of a new image; it is loaded and validated by the same code,
//!    under the same deadline, and published only when good — then it is the root that
//!    triggers reload. A failed swap keeps the served root and image, and tells the poller
//!    why (its status says `Retrying` or `Blocked`).
//! 8. **The cache follows**: with an index cache directory, every successful
//!    rebuild writes the cache before it is published and is then served from that
//!    file (see [`crate::snapshot::cache::store_and_serve`]), so a restart finds the
//!    catalog that was being served and the catalog is written once, not spilled too.

use crate::snapshot::Publisher;
use crate::snapshot::deadline::Overdue;
use crate::snapshot::fetch::ImageInfo;
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
    /// Where a rebuilt catalog's bytes go (see [`crate::snapshot::spill`]).
    pub spill: crate::snapshot::spill::Spill,
    /// The index cache directory to rewrite after each successful reload.
    pub cache_dir: Option<PathBuf>,
    /// The image `root` was unpacked from, when it was.
    pub image: Option<ImageInfo>,
    /// The filter file the catalog is served through (see
    /// [`crate::snapshot::filtered`]): read again on every rebuild, and watched.
    pub filter: Option<PathBuf>,
}

/// What makes the reload task rebuild.
#[derive(Debug)]
enum Trigger {
    /// The files (may) have changed: reload the root after the debounce.
    Changed,
    /// Serve this image directory instead, if it loads.
    Swap(Swap),
}

/// A new image to serve, and where to answer.
#[derive(Debug)]
struct Swap {
    root: PathBuf,
    image: ImageInfo,
    answer: tokio::sync::oneshot::Sender<Result<u64, String>>,
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
    trigger: mpsc::Sender<Trigger>,
    /// Outcome counters.
    pub stats: Arc<ReloadStats>,
    task: Option<tokio::task::AbortHandle>,
}

impl ReloadHandle {
    /// Ends the reload task (a catalog the server stops serving): its watch is dropped,
    /// and a rebuild in progress is abandoned unpublished.
    pub fn stop(&self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }

    /// Asks for a reload (coalesced with any pending one).
    pub fn trigger(&self) {
        let _ = self.trigger.try_send(Trigger::Changed);
    }

    /// Serves the catalog in `root`, unpacked from `image`, if it loads and validates: the
    /// new generation's number, or why it was refused (the served catalog stays).
    pub async fn swap(&self, root: PathBuf, image: ImageInfo) -> Result<u64, String> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.trigger
            .send(Trigger::Swap(Swap {
                root,
                image,
                answer,
            }))
            .await
            .map_err(|_| "the reload task has stopped".to_owned())?;
        answered
            .await
            .map_err(|_| "the reload task has stopped".to_owned())?
    }
}

/// Starts the reload task on the current tokio runtime.
pub fn spawn(config: ReloadConfig, publisher: Publisher) -> ReloadHandle {
    let (tx, rx) = mpsc::channel(1);
    let stats = Arc::new(ReloadStats::default());
    let mut handle = ReloadHandle {
        trigger: tx.clone(),
        stats: stats.clone(),
        task: None,
    };
    if config.sighup {
        spawn_sighup(tx.clone());
    }
    // Armed before returning, so no change made after `spawn` returns is missed.
    let watcher = if config.watch {
        arm_watcher(&config.root, config.filter.as_deref(), &tx)
    } else {
        None
    };
    // In the caller's span: with several catalogs, each one's lines name it.
    let task = tokio::spawn(tracing::Instrument::instrument(
        run(config, publisher, watcher, tx, rx, stats),
        tracing::Span::current(),
    ));
    handle.task = Some(task.abort_handle());
    handle
}

#[cfg(unix)]
fn spawn_sighup(tx: mpsc::Sender<Trigger>) {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::hangup()) {
        Ok(mut hup) => {
            tokio::spawn(async move {
                while hup.recv().await.is_some() {
                    if tx.is_closed() {
                        // The reload task was stopped.
                        return;
                    }
                    tracing::info!("SIGHUP: reloading the catalog");
                    let _ = tx.try_send(Trigger::Changed);
                }
            });
        }
        Err(e) => tracing::warn!(error = %e, "cannot listen for SIGHUP; reload on signal is off"),
    }
}

#[cfg(not(unix))]
fn spawn_sighup(_tx: mpsc::Sender<Trigger>) {}

async fn run(
    mut config: ReloadConfig,
    mut publisher: Publisher,
    mut watcher: Option<notify::RecommendedWatcher>,
    tx: mpsc::Sender<Trigger>,
    mut rx: mpsc::Receiver<Trigger>,
    stats: Arc<ReloadStats>,
) {
    let mut stuck: Option<Overdue> = None;
    let mut pending: Option<Swap> = None;
    loop {
        let trigger = match pending.take() {
            Some(swap) => Trigger::Swap(swap),
            None => match rx.recv().await {
                Some(trigger) => trigger,
                None => return,
            },
        };
        let first = Instant::now();
        let swap = match trigger {
            Trigger::Swap(swap) => Some(swap),
            Trigger::Changed => {
                match debounce(&config, &mut rx, first).await {
                    Debounced::Quiet => {}
                    Debounced::Swap(swap) => pending = Some(swap),
                    Debounced::Closed => return,
                }
                None
            }
        };
        if let Some(stuck) = &stuck
            && !stuck.is_finished()
        {
            stats.failed.fetch_add(1, Ordering::Relaxed);
            crate::metrics::load_failed();
            let message = "a previous reload is still stuck reading the catalog; not starting another; still serving the last good catalog";
            tracing::error!("{message}");
            if let Some(swap) = swap {
                let _ = swap.answer.send(Err(message.to_owned()));
            }
            continue;
        }
        stuck = None;
        let started = Instant::now();
        let root = swap.as_ref().map_or(&config.root, |s| &s.root).clone();
        match rebuild(&config, &root).await {
            Ok(loaded) => {
                let answer = swap.map(|swap| {
                    config.root = swap.root;
                    config.image = Some(swap.image);
                    swap.answer
                });
                let generation =
                    publish(&mut publisher, loaded, &config, &stats, started, first).await;
                if let Some(answer) = answer {
                    let _ = answer.send(Ok(generation));
                }
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
                if let Some(swap) = swap {
                    let _ = swap.answer.send(Err(refusal(&failure.diagnostics)));
                }
                stuck = failure.overdue;
            }
        }
        if config.watch {
            // The root may have been replaced: watch whatever is there now.
            drop(watcher.take());
            watcher = arm_watcher(&config.root, config.filter.as_deref(), &tx);
        }
    }
}

/// How a debounce ended.
enum Debounced {
    /// Nothing more for the debounce interval (or the longest wait passed).
    Quiet,
    /// An image swap arrived meanwhile: it runs after this reload.
    Swap(Swap),
    /// The handle is gone.
    Closed,
}

/// Waits until no change has come for the debounce interval (rule 1).
async fn debounce(
    config: &ReloadConfig,
    rx: &mut mpsc::Receiver<Trigger>,
    first: Instant,
) -> Debounced {
    loop {
        let left = MAX_DEBOUNCE_WAIT.saturating_sub(first.elapsed());
        if left.is_zero() {
            return Debounced::Quiet;
        }
        match tokio::time::timeout(config.debounce.min(left), rx.recv()).await {
            Ok(Some(Trigger::Changed)) => continue,
            Ok(Some(Trigger::Swap(swap))) => return Debounced::Swap(swap),
            Ok(None) => return Debounced::Closed,
            Err(_) => return Debounced::Quiet,
        }
    }
}

/// A refused swap's reason: the first problems, and how many there were.
fn refusal(diagnostics: &[Diagnostic]) -> String {
    format!(
        "the image's catalog is invalid: {}",
        fbc_catalog::diagnostic::first_few(diagnostics, 3)
    )
}

/// Logs a published catalog: one line with counts, sizes, timings and digest (and the
/// image and its digest, when it came from one), then its warnings. For the first load and
/// every reload alike.
pub fn log_loaded(
    dir: &Path,
    image: Option<&ImageInfo>,
    report: &load::LoadReport,
    generation: u64,
    message: &str,
) {
    let s = &report.stats;
    crate::metrics::load_succeeded(report.total(), s.packages, s.channels, s.bundles);
    tracing::info!(
        configs = %dir.display(),
        image = image.map(|i| i.reference.as_str()),
        image_digest = image.map(|i| tracing::field::display(&i.digest)),
        filter_digest = report.filter_digest.as_deref(),
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
        spill_ms = report.spill.as_millis() as u64,
        mapped_bytes = report.mapped_bytes,
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
async fn rebuild(config: &ReloadConfig, root: &Path) -> Result<LoadedCatalog, RebuildFailure> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let shown = root.to_path_buf();
    let root = root.to_path_buf();
    let options = config.options;
    let spill = config.spill.clone();
    let cache_dir = config.cache_dir.clone();
    let filter = config.filter.clone();
    let started = std::time::Instant::now();
    let thread = std::thread::Builder::new()
        .name("catalog-reload".into())
        .spawn(move || {
            let loaded = crate::snapshot::filtered::load_source(&root, filter.as_deref(), &options)
                .map(|catalog| {
                    let catalog = match &cache_dir {
                        Some(dir) => rewrite_cache(dir, catalog, &root, options.limits),
                        None => catalog,
                    };
                    crate::snapshot::spill::spill_logged(catalog, &spill, &root, options.limits)
                });
            let _ = tx.send(loaded);
        });
    let internal = |message: String| RebuildFailure {
        diagnostics: vec![Diagnostic::new(
            fbc_catalog::diagnostic::Kind::Internal,
            fbc_catalog::diagnostic::Location::file(shown.display().to_string()),
            message,
        )],
        overdue: None,
    };
    let thread = thread.map_err(|e| internal(format!("cannot start the reload thread: {e}")))?;
    match tokio::time::timeout(config.load_timeout, rx).await {
        // `timeout` looks at the load before the clock: a load that finished before this
        // task was first polled took longer than allowed all the same.
        Ok(Ok(_)) if started.elapsed() > config.load_timeout => Err(RebuildFailure {
            diagnostics: vec![load::timeout_diagnostic(&shown, config.load_timeout)],
            overdue: None,
        }),
        Ok(Ok(result)) => result.map_err(|diagnostics| RebuildFailure {
            diagnostics,
            overdue: None,
        }),
        Ok(Err(_)) => Err(internal("the reload thread failed (it panicked)".into())),
        Err(_) => Err(RebuildFailure {
            diagnostics: vec![load::timeout_diagnostic(&shown, config.load_timeout)],
            overdue: Some(Overdue::new(thread)),
        }),
    }
}

/// Publishes a rebuilt catalog and logs it; its generation.
async fn publish(
    publisher: &mut Publisher,
    loaded: LoadedCatalog,
    config: &ReloadConfig,
    stats: &ReloadStats,
    started: Instant,
    first_trigger: Instant,
) -> u64 {
    let report = loaded.report.clone();
    // Counted before the generation is announced: whoever sees the new generation
    // sees the count that includes it.
    stats.succeeded.fetch_add(1, Ordering::Relaxed);
    stats
        .last_rebuild_us
        .store(started.elapsed().as_micros() as u64, Ordering::Relaxed);
    let generation = publisher.publish(loaded, config.image.clone());
    log_loaded(
        &config.root,
        config.image.as_ref(),
        &report,
        generation,
        "catalog reloaded",
    );
    tracing::debug!(
        generation,
        since_change_ms = first_trigger.elapsed().as_millis() as u64,
        "reload latency"
    );
    generation
}

/// Rule 8: `catalog`, just rebuilt, written as the index cache in `dir` and served
/// from that file (a failure to write is logged; the catalog is then spilled as usual).
fn rewrite_cache(
    dir: &Path,
    catalog: LoadedCatalog,
    root: &Path,
    limits: fbc_catalog::source::ParseLimits,
) -> LoadedCatalog {
    let digest = catalog.report.digest;
    let (catalog, written) = crate::snapshot::cache::store_and_serve(dir, catalog, root, limits);
    match written {
        Ok(()) => tracing::info!(digest = %digest, "index cache rewritten"),
        Err(e) => tracing::warn!(
            cache = %dir.display(),
            error = %e,
            "cannot rewrite the index cache after the reload; a restart will rebuild it"
        ),
    }
    catalog
}

/// Watches `root` recursively and its parent for the root itself being replaced; and
/// the directory holding `filter`, when there is one (a ConfigMap swaps its `..data`
/// link there, an editor renames over the file).
fn arm_watcher(
    root: &Path,
    filter: Option<&Path>,
    tx: &mpsc::Sender<Trigger>,
) -> Option<notify::RecommendedWatcher> {
    let root_abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let filter_dir = filter.map(|f| {
        let abs = std::path::absolute(f).unwrap_or_else(|_| f.to_path_buf());
        abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf)
    });
    let watched = [Some(root_abs.clone()), filter_dir.clone()];
    let tx = tx.clone();
    let handler = move |res: notify::Result<notify::Event>| match res {
        Ok(event) => {
            if matches!(event.kind, EventKind::Access(_)) {
                return;
            }
            let ours = |p: &PathBuf| watched.iter().flatten().any(|w| p.starts_with(w));
            if event.paths.iter().any(ours) || event.paths.is_empty() {
                let _ = tx.try_send(Trigger::Changed);
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
    if let Some(dir) = &filter_dir
        && let Err(e) = watcher.watch(dir, RecursiveMode::NonRecursive)
    {
        tracing::warn!(error = %e, dir = %dir.display(), "cannot watch the filter's directory; reload with SIGHUP instead");
    }
    Some(watcher)
}
