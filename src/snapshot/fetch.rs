//! A catalog argument → a catalog directory to load.
//!
//! In: the argument as given (a directory, `oci-layout:PATH[:TAG|@DIGEST]`, or a registry
//! reference) and [`FetchOptions`]. Out: a [`Fetched`] directory: a directory argument as it
//! is; an image unpacked (only its configs directory, hostile entries refused) into the image
//! store under `--cache-dir` (`images/`, kept across restarts and reused by digest), or into a
//! scratch directory removed when the [`Fetched`] is dropped. Registry pulls are issue #27's next
//! step: a registry reference is refused with a message saying so.

use fbc_image::layout::{self, LayoutError};
use fbc_image::manifest::{self, ManifestError, Platform};
use fbc_image::reference::{CatalogSource, SourceError};
use fbc_image::store::{Store, StoreError};
use fbc_image::unpack::{self, UnpackError};
use fbc_image::{Digest, ImageLimits};
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
    /// Registry references are not served yet.
    #[error(
        "{0}: pulling catalogs from registries is not built yet (issue #27); copy the image into an OCI layout (skopeo copy docker://… oci:DIR:TAG) and serve oci-layout:DIR:TAG"
    )]
    RegistryNotYet(String),
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
            _scratch: None,
        }),
        CatalogSource::Registry(_) => Err(FetchError::RegistryNotYet(reference)),
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
            let unpacked = store.insert(&image.digest, &reference, |catalog| {
                unpack::unpack(
                    &reference,
                    &configs,
                    &image.layers,
                    catalog,
                    &options.limits,
                )
                .map(|_| ())
                .map_err(FetchError::Unpack)
            })?;
            if scratch.is_none() {
                let removed = store.collect(options.keep, std::slice::from_ref(&image.digest))?;
                for digest in removed {
                    tracing::info!(%digest, "image store: removed an unpacked image no longer kept");
                }
            }
            tracing::info!(image = %reference, digest = %image.digest, dir = %unpacked.catalog.display(), "catalog image unpacked");
            Ok(Fetched {
                dir: unpacked.catalog,
                image: Some(ImageInfo {
                    reference,
                    digest: image.digest,
                    name,
                }),
                _scratch: scratch,
            })
        }
    }
}

/// The store to unpack into: the configured one, or a scratch directory's.
fn open_store(
    options: &FetchOptions,
    reference: &str,
) -> Result<(Store, Option<tempfile::TempDir>), FetchError> {
    match &options.store {
        Some(dir) => Ok((Store::open(dir)?, None)),
        None => {
            let scratch = tempfile::Builder::new()
                .prefix("fbc-registry-image-")
                .tempdir()
                .map_err(|source| FetchError::Scratch {
                    image: reference.to_owned(),
                    source,
                })?;
            Ok((Store::open(scratch.path())?, Some(scratch)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fbc_image::testing::{self, Tar};

    fn options(store: Option<PathBuf>) -> FetchOptions {
        FetchOptions {
            limits: ImageLimits::default(),
            platform: Platform::current(),
            store,
            keep: 2,
        }
    }

    #[test]
    fn a_directory_is_itself_and_a_layout_is_unpacked_once_by_digest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = fetch(dir.path(), &options(None)).expect("a directory");
        assert_eq!(
            (plain.dir.as_path(), plain.image.as_ref()),
            (dir.path(), None)
        );

        let layout = dir.path().join("layout");
        testing::catalog_layout(
            &layout,
            "v1",
            &[Tar::new().file("configs/a.json", b"{}").finish()],
        );
        let arg = PathBuf::from(format!("oci-layout:{}:v1", layout.display()));
        let store = dir.path().join("images");
        let first = fetch(&arg, &options(Some(store.clone()))).expect("unpacked");
        assert_eq!(
            std::fs::read(first.dir.join("a.json")).expect("a.json"),
            b"{}"
        );
        let image = first.image.clone().expect("an image");
        assert!(first.dir.starts_with(&store), "{}", first.dir.display());
        // The second fetch finds the digest in the store.
        let second = fetch(&arg, &options(Some(store))).expect("cached");
        assert_eq!((second.dir, second.image), (first.dir, Some(image)));
    }

    #[test]
    fn a_scratch_unpack_goes_with_its_fetch() {
        let dir = tempfile::tempdir().expect("tempdir");
        let layout = dir.path().join("layout");
        testing::catalog_layout(
            &layout,
            "v1",
            &[Tar::new().file("configs/a.json", b"{}").finish()],
        );
        let fetched = fetch(
            Path::new(&format!("oci-layout:{}", layout.display())),
            &options(None),
        )
        .expect("unpacked");
        let unpacked = fetched.dir.clone();
        assert!(unpacked.join("a.json").is_file());
        drop(fetched);
        assert!(!unpacked.exists());
    }

    #[test]
    fn a_hostile_layer_is_refused_by_name_and_leaves_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let layout = dir.path().join("layout");
        testing::catalog_layout(
            &layout,
            "v1",
            &[Tar::new()
                .file("configs/a.json", b"{}")
                .symlink("configs/x", "../../etc")
                .finish()],
        );
        let store = dir.path().join("images");
        let e = fetch(
            Path::new(&format!("oci-layout:{}:v1", layout.display())),
            &options(Some(store.clone())),
        )
        .expect_err("refused")
        .to_string();
        assert!(e.contains("entry \"configs/x\": it is a symlink to \"../../etc\", outside the catalog directory"), "{e}");
        assert_eq!(
            std::fs::read_dir(&store).expect("store").count(),
            0,
            "nothing left in the store"
        );
    }

    #[test]
    fn registry_references_say_they_are_not_built_yet() {
        let e = fetch(Path::new("quay.io/org/catalog:v1"), &options(None)).expect_err("not yet");
        assert!(e.to_string().contains("issue #27"), "{e}");
    }
}
