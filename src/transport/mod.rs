//! Connections under both protocols: listeners, the live-connection list and its
//! reaper, the server-wide budgets, limits, and TLS.
//!
//! In: a port or an accepted TCP stream, [`limits::TransportLimits`], certificate
//! files. Out: tracked connections with a kill switch, admission counters, and
//! TLS acceptors. Nothing here knows gRPC or HTTP; [`crate::grpc`] and
//! [`crate::http`] build on it.
//!
//! | module | in → out |
//! |---|---|
//! | [`accept`] | an accepted stream or a failed accept → a configured stream, an eviction, a back-off |
//! | [`limits`] | flags → [`limits::TransportLimits`], the memory bound, the fd limit |
//! | [`conn`] | accepted stream → IO wrapper with shared state and a kill switch |
//! | [`connections`] | live connections → evictions and timeout kills (the reaper) |
//! | [`budget`] | the server-wide counters: reply bytes waiting on slow clients, calls per pool |
//! | [`served_io`] | a tracked connection → the IO a protocol server reads and writes |
//! | [`watched`] | a reply body + its call → a body counted as a call of its connection and watched for stalls |
//! | [`tls`] | certificate files → TLS acceptors, reloaded when the files change |

pub(crate) mod accept;
pub(crate) mod budget;
pub(crate) mod conn;
pub(crate) mod connections;
pub mod limits;
pub(crate) mod served_io;
pub mod tls;
pub(crate) mod watched;

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use tokio::net::TcpListener;

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
