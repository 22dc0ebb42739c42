//! One catalog of a server of several, from its start to its stop.
//!
//! In: a [`CatalogSpec`], the defaults, the server's transport limits and TLS. Out: a
//! [`Unit`] whose member is in the fleet at once (not serving until loaded), whose own
//! port (when it has one) is bound at once, and whose loading, reloading and polling
//! run on tasks of its own; [`Unit::stop`] ends them all and drains its port.
//!
//! The first load is retried until it succeeds: a directory when its files change (the
//! reload task watches it either way), an image after a backoff of 5 s doubling to
//! 5 min — a registry that is down at start, or a tag not pushed yet, comes right by
//! itself.

use super::{Listen, ServeConfig, StartError, bind};
use crate::fleet::Fleet;
use crate::fleet::Member;
use crate::fleet::config::CatalogSpec;
use crate::snapshot::cache::CacheConfig;
use crate::snapshot::fetch::Fetched;
use crate::snapshot::fetch::{self, FetchOptions};
use crate::snapshot::load::LoadOptions;
use crate::snapshot::poll::PollConfig;
use crate::snapshot::reload::ReloadHandle;
use crate::snapshot::status::SourceStatus;
use crate::snapshot::{Catalog, Publisher};
use crate::transport::limits::TransportLimits;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// What every catalog starts from; a catalog's own entry overrides its limits and poll
/// interval.
#[derive(Clone, Debug)]
pub struct CatalogDefaults {
    /// Parse limits.
    pub load: LoadOptions,
    /// Where a catalog's bytes go once loaded.
    pub spill: crate::snapshot::spill::Spill,
    /// A load (first or reload) still running after this long fails.
    pub load_timeout: Duration,
    /// How images are fetched (the store is set per catalog).
    pub fetch: FetchOptions,
    /// The cache directory; each catalog keeps its index cache and image store in
    /// `catalogs/NAME/` under it.
    pub cache_dir: Option<PathBuf>,
    /// Fail a catalog's start instead of rebuilding a missing or stale cache.
    pub enforce_integrity: bool,
    /// Reload directories when their files change.
    pub watch: bool,
    /// Quiet time after the last change before a reload.
    pub reload_debounce: Duration,
    /// How often image tags are polled when a catalog does not say.
    pub poll_interval: Option<Duration>,
}

/// The first wait before a failed image is fetched again; it doubles up to [`MAX_RETRY`].
const FIRST_RETRY: Duration = Duration::from_secs(5);
/// The longest wait between tries of a first load.
const MAX_RETRY: Duration = Duration::from_secs(300);

/// A running catalog.
#[derive(Debug)]
pub(crate) struct Unit {
    /// What it was started from.
    pub(crate) spec: CatalogSpec,
    tasks: Arc<Tasks>,
    port_stop: watch::Sender<bool>,
}

/// What a unit runs, kept so that it can all be stopped.
#[derive(Debug, Default)]
struct Tasks {
    aborts: Mutex<Vec<tokio::task::AbortHandle>>,
    reload: Mutex<Option<ReloadHandle>>,
    /// The fetched source (a scratch directory lives as long as this).
    fetched: Mutex<Option<Fetched>>,
}

impl Tasks {
    fn keep(&self, task: tokio::task::AbortHandle) {
        if let Ok(mut aborts) = self.aborts.lock() {
            aborts.push(task);
        }
    }
}

impl Unit {
    /// Starts `spec`: its member in `fleet`, its port, its first load.
    pub(crate) fn start(
        spec: CatalogSpec,
        defaults: &CatalogDefaults,
        limits: &TransportLimits,
        tls: Option<Arc<crate::transport::tls::Tls>>,
        eager_views: bool,
        fleet: &Arc<Fleet>,
        server_stopped: watch::Receiver<bool>,
    ) -> Unit {
        // Every line the unit's tasks log names the catalog.
        let span = tracing::info_span!("catalog", name = %spec.name);
        let _entered = span.enter();
        let (publisher, catalog) = Publisher::new();
        let status = Arc::new(SourceStatus::starting(&spec.source));
        let tasks = Arc::new(Tasks::default());
        let (port_stop, port_stopped) = watch::channel(false);
        let port = spec.port.and_then(|port| {
            match bind(&Listen::AllInterfaces(port)) {
                Ok(bound) => {
                    tracing::info!(catalog = %spec.name, address = %bound.addr, "serving the catalog's api.Registry");
                    let services = crate::grpc::Services::Catalog {
                        catalog: catalog.clone(),
                        fleet: fleet.clone(),
                    };
                    let signal = either(port_stopped, server_stopped);
                    let served = crate::grpc::serve(bound.listener, services, limits.clone(), tls, signal);
                    // Not aborted at stop: it drains its calls for the shutdown grace, then ends.
                    tokio::spawn(tracing::Instrument::in_current_span(served));
                    Some(bound.addr.port())
                }
                Err(e) => {
                    let message = format!("catalog {:?}: {e}", spec.name);
                    tracing::error!("{message}");
                    status.unavailable(message);
                    None
                }
            }
        });
        fleet.put(Arc::new(member(
            &spec,
            catalog.clone(),
            status.clone(),
            port,
        )));
        if eager_views {
            let warm =
                tracing::Instrument::in_current_span(crate::http::warm_views(catalog.clone()));
            tasks.keep(tokio::spawn(warm).abort_handle());
        }
        let loading = tokio::spawn(tracing::Instrument::in_current_span(first_load(
            spec.clone(),
            defaults.clone(),
            publisher,
            catalog,
            status,
            tasks.clone(),
        )));
        tasks.keep(loading.abort_handle());
        Unit {
            spec,
            tasks,
            port_stop,
        }
    }

    /// Stops everything the unit runs; its port stops accepting and gives calls in
    /// flight the shutdown grace (the gRPC server's own shutdown).
    pub(crate) fn stop(self) {
        if let Ok(mut aborts) = self.tasks.aborts.lock() {
            for task in aborts.drain(..) {
                task.abort();
            }
        }
        if let Ok(mut reload) = self.tasks.reload.lock()
            && let Some(reload) = reload.take()
        {
            reload.stop();
        }
        let _ = self.port_stop.send(true);
        // The unpacked scratch directory (if any) goes once nothing reads it.
        if let Ok(mut fetched) = self.tasks.fetched.lock() {
            drop(fetched.take());
        }
    }
}

/// Resolves when either signal says stop.
async fn either(mut a: watch::Receiver<bool>, mut b: watch::Receiver<bool>) {
    tokio::select! {
        _ = a.wait_for(|s| *s) => {}
        _ = b.wait_for(|s| *s) => {}
    }
}

/// Loads the catalog until it loads, then publishes it and starts its reload and poll.
async fn first_load(
    spec: CatalogSpec,
    defaults: CatalogDefaults,
    mut publisher: Publisher,
    catalog: Catalog,
    status: Arc<SourceStatus>,
    tasks: Arc<Tasks>,
) {
    let (config, fetch) = unit_config(&spec, &defaults);
    let mut failures = 0u32;
    loop {
        match fetch_and_load(config.clone(), fetch.clone()).await {
            Ok((fetched, config, loaded)) => {
                let report = loaded.report.clone();
                let generation = publisher.publish(loaded, config.image.clone());
                crate::snapshot::reload::log_loaded(
                    std::path::Path::new(&spec.source),
                    config.image.as_ref(),
                    &report,
                    generation,
                    "catalog loaded",
                );
                let poll = poll_config(&spec, &defaults, &fetched, &fetch);
                let unpacked = config.image.as_ref().and_then(|_| {
                    std::fs::metadata(&config.root)
                        .and_then(|m| m.modified())
                        .ok()
                });
                status.loaded(config.image.clone(), unpacked, poll.is_some());
                let reload =
                    crate::snapshot::reload::spawn(super::reload_config(&config), publisher);
                if let (Some(poll), Some(image)) = (poll, config.image.clone()) {
                    let polling =
                        crate::snapshot::poll::spawn(poll, image, reload.clone(), status.clone());
                    tasks.keep(polling.abort_handle());
                }
                keep_reload(&tasks, reload);
                if let Ok(mut kept) = tasks.fetched.lock() {
                    *kept = Some(fetched);
                }
                return;
            }
            Err(message) => {
                failures = failures.saturating_add(1);
                tracing::error!(catalog = %spec.name, failures, "cannot serve the catalog yet: {message}");
                status.unavailable(message);
                if is_directory(&spec.source) && defaults.watch {
                    // The reload task watches the directory and publishes the first
                    // version that loads; the status follows the first generation.
                    let reload =
                        crate::snapshot::reload::spawn(super::reload_config(&config), publisher);
                    keep_reload(&tasks, reload);
                    let watcher = tokio::spawn(tracing::Instrument::in_current_span(
                        mark_loaded_when_published(catalog, status),
                    ));
                    tasks.keep(watcher.abort_handle());
                    return;
                }
                let wait = FIRST_RETRY
                    .saturating_mul(1 << failures.min(16).saturating_sub(1))
                    .min(MAX_RETRY);
                tokio::time::sleep(wait).await;
            }
        }
    }
}

fn keep_reload(tasks: &Tasks, reload: ReloadHandle) {
    if let Ok(mut kept) = tasks.reload.lock() {
        *kept = Some(reload);
    }
}

/// Whether `source` is a catalog directory (not an image reference).
fn is_directory(source: &str) -> bool {
    matches!(
        fbc_image::reference::CatalogSource::parse(source),
        Ok(fbc_image::reference::CatalogSource::Directory(_))
    )
}

/// Marks the status loaded once the reload task publishes a first generation.
async fn mark_loaded_when_published(catalog: Catalog, status: Arc<SourceStatus>) {
    let mut generations = catalog.generations();
    if generations.wait_for(|g| *g > 0).await.is_ok() {
        tracing::info!("the catalog loaded after its files changed");
        status.loaded(None, None, false);
    }
}

/// A catalog's settings: the defaults with its own entry's overrides.
fn unit_config(spec: &CatalogSpec, defaults: &CatalogDefaults) -> (ServeConfig, FetchOptions) {
    let limits = &spec.limits;
    let mut load = defaults.load;
    if let Some(v) = limits.max_file_size {
        load.limits.max_file_bytes = v;
    }
    if let Some(v) = limits.max_document_size {
        load.limits.max_document_bytes = v;
    }
    if let Some(v) = limits.max_depth {
        load.limits.max_depth = v.clamp(1, fbc_catalog::source::limits::DEPTH_CEILING);
    }
    if let Some(v) = limits.max_yaml_alias_nodes {
        load.limits.max_alias_nodes = v;
    }
    let mut fetch = defaults.fetch.clone();
    fetch.limits.max_file_bytes = load.limits.max_file_bytes;
    if let Some(v) = limits.max_layers {
        fetch.limits.max_layers = v;
    }
    if let Some(v) = limits.max_image_size {
        fetch.limits.max_image_bytes = v;
    }
    if let Some(v) = limits.max_unpack_size {
        fetch.limits.max_unpack_bytes = v;
    }
    if let Some(v) = limits.max_unpack_entries {
        fetch.limits.max_entries = v;
    }
    let own_dir = defaults
        .cache_dir
        .as_ref()
        .map(|d| d.join("catalogs").join(&spec.name));
    fetch.store = own_dir.as_ref().map(|d| d.join("images"));
    let mut serve = ServeConfig::new(PathBuf::from(&spec.source), Listen::AllInterfaces(0));
    serve.load = load;
    serve.spill = defaults.spill.clone();
    serve.load_timeout = limits.load_timeout.unwrap_or(defaults.load_timeout);
    serve.cache = own_dir.map(|dir| CacheConfig {
        dir,
        enforce_integrity: defaults.enforce_integrity,
        must_write: false,
    });
    serve.watch = defaults.watch;
    serve.filter = spec.filter.clone();
    serve.reload_debounce = defaults.reload_debounce;
    // Each catalog's reload task listens for SIGHUP: the signal reloads every catalog,
    // as it reloads the one of `serve DIR`.
    serve.sighup = true;
    (serve, fetch)
}

/// The poll settings of a fetched catalog, when it is a registry tag to poll.
fn poll_config(
    spec: &CatalogSpec,
    defaults: &CatalogDefaults,
    fetched: &Fetched,
    fetch: &FetchOptions,
) -> Option<PollConfig> {
    let interval = spec.poll_interval.or(defaults.poll_interval)?;
    let source = fetched.registry.as_ref().filter(|s| !s.pinned)?;
    Some(PollConfig {
        interval,
        source: source.clone(),
        fetch: fetch.clone(),
    })
}

/// The member a unit shows before its first load: nothing published, status saying it
/// is on its way.
fn member(
    spec: &CatalogSpec,
    catalog: crate::snapshot::Catalog,
    status: Arc<SourceStatus>,
    port: Option<u16>,
) -> Member {
    Member {
        name: Arc::from(spec.name.as_str()),
        catalog,
        status,
        priority: spec.priority,
        source: spec.source.clone(),
        port,
    }
}

/// Fetches and loads on a thread of its own (a pull runs its own runtime; a load may
/// block on a file system that stops answering).
pub(super) async fn fetch_and_load(
    config: ServeConfig,
    fetch: FetchOptions,
) -> Result<(Fetched, ServeConfig, crate::snapshot::load::LoadedCatalog), String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let timeout = config.load_timeout;
    let spawned = std::thread::Builder::new()
        .name("catalog-load".to_owned())
        .spawn(move || {
            let result = (|| {
                let fetched = fetch::fetch(&config.root, &fetch).map_err(|e| e.to_string())?;
                let mut config = config;
                config.image = fetched.image.clone();
                if fetched.image.is_some() {
                    config.watch = false;
                }
                let source = config.root.clone();
                config.root = fetched.dir.clone();
                let loaded = super::first_load(&config).map_err(|e| describe(&source, e))?;
                Ok((fetched, config, loaded))
            })();
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start a load thread: {e}"));
    }
    // The pull has its own timeouts; the load is held to the load timeout on top.
    match tokio::time::timeout(timeout + Duration::from_secs(600), rx).await {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err("the load thread ended without an answer".to_owned()),
        Err(_) => Err(format!(
            "the load did not finish within {}s",
            timeout.as_secs() + 600
        )),
    }
}

fn describe(source: &Path, error: StartError) -> String {
    match error {
        StartError::Catalog(diagnostics) => format!(
            "{}: {}",
            source.display(),
            fbc_catalog::diagnostic::first_few(&diagnostics, 3)
        ),
        other => format!("{}: {other}", source.display()),
    }
}

/// `--cache-only` for several catalogs: loads each of `specs` in turn and writes its
/// index cache (`<cache-dir>/catalogs/NAME/`) — what an image build runs once so the
/// image starts warm. Every catalog is tried; the error names each that failed.
pub async fn build_caches(specs: &[CatalogSpec], defaults: &CatalogDefaults) -> Result<(), String> {
    let mut failed = Vec::new();
    for spec in specs {
        let (mut config, fetch) = unit_config(spec, defaults);
        if let Some(cache) = config.cache.as_mut() {
            cache.must_write = true;
        }
        match fetch_and_load(config, fetch).await {
            Ok((_, config, loaded)) => crate::snapshot::reload::log_loaded(
                std::path::Path::new(&spec.source),
                config.image.as_ref(),
                &loaded.report,
                1,
                "catalog loaded",
            ),
            Err(e) => {
                tracing::error!(catalog = %spec.name, error = %e, "catalog not loaded");
                failed.push(format!("catalog {:?}: {e}", spec.name));
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}
