//! A server of several catalogs: `serve --config FILE` and `--catalog NAME=SOURCE`.
//!
//! In: a [`ManyConfig`] — the server-wide listeners (a health port, HTTP, metrics, TLS,
//! transport limits), the defaults each catalog starts from, and the catalogs
//! ([`CatalogSpec`]), with the config file to watch. Out: a running [`ManyHandle`].
//!
//! Each catalog is a unit of its own: it is fetched (a directory as it is, an image
//! pulled or unpacked into its own store), loaded through its own index cache
//! (`<cache-dir>/catalogs/NAME/`), published, reloaded on file changes, polled when it
//! is an image tag with a poll interval, and served on its own `api.Registry` port
//! when it has one. Units start side by side and never wait for one another; a unit
//! whose first load fails keeps trying (a directory when its files change, an image
//! after a backoff) while the others serve, and until then its health says
//! NOT_SERVING and `GET /catalogs/NAME/status` says why.
//!
//! The config file is watched: when it changes and reads cleanly, catalogs added are
//! started, removed ones stopped (their port drained as at shutdown), changed ones
//! restarted; the others are not touched. A file that does not read keeps the
//! catalogs served as they are.

pub use super::unit::{CatalogDefaults, build_caches};
use super::{AbortOnDrop, Listen, StartError, bind};
use crate::fleet::Fleet;
use crate::fleet::config::{self, CatalogSpec, ConfigError};
use crate::http::HttpConfig;
use crate::transport::limits::TransportLimits;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// A server of several catalogs.
#[derive(Clone, Debug)]
pub struct ManyConfig {
    /// The server-wide gRPC port, when asked for: health per catalog name, and reflection.
    pub listen: Option<Listen>,
    /// What clients may hold, on every gRPC port.
    pub transport: TransportLimits,
    /// catalogd's HTTP API for every catalog, at `/catalogs/NAME/…`.
    pub http: Option<(Listen, HttpConfig)>,
    /// Where to serve Prometheus metrics.
    pub metrics: Option<Listen>,
    /// Whether the metrics listener speaks TLS when `tls` is set.
    pub metrics_tls: bool,
    /// TLS for every listener.
    pub tls: Option<crate::transport::tls::TlsFiles>,
    /// What each catalog starts from.
    pub defaults: CatalogDefaults,
    /// The catalogs given by `--catalog` flags (always served).
    pub flagged: Vec<CatalogSpec>,
    /// The config file, read now and watched.
    pub file: Option<PathBuf>,
}

/// A running server of several catalogs.
#[derive(Debug)]
pub struct ManyHandle {
    /// The server-wide gRPC port's address, when it is open.
    pub grpc_addr: Option<SocketAddr>,
    /// The HTTP listener's address, if it runs.
    pub http_addr: Option<SocketAddr>,
    /// The metrics listener's address, if it runs.
    pub metrics_addr: Option<SocketAddr>,
    /// The served catalogs.
    pub fleet: Arc<Fleet>,
    supervisor: Arc<Supervisor>,
    stop: watch::Sender<bool>,
    shutdown_delay: Duration,
    task: tokio::task::JoinHandle<Result<(), String>>,
    _watcher: Option<AbortOnDrop>,
}

/// The catalogs in the config file and the flags, checked together.
pub fn read_specs(config: &ManyConfig, taken: &[u16]) -> Result<Vec<CatalogSpec>, ConfigError> {
    let mut specs = match &config.file {
        Some(file) => config::read_file(file)?,
        None => Vec::new(),
    };
    specs.extend(config.flagged.iter().cloned());
    config::check_all(&specs, taken)?;
    Ok(specs)
}

/// Binds the server-wide listeners and starts every catalog in `specs`; returns once
/// the listeners are bound (the catalogs load in the background).
pub async fn serve_many(
    config: ManyConfig,
    specs: Vec<CatalogSpec>,
) -> Result<ManyHandle, StartError> {
    let tls = match &config.tls {
        Some(files) => {
            Some(crate::transport::tls::Tls::load(files.clone()).map_err(StartError::Tls)?)
        }
        None => None,
    };
    let tls_watcher = tls.as_ref().and_then(|t| t.watch());
    let grpc = config.listen.as_ref().map(bind).transpose()?;
    let http = config.http.as_ref().map(|(l, _)| bind(l)).transpose()?;
    let metrics = config.metrics.as_ref().map(bind).transpose()?;
    let fleet = Fleet::new(true);
    let limits = crate::transport::limits::fit_fd_limit(config.transport.clone());
    let (stop, stopped) = watch::channel(false);
    let supervisor = Arc::new(Supervisor {
        fleet: fleet.clone(),
        defaults: config.defaults.clone(),
        limits: limits.clone(),
        tls: tls.clone(),
        eager_views: config.http.as_ref().is_some_and(|(_, h)| h.eager_views),
        stopped: stopped.clone(),
        units: Mutex::new(BTreeMap::new()),
    });
    supervisor.apply(specs);
    let grpc_addr = grpc.as_ref().map(|b| b.addr);
    let http_addr = http.as_ref().map(|b| b.addr);
    let metrics_addr = metrics.as_ref().map(|b| b.addr);
    let http_task = match (http, &config.http) {
        (Some(bound), Some((_, http))) => {
            tracing::info!(address = %bound.addr, "serving catalogd's HTTP API for every catalog");
            let mut http = http.clone();
            http.limits.shutdown_grace = limits.shutdown_grace;
            Some(tokio::spawn(crate::http::serve(
                bound.listener,
                fleet.clone(),
                http,
                tls.clone(),
                stop_signal(stopped.clone()),
            )))
        }
        _ => None,
    };
    let metrics_task = metrics.map(|bound| {
        tracing::info!(address = %bound.addr, "serving Prometheus metrics at /metrics");
        let http_limits = crate::http::HttpLimits {
            shutdown_grace: limits.shutdown_grace,
            ..crate::http::HttpLimits::default()
        };
        let tls = tls.clone().filter(|_| config.metrics_tls);
        tokio::spawn(crate::http::metrics::serve(
            bound.listener,
            tls,
            http_limits,
            stop_signal(stopped.clone()),
        ))
    });
    let watcher = config.file.clone().map(|file| {
        AbortOnDrop(tokio::spawn(watch_file(
            file,
            config.clone(),
            supervisor.clone(),
        )))
    });
    let services = crate::grpc::Services::Fleet(fleet.clone());
    let grpc_limits = limits.clone();
    let task = tokio::spawn(async move {
        let _tls_watcher = tls_watcher;
        let result = match grpc {
            Some(grpc) => {
                let stop = stop_signal(stopped);
                crate::grpc::serve(grpc.listener, services, grpc_limits, tls, stop).await;
                Ok(())
            }
            None => {
                stop_signal(stopped).await;
                Ok(())
            }
        };
        super::join_listeners(result, http_task, metrics_task).await
    });
    // Last, so a reader of the log that waits for this line has seen every address.
    if let Some(addr) = grpc_addr {
        tracing::info!(address = %addr, "serving health for every catalog by name");
    }
    // start-only code stops counting as memory (each catalog's load does the same)
    crate::snapshot::mapped::forget_code_pages();
    Ok(ManyHandle {
        grpc_addr,
        http_addr,
        metrics_addr,
        fleet,
        supervisor,
        stop,
        shutdown_delay: limits.shutdown_delay,
        task,
        _watcher: watcher,
    })
}

impl ManyHandle {
    /// Every catalog's `api.Registry` port, by catalog name (once bound).
    pub fn ports(&self) -> BTreeMap<String, u16> {
        self.fleet
            .members()
            .iter()
            .filter_map(|m| Some((m.name.to_string(), m.port?)))
            .collect()
    }

    /// Applies a new set of catalogs as a config change would.
    pub fn apply(&self, specs: Vec<CatalogSpec>) {
        self.supervisor.apply(specs);
    }

    /// Shuts down as [`super::ServerHandle::shutdown`]: NOT_SERVING first, then every
    /// listener drains.
    pub async fn shutdown(mut self) -> Result<(), String> {
        self.fleet.start_draining();
        tokio::time::sleep(self.shutdown_delay).await;
        let _ = self.stop.send(true);
        self.supervisor.stop_all().await;
        (&mut self.task)
            .await
            .map_err(|e| format!("server task failed: {e}"))?
    }

    /// Serves until `signal` resolves, then shuts down.
    pub async fn run_until(
        mut self,
        signal: impl std::future::Future<Output = ()>,
    ) -> Result<(), String> {
        tokio::select! {
            () = signal => self.shutdown().await,
            ended = &mut self.task => ended.map_err(|e| format!("server task failed: {e}"))?,
        }
    }
}

impl Drop for ManyHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

async fn stop_signal(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|s| *s).await;
}

/// Starts, stops and restarts units as the set of catalogs changes.
#[derive(Debug)]
struct Supervisor {
    fleet: Arc<Fleet>,
    defaults: CatalogDefaults,
    limits: TransportLimits,
    tls: Option<Arc<crate::transport::tls::Tls>>,
    /// HTTP is served with `--eager-views`: each unit builds its views at publish.
    eager_views: bool,
    stopped: watch::Receiver<bool>,
    units: Mutex<BTreeMap<String, super::unit::Unit>>,
}

impl Supervisor {
    /// Makes the running catalogs `specs`: new names started, missing ones stopped,
    /// changed ones restarted, the rest untouched.
    fn apply(&self, specs: Vec<CatalogSpec>) {
        let Ok(mut units) = self.units.lock() else {
            return;
        };
        let wanted: BTreeMap<String, CatalogSpec> =
            specs.into_iter().map(|s| (s.name.clone(), s)).collect();
        let gone: Vec<String> = units
            .iter()
            .filter(|(name, unit)| {
                wanted
                    .get(*name)
                    .is_none_or(|spec| !unit.spec.same_as(spec))
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in gone {
            if let Some(unit) = units.remove(&name) {
                tracing::info!(catalog = %name, "catalog removed or changed: stopping it");
                self.fleet.remove(&name);
                unit.stop();
            }
        }
        for (name, spec) in wanted {
            if units.contains_key(&name) {
                continue;
            }
            let unit = super::unit::Unit::start(
                spec,
                &self.defaults,
                &self.limits,
                self.tls.clone(),
                self.eager_views,
                &self.fleet,
                self.stopped.clone(),
            );
            units.insert(name, unit);
        }
    }

    /// Stops every unit (at shutdown).
    async fn stop_all(&self) {
        let units = match self.units.lock() {
            Ok(mut units) => std::mem::take(&mut *units),
            Err(_) => return,
        };
        for (_, unit) in units {
            unit.stop();
        }
    }
}

/// Watches the config file (its directory, so editors' renames and ConfigMap symlink
/// swaps are seen) and applies each version that reads cleanly.
async fn watch_file(file: PathBuf, config: ManyConfig, supervisor: Arc<Supervisor>) {
    use notify::Watcher;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<()>(1);
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let mut watcher = match notify::recommended_watcher(
        move |event: notify::Result<notify::Event>| {
            if event.is_ok_and(|e| !e.kind.is_access()) {
                let _ = tx.try_send(());
            }
        },
    ) {
        Ok(watcher) => watcher,
        Err(e) => {
            tracing::warn!(file = %file.display(), error = %e, "cannot watch the config file; changes need a restart");
            return;
        }
    };
    if let Err(e) = watcher.watch(&dir, notify::RecursiveMode::NonRecursive) {
        tracing::warn!(file = %file.display(), error = %e, "cannot watch the config file; changes need a restart");
        return;
    }
    let mut last = std::fs::read(&file).ok();
    while rx.recv().await.is_some() {
        // Coalesce a burst of events (an editor's write, rename and chmod).
        tokio::time::sleep(Duration::from_millis(250)).await;
        while rx.try_recv().is_ok() {}
        let now = std::fs::read(&file).ok();
        if now == last {
            continue;
        }
        last = now;
        match read_specs(&config, &taken_ports(&config)) {
            Ok(specs) => {
                tracing::info!(file = %file.display(), catalogs = specs.len(), "config file changed");
                supervisor.apply(specs);
            }
            Err(e) => {
                tracing::error!("{e}; the catalogs are served as they were");
            }
        }
    }
}

/// The ports of the server's own listeners, which no catalog may take.
pub fn taken_ports(config: &ManyConfig) -> Vec<u16> {
    let port = |listen: &Listen| match listen {
        Listen::AllInterfaces(port) => *port,
        Listen::Addr(addr) => addr.port(),
    };
    config
        .listen
        .iter()
        .chain(config.http.as_ref().map(|(l, _)| l))
        .chain(config.metrics.as_ref())
        .map(port)
        .filter(|p| *p != 0)
        .collect()
}

impl CatalogSpec {
    /// Whether a running unit of `self` can stay for `other` (everything but where it
    /// was written is the same).
    fn same_as(&self, other: &CatalogSpec) -> bool {
        CatalogSpec {
            origin: String::new(),
            ..self.clone()
        } == CatalogSpec {
            origin: String::new(),
            ..other.clone()
        }
    }
}
