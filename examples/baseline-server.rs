//! Baseline `api.Registry` server: the same reply bytes as fbc-registry, no lookups.
//!
//! ```text
//! cargo run --release --example baseline-server -- --port 50052 --catalog DIR
//! ```
//!
//! At startup it loads the catalog with [`fbc_registry::snapshot::load::load`] and asks
//! the [`RegistryView`] for the reply of every target `examples/load/` drives, derived
//! the same way and in the same order (see there). It then ignores request fields:
//! each RPC hands out its precomputed replies **in rotation, in request order**
//! (one shared atomic counter per RPC), so over a run the reply sizes have the
//! same distribution as fbc-registry's for the load tool's round-robin targets.
//!
//! | RPC | replies rotated through |
//! |---|---|
//! | ListPackages | always every package name (the load tool's discovery needs it) |
//! | GetPackage | `package_reply` of every package, by name |
//! | GetBundleForChannel | `bundle_for_channel` of every (package, channel) |
//! | GetBundle | `bundle` of every ListBundles copy |
//! | GetBundleThatReplaces | `bundle_that_replaces` of every copy with a `replaces` |
//! | GetChannelEntriesThatProvide | the entry stream of every distinct provided GVK |
//! | ListBundles | always the whole stream, every copy (`list_bundles_item`) |
//!
//! Replies are written by the crate's own [`ReplyCodec`] through `tonic::server::Grpc`,
//! behind a small `tower::Service` routing on the path, on the same transport
//! settings as fbc-registry (HTTP/2 max concurrent streams unbounded, TCP_NODELAY).
//! The ratio fbc-registry / baseline thus measures fbc-registry's request lookup,
//! routing and service layers (snapshot load, call log, async-trait boxing).
//! Other RPCs answer Unimplemented. Listens on 127.0.0.1 only.

use bytes::Bytes;
use clap::Parser;
use fbc_registry::api;
use fbc_registry::grpc::wire::{Reply, ReplyCodec};
use fbc_registry::views::registry::RegistryView;
use prost::Message;
use std::collections::BTreeSet;
use std::convert::Infallible;
use std::future::{Future, Ready, ready};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use tonic::body::Body;
use tonic::server::{Grpc, NamedService, ServerStreamingService, UnaryService};
use tonic::{Request, Response, Status};

/// The allocator of the `fbc-registry` binary, so allocation costs compare like for like.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Baseline api.Registry server answering fixed, pre-encoded replies.
#[derive(Debug, Parser)]
#[command(about)]
struct Args {
    /// Port to listen on, on 127.0.0.1.
    #[arg(long, short)]
    port: u16,
    /// Catalog directory.
    #[arg(long)]
    catalog: PathBuf,
}

/// Items handed out in rotation, whatever the request (one `Arc`, cheap to clone).
struct Rotation<T>(Arc<RotationInner<T>>);

struct RotationInner<T> {
    items: Box<[T]>,
    next: AtomicUsize,
}

impl<T> Clone for Rotation<T> {
    fn clone(&self) -> Self {
        Rotation(self.0.clone())
    }
}

impl<T: Clone> Rotation<T> {
    fn new(items: Vec<T>) -> Self {
        Rotation(Arc::new(RotationInner {
            items: items.into(),
            next: AtomicUsize::new(0),
        }))
    }

    fn next(&self) -> Result<T, Status> {
        let r = &*self.0;
        if r.items.is_empty() {
            return Err(Status::unknown("the baseline has no reply for this RPC"));
        }
        let i = r.next.fetch_add(1, Ordering::Relaxed) % r.items.len();
        Ok(r.items[i].clone())
    }
}

/// A unary RPC answering the next reply of its rotation.
#[derive(Clone)]
struct FixedUnary(Rotation<Reply>);

impl<Req> UnaryService<Req> for FixedUnary {
    type Response = Reply;
    type Future = Ready<Result<Response<Reply>, Status>>;

    fn call(&mut self, _request: Request<Req>) -> Self::Future {
        ready(self.0.next().map(Response::new))
    }
}

/// Streams a shared list of replies.
struct ReplyIter {
    items: Arc<[Reply]>,
    next: usize,
}

impl Iterator for ReplyIter {
    type Item = Result<Reply, Status>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.items.get(self.next)?.clone();
        self.next += 1;
        Some(Ok(item))
    }
}

/// A server-streaming RPC answering the next stream of its rotation.
#[derive(Clone)]
struct FixedStream(Rotation<Arc<[Reply]>>);

impl<Req> ServerStreamingService<Req> for FixedStream {
    type Response = Reply;
    type ResponseStream = tokio_stream::Iter<ReplyIter>;
    type Future = Ready<Result<Response<Self::ResponseStream>, Status>>;

    fn call(&mut self, _request: Request<Req>) -> Self::Future {
        ready(
            self.0
                .next()
                .map(|items| Response::new(tokio_stream::iter(ReplyIter { items, next: 0 }))),
        )
    }
}

/// The service; tonic's router clones it per request, hence one `Arc`.
#[derive(Clone)]
struct Baseline(Arc<Rpcs>);

struct Rpcs {
    list_packages: FixedStream,
    get_package: FixedUnary,
    get_bundle_for_channel: FixedUnary,
    get_bundle: FixedUnary,
    get_bundle_that_replaces: FixedUnary,
    get_channel_entries_that_provide: FixedStream,
    list_bundles: FixedStream,
}

type HttpFuture =
    Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send + 'static>>;

fn unary<Req: Message + Default + Send + 'static>(
    svc: FixedUnary,
    req: http::Request<Body>,
) -> HttpFuture {
    Box::pin(async move {
        Ok(Grpc::new(ReplyCodec::<Req>::default())
            .unary(svc, req)
            .await)
    })
}

fn streaming<Req: Message + Default + Send + 'static>(
    svc: FixedStream,
    req: http::Request<Body>,
) -> HttpFuture {
    Box::pin(async move {
        Ok(Grpc::new(ReplyCodec::<Req>::default())
            .server_streaming(svc, req)
            .await)
    })
}

impl tower::Service<http::Request<Body>> for Baseline {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = HttpFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> HttpFuture {
        let rpcs = &*self.0;
        match req.uri().path() {
            "/api.Registry/ListPackages" => {
                streaming::<api::ListPackageRequest>(rpcs.list_packages.clone(), req)
            }
            "/api.Registry/GetPackage" => {
                unary::<api::GetPackageRequest>(rpcs.get_package.clone(), req)
            }
            "/api.Registry/GetBundleForChannel" => {
                unary::<api::GetBundleInChannelRequest>(rpcs.get_bundle_for_channel.clone(), req)
            }
            "/api.Registry/GetBundle" => {
                unary::<api::GetBundleRequest>(rpcs.get_bundle.clone(), req)
            }
            "/api.Registry/GetBundleThatReplaces" => {
                unary::<api::GetReplacementRequest>(rpcs.get_bundle_that_replaces.clone(), req)
            }
            "/api.Registry/GetChannelEntriesThatProvide" => {
                streaming::<api::GetAllProvidersRequest>(
                    rpcs.get_channel_entries_that_provide.clone(),
                    req,
                )
            }
            "/api.Registry/ListBundles" => {
                streaming::<api::ListBundlesRequest>(rpcs.list_bundles.clone(), req)
            }
            _ => Box::pin(async {
                Ok(Status::unimplemented("not implemented by the baseline").into_http())
            }),
        }
    }
}

impl NamedService for Baseline {
    const NAME: &'static str = "api.Registry";
}

fn decode<M: Message + Default>(bytes: &[u8], what: &str) -> Result<M, String> {
    M::decode(bytes).map_err(|e| format!("{what}: the index's reply does not decode: {e}"))
}

/// Every reply the load tool's targets get from fbc-registry, in the load tool's order.
fn precompute(ix: &RegistryView) -> Result<(Baseline, String), String> {
    let q = |what: &str, e: fbc_registry::views::registry::QueryError| format!("{what}: {e}");
    let mut packages = Vec::new();
    let mut heads = Vec::new();
    for name in ix.package_names() {
        let name = decode::<api::PackageName>(name, "ListPackages")?.name;
        let reply = ix.package_reply(&name).map_err(|e| q("GetPackage", e))?;
        let package = decode::<api::Package>(&reply.to_bytes(), "GetPackage")?;
        for ch in &package.channels {
            heads.push(
                ix.bundle_for_channel(&name, &ch.name)
                    .map_err(|e| q("GetBundleForChannel", e))?,
            );
        }
        packages.push(reply);
    }
    let mut list = Vec::with_capacity(ix.copy_count());
    let mut bundles = Vec::with_capacity(ix.copy_count());
    let mut replaces = Vec::new();
    let mut gvks = BTreeSet::new();
    for i in 0..ix.copy_count() {
        let item = ix
            .list_bundles_item(i)
            .ok_or_else(|| format!("ListBundles: no item {i}"))?;
        let b = decode::<api::Bundle>(&item.to_bytes(), "ListBundles")?;
        if !b.replaces.is_empty() {
            replaces.push(
                ix.bundle_that_replaces(&b.replaces, &b.package_name, &b.channel_name)
                    .map_err(|e| q("GetBundleThatReplaces", e))?,
            );
        }
        for g in b.provided_apis {
            gvks.insert((g.group, g.version, g.kind));
        }
        bundles.push(
            ix.bundle(&b.package_name, &b.channel_name, &b.csv_name)
                .map_err(|e| q("GetBundle", e))?,
        );
        list.push(item);
    }
    let mut provides = Vec::with_capacity(gvks.len());
    for (g, v, k) in &gvks {
        let entries: &[Bytes] = ix
            .entries_that_provide(g, v, k)
            .map_err(|e| q("GetChannelEntriesThatProvide", e))?;
        provides.push(
            entries
                .iter()
                .cloned()
                .map(Reply::one)
                .collect::<Arc<[Reply]>>(),
        );
    }
    let summary = format!(
        "{} packages, {} channel heads, {} bundle copies, {} with replaces, {} provided GVKs",
        packages.len(),
        heads.len(),
        bundles.len(),
        replaces.len(),
        provides.len()
    );
    let names = ix.package_names().iter().cloned().map(Reply::one).collect();
    let baseline = Baseline(Arc::new(Rpcs {
        list_packages: FixedStream(Rotation::new(vec![names])),
        get_package: FixedUnary(Rotation::new(packages)),
        get_bundle_for_channel: FixedUnary(Rotation::new(heads)),
        get_bundle: FixedUnary(Rotation::new(bundles)),
        get_bundle_that_replaces: FixedUnary(Rotation::new(replaces)),
        get_channel_entries_that_provide: FixedStream(Rotation::new(provides)),
        list_bundles: FixedStream(Rotation::new(vec![Arc::from(list)])),
    }));
    Ok((baseline, summary))
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn serve(port: u16, baseline: Baseline) -> Result<(), String> {
    use tokio_stream::StreamExt;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    eprintln!("baseline: serving api.Registry on {addr}");
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener).map(|conn| {
        if let Ok(stream) = &conn {
            let _ = stream.set_nodelay(true);
        }
        conn
    });
    tonic::transport::Server::builder()
        .max_concurrent_streams(Some(u32::MAX))
        .add_service(baseline)
        .serve_with_incoming_shutdown(incoming, shutdown_signal())
        .await
        .map_err(|e| format!("server failed: {e}"))
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (index, report) =
        match fbc_registry::snapshot::load::load(&args.catalog, &Default::default()) {
            Ok(loaded) => (loaded.registry, loaded.report),
            Err(errors) => {
                for e in &errors {
                    eprintln!("baseline: {e}");
                }
                eprintln!(
                    "baseline: {}: {} problems",
                    args.catalog.display(),
                    errors.len()
                );
                return ExitCode::FAILURE;
            }
        };
    let (baseline, summary) = match precompute(&index) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("baseline: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The replies share their chunks with the index by reference count.
    drop(index);
    eprintln!(
        "baseline: loaded {} in {:.2?}: {summary}",
        args.catalog.display(),
        report.total()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("failed to start the tokio runtime");
    match runtime.block_on(serve(args.port, baseline)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("baseline: {e}");
            ExitCode::FAILURE
        }
    }
}
