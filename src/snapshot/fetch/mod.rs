//! A catalog argument → a catalog directory to load.
//!
//! In: the argument as given (a directory, `oci-layout:PATH[:TAG|@DIGEST]`, or a registry
//! reference) and [`FetchOptions`]. Out: a [`Fetched`] directory: a directory argument as it
//! is; an image unpacked (only its configs directory, hostile entries refused) into the image
//! store under `--cache-dir` (`images/`, kept across restarts and reused by digest), or into a
//! scratch directory removed when the [`Fetched`] is dropped. A registry reference is resolved
//! to a digest first (one request; none for a digest reference): a digest already in the store
//! is served without pulling, so a restart whose tag has not moved starts warm, and a digest
//! reference with a stored entry needs no network at all.
//!
//! [`registry`] is the same for the poller, in steps it can run apart: resolve (async),
//! download (async), unpack (blocking).

pub mod registry;

use fbc_image::layout::{self, LayoutError};
use fbc_image::manifest::{self, ManifestError, Platform};
use fbc_image::reference::{CatalogSource, SourceError};
use fbc_image::store::{Store, StoreError};
use fbc_image::unpack::{self, UnpackError};
use fbc_image::{Digest, ImageLimits};
use fbc_pull::{PullError, RegistryOptions};
use std::path::{Path, PathBuf};

/// How images are read and where they are kept.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The bounds on what an image may make us read and write.
    pub limits: ImageLimits,
    /// The platform taken from a multi-platform image.
    pub platform: Platform,
    /// The image store (`<cache-dir>/images`); `None` unpacks into a scratch directory.
    pub store: Option<PathBuf>,
    /// How many unpacked images the store keeps.
    pub keep: usize,
    /// How registries are reached.
    pub registry: RegistryOptions,
}

impl Default for FetchOptions {
    /// The flags' defaults: image limits, this machine's platform, no store (a scratch
    /// directory), three images kept, registries reached with no credentials file.
    fn default() -> Self {
        FetchOptions {
            limits: ImageLimits::default(),
            platform: fbc_image::manifest::Platform::current(),
            store: None,
            keep: 3,
            registry: fbc_pull::RegistryOptions::default(),
        }
    }
}

/// The image a catalog came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInfo {
    /// The reference as given.
    pub reference: String,
    /// The digest it resolved to.
    pub digest: Digest,
    /// A name for the catalog when none is given: the layout directory's or the repository's
    /// last component.
    pub name: String,
}

/// A catalog directory ready to load.
#[derive(Debug)]
pub struct Fetched {
    /// The directory.
    pub dir: PathBuf,
    /// The image it was unpacked from, when it was.
    pub image: Option<ImageInfo>,
    /// For a registry reference: what polling it needs.
    pub registry: Option<registry::RegistrySource>,
    /// The scratch directory holding `dir`, removed on drop.
    _scratch: Option<tempfile::TempDir>,
}

/// Why a catalog could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The argument is not a reference.
    #[error("{0}")]
    Source(#[from] SourceError),
    /// The OCI layout could not be read.
    #[error("{0}")]
    Layout(#[from] LayoutError),
    /// The image is not a catalog.
    #[error("image {image}: {source}")]
    Manifest {
        /// The image.
        image: String,
        /// Why.
        source: ManifestError,
    },
    /// An entry was refused or a limit hit.
    #[error("{0}")]
    Unpack(Box<UnpackError>),
    /// The image store failed.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// A scratch directory could not be made.
    #[error("making a scratch directory for {image}: {source}")]
    Scratch {
        /// The image.
        image: String,
        /// Why.
        source: std::io::Error,
    },
    /// The registry pull failed.
    #[error("{0}")]
    Pull(Box<PullError>),
    /// The runtime for a pull could not start.
    #[error("starting the runtime to pull {image}: {source}")]
    Runtime {
        /// The image.
        image: String,
        /// Why.
        source: std::io::Error,
    },
}

impl From<PullError> for FetchError {
    fn from(e: PullError) -> Self {
        FetchError::Pull(Box::new(e))
    }
}

/// Fetches the catalog `arg` names.
pub fn fetch(arg: &Path, options: &FetchOptions) -> Result<Fetched, FetchError> {
    let source = match arg.to_str() {
        Some(text) => CatalogSource::parse(text)?,
        None => CatalogSource::Directory(arg.to_owned()),
    };
    let reference = source.to_string();
    match source {
        CatalogSource::Directory(dir) => Ok(Fetched {
            dir,
            image: None,
            registry: None,
            _scratch: None,
        }),
        CatalogSource::Registry(target) => registry::fetch_blocking(&target, options),
        CatalogSource::Layout(layout_ref) => {
            let name = std::fs::canonicalize(&layout_ref.path)
                .unwrap_or_else(|_| layout_ref.path.clone())
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let image = layout::open(&layout_ref, &options.platform, &options.limits)?;
            let configs =
                manifest::configs_dir(&image.labels).map_err(|source| FetchError::Manifest {
                    image: reference.clone(),
                    source,
                })?;
            let (store, scratch) = open_store(options, &reference)?;
            let unpacked = unpack_into(
                &store,
                &reference,
                &image.digest,
                &configs,
                &image.layers,
                options,
            )?;
            if scratch.is_none() {
                collect(&store, options.keep, &image.digest)?;
            }
            Ok(Fetched {
                dir: unpacked.catalog,
                image: Some(ImageInfo {
                    reference,
                    digest: image.digest,
                    name,
                }),
                registry: None,
                _scratch: scratch,
            })
        }
    }
}

/// Unpacks `layers` (the configs directory `configs` of `reference`) into `store` under
/// `digest`, unless it is there already.
pub(crate) fn unpack_into(
    store: &Store,
    reference: &str,
    digest: &Digest,
    configs: &str,
    layers: &[unpack::LayerFile],
    options: &FetchOptions,
) -> Result<fbc_image::store::Entry, FetchError> {
    let unpacked = store.insert(digest, reference, |catalog| {
        unpack::unpack(reference, configs, layers, catalog, &options.limits)
            .map(|_| ())
            .map_err(FetchError::Unpack)
    })?;
    tracing::info!(image = %reference, %digest, dir = %unpacked.catalog.display(), "catalog image unpacked");
    Ok(unpacked)
}

/// Removes stored images past the `keep` most recently used, never `serving`.
pub(crate) fn collect(store: &Store, keep: usize, serving: &Digest) -> Result<(), FetchError> {
    for digest in store.collect(keep, std::slice::from_ref(serving))? {
        tracing::info!(%digest, "image store: removed an unpacked image no longer kept");
    }
    Ok(())
}

/// The name a catalog takes from its image when none is given: the last path component.
pub(crate) fn image_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_owned()
}

/// The store to unpack into: the configured one, or a scratch directory's.
fn open_store(
    options: &FetchOptions,
    reference: &str,
) -> Result<(Store, Option<tempfile::TempDir>), FetchError> {
    match &options.store {
        Some(dir) => Ok((Store::open(dir)?, None)),
        None => {
            let scratch =
                crate::snapshot::scratch::dir("fbc-registry-image-").map_err(|source| {
                    FetchError::Scratch {
                        image: reference.to_owned(),
                        source,
                    }
                })?;
            Ok((Store::open(scratch.path())?, Some(scratch)))
        }
    }
}

#[cfg(test)]
mod tests;
