//! The live connections, and the reaper that enforces their timeouts.
//!
//! In: accepted streams ([`Connections::register`]), a clock tick. Out: [`ConnIo`]s for
//! tonic, and kills: of the connection inactive longest when a new one arrives at
//! the cap ([`Connections::evict_one`]), of connections idle, silent since accept, or
//! stalled past their timeouts ([`Connections::reap`]), and of all of them when the
//! shutdown grace ends ([`Connections::kill_all`]).

use super::budget::Budget;
use super::conn::{ConnIo, ConnState, now_ms};
use super::limits::TransportLimits;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::net::TcpStream;

/// Live connections by id.
#[derive(Debug)]
pub struct Connections {
    conns: Mutex<HashMap<u64, Arc<ConnState>>>,
    next_id: AtomicU64,
    budget: Arc<Budget>,
}

/// What the eviction choice looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Connection id.
    pub id: u64,
    /// Calls in progress.
    pub active_calls: usize,
    /// When a call last started or ended.
    pub last_activity_ms: u64,
}

/// The connection to evict: idle ones (no call in progress) before busy ones, and
/// among those the one inactive longest; ties go to the oldest id.
pub fn choose_victim(candidates: impl IntoIterator<Item = Candidate>) -> Option<u64> {
    candidates
        .into_iter()
        .min_by_key(|c| (c.active_calls > 0, c.last_activity_ms, c.id))
        .map(|c| c.id)
}

/// Why the reaper closes a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No byte received within the handshake timeout.
    Handshake,
    /// No call in progress for the idle timeout.
    Idle,
    /// A reply (or request) has waited on the client for the stall timeout.
    Stalled,
}

/// The reaper's decision for one connection at `now` (ms).
pub fn verdict(conn: &ConnState, limits: &TransportLimits, now: u64) -> Option<Verdict> {
    let over = |since: u64, limit: Duration| {
        !limit.is_zero() && u128::from(now.saturating_sub(since)) >= limit.as_millis()
    };
    if conn.bytes_read() == 0 && over(conn.accepted_ms, limits.handshake_timeout) {
        return Some(Verdict::Handshake);
    }
    let stall = limits.stall_timeout;
    if !stall.is_zero()
        && conn
            .longest_stall_ms(now)
            .is_some_and(|waited| u128::from(waited) >= stall.as_millis())
    {
        return Some(Verdict::Stalled);
    }
    if conn.active_calls() == 0 && over(conn.last_activity_ms(), limits.idle_timeout) {
        return Some(Verdict::Idle);
    }
    None
}

impl Connections {
    /// An empty registry whose connections count unsent bytes against `budget`.
    pub fn new(budget: Arc<Budget>) -> Arc<Connections> {
        Arc::new(Connections {
            conns: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            budget,
        })
    }

    fn live(&self) -> Vec<Arc<ConnState>> {
        self.conns
            .lock()
            .map(|c| c.values().filter(|c| !c.is_killed()).cloned().collect())
            .unwrap_or_default()
    }

    /// Connections not yet killed.
    pub fn live_count(&self) -> usize {
        self.conns
            .lock()
            .map(|c| c.values().filter(|c| !c.is_killed()).count())
            .unwrap_or(0)
    }

    /// Wraps and records an accepted stream; it leaves the registry when hyper drops it.
    pub fn register(self: &Arc<Self>, stream: TcpStream, peer: Option<SocketAddr>) -> ConnIo {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(ConnState::new(id, peer, self.budget.clone()));
        if let Ok(mut conns) = self.conns.lock() {
            conns.insert(id, state.clone());
        }
        let registry: Weak<Connections> = Arc::downgrade(self);
        ConnIo::new(
            stream,
            state,
            Box::new(move |state: &ConnState| {
                if let Some(registry) = registry.upgrade()
                    && let Ok(mut conns) = registry.conns.lock()
                {
                    conns.remove(&state.id);
                }
            }),
        )
    }

    /// Kills the live connection inactive longest (idle ones first); returns it.
    pub fn evict_one(&self) -> Option<Arc<ConnState>> {
        let live = self.live();
        let id = choose_victim(live.iter().map(|c| Candidate {
            id: c.id,
            active_calls: c.active_calls(),
            last_activity_ms: c.last_activity_ms(),
        }))?;
        let victim = live.into_iter().find(|c| c.id == id)?;
        victim.kill();
        Some(victim)
    }

    /// Kills every connection; returns how many were live.
    pub fn kill_all(&self) -> usize {
        self.live().iter().filter(|c| c.kill()).count()
    }

    /// Closes the connections whose timeouts have passed; returns how many.
    pub fn reap(&self, limits: &TransportLimits) -> usize {
        let now = now_ms();
        let mut closed = 0;
        for conn in self.live() {
            let Some(v) = verdict(&conn, limits, now) else {
                continue;
            };
            let peer = conn.peer.map(|p| p.to_string()).unwrap_or_default();
            match v {
                Verdict::Handshake => {
                    tracing::debug!(peer, "closing a connection that sent nothing")
                }
                Verdict::Idle => tracing::debug!(peer, "closing an idle connection"),
                Verdict::Stalled => tracing::warn!(
                    peer,
                    stall_timeout_ms = limits.stall_timeout.as_millis() as u64,
                    "closing a connection whose client stopped reading its replies"
                ),
            }
            if conn.kill() {
                closed += 1;
            }
        }
        closed
    }

    /// Runs [`Connections::reap`] about every second (more often for short timeouts)
    /// until the task is aborted.
    pub fn spawn_reaper(self: &Arc<Self>, limits: TransportLimits) -> tokio::task::JoinHandle<()> {
        let registry = self.clone();
        let shortest = [
            limits.idle_timeout,
            limits.handshake_timeout,
            limits.stall_timeout,
        ]
        .into_iter()
        .filter(|d| !d.is_zero())
        .min()
        .unwrap_or(Duration::from_secs(1));
        let tick = (shortest / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(tick);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                registry.reap(&limits);
            }
        })
    }
}

impl crate::metrics::ConnectionCount for Connections {
    fn live(&self) -> usize {
        self.live_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: u64, active_calls: usize, last_activity_ms: u64) -> Candidate {
        Candidate {
            id,
            active_calls,
            last_activity_ms,
        }
    }

    #[test]
    fn eviction_prefers_idle_connections_then_the_longest_inactive() {
        assert_eq!(choose_victim([]), None);
        assert_eq!(
            choose_victim([c(1, 3, 10), c(2, 0, 500), c(3, 0, 400), c(4, 1, 5)]),
            Some(3)
        );
        assert_eq!(choose_victim([c(1, 3, 10), c(4, 1, 5)]), Some(4));
        assert_eq!(choose_victim([c(7, 0, 5), c(6, 0, 5)]), Some(6));
    }

    #[test]
    fn the_reaper_judges_handshake_stall_and_idle() {
        let limits = TransportLimits {
            handshake_timeout: Duration::from_secs(10),
            stall_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(1800),
            ..TransportLimits::default()
        };
        let conn = ConnState::new(1, None, Arc::new(Budget::new(1 << 20, 8)));
        let t0 = conn.accepted_ms;
        assert_eq!(verdict(&conn, &limits, t0 + 9_000), None);
        assert_eq!(
            verdict(&conn, &limits, t0 + 10_000),
            Some(Verdict::Handshake)
        );
        conn.call_started();
        let clock = conn.watch();
        clock.start();
        // bytes_read is 0 still: pretend the client spoke by checking later rules
        let spoke = TransportLimits {
            handshake_timeout: Duration::ZERO,
            ..limits.clone()
        };
        assert_eq!(verdict(&conn, &spoke, t0 + 59_000), None);
        assert_eq!(verdict(&conn, &spoke, t0 + 61_000), Some(Verdict::Stalled));
        clock.stop();
        assert_eq!(verdict(&conn, &spoke, t0 + 3_600_000), None, "busy");
        conn.call_ended();
        assert_eq!(
            verdict(&conn, &spoke, now_ms() + 1_800_000),
            Some(Verdict::Idle)
        );
    }
}
