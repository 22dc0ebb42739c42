//! One query's execution budget and what it leaves for the response writer.
//!
//! In: a deadline and a byte budget. Out: [`Exec`], which every resolver charges
//! before it produces a value, so a query stops early (and answers one error)
//! once it has run past catalogd's 5 s or produced more than the budget; and the
//! paths of `null` list elements, which async-graphql cannot answer as `null`
//! for an object type (graphql-go does), patched in afterwards.

use async_graphql::dynamic::ResolverContext;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Why a query stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Past the deadline (graphql-go: `context deadline exceeded`).
    Deadline,
    /// Its values passed the byte budget.
    TooLarge,
}

/// The budget of one query (request data of its execution).
#[derive(Debug)]
pub struct Exec {
    deadline: Instant,
    remaining: AtomicUsize,
    timed_out: AtomicBool,
    too_large: AtomicBool,
    nulls: Mutex<Vec<serde_json::Value>>,
}

/// The cost of resolving any field, beyond its value's bytes.
const FIELD_COST: usize = 16;

impl Exec {
    /// A budget of `bytes` until `deadline`.
    pub fn new(deadline: Instant, bytes: usize) -> Exec {
        Exec {
            deadline,
            remaining: AtomicUsize::new(bytes),
            timed_out: AtomicBool::new(false),
            too_large: AtomicBool::new(false),
            nulls: Mutex::new(Vec::new()),
        }
    }

    /// Charges one field of `bytes`; false once the query must stop.
    pub fn charge(&self, bytes: usize) -> bool {
        if self.stopped().is_some() {
            return false;
        }
        if Instant::now() > self.deadline {
            self.timed_out.store(true, Ordering::Relaxed);
            return false;
        }
        let cost = bytes.saturating_add(FIELD_COST);
        let before = self
            .remaining
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                r.checked_sub(cost)
            });
        if before.is_err() {
            self.too_large.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Why the query stopped early, if it did.
    pub fn stopped(&self) -> Option<Stopped> {
        if self.timed_out.load(Ordering::Relaxed) {
            Some(Stopped::Deadline)
        } else if self.too_large.load(Ordering::Relaxed) {
            Some(Stopped::TooLarge)
        } else {
            None
        }
    }

    /// Records that element `index` of the list `ctx` resolves is `null`.
    pub fn null_element(&self, ctx: &ResolverContext<'_>, index: usize) {
        let mut path = ctx
            .path_node
            .and_then(|node| serde_json::to_value(node).ok())
            .unwrap_or_else(|| serde_json::Value::Array(Vec::new()));
        if let serde_json::Value::Array(segments) = &mut path {
            segments.push(index.into());
        }
        if let Ok(mut nulls) = self.nulls.lock() {
            nulls.push(path);
        }
    }

    /// The paths of `null` list elements (each an array of keys and indexes).
    pub fn take_nulls(&self) -> Vec<serde_json::Value> {
        self.nulls
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }
}
