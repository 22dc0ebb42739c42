//! A small ordered thread pool for the load path.
//!
//! In: a slice of items and a function. Out: the function's results in item
//! order, computed on every core, with a panic in one item contained to that item.

/// Applies `f` to every item on all cores; results come back in item order.
/// An item is `None` only if `f` panicked on it: the panic is caught (and
/// printed by the panic hook), so one bad item cannot take the process down.
///
/// Each worker thread has a state of its own (an [`crate::arena::Arena`], a read
/// buffer), created with `S::default()` (and again after a panic, which may have
/// left it half-updated). If no worker thread can be started, the calling thread
/// does all the work.
pub fn parallel_map_with<T: Sync, R: Send, S: Default>(
    items: &[T],
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<Option<R>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        let mut state = S::default();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                break;
            };
            let call = std::panic::AssertUnwindSafe(|| f(&mut state, item));
            match std::panic::catch_unwind(call) {
                Ok(result) => {
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(result);
                    }
                }
                Err(_) => state = S::default(),
            }
        }
    };
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..workers {
            // a worker that cannot be started leaves its share to the others
            if std::thread::Builder::new()
                .spawn_scoped(scope, work)
                .is_ok()
            {
                started += 1;
            }
        }
        if started == 0 {
            work();
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_item_yields_none_and_the_others_still_run() {
        let items: Vec<u32> = (0..50).collect();
        let results = parallel_map_with(&items, |calls: &mut u32, n| {
            *calls += 1;
            assert!(*n != 7, "item 7 is bad");
            n * 2
        });
        assert_eq!(results.len(), 50);
        assert_eq!(results[7], None);
        assert!(
            results
                .iter()
                .enumerate()
                .all(|(i, r)| i == 7 || *r == Some(i as u32 * 2))
        );
    }
}
