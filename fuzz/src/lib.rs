//! What the fuzz targets share: a small valid catalog to ask questions of, the
//! parse limits inputs are read with, the image limits, and text from bytes.
//!
//! In: nothing. Out: [`catalog`] (built once), [`LIMITS`], [`IMAGE_LIMITS`], [`text`].

use fbc_catalog::source::ParseLimits;
use fbc_catalog::tables::Tables;
use fbc_image::ImageLimits;
use std::sync::OnceLock;

/// Limits low enough that one input cannot take seconds, high enough for every
/// seed: what a server would set for untrusted catalogs.
pub const LIMITS: ParseLimits = ParseLimits {
    max_file_bytes: 1 << 20,
    max_document_bytes: 1 << 20,
    max_depth: 64,
    max_alias_nodes: 10_000,
};

/// Image limits for the manifest and layer targets: the documents as large as a
/// catalog file may be here (1 MiB), and an unpack small enough that each input
/// runs in milliseconds (256 entries, 1 MiB read, 64 KiB per file, 8 layers).
pub const IMAGE_LIMITS: ImageLimits = ImageLimits {
    max_document_bytes: 1 << 20,
    max_layers: 8,
    max_image_bytes: 1 << 30,
    max_unpack_bytes: 1 << 20,
    max_entries: 256,
    max_file_bytes: 64 << 10,
};

/// The catalog of `tests/fixtures/cluster/explain` (two packages, five channels,
/// dependencies, deprecations, skips and skipRanges).
pub fn catalog() -> &'static Tables {
    static CATALOG: OnceLock<Tables> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let text = include_str!("../../tests/fixtures/cluster/explain/catalog/catalog.yaml");
        match fbc_catalog::tables::testing::from_text("catalog.yaml", text) {
            Ok(tables) => tables,
            Err(problems) => panic!("the fuzz catalog does not validate: {problems:?}"),
        }
    })
}

/// The input as text, when it is UTF-8.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
