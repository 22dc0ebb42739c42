//! Polling a catalog image's tag: a new digest → pulled, unpacked, loaded, swapped in.
//!
//! In: [`PollConfig`] (the interval and the [`RegistrySource`] the first fetch made), the
//! [`ReloadHandle`] and the [`SourceStatus`]. Out: new snapshots through
//! [`ReloadHandle::swap`], the status and the metrics kept current.
//!
//! Each poll waits the interval with up to 10 % jitter (so replicas do not poll in step), then
//! asks the registry for the tag's digest: one manifest request. The same digest costs nothing
//! more. A new one is pulled (unless the image store has it), unpacked on a blocking thread and
//! handed to the reload task, which loads and validates it like any reload and publishes it
//! only when good. A failure keeps the served catalog: a network or registry failure is
//! `Retrying` and retried sooner (5 s, doubling up to the interval); an image whose content is
//! refused (not a catalog, a hostile layer, an invalid catalog) is `Blocked` and not pulled
//! again until the tag moves.

use crate::metrics::PollResult;
use crate::snapshot::fetch::registry::{self, RegistrySource};
use crate::snapshot::fetch::{FetchError, FetchOptions, ImageInfo};
use crate::snapshot::reload::ReloadHandle;
use crate::snapshot::status::SourceStatus;
use fbc_image::Digest;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The first wait after a failure; it doubles up to the interval.
const FIRST_RETRY: Duration = Duration::from_secs(5);

/// What polling needs.
#[derive(Debug, Clone)]
pub struct PollConfig {
    /// Time between polls.
    pub interval: Duration,
    /// The reference, its puller and the image store.
    pub source: RegistrySource,
    /// Limits and store settings, as for the first fetch.
    pub fetch: FetchOptions,
}

/// What one poll did.
#[derive(Debug, PartialEq, Eq)]
enum Polled {
    /// The tag names the served digest.
    Unchanged,
    /// The tag names the digest refused before.
    StillRefused,
    /// A new image is served.
    Served(u64),
}

/// Why a poll failed, and whether the same digest is worth trying again.
struct Failure {
    message: String,
    retrying: bool,
    /// The digest whose content was refused (not pulled again until the tag moves).
    refused: Option<Digest>,
}

/// Starts polling `served`'s tag on the current runtime; abort the task to stop.
pub fn spawn(
    config: PollConfig,
    served: ImageInfo,
    reload: ReloadHandle,
    status: Arc<SourceStatus>,
) -> tokio::task::JoinHandle<()> {
    tracing::info!(image = %served.reference, interval_s = config.interval.as_secs(), "polling the catalog image's tag");
    tokio::spawn(tracing::Instrument::instrument(
        run(config, served, reload, status),
        tracing::Span::current(),
    ))
}

async fn run(
    config: PollConfig,
    mut served: ImageInfo,
    reload: ReloadHandle,
    status: Arc<SourceStatus>,
) {
    let mut refused: Option<Digest> = None;
    let mut failures = 0u32;
    loop {
        tokio::time::sleep(wait(config.interval, failures)).await;
        let mut bytes = 0;
        match poll(&config, &served, refused.as_ref(), &reload, &mut bytes).await {
            Ok((outcome, image)) => {
                failures = 0;
                match outcome {
                    Polled::Unchanged => {
                        status.unchanged();
                        crate::metrics::image_polled(PollResult::Unchanged, bytes);
                    }
                    Polled::StillRefused => {
                        crate::metrics::image_polled(PollResult::Unchanged, bytes);
                    }
                    Polled::Served(generation) => {
                        tracing::info!(image = %image.reference, digest = %image.digest, generation, "serving the tag's new image");
                        status.served(image.clone(), unpacked_at(&config, &image.digest));
                        crate::metrics::image_polled(PollResult::Pulled, bytes);
                        served = image;
                        refused = None;
                    }
                }
            }
            Err(failure) => {
                failures = failures.saturating_add(1);
                crate::metrics::image_polled(PollResult::Failure, bytes);
                tracing::warn!(image = %served.reference, error = %failure.message, "poll failed; still serving {}", served.digest);
                status.failed(failure.message, failure.retrying);
                if failure.refused.is_some() {
                    refused = failure.refused;
                }
            }
        }
    }
}

/// The wait before the next poll: the interval with up to 10 % jitter, or after failures a
/// shorter backoff.
fn wait(interval: Duration, failures: u32) -> Duration {
    if failures > 0 {
        let backoff = FIRST_RETRY.saturating_mul(1 << failures.min(16).saturating_sub(1));
        return backoff.min(interval);
    }
    // Jitter from the clock: no random number generator needed for spreading replicas.
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    interval + interval.mul_f64(f64::from(nanos % 1000) / 10_000.0)
}

/// One poll; `bytes` counts what was pulled.
async fn poll(
    config: &PollConfig,
    served: &ImageInfo,
    refused: Option<&Digest>,
    reload: &ReloadHandle,
    bytes: &mut u64,
) -> Result<(Polled, ImageInfo), Failure> {
    let source = &config.source;
    let digest = registry::resolve(&source.puller)
        .await
        .map_err(classify(None))?;
    let image = ImageInfo {
        digest: digest.clone(),
        ..served.clone()
    };
    if digest == served.digest {
        return Ok((Polled::Unchanged, image));
    }
    if refused == Some(&digest) {
        return Ok((Polled::StillRefused, image));
    }
    let entry = match source.store.get(&digest) {
        Some(entry) => entry,
        None => {
            let (pulled, scratch) = registry::download(&source.puller, &source.store, &digest)
                .await
                .map_err(classify(Some(&digest)))?;
            *bytes += pulled.bytes;
            let store = source.store.clone();
            let options = config.fetch.clone();
            let reference = served.reference.clone();
            let unpacked = tokio::task::spawn_blocking(move || {
                let entry = registry::unpack(&store, &reference, &pulled, &options);
                drop(scratch);
                entry
            })
            .await
            .map_err(|e| Failure {
                message: format!("the unpack failed: {e}"),
                retrying: true,
                refused: None,
            })?;
            unpacked.map_err(classify(Some(&digest)))?
        }
    };
    match reload.swap(entry.catalog, image.clone()).await {
        Ok(generation) => Ok((Polled::Served(generation), image)),
        Err(message) => Err(Failure {
            message,
            retrying: false,
            refused: Some(digest),
        }),
    }
}

/// A fetch error as a poll failure: the content of `digest` refused is `Blocked` (and not
/// pulled again); anything else is `Retrying`.
fn classify(digest: Option<&Digest>) -> impl FnOnce(FetchError) -> Failure + '_ {
    move |error| {
        let content = matches!(error, FetchError::Manifest { .. } | FetchError::Unpack(_))
            || matches!(&error, FetchError::Pull(e) if matches!(e.kind, fbc_pull::PullErrorKind::Manifest { .. } | fbc_pull::PullErrorKind::Size { .. }));
        Failure {
            message: format!("source catalog content: {error}"),
            retrying: !content,
            refused: if content { digest.cloned() } else { None },
        }
    }
}

/// When the stored image `digest` was unpacked.
fn unpacked_at(config: &PollConfig, digest: &Digest) -> Option<SystemTime> {
    let entry = config.source.store.get(digest)?;
    std::fs::metadata(&entry.catalog)
        .and_then(|m| m.modified())
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_jitter_by_at_most_a_tenth_and_back_off_after_failures() {
        let interval = Duration::from_secs(60);
        for _ in 0..100 {
            let w = wait(interval, 0);
            assert!(w >= interval && w <= interval + interval / 10, "{w:?}");
        }
        assert_eq!(wait(interval, 1), Duration::from_secs(5));
        assert_eq!(wait(interval, 2), Duration::from_secs(10));
        assert_eq!(wait(interval, 5), interval);
        assert_eq!(wait(interval, u32::MAX), interval);
    }
}
