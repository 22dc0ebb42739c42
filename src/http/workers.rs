//! The pool that answers computed per request (the graph, successors and the
//! browser's pages) run in: at most one per core at a time.
//!
//! In: a request about to compute. Out: a permit it holds while it computes on
//! the blocking pool. A flood of such requests waits here (each waiting request
//! is a small future, and connections are capped) instead of filling the
//! blocking pool's 512 threads and their memory, so prepared answers (`/all`,
//! `/metas`) and gRPC keep their cores. GraphQL has its own gate, with a deadline.

use std::sync::OnceLock;
use tokio::sync::{Semaphore, SemaphorePermit};

fn gate() -> &'static Semaphore {
    static GATE: OnceLock<Semaphore> = OnceLock::new();
    GATE.get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get())))
}

/// Waits for a turn to compute.
pub async fn turn() -> Option<SemaphorePermit<'static>> {
    gate().acquire().await.ok()
}
