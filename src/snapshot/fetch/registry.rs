//! A registry reference → a catalog directory in the image store, in steps the poller can run
//! apart.
//!
//! In: a [`RegistryRef`], [`FetchOptions`] and the [`Store`]. Out: [`resolve`] the digest the
//! reference names now; [`download`] its layers into a scratch directory of the store (async,
//! every blob checked); [`unpack`] them into the store under that digest (blocking). The first
//! fetch ([`fetch_blocking`]) runs them on a runtime of its own, before the server's starts; a
//! digest already stored is not pulled again, and when a tag cannot be resolved because the
//! registry is unreachable, the entry last unpacked from the same reference is served, with a
//! warning, so a restart does not depend on the registry being up.

use super::{FetchError, FetchOptions, Fetched, ImageInfo, collect, image_name, open_store};
use fbc_image::Digest;
use fbc_image::manifest;
use fbc_image::reference::RegistryRef;
use fbc_image::store::{Entry, Scratch, Store};
use fbc_pull::{PulledImage, Puller};
use std::sync::Arc;

/// What a registry catalog keeps for polling.
#[derive(Debug, Clone)]
pub struct RegistrySource {
    /// The puller for its reference.
    pub puller: Arc<Puller>,
    /// The store its images are unpacked into.
    pub store: Arc<Store>,
    /// Whether the reference names a digest (never polled).
    pub pinned: bool,
}

/// The digest `puller`'s reference names now.
pub async fn resolve(puller: &Puller) -> Result<Digest, FetchError> {
    Ok(puller.resolve().await?)
}

/// Downloads the image `digest` into a scratch directory of `store`.
pub async fn download(
    puller: &Puller,
    store: &Store,
    digest: &Digest,
) -> Result<(PulledImage, Scratch), FetchError> {
    let scratch = store.scratch()?;
    let image = puller.fetch(digest, scratch.path()).await?;
    tracing::info!(image = puller.image(), %digest, bytes = image.bytes, layers = image.layers.len(), "catalog image pulled");
    Ok((image, scratch))
}

/// Unpacks a downloaded image into `store` (its configs directory only).
pub fn unpack(
    store: &Store,
    reference: &str,
    image: &PulledImage,
    options: &FetchOptions,
) -> Result<Entry, FetchError> {
    let configs = manifest::configs_dir(&image.labels).map_err(|source| FetchError::Manifest {
        image: reference.to_owned(),
        source,
    })?;
    let entry = super::unpack_into(
        store,
        reference,
        &image.digest,
        &configs,
        &image.layers,
        options,
    )?;
    collect(store, options.keep, &image.digest)?;
    Ok(entry)
}

/// The first fetch of `target`, on a runtime of its own.
pub(super) fn fetch_blocking(
    target: &RegistryRef,
    options: &FetchOptions,
) -> Result<Fetched, FetchError> {
    let reference = target.to_string();
    let puller = Puller::new(
        target,
        &options.registry,
        options.limits,
        options.platform.clone(),
    )?;
    let (store, scratch) = open_store(options, &reference)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| FetchError::Runtime {
            image: reference.clone(),
            source,
        })?;
    let (entry, digest) = match runtime.block_on(resolve(&puller)) {
        Ok(digest) => match store.get(&digest) {
            Some(entry) => {
                tracing::info!(image = %reference, %digest, "catalog image found in the image store; not pulled");
                (entry, digest)
            }
            None => {
                let (image, _blobs) = runtime.block_on(download(&puller, &store, &digest))?;
                (unpack(&store, &reference, &image, options)?, digest)
            }
        },
        Err(FetchError::Pull(e)) if e.is_transient() => match store.latest_for(&reference)? {
            Some(entry) => {
                tracing::warn!(image = %reference, digest = %entry.digest, error = %e, "the registry cannot be reached; serving the image last unpacked from this reference");
                let digest = entry.digest.clone();
                (entry, digest)
            }
            None => return Err(FetchError::Pull(e)),
        },
        Err(e) => return Err(e),
    };
    drop(runtime);
    // The pull's buffers go back to the system before the load makes its own.
    crate::snapshot::load::release_memory();
    Ok(Fetched {
        dir: entry.catalog,
        image: Some(ImageInfo {
            reference,
            digest,
            name: image_name(&target.repository),
        }),
        registry: Some(RegistrySource {
            puller: Arc::new(puller),
            store: Arc::new(store),
            pinned: target.is_pinned(),
        }),
        _scratch: scratch,
    })
}
