//! A view a snapshot builds on demand and may drop again.
//!
//! In: a build (async, run at most once at a time) and a verdict on what it built.
//! Out: the view, shared by every caller that asked while it was built; kept in the
//! cell when the verdict says so (the memory target's, see [`super::budget`]), so
//! the next caller gets it without building. A kept view can be cleared; the next
//! caller builds it again.
//!
//! Hand-written because `tokio::sync::OnceCell`, which held the views before the
//! memory target, cannot be emptied through a shared reference, and a view must be
//! dropped while requests still read the snapshot.

use arc_swap::ArcSwapOption;
use std::future::Future;
use std::sync::Arc;

/// A lazily built, droppable view.
#[derive(Debug)]
pub struct ViewCell<T> {
    value: ArcSwapOption<T>,
    building: tokio::sync::Mutex<()>,
}

impl<T> Default for ViewCell<T> {
    fn default() -> Self {
        ViewCell {
            value: ArcSwapOption::const_empty(),
            building: tokio::sync::Mutex::new(()),
        }
    }
}

impl<T> ViewCell<T> {
    /// The kept view, if any.
    pub fn get(&self) -> Option<Arc<T>> {
        self.value.load_full()
    }

    /// Drops the kept view (readers holding it keep their reference).
    pub fn clear(&self) {
        self.value.store(None);
    }

    /// The kept view, or one built by `build` (one build at a time: a caller
    /// arriving during a build waits and takes its result if it was kept). The
    /// built view is kept when `keep` says so.
    pub async fn get_or_build<E, Fut>(
        &self,
        build: impl FnOnce() -> Fut,
        keep: impl FnOnce(&T) -> bool,
    ) -> Result<Arc<T>, E>
    where
        Fut: Future<Output = Result<T, E>>,
    {
        if let Some(view) = self.get() {
            return Ok(view);
        }
        let _building = self.building.lock().await;
        if let Some(view) = self.get() {
            return Ok(view);
        }
        let view = Arc::new(build().await?);
        if keep(&view) {
            self.value.store(Some(view.clone()));
        }
        Ok(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn a_kept_view_is_built_once_and_a_cleared_one_again() {
        let cell: ViewCell<usize> = ViewCell::default();
        let builds = AtomicUsize::new(0);
        let build = || async { Ok::<_, ()>(builds.fetch_add(1, Ordering::SeqCst) + 1) };
        assert_eq!(*cell.get_or_build(build, |_| true).await.unwrap(), 1);
        assert_eq!(*cell.get_or_build(build, |_| true).await.unwrap(), 1);
        cell.clear();
        assert!(cell.get().is_none());
        assert_eq!(*cell.get_or_build(build, |_| true).await.unwrap(), 2);
    }

    #[tokio::test]
    async fn a_view_not_kept_is_built_for_every_caller() {
        let cell: ViewCell<usize> = ViewCell::default();
        let builds = AtomicUsize::new(0);
        let build = || async { Ok::<_, ()>(builds.fetch_add(1, Ordering::SeqCst) + 1) };
        assert_eq!(*cell.get_or_build(build, |_| false).await.unwrap(), 1);
        assert_eq!(*cell.get_or_build(build, |_| false).await.unwrap(), 2);
        assert!(cell.get().is_none());
    }

    #[tokio::test]
    async fn a_failed_build_keeps_nothing() {
        let cell: ViewCell<usize> = ViewCell::default();
        let failed = cell
            .get_or_build(|| async { Err::<usize, _>("no") }, |_| true)
            .await;
        assert_eq!(failed.unwrap_err(), "no");
        assert!(cell.get().is_none());
    }
}
