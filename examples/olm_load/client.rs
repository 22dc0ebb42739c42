//! One OLM client: its connection (counted each time it is opened), syncs and
//! point queries.

use crate::record::Run;
use crate::rng::{Rng, Timing as _};
use crate::status::{MAX_TRANSPARENT_RETRIES, code_name, describe, unprocessed};
use crate::targets::Targets;
use fbc_registry::api;
use fbc_registry::api::registry_client::RegistryClient;
use prost::Message as _;
use std::collections::HashSet;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tonic::Status;
use tonic::transport::Channel;

// One connection per client, and a count of each time it is opened.

pub(crate) struct ClientState {
    /// A connection was opened since the marker was last asked.
    pub(crate) fresh: AtomicBool,
}

/// The client's TCP connector: tonic calls it for the first connection and again
/// after each connection ends (its TLS, when configured, goes over the stream).
#[derive(Clone)]
pub(crate) struct Dial {
    pub(crate) addr: SocketAddr,
    pub(crate) run: Arc<Run>,
    pub(crate) me: Arc<ClientState>,
}

impl tower::Service<http::Uri> for Dial {
    type Response = hyper_util::rt::TokioIo<TcpStream>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: http::Uri) -> Self::Future {
        let (addr, run, me) = (self.addr, self.run.clone(), self.me.clone());
        Box::pin(async move {
            let stream = TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            run.connected();
            me.fresh.store(true, Ordering::Relaxed);
            Ok(hyper_util::rt::TokioIo::new(stream))
        })
    }
}

// A client.

pub(crate) struct Client {
    pub(crate) index: usize,
    pub(crate) run: Arc<Run>,
    pub(crate) targets: Arc<Targets>,
    pub(crate) me: Arc<ClientState>,
    pub(crate) registry: RegistryClient<Channel>,
    pub(crate) rng: Rng,
    pub(crate) timeout: Duration,
    pub(crate) marker: Option<String>,
    pub(crate) transparent_retry: bool,
}

impl Client {
    /// Runs the call `make` makes, bounded by the timeout (retries included), sends it
    /// again while it provably never reached the server (see [`unprocessed`]), and
    /// records the outcome under `rpc`.
    pub(crate) async fn call<T, F, Fut>(&self, rpc: &'static str, mut make: F) -> Option<T>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<(T, usize), Status>>,
    {
        let t = Instant::now();
        let attempts = async {
            let mut retries = 0;
            loop {
                match make().await {
                    Err(status)
                        if self.transparent_retry
                            && retries < MAX_TRANSPARENT_RETRIES
                            && unprocessed(&status) =>
                    {
                        retries += 1;
                        self.run
                            .retried(rpc, code_name(status.code()), describe(&status));
                    }
                    outcome => return outcome,
                }
            }
        };
        match tokio::time::timeout(self.timeout, attempts).await {
            Ok(Ok((value, bytes))) => {
                self.run.ok(rpc, t.elapsed(), bytes);
                Some(value)
            }
            Ok(Err(status)) => {
                self.run.failed(
                    rpc,
                    t.elapsed(),
                    code_name(status.code()),
                    describe(&status),
                );
                None
            }
            Err(_) => {
                self.run.failed(
                    rpc,
                    t.elapsed(),
                    "CLIENT_TIMEOUT",
                    format!("no answer within {:?}", self.timeout),
                );
                None
            }
        }
    }

    /// OLM's snapshot: ListBundles, and GetPackage of each package as it first
    /// appears, inside the open stream.
    pub(crate) async fn sync(&self) {
        let this = self;
        self.call("ListBundles", || async move {
            let mut registry = this.registry.clone();
            let mut stream = registry
                .list_bundles(api::ListBundlesRequest {})
                .await?
                .into_inner();
            let mut seen = HashSet::new();
            let mut bytes = 0;
            while let Some(b) = stream.message().await? {
                bytes += b.encoded_len();
                if seen.insert(b.package_name.clone()) {
                    let name = b.package_name;
                    this.call("GetPackage", || {
                        let mut r = this.registry.clone();
                        let name = name.clone();
                        async move {
                            let p = r
                                .get_package(api::GetPackageRequest { name })
                                .await?
                                .into_inner();
                            Ok(((), p.encoded_len()))
                        }
                    })
                    .await;
                }
            }
            Ok(((), bytes))
        })
        .await;
    }

    /// One point query, on a random target.
    pub(crate) async fn point(&mut self) {
        let t = self.targets.clone();
        let kind = self.rng.below(4);
        let r = self.registry.clone();
        match kind {
            1 if !t.heads.is_empty() => {
                let req = t.heads[self.rng.below(t.heads.len())].clone();
                self.call("GetBundleForChannel", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_bundle_for_channel(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
            2 if !t.replaces.is_empty() => {
                let req = t.replaces[self.rng.below(t.replaces.len())].clone();
                self.call("GetBundleThatReplaces", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_bundle_that_replaces(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
            3 if !t.provides.is_empty() => {
                let req = t.provides[self.rng.below(t.provides.len())].clone();
                self.call("GetDefaultBundleThatProvides", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_default_bundle_that_provides(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
            _ => {
                let req = t.bundles[self.rng.below(t.bundles.len())].clone();
                self.call("GetBundle", || {
                    let (mut r, req) = (r.clone(), req.clone());
                    async move {
                        let b = r.get_bundle(req).await?.into_inner();
                        Ok(((), b.encoded_len()))
                    }
                })
                .await;
            }
        }
    }

    /// Where the connection just opened landed.
    pub(crate) async fn whoami(&self) {
        let Some(name) = self.marker.clone() else {
            return;
        };
        if !self.me.fresh.swap(false, Ordering::Relaxed) {
            return;
        }
        let answer = self
            .call("GetPackage(marker)", || {
                let (mut r, name) = (self.registry.clone(), name.clone());
                async move {
                    let p = r
                        .get_package(api::GetPackageRequest { name })
                        .await?
                        .into_inner();
                    let size = p.encoded_len();
                    Ok((p.default_channel_name, size))
                }
            })
            .await;
        if let Some(replica) = answer {
            self.run.landed(self.index, &replica);
        }
    }

    pub(crate) async fn run(
        mut self,
        resync: Duration,
        think: Duration,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut next_sync = Instant::now();
        loop {
            if *stop.borrow() {
                break;
            }
            self.whoami().await;
            let now = Instant::now();
            if now >= next_sync {
                self.sync().await;
                next_sync = Instant::now() + self.rng.jitter(resync);
                continue;
            }
            let pause = self.rng.exp(think).min(next_sync - now);
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                _ = stop.changed() => break,
            }
            if Instant::now() >= next_sync {
                continue;
            }
            self.point().await;
        }
    }
}
