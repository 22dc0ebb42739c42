//! The bounds on what an image may make us read, download and write.
//!
//! In: the command line's flags (or the defaults). Out: [`ImageLimits`], checked by
//! [`crate::manifest`], [`crate::layout`] and [`crate::unpack`]. A limit that is hit names
//! its flag ([`Limit::flag`]) so the user knows what to raise.

use std::fmt;

/// Bounds for pulling and unpacking one image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLimits {
    /// Largest manifest, index or image config document, in bytes (not a flag: 4 MiB, the
    /// limit containers/image applies to manifests).
    pub max_document_bytes: u64,
    /// Most layers in an image (`--max-layers`).
    pub max_layers: usize,
    /// Largest sum of an image's layer sizes as stored, compressed (`--max-image-size`).
    pub max_image_bytes: u64,
    /// Largest sum of the uncompressed tar streams of an image's layers, read or skipped
    /// (`--max-unpack-size`): a compression bomb stops here even outside the configs directory.
    pub max_unpack_bytes: u64,
    /// Most tar entries over all layers (`--max-unpack-entries`).
    pub max_entries: u64,
    /// Largest file written (`--max-file-size`, the loader's own per-file limit).
    pub max_file_bytes: u64,
}

/// One of [`ImageLimits`]' bounds, to name in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`ImageLimits::max_document_bytes`].
    Document,
    /// [`ImageLimits::max_layers`].
    Layers,
    /// [`ImageLimits::max_image_bytes`].
    ImageSize,
    /// [`ImageLimits::max_unpack_bytes`].
    UnpackSize,
    /// [`ImageLimits::max_entries`].
    Entries,
    /// [`ImageLimits::max_file_bytes`].
    FileSize,
}

impl Limit {
    /// The flag that sets it, or a description when no flag does.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::Document => "the 4 MiB limit on manifests and configs",
            Limit::Layers => "--max-layers",
            Limit::ImageSize => "--max-image-size",
            Limit::UnpackSize => "--max-unpack-size",
            Limit::Entries => "--max-unpack-entries",
            Limit::FileSize => "--max-file-size",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.flag())
    }
}

const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;

impl Default for ImageLimits {
    /// Room for the largest public catalogs (community-operator-index, ~40 MiB of JSON in a few
    /// hundred MiB of image) many times over, and nowhere near a disk's or a pod's limits.
    fn default() -> Self {
        ImageLimits {
            max_document_bytes: 4 * MIB,
            max_layers: 128,
            max_image_bytes: 4 * GIB,
            max_unpack_bytes: 8 * GIB,
            max_entries: 1_000_000,
            max_file_bytes: 256 * MIB,
        }
    }
}
