//! A registry request → its answer, tried again with backoff when trying again may help.
//!
//! In: the attempts and first wait from [`RegistryOptions`](crate::RegistryOptions), and a
//! request as a closure. Out: the first success, or the last error. Only transient failures
//! (connection errors, timeouts, 5xx and 429 answers: [`PullErrorKind::Transient`]) are tried
//! again; a 404, a refused credential or a digest mismatch is final at once. Waits double from
//! the first, capped at eight times it.

use crate::error::PullErrorKind;
use std::future::Future;
use std::time::Duration;

/// Runs `attempt` up to `attempts` times.
pub(crate) async fn retrying<T, F, Fut>(
    attempts: u32,
    first_wait: Duration,
    mut attempt: F,
) -> Result<T, PullErrorKind>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, PullErrorKind>>,
{
    let mut wait = first_wait;
    let mut tried = 1;
    loop {
        match attempt().await {
            Err(e @ PullErrorKind::Transient { .. }) if tried < attempts.max(1) => {
                tracing::debug!(error = %e, attempt = tried, "registry request failed; trying again");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(first_wait * 8);
                tried += 1;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn transient() -> PullErrorKind {
        PullErrorKind::Transient {
            what: "manifest".into(),
            reason: "503".into(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn transient_failures_are_retried_and_final_ones_are_not() {
        let calls = Cell::new(0);
        let result = retrying(4, Duration::from_millis(10), || {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move { if n < 3 { Err(transient()) } else { Ok(n) } }
        })
        .await;
        assert_eq!(result.expect("third time"), 3);

        calls.set(0);
        let result: Result<(), _> = retrying(4, Duration::from_millis(10), || {
            calls.set(calls.get() + 1);
            async { Err(transient()) }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(calls.get(), 4);

        calls.set(0);
        let result: Result<(), _> = retrying(4, Duration::from_millis(10), || {
            calls.set(calls.get() + 1);
            async {
                Err(PullErrorKind::NotFound {
                    what: "manifest".into(),
                    reason: "MANIFEST_UNKNOWN".into(),
                })
            }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(calls.get(), 1);
    }
}
