//! Deadlines for work that may block in the kernel.
//!
//! Reading a catalog on a file system that stops answering (a hung network mount)
//! blocks a thread, and a thread blocked in the kernel cannot be cancelled, only
//! left behind. Two tools:
//!
//! - [`Watchdog`]: a timer thread that runs an action (report and exit) if the work
//!   on the current thread has not finished in time. For the first load and for
//!   `validate`, where missing the deadline ends the process anyway: the work keeps
//!   the thread (and allocator heap) it would have had without a deadline.
//! - [`Overdue`]: the handle of a worker thread that missed its deadline, so a caller
//!   (the reload loop) can refuse to start another while it still runs and stuck
//!   threads never pile up.

use std::sync::mpsc;
use std::time::Duration;

/// Runs an action unless dropped within its timeout.
#[derive(Debug)]
pub struct Watchdog {
    cancel: Option<mpsc::Sender<()>>,
}

impl Watchdog {
    /// Starts a watchdog that calls `on_expiry` after `timeout` unless dropped first.
    /// If no timer thread can be started, there is no deadline (a warning is logged).
    pub fn start(timeout: Duration, on_expiry: impl FnOnce() + Send + 'static) -> Watchdog {
        let (cancel, cancelled) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("load-watchdog".into())
            .spawn(move || {
                if let Err(mpsc::RecvTimeoutError::Timeout) = cancelled.recv_timeout(timeout) {
                    on_expiry();
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start the load watchdog; the load has no deadline");
        }
        Watchdog {
            cancel: Some(cancel),
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some(cancel) = self.cancel.take() {
            let _ = cancel.send(());
        }
    }
}

/// A worker thread that missed its deadline; it may still be running.
#[derive(Debug)]
pub struct Overdue {
    thread: std::thread::JoinHandle<()>,
}

impl Overdue {
    /// A thread that missed its deadline.
    pub fn new(thread: std::thread::JoinHandle<()>) -> Self {
        Overdue { thread }
    }

    /// Whether the thread has ended since.
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_watchdog_dropped_in_time_does_nothing() {
        let fired = Arc::new(AtomicBool::new(false));
        let flag = fired.clone();
        drop(Watchdog::start(Duration::from_millis(50), move || {
            flag.store(true, Ordering::SeqCst)
        }));
        std::thread::sleep(Duration::from_millis(150));
        assert!(!fired.load(Ordering::SeqCst));
    }

    #[test]
    fn a_watchdog_kept_past_its_timeout_fires() {
        let (tx, rx) = mpsc::channel();
        let _dog = Watchdog::start(Duration::from_millis(20), move || {
            let _ = tx.send(());
        });
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
    }
}
