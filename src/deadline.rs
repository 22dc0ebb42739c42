//! Work with a deadline, on a thread of its own.
//!
//! In: a closure and a timeout. Out: its result, or an [`Overdue`] handle when it
//! has not finished in time. Used for catalog loads: reading a catalog on a file
//! system that stops answering (a hung network mount) must fail like an invalid
//! catalog instead of freezing the server's reload or start, and a thread blocked
//! in the kernel cannot be cancelled, only left behind. The caller keeps the
//! [`Overdue`] handle to avoid piling up more such threads.

use std::time::Duration;

/// A run that missed its deadline; its thread may still be running.
#[derive(Debug)]
pub struct Overdue {
    thread: std::thread::JoinHandle<()>,
    /// The deadline it missed.
    pub timeout: Duration,
}

impl Overdue {
    /// A thread that missed a deadline of `timeout`.
    pub fn new(thread: std::thread::JoinHandle<()>, timeout: Duration) -> Self {
        Overdue { thread, timeout }
    }

    /// Whether the thread has ended since.
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }
}

/// Runs `work` on a new thread named `name` and waits at most `timeout` for it.
/// If no thread can be started, `work` runs on the calling thread, without a
/// deadline.
pub fn run<R: Send + 'static>(
    name: &str,
    timeout: Duration,
    work: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Overdue> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    // The closure is shared so that it can still run here if spawning fails.
    let work = std::sync::Arc::new(std::sync::Mutex::new(Some(work)));
    let shared = work.clone();
    let spawned = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let taken = shared.lock().ok().and_then(|mut w| w.take());
            if let Some(work) = taken {
                let _ = tx.send(work());
            }
        });
    let thread = match spawned {
        Ok(thread) => thread,
        Err(_) => {
            let taken = work.lock().ok().and_then(|mut w| w.take());
            return match taken {
                Some(work) => Ok(work()),
                // unreachable: the thread never started, so it took nothing
                None => Err(Overdue {
                    thread: std::thread::spawn(|| {}),
                    timeout,
                }),
            };
        }
    };
    match rx.recv_timeout(timeout) {
        Ok(result) => Ok(result),
        // Disconnected: the work panicked (the panic hook printed it); treat it as
        // never finishing, which the caller reports.
        Err(_) => Err(Overdue { thread, timeout }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quick_run_returns_its_result() {
        assert_eq!(run("t", Duration::from_secs(5), || 42).ok(), Some(42));
    }

    #[test]
    fn a_run_past_its_deadline_is_overdue_and_its_thread_runs_on() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let overdue = run("t", Duration::from_millis(50), move || {
            let _ = rx.recv();
        })
        .expect_err("overdue");
        assert!(!overdue.is_finished());
        drop(tx);
        for _ in 0..200 {
            if overdue.is_finished() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the thread did not end once unblocked");
    }
}
