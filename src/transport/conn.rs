//! One accepted connection: its state, and the IO wrapper hyper reads and writes.
//!
//! In: an accepted `TcpStream`. Out: a [`ConnIo`] for tonic's server, whose
//! [`Connected::connect_info`](tonic::transport::server::Connected::connect_info) is the connection's shared [`ConnState`], so the
//! admission layer finds it in every request's extensions. The state records what
//! the reaper and eviction decide on (activity, bytes read, calls in progress, the
//! clocks of replies waiting on the client) and carries a kill switch: once killed,
//! the wrapper's reads and writes fail, hyper drops the connection and with it every
//! stream on it — the only way to free a stream whose client withholds
//! WINDOW_UPDATEs, since hyper never polls such a stream's reply again.

use super::budget::Budget;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Milliseconds since the first call in this process (a cheap shared clock).
pub fn now_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Since when something has waited on the client: a reply frame handed to hyper that
/// hyper has not asked to follow, or a request message not yet complete.
#[derive(Debug, Default)]
pub struct StallClock {
    /// `now_ms() + 1` when the wait began; 0 while nothing waits.
    since: AtomicU64,
}

impl StallClock {
    /// Starts the clock unless it runs already.
    pub fn start(&self) {
        let _ = self
            .since
            .compare_exchange(0, now_ms() + 1, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Stops the clock.
    pub fn stop(&self) {
        self.since.store(0, Ordering::Relaxed);
    }

    /// How long the current wait has lasted, in ms (`None` while nothing waits).
    pub fn waited_ms(&self, now: u64) -> Option<u64> {
        match self.since.load(Ordering::Relaxed) {
            0 => None,
            since => Some(now.saturating_sub(since - 1)),
        }
    }
}

/// Marks a closed connection in [`ConnState::unsent`].
const CLOSED: usize = 1 << (usize::BITS - 1);

/// The shared state of one connection.
#[derive(Debug)]
pub struct ConnState {
    /// Unique per process.
    pub id: u64,
    /// The client's address.
    pub peer: Option<SocketAddr>,
    /// When it was accepted (`now_ms`).
    pub accepted_ms: u64,
    last_activity_ms: AtomicU64,
    bytes_read: AtomicU64,
    active_calls: AtomicUsize,
    health_checks: AtomicUsize,
    /// Reply bytes handed to hyper and not yet written to the socket (with [`CLOSED`]).
    unsent: AtomicUsize,
    clocks: Mutex<Vec<Arc<StallClock>>>,
    /// Since when the socket has refused every write (the client reads nothing: a
    /// SETTINGS or PING flood whose answers it never takes, a reply it never reads).
    socket_write: StallClock,
    killed: AtomicBool,
    waker: Mutex<Option<Waker>>,
    budget: Arc<Budget>,
}

impl ConnState {
    /// The state of a connection accepted now.
    pub fn new(id: u64, peer: Option<SocketAddr>, budget: Arc<Budget>) -> Self {
        let now = now_ms();
        ConnState {
            id,
            peer,
            accepted_ms: now,
            last_activity_ms: AtomicU64::new(now),
            bytes_read: AtomicU64::new(0),
            active_calls: AtomicUsize::new(0),
            health_checks: AtomicUsize::new(0),
            unsent: AtomicUsize::new(0),
            clocks: Mutex::new(Vec::new()),
            socket_write: StallClock::default(),
            killed: AtomicBool::new(false),
            waker: Mutex::new(None),
            budget,
        }
    }

    /// A call started.
    pub fn call_started(&self) {
        self.active_calls.fetch_add(1, Ordering::Relaxed);
        self.touch();
    }

    /// A call ended (its reply finished or was dropped).
    pub fn call_ended(&self) {
        self.active_calls.fetch_sub(1, Ordering::Relaxed);
        self.touch();
    }

    fn touch(&self) {
        self.last_activity_ms.store(now_ms(), Ordering::Relaxed);
    }

    /// Counts one more health check in flight, unless `max` are; then how many are.
    pub fn try_start_health_check(&self, max: usize) -> Result<(), usize> {
        self.health_checks
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map(|_| ())
    }

    /// A health check ended.
    pub fn health_check_ended(&self) {
        self.health_checks.fetch_sub(1, Ordering::AcqRel);
    }

    /// Calls in progress.
    pub fn active_calls(&self) -> usize {
        self.active_calls.load(Ordering::Relaxed)
    }

    /// When a call last started or ended (or the connection was accepted).
    pub fn last_activity_ms(&self) -> u64 {
        self.last_activity_ms.load(Ordering::Relaxed)
    }

    /// Bytes received so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// `n` reply bytes were handed to hyper: count them until they are written.
    pub fn handed(&self, n: usize) {
        let added = self
            .unsent
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                (u & CLOSED == 0).then(|| u.saturating_add(n))
            });
        if added.is_ok() {
            self.budget.add(n);
        }
    }

    /// `n` bytes were written to the socket.
    fn written(&self, n: usize) {
        let before = self
            .unsent
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                (u & CLOSED == 0 && u > 0).then(|| u.saturating_sub(n))
            });
        if let Ok(before) = before {
            self.budget.sub(before.min(n));
        }
    }

    /// Reply bytes handed to hyper and not yet written.
    #[cfg(test)]
    pub fn unsent(&self) -> usize {
        self.unsent.load(Ordering::Relaxed) & !CLOSED
    }

    /// The connection is gone: what it had not written no longer counts.
    fn closed(&self) {
        let before = self.unsent.swap(CLOSED, Ordering::AcqRel);
        if before & CLOSED == 0 {
            self.budget.sub(before);
        }
    }

    /// A new stall clock of this connection, watched by the reaper until dropped
    /// with [`ConnState::unwatch`].
    pub fn watch(&self) -> Arc<StallClock> {
        let clock = Arc::new(StallClock::default());
        if let Ok(mut clocks) = self.clocks.lock() {
            clocks.push(clock.clone());
        }
        clock
    }

    /// Stops watching `clock`.
    pub fn unwatch(&self, clock: &Arc<StallClock>) {
        if let Ok(mut clocks) = self.clocks.lock() {
            clocks.retain(|c| !Arc::ptr_eq(c, clock));
        }
    }

    /// The longest current wait on the client, in ms: a reply or request waiting on
    /// it, or the socket refusing writes.
    pub fn longest_stall_ms(&self, now: u64) -> Option<u64> {
        let clocks = self.clocks.lock().ok()?;
        let socket = self.socket_write.waited_ms(now);
        clocks
            .iter()
            .filter_map(|c| c.waited_ms(now))
            .chain(socket)
            .max()
    }

    /// Runs the socket's write clock while a write is refused, stops it on progress.
    fn write_polled<T>(&self, polled: &Poll<io::Result<T>>) {
        match polled {
            Poll::Pending => self.socket_write.start(),
            Poll::Ready(_) => self.socket_write.stop(),
        }
    }

    /// Closes the connection: its reads and writes fail from now on, so hyper drops
    /// it and every stream on it. Returns false if it was killed already.
    pub fn kill(&self) -> bool {
        if self.killed.swap(true, Ordering::AcqRel) {
            return false;
        }
        let waker = self.waker.lock().ok().and_then(|mut w| w.take());
        if let Some(waker) = waker {
            waker.wake();
        }
        true
    }

    /// Whether [`ConnState::kill`] was called.
    pub fn is_killed(&self) -> bool {
        self.killed.load(Ordering::Acquire)
    }

    /// Fails once killed; otherwise remembers who to wake on a kill.
    fn check(&self, cx: &Context<'_>) -> io::Result<()> {
        if self.is_killed() {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "connection closed by the server",
            ));
        }
        if let Ok(mut w) = self.waker.lock()
            && !w.as_ref().is_some_and(|w| w.will_wake(cx.waker()))
        {
            *w = Some(cx.waker().clone());
        }
        Ok(())
    }
}

/// What tonic puts in each request's extensions: the connection's state.
#[derive(Clone, Debug)]
pub struct ConnInfo(pub Arc<ConnState>);

/// Called when a [`ConnIo`] is dropped (the registry forgets the connection).
pub type OnClose = Box<dyn FnOnce(&ConnState) + Send + Sync>;

/// The IO hyper serves: a `TcpStream` that counts what passes and obeys the kill switch.
pub struct ConnIo {
    stream: TcpStream,
    state: Arc<ConnState>,
    on_close: Option<OnClose>,
}

impl ConnIo {
    /// Wraps an accepted stream.
    pub fn new(stream: TcpStream, state: Arc<ConnState>, on_close: OnClose) -> Self {
        ConnIo {
            stream,
            state,
            on_close: Some(on_close),
        }
    }

    /// The connection's state.
    pub fn state(&self) -> &Arc<ConnState> {
        &self.state
    }
}

impl Drop for ConnIo {
    fn drop(&mut self) {
        self.state.closed();
        if let Some(on_close) = self.on_close.take() {
            on_close(&self.state);
        }
    }
}

impl tonic::transport::server::Connected for ConnIo {
    type ConnectInfo = ConnInfo;

    fn connect_info(&self) -> ConnInfo {
        ConnInfo(self.state.clone())
    }
}

impl AsyncRead for ConnIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.state.check(cx)?;
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let n = (buf.filled().len() - before) as u64;
            this.state.bytes_read.fetch_add(n, Ordering::Relaxed);
        }
        polled
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.state.check(cx)?;
        let polled = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.state.write_polled(&polled);
        if let Poll::Ready(Ok(n)) = polled {
            this.state.written(n);
        }
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.state.check(cx)?;
        let polled = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.state.write_polled(&polled);
        if let Poll::Ready(Ok(n)) = polled {
            this.state.written(n);
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.state.check(cx)?;
        Pin::new(&mut this.stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> (Arc<Budget>, ConnState) {
        let budget = Arc::new(Budget::new(1 << 20, 8));
        (budget.clone(), ConnState::new(1, None, budget))
    }

    #[test]
    fn unsent_bytes_count_until_written_and_vanish_with_the_connection() {
        let (budget, conn) = state();
        conn.handed(100);
        conn.written(30);
        assert_eq!((conn.unsent(), budget.used()), (70, 70));
        // frame headers and HEADERS frames are written too: never below zero
        conn.written(500);
        assert_eq!((conn.unsent(), budget.used()), (0, 0));
        conn.handed(40);
        conn.closed();
        assert_eq!(budget.used(), 0);
        conn.handed(10);
        assert_eq!(budget.used(), 0, "nothing counts after the close");
    }

    #[test]
    fn stall_clocks_report_the_longest_wait() {
        let (_, conn) = state();
        let a = conn.watch();
        let b = conn.watch();
        assert_eq!(conn.longest_stall_ms(now_ms()), None);
        a.start();
        b.start();
        assert!(conn.longest_stall_ms(now_ms() + 5_000) >= Some(5_000));
        a.stop();
        conn.unwatch(&b);
        assert_eq!(conn.longest_stall_ms(now_ms() + 5_000), None);
    }

    #[test]
    fn a_refused_write_runs_the_socket_clock_until_a_write_goes_through() {
        let (_budget, conn) = state();
        conn.write_polled::<usize>(&Poll::Pending);
        assert!(conn.longest_stall_ms(now_ms() + 5_000) >= Some(5_000));
        conn.write_polled(&Poll::Ready(Ok(1usize)));
        assert_eq!(conn.longest_stall_ms(now_ms() + 5_000), None);
    }
}
