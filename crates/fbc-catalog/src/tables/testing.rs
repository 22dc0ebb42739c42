//! Catalogs for tests: tables from YAML or JSON text in memory, or from a
//! directory, without the loader.
//!
//! In: a file name and its text, or a catalog directory. Out: [`Tables`], or
//! the catalog's diagnostics. Built from the layers below the tables (source,
//! model), so a test of any layer above may use it without reaching up to
//! [`crate::load`]. Compiled for this crate's tests and, with the `test-util`
//! feature, for other crates' tests.

use super::Tables;
use super::metas::CatalogFiles;
use crate::diagnostic::Diagnostic;
use crate::model;
use crate::source::{self, Loaded, ParseLimits};
use std::path::Path;

/// The tables of one catalog file, `file` (its name decides JSON or YAML),
/// holding `text`. The metas keep no file to read back: their JSON is not
/// available.
pub fn from_text(file: &str, text: &str) -> Result<Tables, Vec<Diagnostic>> {
    let parsed = source::parse_file(file, text);
    let loaded = Loaded {
        blobs: parsed.blobs,
        errors: parsed.errors,
        files: Vec::new(),
    };
    model::build(loaded).map(Tables::detached)
}

/// The tables of the catalog directory `root`, read with the default limits;
/// the metas' JSON is read back from its files.
pub fn from_dir(root: &Path) -> Result<Tables, Vec<Diagnostic>> {
    let loaded = source::load_dir(root);
    let files = loaded.files.clone();
    let model = model::build(loaded)?;
    let files = CatalogFiles {
        root: root.to_path_buf(),
        files,
        limits: ParseLimits::default(),
    };
    Ok(Tables::from_model(model, files))
}
