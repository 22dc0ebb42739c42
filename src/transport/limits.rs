//! How much the transport lets clients hold, and the process limit it needs.
//!
//! In: the `serve` flags (`cli::args::TransportArgs`) or a struct literal (tests). Out:
//! [`TransportLimits`], the fixed HTTP/2 settings beside them, and
//! [`raise_fd_limit`], which lifts the soft `RLIMIT_NOFILE` to the hard one at
//! start (as Go's runtime does) and fits `max_connections` under it.

use std::time::Duration;

/// Largest request message accepted: grpc-go's default max receive size. A larger
/// one gets RESOURCE_EXHAUSTED with grpc-go's wording, before it is buffered.
pub const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// Request messages up to this size are always let through (every registry request
/// fits: at most four fields of at most 4096 bytes); bigger ones must fit the byte budget.
pub const SMALL_REQUEST: usize = 16 * 1024;

/// A connection that has sent no byte at all for this long is closed.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// File descriptors kept free for catalog files, the watcher and the cache when
/// `max_connections` is fitted under the fd limit.
pub const FD_RESERVE: u64 = 64;

/// HTTP/2 receive window per stream, in bytes: the most request data a client can
/// push on one call that its handler has not consumed. Requests are small; this is
/// the protocol's default (grpc-go's server starts from the same).
pub const STREAM_RECEIVE_WINDOW: u32 = 64 * 1024;

/// HTTP/2 receive window per connection (hyper's default). h2 derives from it its
/// budget of small DATA frames not yet consumed (half of it): with 64 KiB, a tonic
/// client opening 100 calls at once already gets GOAWAY ENHANCE_YOUR_CALM. Unread
/// request data is bounded per call by [`STREAM_RECEIVE_WINDOW`] anyway: every
/// request body is read or dropped at once except those of calls in flight.
pub const CONNECTION_RECEIVE_WINDOW: u32 = 1024 * 1024;

/// Streams a client may reset before the server accepts them, per connection, before
/// the connection gets a GOAWAY (h2's default; the HTTP/2 rapid-reset mitigation).
pub const MAX_PENDING_ACCEPT_RESETS: usize = 20;

/// Streams the server may reset for protocol errors, per connection, before it sends
/// a GOAWAY (hyper's default; set explicitly so an upgrade cannot drop it).
pub const MAX_LOCAL_ERROR_RESETS: usize = 1024;

/// Largest request header list accepted (hyper's default, set explicitly).
pub const MAX_HEADER_LIST_BYTES: u32 = 16 * 1024;

/// Reflection calls in flight at once. They bypass the registry's caps (so a person
/// can still look at a busy server) but have their own.
pub const MAX_REFLECTION_CALLS: usize = 64;

/// Health checks in flight at once on one connection. Health checks bypass every
/// global cap: probes open a connection each, so no other client can use up theirs.
pub const MAX_HEALTH_CALLS_PER_CONNECTION: usize = 8;

/// Bytes h2 buffers per stream beyond the peer's flow-control window before hyper
/// stops polling the reply (hyper's default; tonic does not expose it).
pub const H2_SEND_BUFFER: u64 = 400 * 1024;

/// tonic hands a reply body frame to hyper once this much is encoded; a frame is at
/// most this plus one whole message.
pub const ENCODE_CHUNK: u64 = 32 * 1024;

/// Everything the server lets clients hold. `Duration::ZERO` turns a timeout off.
///
/// # Memory bound
///
/// Beyond the served index, what any mix of clients can make the server hold is at
/// most (every term is a worst case, reached only when every slot is taken by a
/// client that stopped reading):
///
/// ```text
///   2·B + (C + R)·(S + L + 32 KiB + W) + N·(P + 8·H) + G·I
/// ```
///
/// - `B` = `max_buffered_reply_bytes`. Reply bytes handed to hyper and not yet
///   written to a socket are counted; while they exceed `B` new calls are refused
///   (so at most `B` belong to calls admitted before the last refusal). A request
///   message over [`SMALL_REQUEST`] reserves its declared length against the same
///   counter and is refused beyond it: request data buffered is at most
///   `B + (C + E)·16 KiB` (the small term is left out of the formula).
/// - `C` = `max_inflight_calls`, `R` = [`MAX_REFLECTION_CALLS`].
/// - `S` = [`H2_SEND_BUFFER`] (400 KiB): what h2 queues per stream before hyper stops
///   polling a reply; `L + 32 KiB` ([`ENCODE_CHUNK`]): the largest frame tonic hands
///   over. `L` is the catalog's largest reply: at most
///   [`GO_CLIENT_MAX_RECEIVE`](crate::views::registry::GO_CLIENT_MAX_RECEIVE) (4 MiB) unless the
///   load warned about bigger ones (`RegistryView::oversize_replies`, whose largest `bytes`
///   is then `L`). A ListBundles message of a bundle with an image is a few KiB.
/// - `W` = [`STREAM_RECEIVE_WINDOW`] (64 KiB): request data a call in flight can have
///   pushed that its handler has not read (a refused call's body is dropped at once).
/// - `N` = `max_connections`, `P` ≈ 20 KiB of connection state (hyper, h2, the
///   socket; 16 KiB measured per idle HTTP/2 connection, over 2,000 of them);
///   `8·H`: [`MAX_HEALTH_CALLS_PER_CONNECTION`] health checks, whose replies are a
///   few bytes, each holding `H` ≈ 4 KiB of stream state (an estimate, not measured).
/// - `G·I`: a stalled reply pins the snapshot it started on until `stall_timeout`
///   (+1 s) closes its connection, so the indexes of the generations published
///   within the last `stall_timeout` may stay alive (`G` = 1 without reloads).
///
/// With the defaults (`B` 64 MiB, `C` 512, `N` 1024) and `L` = 1 MiB that is
/// 128 MiB + 576 × 1.5 MiB + 1024 × 52 KiB ≈ 1 GiB in the worst case; the attack of
/// 10,000 unread ListBundles streams on one connection holds a few MiB (100 streams
/// are open at a time, the rest wait client-side).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransportLimits {
    /// Connections served at once; at the cap a new connection closes the one
    /// inactive longest (idle ones first), so a new client is always served.
    pub max_connections: usize,
    /// A connection with no call in progress for this long is closed.
    pub idle_timeout: Duration,
    /// A connection that has sent no byte for this long is closed.
    pub handshake_timeout: Duration,
    /// A connection whose client has left a reply unread (or a request unfinished)
    /// for this long is closed, with every stream on it.
    pub stall_timeout: Duration,
    /// Interval of the server's HTTP/2 keepalive pings (and TCP keepalive idle time).
    pub keepalive_interval: Duration,
    /// A ping unanswered for this long closes the connection.
    pub keepalive_timeout: Duration,
    /// SETTINGS_MAX_CONCURRENT_STREAMS per connection.
    pub max_concurrent_streams: u32,
    /// Registry calls in flight at once; beyond it a call is refused, never queued.
    pub max_inflight_calls: usize,
    /// Bytes waiting on slow clients (see the memory bound) above which calls are refused.
    pub max_buffered_reply_bytes: usize,
    /// After SIGTERM/SIGINT, how long calls in flight may take before every
    /// remaining connection is closed.
    pub shutdown_grace: Duration,
    /// After SIGTERM/SIGINT, how long health answers NOT_SERVING while
    /// everything is still served, before the listeners close (0: close at once).
    pub shutdown_delay: Duration,
    /// A connection older than this is sent GOAWAY, so its client reconnects and
    /// may land on another replica (grpc-go's MaxConnectionAge); `None`: never.
    pub max_connection_age: Option<Duration>,
    /// After [`TransportLimits::max_connection_age`], how long calls on the old
    /// connection may take before it is closed (grpc-go's MaxConnectionAgeGrace).
    pub max_connection_age_grace: Option<Duration>,
}

impl Default for TransportLimits {
    fn default() -> Self {
        TransportLimits {
            max_connections: 1024,
            idle_timeout: Duration::from_secs(30 * 60),
            handshake_timeout: HANDSHAKE_TIMEOUT,
            stall_timeout: Duration::from_secs(60),
            keepalive_interval: Duration::from_secs(120),
            keepalive_timeout: Duration::from_secs(20),
            max_concurrent_streams: 100,
            max_inflight_calls: 512,
            max_buffered_reply_bytes: 64 << 20,
            shutdown_grace: Duration::from_secs(10),
            shutdown_delay: Duration::ZERO,
            max_connection_age: None,
            max_connection_age_grace: None,
        }
    }
}

impl TransportLimits {
    /// The keepalive interval as tonic takes it (`None` when off).
    pub fn keepalive(&self) -> Option<Duration> {
        (!self.keepalive_interval.is_zero()).then_some(self.keepalive_interval)
    }

    /// The worst-case bytes of the memory bound (without the index term), for a
    /// catalog whose largest reply is `largest_reply` bytes.
    pub fn memory_bound(&self, largest_reply: u64) -> u64 {
        const PER_CONNECTION: u64 = 20 * 1024;
        const PER_HEALTH_CHECK: u64 = 4 * 1024;
        let calls = (self.max_inflight_calls + MAX_REFLECTION_CALLS) as u64;
        let per_call =
            H2_SEND_BUFFER + largest_reply + ENCODE_CHUNK + u64::from(STREAM_RECEIVE_WINDOW);
        2 * self.max_buffered_reply_bytes as u64
            + calls * per_call
            + self.max_connections as u64
                * (PER_CONNECTION + MAX_HEALTH_CALLS_PER_CONNECTION as u64 * PER_HEALTH_CHECK)
    }
}

/// The soft and hard `RLIMIT_NOFILE` after [`raise_fd_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FdLimit {
    /// The soft limit in force.
    pub soft: u64,
    /// The hard limit.
    pub hard: u64,
}

/// Why the fd limit could not be read or raised.
#[derive(Debug, thiserror::Error)]
#[error("{call} failed: {source}")]
pub struct FdLimitError {
    call: &'static str,
    source: std::io::Error,
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit, as Go's runtime does at start.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn raise_fd_limit() -> Result<FdLimit, FdLimitError> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit struct through the valid pointer given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        let source = std::io::Error::last_os_error();
        return Err(FdLimitError {
            call: "getrlimit",
            source,
        });
    }
    if lim.rlim_cur < lim.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: lim.rlim_max,
            rlim_max: lim.rlim_max,
        };
        // SAFETY: setrlimit reads one rlimit struct through the valid pointer given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
            let source = std::io::Error::last_os_error();
            return Err(FdLimitError {
                call: "setrlimit",
                source,
            });
        }
        lim = raised;
    }
    Ok(FdLimit {
        soft: lim.rlim_cur,
        hard: lim.rlim_max,
    })
}

/// Elsewhere the limit is left as it is and reported unknown.
#[cfg(not(target_os = "linux"))]
pub fn raise_fd_limit() -> Result<FdLimit, FdLimitError> {
    Ok(FdLimit {
        soft: u64::MAX,
        hard: u64::MAX,
    })
}

/// Raises the soft fd limit ([`raise_fd_limit`], logged at debug) and lowers
/// `limits.max_connections` to fit under it, with a warning.
pub fn fit_fd_limit(mut limits: TransportLimits) -> TransportLimits {
    match raise_fd_limit() {
        Ok(fd) => {
            tracing::debug!(soft = fd.soft, hard = fd.hard, "file descriptor limit");
            let fitted = fit_connections(limits.max_connections, fd.soft);
            if fitted < limits.max_connections {
                tracing::warn!(
                    max_connections = limits.max_connections,
                    fd_limit = fd.soft,
                    lowered_to = fitted,
                    "--max-connections does not fit the file descriptor limit; lowered"
                );
                limits.max_connections = fitted;
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot raise the file descriptor limit"),
    }
    limits
}

/// `max_connections` lowered to fit under `fd_limit` with [`FD_RESERVE`] descriptors
/// to spare (at least one connection is always allowed).
pub fn fit_connections(max_connections: usize, fd_limit: u64) -> usize {
    let room = fd_limit.saturating_sub(FD_RESERVE).max(1);
    usize::try_from(room).map_or(max_connections, |room| max_connections.min(room))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_fit_under_the_fd_limit() {
        assert_eq!(fit_connections(1024, 1024), 960);
        assert_eq!(fit_connections(1024, 1_048_576), 1024);
        assert_eq!(fit_connections(1024, 10), 1);
    }

    #[test]
    fn the_default_bound_is_about_a_gibibyte_for_one_mib_replies() {
        let bound = TransportLimits::default().memory_bound(1 << 20);
        assert!((900 << 20..1200 << 20).contains(&bound), "{bound}");
    }
}
