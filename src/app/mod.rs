//! The server, assembled.
//!
//! In: a [`ServeConfig`] (the CLI builds one from its flags; tests build their own).
//! Out: a running [`ServerHandle`] (the bound address, the published catalog, the
//! reload trigger, shutdown), or a [`StartError`].
//!
//! Starting is two steps so that a caller can put the first load where it wants it:
//! [`first_load`] is blocking (the CLI runs it on the main thread, before the async
//! runtime exists, under a watchdog), [`serve`] binds and spawns the reload task and
//! the gRPC server on the current runtime. [`start`] does both, for tests.
//! A server of several catalogs starts through [`catalogs::serve_many`] instead.
//!
//! | module | in → out |
//! |---|---|
//! | this module | one catalog's [`ServeConfig`] → a running server |
//! | [`catalogs`] | the `--config` file and `--catalog` flags → every catalog loading, serving, polling and stopping on its own; the file watched |

pub mod catalogs;
mod unit;

use crate::fleet::{Fleet, Member};
use crate::http::HttpConfig;
use crate::snapshot::cache::{CacheConfig, CacheError, CachedLoad, Outcome};
use crate::snapshot::fetch::ImageInfo;
use crate::snapshot::load::{self, LoadOptions, LoadedCatalog};
use crate::snapshot::poll::PollConfig;
use crate::snapshot::reload::{ReloadConfig, ReloadHandle};
use crate::snapshot::spill::{self, Spill};
use crate::snapshot::status::SourceStatus;
use crate::snapshot::{Catalog, Publisher};
use crate::transport::limits::TransportLimits;
use fbc_catalog::diagnostic::Diagnostic;
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Where the gRPC server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    /// Every interface, dual-stack `[::]` with a fallback to `0.0.0.0`, as
    /// `opm serve` listens on `":port"`.
    AllInterfaces(u16),
    /// One address (tests use `127.0.0.1:0`).
    Addr(SocketAddr),
}

/// Everything needed to serve a catalog.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The catalog root.
    pub root: PathBuf,
    /// Where to listen.
    pub listen: Listen,
    /// Parse limits.
    pub load: LoadOptions,
    /// A reload still running after this long fails (the first load's deadline is
    /// the caller's, see [`first_load`]).
    pub load_timeout: Duration,
    /// The index cache, if any.
    pub cache: Option<CacheConfig>,
    /// Where a cold load's bytes go once it is built (see [`crate::snapshot::spill`]).
    pub spill: Spill,
    /// Reload when the catalog's files change.
    pub watch: bool,
    /// Quiet time after the last change before a reload.
    pub reload_debounce: Duration,
    /// Reload on SIGHUP.
    pub sighup: bool,
    /// What clients may hold.
    pub transport: TransportLimits,
    /// The HTTP server (catalogd's API), off unless given: where and how.
    pub http: Option<(Listen, HttpConfig)>,
    /// Where to serve Prometheus metrics (`/metrics`), if anywhere.
    pub metrics: Option<Listen>,
    /// Whether the metrics listener speaks TLS when `tls` is set.
    pub metrics_tls: bool,
    /// TLS for the gRPC, HTTP and (unless `metrics_tls` is false) metrics listeners;
    /// `None`: plain text.
    pub tls: Option<crate::transport::tls::TlsFiles>,
    /// The image `root` was unpacked from, when the catalog is one.
    pub image: Option<ImageInfo>,
    /// Polling the image's tag for new images (`--poll-interval`), when asked.
    pub poll: Option<PollConfig>,
    /// Serve the catalog through this filter file (`--filter`), watched and
    /// reloaded with the catalog (see [`crate::snapshot::filtered`]).
    pub filter: Option<PathBuf>,
}

impl ServeConfig {
    /// A configuration for `root` with the defaults of `serve`, listening on `listen`.
    pub fn new(root: impl Into<PathBuf>, listen: Listen) -> Self {
        ServeConfig {
            root: root.into(),
            listen,
            load: LoadOptions::default(),
            spill: Spill::default(),
            load_timeout: Duration::from_secs(120),
            cache: None,
            watch: true,
            reload_debounce: Duration::from_millis(250),
            sighup: true,
            transport: TransportLimits::default(),
            http: None,
            metrics: None,
            metrics_tls: true,
            tls: None,
            image: None,
            poll: None,
            filter: None,
        }
    }
}

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The catalog is invalid or unreadable: every problem found.
    #[error("{} problem(s) in the catalog", .0.len())]
    Catalog(Vec<Diagnostic>),
    /// The cache could not be used as asked (integrity, or `--cache-only` writing).
    #[error("{0}")]
    Cache(CacheError),
    /// The listener could not be bound.
    #[error("failed to listen on {listen}: {source}")]
    Bind {
        /// What was asked.
        listen: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The TLS files cannot be used.
    #[error("TLS: {0}")]
    Tls(crate::transport::tls::TlsError),
}

/// The first load: through the cache when one is configured (logging what the
/// cache did). Blocking; no deadline of its own.
pub fn first_load(config: &ServeConfig) -> Result<LoadedCatalog, StartError> {
    let spill =
        |catalog| spill::spill_logged(catalog, &config.spill, &config.root, config.load.limits);
    if let Some(filter) = &config.filter {
        if let Some(cache) = &config.cache {
            tracing::warn!(
                cache = %cache.dir.display(),
                filter = %filter.display(),
                "the index cache holds catalogs as they are, not filtered ones: it is not read or written while a filter applies"
            );
        }
        return crate::snapshot::filtered::load_filtered(&config.root, filter, &config.load)
            .map(spill)
            .map_err(StartError::Catalog);
    }
    let Some(cache) = &config.cache else {
        return load::load(&config.root, &config.load)
            .map(spill)
            .map_err(StartError::Catalog);
    };
    match crate::snapshot::cache::load(&config.root, cache, &config.load) {
        Ok(cached) => {
            log_cache_outcome(cache, &cached);
            // a warm or freshly written cache is already served from its file
            Ok(spill(cached.catalog))
        }
        Err(CacheError::Catalog(d)) => Err(StartError::Catalog(d)),
        Err(other) => Err(StartError::Cache(other)),
    }
}

fn log_cache_outcome(cache: &CacheConfig, cached: &CachedLoad) {
    let dir = cache.dir.display();
    if let Some(layout) = cached.notes.foreign {
        tracing::warn!(
            cache = %dir,
            layout,
            "found an index cache written by opm; it is left untouched and fbc-registry keeps its own beside it, in {}",
            crate::snapshot::cache::SUBDIR
        );
    }
    let result = match (&cached.outcome, &cached.notes.stale) {
        (Outcome::Warm, _) => crate::metrics::CacheResult::Hit,
        (_, Some(stale)) => {
            tracing::warn!(cache = %dir, "cache requires rebuild: {stale}; rebuilding it from the catalog (--cache-enforce-integrity would refuse to start)");
            crate::metrics::CacheResult::Stale
        }
        (_, None) => {
            tracing::warn!(cache = %dir, "no index cache of ours in the cache directory; building it from the catalog (--cache-enforce-integrity would refuse to start)");
            crate::metrics::CacheResult::Miss
        }
    };
    crate::metrics::cache_lookup(result);
    match &cached.outcome {
        Outcome::Warm => tracing::info!(cache = %dir, "index read from the cache"),
        Outcome::BuiltAndWritten => tracing::info!(cache = %dir, "index built and cached"),
        Outcome::BuiltInMemory(why) => tracing::warn!(
            cache = %dir,
            error = %why,
            "cannot write the index cache; keeping the index in memory"
        ),
    }
}

/// A running server.
#[derive(Debug)]
pub struct ServerHandle {
    /// The address the gRPC server is bound to.
    pub grpc_addr: SocketAddr,
    /// The address the HTTP server is bound to, if it runs.
    pub http_addr: Option<SocketAddr>,
    /// The metrics listener's address, if it runs.
    pub metrics_addr: Option<SocketAddr>,
    /// The published catalog (read side).
    pub catalog: Catalog,
    /// The served catalogs: this one.
    pub fleet: Arc<Fleet>,
    /// The reload task: trigger a reload, read its counters.
    pub reload: ReloadHandle,
    stop: watch::Sender<bool>,
    shutdown_delay: std::time::Duration,
    task: tokio::task::JoinHandle<Result<(), String>>,
}

impl ServerHandle {
    /// Shuts down gracefully: health answers NOT_SERVING at once while every
    /// call is still served for the shutdown delay; then the listeners stop
    /// accepting, calls in flight get the shutdown grace, and this waits for the
    /// server to end.
    pub async fn shutdown(mut self) -> Result<(), String> {
        self.fleet.start_draining();
        tracing::info!(
            delay_ms = self.shutdown_delay.as_millis() as u64,
            "health NOT_SERVING; still serving for the shutdown delay"
        );
        tokio::time::sleep(self.shutdown_delay).await;
        let _ = self.stop.send(true);
        self.join().await
    }

    /// Serves until `signal` resolves, then shuts down as [`ServerHandle::shutdown`].
    pub async fn run_until(mut self, signal: impl Future<Output = ()>) -> Result<(), String> {
        tokio::select! {
            () = signal => self.shutdown().await,
            ended = &mut self.task => ended.map_err(|e| format!("server task failed: {e}"))?,
        }
    }

    async fn join(&mut self) -> Result<(), String> {
        (&mut self.task)
            .await
            .map_err(|e| format!("server task failed: {e}"))?
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// Publishes `loaded` as generation 1, binds, and starts the reload task, the
/// gRPC server and the HTTP server (when configured) on the current tokio runtime.
pub async fn serve(config: ServeConfig, loaded: LoadedCatalog) -> Result<ServerHandle, StartError> {
    let tls = match &config.tls {
        Some(files) => {
            Some(crate::transport::tls::Tls::load(files.clone()).map_err(StartError::Tls)?)
        }
        None => None,
    };
    let tls_watcher = tls.as_ref().and_then(|t| t.watch());
    let (mut publisher, catalog) = Publisher::new();
    crate::metrics::watch_catalog(Box::new(catalog.clone()));
    let report = loaded.report.clone();
    let generation = publisher.publish(loaded, config.image.clone());
    crate::snapshot::reload::log_loaded(
        &config.root,
        config.image.as_ref(),
        &report,
        generation,
        "catalog loaded",
    );
    let unpacked = config.image.as_ref().and_then(|_| {
        std::fs::metadata(&config.root)
            .and_then(|m| m.modified())
            .ok()
    });
    let status = Arc::new(SourceStatus::new(
        config.image.clone(),
        unpacked,
        config.poll.is_some(),
    ));
    let Listeners {
        grpc: Bound {
            listener,
            addr: grpc_addr,
        },
        http,
        metrics,
    } = bind_all(&config)?;
    let http = match (http, &config.http) {
        (Some(bound), Some((_, http))) => {
            tracing::info!(address = %bound.addr, catalog = %http.catalog_name, "serving catalogd's HTTP API");
            Some((bound.listener, bound.addr, http.clone()))
        }
        _ => None,
    };
    let fleet = Fleet::single(Member {
        name: Arc::from(
            config
                .http
                .as_ref()
                .map_or("", |(_, http)| http.catalog_name.as_str()),
        ),
        catalog: catalog.clone(),
        status,
        priority: 0,
        source: config.root.display().to_string(),
        port: Some(grpc_addr.port()),
    });
    let http_addr = http.as_ref().map(|(_, local, _)| *local);
    if let Some(bound) = &metrics {
        tracing::info!(address = %bound.addr, "serving Prometheus metrics at /metrics");
    }
    let metrics_addr = metrics.as_ref().map(|bound| bound.addr);
    tracing::info!(address = %grpc_addr, configs = %config.root.display(), "serving registry");
    let reload = crate::snapshot::reload::spawn(reload_config(&config), publisher);
    if let (Some(poll), Some(image), Some(member)) =
        (config.poll.clone(), config.image.clone(), fleet.first())
    {
        // It polls for as long as the process runs.
        let _polling =
            crate::snapshot::poll::spawn(poll, image, reload.clone(), member.status.clone());
    }
    if config.watch {
        tracing::info!(
            debounce_ms = config.reload_debounce.as_millis() as u64,
            "watching the catalog for changes"
        );
    }
    let limits = crate::transport::limits::fit_fd_limit(config.transport.clone());
    let shutdown_delay = limits.shutdown_delay;
    let (stop, stopped) = watch::channel(false);
    let stop_signal = |mut stopped: watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|s| *s).await;
    };
    let http_task = http.map(|(listener, _, mut http)| {
        http.limits.shutdown_grace = limits.shutdown_grace;
        let signal = stop_signal(stopped.clone());
        let warm = http
            .eager_views
            .then(|| AbortOnDrop(tokio::spawn(crate::http::warm_views(catalog.clone()))));
        let served = crate::http::serve(listener, fleet.clone(), http, tls.clone(), signal);
        tokio::spawn(async move {
            served.await;
            drop(warm);
        })
    });
    let metrics_task = metrics.map(|Bound { listener, .. }| {
        let limits = crate::http::HttpLimits {
            shutdown_grace: limits.shutdown_grace,
            ..crate::http::HttpLimits::default()
        };
        let tls = tls.clone().filter(|_| config.metrics_tls);
        tokio::spawn(crate::http::metrics::serve(
            listener,
            tls,
            limits,
            stop_signal(stopped.clone()),
        ))
    });
    let services = crate::grpc::Services::Catalog {
        catalog: catalog.clone(),
        fleet: fleet.clone(),
    };
    let task = tokio::spawn(async move {
        let _tls_watcher = tls_watcher;
        crate::grpc::serve(listener, services, limits, tls, stop_signal(stopped)).await;
        join_listeners(Ok(()), http_task, metrics_task).await
    });
    // what ran only to start (flags, the load, binding) stops counting as memory
    crate::snapshot::mapped::forget_code_pages();
    Ok(ServerHandle {
        grpc_addr,
        http_addr,
        metrics_addr,
        catalog,
        fleet,
        reload,
        stop,
        shutdown_delay,
        task,
    })
}

/// Waits for the HTTP and metrics servers after the gRPC one ended with `grpc`: the first
/// failure, else `grpc`.
pub(crate) async fn join_listeners(
    grpc: Result<(), String>,
    http: Option<tokio::task::JoinHandle<()>>,
    metrics: Option<tokio::task::JoinHandle<()>>,
) -> Result<(), String> {
    if let Some(http) = http {
        http.await.map_err(|e| format!("HTTP server failed: {e}"))?;
    }
    if let Some(metrics) = metrics {
        metrics
            .await
            .map_err(|e| format!("metrics server failed: {e}"))?;
    }
    grpc
}

/// Aborts a task when dropped.
#[derive(Debug)]
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// [`first_load`] on a blocking thread, then [`serve`].
pub async fn start(config: ServeConfig) -> Result<ServerHandle, StartError> {
    let for_load = config.clone();
    let loaded = tokio::task::spawn_blocking(move || first_load(&for_load))
        .await
        .map_err(|e| {
            StartError::Catalog(vec![Diagnostic::new(
                fbc_catalog::diagnostic::Kind::Internal,
                fbc_catalog::diagnostic::Location::file(config.root.display().to_string()),
                format!("the first load failed: {e}"),
            )])
        })??;
    serve(config, loaded).await
}

/// A bound listener and the address it got.
struct Bound {
    listener: tokio::net::TcpListener,
    addr: SocketAddr,
}

/// Every listener a configuration asks for.
struct Listeners {
    grpc: Bound,
    http: Option<Bound>,
    metrics: Option<Bound>,
}

/// Binds the gRPC, HTTP and metrics listeners, in that order; the first that
/// cannot be bound (or tell its address) is the error.
fn bind_all(config: &ServeConfig) -> Result<Listeners, StartError> {
    Ok(Listeners {
        grpc: bind(&config.listen)?,
        http: config.http.as_ref().map(|(l, _)| bind(l)).transpose()?,
        metrics: config.metrics.as_ref().map(bind).transpose()?,
    })
}

fn bind(listen: &Listen) -> Result<Bound, StartError> {
    let failed = |source| StartError::Bind {
        listen: match listen {
            Listen::AllInterfaces(port) => format!("port {port}"),
            Listen::Addr(addr) => addr.to_string(),
        },
        source,
    };
    let listener = match listen {
        Listen::AllInterfaces(port) => crate::transport::bind_all_interfaces(*port),
        Listen::Addr(addr) => std::net::TcpListener::bind(addr).and_then(|l| {
            l.set_nonblocking(true)?;
            tokio::net::TcpListener::from_std(l)
        }),
    }
    .map_err(failed)?;
    let addr = listener.local_addr().map_err(failed)?;
    Ok(Bound { listener, addr })
}

fn reload_config(config: &ServeConfig) -> ReloadConfig {
    ReloadConfig {
        root: config.root.clone(),
        watch: config.watch,
        debounce: config.reload_debounce,
        sighup: config.sighup,
        options: config.load,
        load_timeout: config.load_timeout,
        spill: config.spill.clone(),
        // a filtered catalog is not cached (see crate::snapshot::filtered)
        cache_dir: match config.filter {
            Some(_) => None,
            None => config.cache.as_ref().map(|c| c.dir.clone()),
        },
        image: config.image.clone(),
        filter: config.filter.clone(),
    }
}
