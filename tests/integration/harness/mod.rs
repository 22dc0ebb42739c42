//! The one integration harness: `TestServer` (loads a catalog, binds
//! 127.0.0.1:0 through the app, serves until dropped), [`process`] (the binary
//! as a child on ports it picks and logs), fixtures, `eventually`.

pub mod catalogs;
pub mod process;

use fbc_registry::api::registry_client::RegistryClient;
use fbc_registry::api::{self};
use fbc_registry::app::{Listen, ServeConfig, ServerHandle};
use fbc_registry::snapshot::Catalog;
use fbc_registry::snapshot::reload::ReloadHandle;
use fbc_registry::transport::limits::TransportLimits;
use std::path::{Path, PathBuf};
use tokio::sync::oneshot;
use tonic::transport::Channel;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A server started through the app, on 127.0.0.1:0, stopped when dropped.
#[allow(dead_code)]
pub struct TestServer {
    pub addr: std::net::SocketAddr,
    /// The HTTP server's address, when the config asked for one.
    pub http: Option<std::net::SocketAddr>,
    /// The metrics listener's address, when the config asked for one.
    pub metrics: Option<std::net::SocketAddr>,
    pub catalog: Catalog,
    pub reload: ReloadHandle,
    handle: Option<ServerHandle>,
}

/// The configuration tests start from: loopback, no watching, no SIGHUP.
pub fn test_config(dir: &Path) -> ServeConfig {
    ServeConfig {
        watch: false,
        sighup: false,
        load_timeout: std::time::Duration::from_secs(60),
        ..ServeConfig::new(dir, Listen::Addr(([127, 0, 0, 1], 0).into()))
    }
}

/// [`test_config`] with the HTTP server on a loopback port, as catalog `name`.
pub fn http_config(dir: &Path, name: &str) -> ServeConfig {
    ServeConfig {
        http: Some((
            Listen::Addr(([127, 0, 0, 1], 0).into()),
            fbc_registry::http::HttpConfig {
                catalog_name: name.to_string(),
                limits: fbc_registry::http::HttpLimits::default(),
                browser: true,
                eager_views: false,
            },
        )),
        ..test_config(dir)
    }
}

impl TestServer {
    /// Loads `dir` and serves it.
    pub async fn start(dir: &Path) -> TestServer {
        Self::start_config(test_config(dir)).await
    }

    /// Starts the app with `config`.
    pub async fn start_config(config: ServeConfig) -> TestServer {
        let dir = config.root.clone();
        let handle = fbc_registry::app::start(config)
            .await
            .unwrap_or_else(|e| panic!("{}: {e:#?}", dir.display()));
        TestServer {
            addr: handle.grpc_addr,
            http: handle.http_addr,
            metrics: handle.metrics_addr,
            catalog: handle.catalog.clone(),
            reload: handle.reload.clone(),
            handle: Some(handle),
        }
    }

    /// Loads `dir` and serves it with hot reload (`watch` on or off).
    pub async fn start_reloading(
        dir: &Path,
        watch: bool,
        debounce: std::time::Duration,
    ) -> (TestServer, ReloadHandle) {
        let config = ServeConfig {
            watch,
            reload_debounce: debounce,
            ..test_config(dir)
        };
        let server = Self::start_config(config).await;
        let reload = server.reload.clone();
        (server, reload)
    }

    /// Loads `dir` and serves it over gRPC and HTTP, as catalog `name`.
    pub async fn start_http(dir: &Path, name: &str) -> TestServer {
        Self::start_config(http_config(dir, name)).await
    }

    /// The HTTP server's address.
    pub fn http_addr(&self) -> std::net::SocketAddr {
        self.http.expect("the HTTP server runs")
    }

    /// Loads `dir` and serves it under `limits`.
    pub async fn start_with(dir: &Path, limits: TransportLimits) -> TestServer {
        Self::start_config(ServeConfig {
            transport: limits,
            ..test_config(dir)
        })
        .await
    }

    /// Serves whatever `catalog` holds (nothing, until its publisher publishes):
    /// the transport alone, for what a client sees before the first load.
    pub async fn serve_unloaded(catalog: Catalog) -> (std::net::SocketAddr, oneshot::Sender<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            fbc_registry::grpc::serve(
                listener,
                fbc_registry::grpc::Services::Catalog {
                    catalog,
                    fleet: fbc_registry::fleet::Fleet::new(false),
                },
                TransportLimits::default(),
                None,
                async {
                    let _ = rx.await;
                },
            )
            .await;
        });
        (addr, tx)
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr))
            .expect("uri")
            .connect()
            .await
            .expect("connect")
    }

    pub async fn client(&self) -> RegistryClient<Channel> {
        RegistryClient::new(self.channel().await).max_decoding_message_size(64 * 1024 * 1024)
    }

    pub async fn stop(mut self) {
        if let Some(handle) = self.handle.take() {
            handle.shutdown().await.expect("server task");
        }
    }
}

pub async fn collect<T>(mut s: tonic::Streaming<T>) -> Vec<T> {
    let mut out = Vec::new();
    while let Some(item) = s.message().await.expect("stream item") {
        out.push(item);
    }
    out
}

/// ListPackages, as names.
pub async fn package_names(c: &mut RegistryClient<Channel>) -> Vec<String> {
    collect(
        c.list_packages(api::ListPackageRequest {})
            .await
            .expect("ListPackages")
            .into_inner(),
    )
    .await
    .into_iter()
    .map(|p| p.name)
    .collect()
}

/// GetLatestChannelEntriesThatProvide, collected.
pub async fn latest_providers(
    c: &mut RegistryClient<Channel>,
    group: &str,
    version: &str,
    kind: &str,
) -> Vec<api::ChannelEntry> {
    let req = api::GetLatestProvidersRequest {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
        plural: String::new(),
    };
    collect(
        c.get_latest_channel_entries_that_provide(req)
            .await
            .expect("GetLatestChannelEntriesThatProvide")
            .into_inner(),
    )
    .await
}

pub fn gvk_req(group: &str, version: &str, kind: &str) -> api::GetAllProvidersRequest {
    api::GetAllProvidersRequest {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
        plural: String::new(),
    }
}

/// (channel, bundle, replaces) of channel entries, sorted.
pub fn entry_triples(entries: &[api::ChannelEntry]) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = entries
        .iter()
        .map(|e| {
            (
                e.channel_name.clone(),
                e.bundle_name.clone(),
                e.replaces.clone(),
            )
        })
        .collect();
    v.sort();
    v
}

pub fn s(x: &str) -> String {
    x.to_string()
}

/// Copies a directory tree (files and directories only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// Replaces `from` with `to` in a file.
pub fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(
        text.contains(from),
        "{} does not contain {from:?}",
        path.display()
    );
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

/// Polls `check` until it holds or `within` passes.
pub async fn eventually<F, Fut>(within: std::time::Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if check().await {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for: {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The (package, catalog) pairs of a search answer (`/api/v1/packages`, `search -o json`), in order.
pub fn search_hits(answer: &serde_json::Value) -> Vec<(&str, &str)> {
    answer["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            (
                h["package"].as_str().unwrap_or_default(),
                h["catalog"].as_str().unwrap_or_default(),
            )
        })
        .collect()
}
