//! Catalog images: where a catalog comes from when it is not a directory.
//!
//! In: a command-line catalog argument (a directory, `oci-layout:PATH[:TAG|@DIGEST]`, or a registry
//! reference `HOST[:PORT]/REPO[:TAG][@sha256:…]`) and [`ImageLimits`]. Out: a directory holding
//! the image's configs tree, unpacked so that no entry lands outside it, which `fbc-catalog` then
//! loads like any other catalog directory.
//!
//! | module | in → out |
//! |---|---|
//! | [`reference`](mod@reference) | an argument → a [`CatalogSource`] (directory, OCI layout, registry) |
//! | [`digest`] | bytes or a file → a checked `sha256:` [`Digest`] |
//! | [`manifest`] | manifest, index and config bytes → the layers to unpack and the configs label |
//! | [`layout`] | an OCI image layout directory → one image's manifest, config and layer files |
//! | [`unpack`] | layer files and the configs label → a directory tree, hostile entries refused |
//! | [`build`] | files and a config → an OCI image (reproducible layers), written as an OCI layout |
//! | [`store`] | image digests → unpacked catalog directories kept across restarts, made atomically |
//! | [`spec`] | the label, annotation and media-type names the formats define |
//! | [`limits`] | the bounds every step above enforces, with their flags and defaults |
//!
//! Nothing here follows a symlink while writing, and every error names the image, and where one
//! is involved the layer and entry.

pub mod build;
pub mod digest;
pub mod layout;
pub mod limits;
pub mod manifest;
pub mod reference;
pub mod spec;
pub mod store;
#[cfg(any(test, feature = "test-util"))]
pub mod testing;
pub mod unpack;

pub use digest::Digest;
pub use limits::ImageLimits;
pub use reference::CatalogSource;
