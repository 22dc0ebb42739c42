//! Listening gRPC server over a [`Catalog`].
//!
//! In: a bound listener, the catalog, a shutdown signal. Out: the services of the
//! reference (`api.Registry`, `api.ExperimentalRegistry`, `grpc.health.v1.Health`,
//! reflection v1 and v1alpha) until shutdown, after which calls in flight finish.
//!
//! Transport settings suit OLM's Go clients: plaintext HTTP/2, an effectively
//! unlimited number of concurrent streams per connection (the resolver issues
//! GetPackage inside an open ListBundles stream; the packageserver fires bursts),
//! no keepalive demands on clients.

use crate::service::health::{Health, HealthServer};
use crate::service::{Experimental, ExperimentalRegistryServer, Registry, RegistryServer};
use crate::snapshot::Catalog;
use std::future::Future;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;

/// Binds `port` on all interfaces: dual-stack `[::]` (IPv4-mapped addresses on),
/// falling back to `0.0.0.0` where IPv6 is unavailable, like Go's `net.Listen(":port")`.
pub fn bind_all_interfaces(port: u16) -> std::io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let dual = (|| -> std::io::Result<std::net::TcpListener> {
        let socket = Socket::new(Domain::IPV6, Type::STREAM, Some(Protocol::TCP))?;
        socket.set_only_v6(false)?;
        socket.set_reuse_address(true)?;
        socket.bind(&SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)).into())?;
        socket.listen(1024)?;
        Ok(socket.into())
    })();
    let std_listener = match dual {
        Ok(l) => l,
        Err(_) => {
            let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
            socket.set_reuse_address(true)?;
            socket.bind(&SocketAddr::from((Ipv4Addr::UNSPECIFIED, port)).into())?;
            socket.listen(1024)?;
            socket.into()
        }
    };
    std_listener.set_nonblocking(true)?;
    TcpListener::from_std(std_listener)
}

/// Serves every service on `listener` until `shutdown` resolves, then waits for
/// calls in flight.
pub async fn serve(
    listener: TcpListener,
    catalog: Catalog,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    // Both reflection versions advertise all five services, as grpc-go does.
    let descriptors = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(crate::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(
                tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
            )
    };
    let reflection_v1 = descriptors().build_v1();
    let reflection_v1alpha = descriptors().build_v1alpha();
    if reflection_v1.is_err() || reflection_v1alpha.is_err() {
        // The descriptor sets are compiled in; failing here is a build defect.
        tracing::error!(
            "server reflection is unavailable: the embedded descriptor set did not decode"
        );
    }
    tonic::transport::Server::builder()
        .max_concurrent_streams(Some(u32::MAX))
        .layer(tower::layer::layer_fn(CallLog::new))
        .add_service(RegistryServer::new(Registry::new(catalog.clone())))
        .add_service(ExperimentalRegistryServer::new(Experimental::new(
            catalog.clone(),
        )))
        .add_service(HealthServer::new(Health::new(catalog)))
        .add_optional_service(reflection_v1.ok())
        .add_optional_service(reflection_v1alpha.ok())
        .serve_with_incoming_shutdown(incoming(listener), shutdown)
        .await
}

/// Accepted connections with Nagle's algorithm off, as Go's net package does:
/// small unary replies are not held back waiting for an ACK.
fn incoming(
    listener: TcpListener,
) -> impl tokio_stream::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    use tokio_stream::StreamExt;
    TcpListenerStream::new(listener).map(|conn| {
        if let Ok(stream) = &conn {
            let _ = stream.set_nodelay(true);
        }
        conn
    })
}

/// Logs one debug line per call: method, and time to the response headers.
#[derive(Clone, Debug)]
pub struct CallLog<S> {
    inner: S,
}

impl<S> CallLog<S> {
    fn new(inner: S) -> Self {
        CallLog { inner }
    }
}

impl<S, B> tower::Service<http::Request<B>> for CallLog<S>
where
    S: tower::Service<http::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = std::pin::Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        // nothing is copied on the request path unless debug logging is on
        let method =
            tracing::enabled!(tracing::Level::DEBUG).then(|| request.uri().path().to_string());
        let start = Instant::now();
        let fut = self.inner.call(request);
        Box::pin(async move {
            let result = fut.await;
            if let Some(method) = method {
                tracing::debug!(grpc.method = %method, elapsed_us = start.elapsed().as_micros() as u64, "call");
            }
            result
        })
    }
}
