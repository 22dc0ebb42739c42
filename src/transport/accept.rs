//! What both protocol servers do with a freshly accepted TCP stream, and with a
//! failed accept.
//!
//! In: an accepted stream or an accept error, [`TransportLimits`], the
//! [`Connections`] list. Out: the stream configured (Nagle off, keepalive on); on
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
