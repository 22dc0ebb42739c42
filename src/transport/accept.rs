//! What both protocol servers do with a freshly accepted TCP stream, and with a
//! failed accept.
//!
//! In: an accepted stream or an accept error, [`TransportLimits`], the
//! [`Connections`] list. Out: the stream configured (Nagle off, keepalive on, and
//! for HTTP/1.1 a low-water mark for unsent bytes); on
//! running out of descriptors, the connection inactive longest evicted; the
//! back-off to wait before the next accept.

use super::conn::ConnState;
use super::connections::Connections;
use super::limits::TransportLimits;
use std::time::Duration;
use tokio::net::TcpStream;

/// The first pause after a failed accept; it doubles with each failure in a row.
pub const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
/// The longest pause after failed accepts.
pub const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The most bytes the kernel holds unsent for an HTTP/1.1 connection before a
/// write waits (`TCP_NOTSENT_LOWAT`), see [`limit_unsent`].
const NOTSENT_LOWAT: u32 = 128 * 1024;

/// Sets [`NOTSENT_LOWAT`] on an HTTP/1.1 connection. Without it Linux lets the send
/// buffer grow to megabytes and wakes a refused writer only once a third of it has
/// drained, so a client reading a steady 16 KiB/s saw no write go through for over
/// a minute and was closed by the stall timeout as if it had stopped reading. With
/// it a write goes through each time the client has taken 128 KiB, so a reply is
/// judged by its own frames: at the default 60 s stall timeout, a client reading
/// under about 5 KiB/s (one 256 KiB frame a minute) is the one taken for stalled.
///
/// Not on the gRPC listener: measured there it cost 48 % more server CPU per
/// ListBundles call (1.07 vs 0.72 ms, more and smaller writes), for clients —
/// OLM's — that read at memory speed.
pub fn limit_unsent(stream: &TcpStream) {
    #[cfg(target_os = "linux")]
    let _ = socket2::SockRef::from(stream).set_tcp_notsent_lowat(NOTSENT_LOWAT);
}

/// Logs a failed accept; out of descriptors (or memory), frees one by eviction.
pub fn accept_failed(error: &std::io::Error, connections: &Connections) {
    if !out_of_resources(error) {
        tracing::debug!(%error, "accept failed");
        return;
    }
    let victim = connections.evict_one();
    tracing::warn!(
        %error,
        evicted = %victim.as_deref().map(peer_of).unwrap_or_default(),
        "cannot accept a connection: closed the connection inactive longest and backing off"
    );
}

/// The peer address of a connection, for logs.
pub fn peer_of(conn: &ConnState) -> String {
    conn.peer.map(|p| p.to_string()).unwrap_or_default()
}

#[cfg(target_os = "linux")]
fn out_of_resources(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

#[cfg(not(target_os = "linux"))]
fn out_of_resources(error: &std::io::Error) -> bool {
    error.raw_os_error().is_some()
}

/// Nagle off (as Go does: small unary replies are not held back waiting for an
/// ACK) and TCP keepalive on, so a peer that vanished is found.
pub fn configure(stream: &TcpStream, limits: &TransportLimits) {
    let _ = stream.set_nodelay(true);
    let Some(idle) = limits.keepalive() else {
        return;
    };
    let probe = (limits.keepalive_timeout / 3).max(Duration::from_secs(1));
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(idle)
        .with_interval(probe);
    #[cfg(target_os = "linux")]
    let keepalive = keepalive.with_retries(3);
    let _ = socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive);
}
