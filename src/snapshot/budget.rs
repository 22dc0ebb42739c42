//! The memory target: which built views the process keeps.
//!
//! In: the target (`serve --memory-target`, set once at start) and every view of
//! every snapshot as it is built ([`admit`]) or read ([`used`]). Out: the verdict
//! on a new view — kept, or served to the requests waiting for it and then
//! dropped when it alone is larger than the target — and views dropped from their
//! snapshots, least recently used first, so that the bytes the kept views hold
//! (as [`super::Snapshot::memory`] counts them) stay at or under the target. A
//! dropped view is built again by the next request that needs it. The
//! `api.Registry` replies are not views and are never dropped. Without a target
//! every view is kept and nothing here runs.
//!
//! The GraphQL schema reads its snapshot's HTTP view: dropping the HTTP view drops
//! the schema with it, and admitting a schema never drops the view it reads.

use super::Snapshot;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

/// A view a snapshot builds on demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// catalogd's JSON Lines ([`crate::views::catalogd::HttpView`]).
    Http,
    /// The GraphQL schema (reads the HTTP view).
    Graphql,
    /// The catalog browser's cards.
    Browser,
}

impl ViewKind {
    /// Whether a view of this kind keeps `other` (of the same snapshot) alive.
    fn reads(self, other: ViewKind) -> bool {
        self == ViewKind::Graphql && other == ViewKind::Http
    }
}

static TARGET: OnceLock<u64> = OnceLock::new();
static KEPT: Mutex<Kept> = Mutex::new(Kept {
    views: Vec::new(),
    clock: 0,
});

/// One kept view.
struct Entry {
    snapshot: Weak<Snapshot>,
    kind: ViewKind,
    bytes: usize,
    /// The clock when it was last built or read.
    used: u64,
}

impl Entry {
    fn is(&self, snapshot: &Arc<Snapshot>, kind: ViewKind) -> bool {
        self.kind == kind && std::ptr::eq(self.snapshot.as_ptr(), Arc::as_ptr(snapshot))
    }
}

struct Kept {
    views: Vec<Entry>,
    clock: u64,
}

fn kept() -> MutexGuard<'static, Kept> {
    // The list is consistent after every statement: a panic elsewhere leaves it usable.
    KEPT.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sets the process's memory target in bytes (the first call wins; returns
/// whether this one did).
pub fn set_target(bytes: u64) -> bool {
    TARGET.set(bytes).is_ok()
}

/// The memory target, when one is set.
pub fn target() -> Option<u64> {
    TARGET.get().copied()
}

/// Records `snapshot`'s view `kind` of `bytes`, just built, and drops the least
/// recently used others until the kept views fit the target. Returns whether to
/// keep it (false when it alone is larger than the target).
pub(super) fn admit(snapshot: &Arc<Snapshot>, kind: ViewKind, bytes: usize) -> bool {
    let Some(target) = target() else {
        return true;
    };
    let target = usize::try_from(target).unwrap_or(usize::MAX);
    let mut dropped = Vec::new();
    let keep = {
        let mut kept = kept();
        kept.views
            .retain(|e| e.snapshot.strong_count() > 0 && !e.is(snapshot, kind));
        if bytes > target {
            false
        } else {
            let mut total: usize = kept.views.iter().map(|e| e.bytes).sum();
            while total + bytes > target {
                let Some(oldest) = oldest_droppable(&kept.views, snapshot, kind) else {
                    break;
                };
                let entry = kept.views.swap_remove(oldest);
                total -= entry.bytes;
                if entry.kind == ViewKind::Http {
                    // The schema reading this view goes with it.
                    if let Some(i) = kept.views.iter().position(|e| {
                        e.kind == ViewKind::Graphql && Weak::ptr_eq(&e.snapshot, &entry.snapshot)
                    }) {
                        total -= kept.views.swap_remove(i).bytes;
                    }
                }
                dropped.push(entry);
            }
            kept.clock += 1;
            let used = kept.clock;
            kept.views.push(Entry {
                snapshot: Arc::downgrade(snapshot),
                kind,
                bytes,
                used,
            });
            true
        }
    };
    if !keep {
        tracing::warn!(
            generation = snapshot.generation,
            view = ?kind,
            bytes,
            target,
            "a view is larger than --memory-target: it is built for each request that needs it"
        );
    }
    // Dropped outside the lock: freeing a view takes time.
    let any_dropped = !dropped.is_empty();
    for entry in dropped {
        if let Some(owner) = entry.snapshot.upgrade() {
            tracing::debug!(generation = owner.generation, view = ?entry.kind, bytes = entry.bytes, "view dropped for --memory-target");
            owner.forget_view(entry.kind);
        }
    }
    if any_dropped {
        super::load::release_memory();
    }
    keep
}

/// The least recently used entry that may be dropped to make room for
/// `snapshot`'s `kind` (not a view that one reads).
fn oldest_droppable(views: &[Entry], snapshot: &Arc<Snapshot>, kind: ViewKind) -> Option<usize> {
    views
        .iter()
        .enumerate()
        .filter(|(_, e)| !(kind.reads(e.kind) && e.is(snapshot, e.kind)))
        .min_by_key(|(_, e)| e.used)
        .map(|(i, _)| i)
}

/// Marks `snapshot`'s view `kind` as just read.
pub(super) fn used(snapshot: &Arc<Snapshot>, kind: ViewKind) {
    if target().is_none() {
        return;
    }
    let mut kept = kept();
    kept.clock += 1;
    let now = kept.clock;
    if let Some(entry) = kept.views.iter_mut().find(|e| e.is(snapshot, kind)) {
        entry.used = now;
    }
}
