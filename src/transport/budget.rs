//! The server-wide counters admission decides on: bytes of replies not yet
//! written to slow clients, and calls in flight per pool.
//!
//! In: counts added and taken back by connections, reply bodies and
//! admission. Out: the current totals, and reservations that fit the limit.
//! A leaf of the server: connections ([`super::conn`]), request bodies
//! ([`crate::grpc::request`]) and admission ([`crate::grpc::admission`]) all count here.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The server-wide counters admission decides on.
#[derive(Debug)]
pub struct Budget {
    used: AtomicUsize,
    limit: usize,
    calls: AtomicUsize,
    max_calls: usize,
    reflection_calls: AtomicUsize,
}

/// Which pool a call belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Registry calls: capped by `max_inflight_calls` and the byte budget.
    Counted,
    /// Health checks: capped per connection only.
    Health,
    /// Reflection: capped by `MAX_REFLECTION_CALLS` only.
    Reflection,
}

impl Budget {
    /// A budget of `limit` bytes and `max_calls` registry calls.
    pub fn new(limit: usize, max_calls: usize) -> Self {
        Budget {
            used: AtomicUsize::new(0),
            limit,
            calls: AtomicUsize::new(0),
            max_calls,
            reflection_calls: AtomicUsize::new(0),
        }
    }

    /// The counter of `class`'s calls (health checks have none here).
    pub(crate) fn pool(&self, class: Class) -> Option<&AtomicUsize> {
        match class {
            Class::Counted => Some(&self.calls),
            Class::Reflection => Some(&self.reflection_calls),
            Class::Health => None,
        }
    }

    /// The byte limit.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The cap on registry calls in flight.
    pub fn max_calls(&self) -> usize {
        self.max_calls
    }

    /// Bytes counted now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    /// Counts `n` more bytes.
    pub fn add(&self, n: usize) {
        self.used.fetch_add(n, Ordering::AcqRel);
    }

    /// Counts `n` bytes fewer.
    pub fn sub(&self, n: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                Some(u.saturating_sub(n))
            });
    }

    /// Counts `n` more bytes if they fit the limit.
    pub fn try_reserve(&self, n: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                (u.saturating_add(n) <= self.limit).then(|| u + n)
            })
            .is_ok()
    }
}
