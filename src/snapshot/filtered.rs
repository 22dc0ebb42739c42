//! A catalog served through a filter: `serve DIR|IMAGE --filter FILE`, a fleet entry's `filter:`.
//!
//! In: the catalog root (untouched: an image stays as signed), the filter file's path
//! and the load options. Out: a [`LoadedCatalog`] of the filtered catalog — what every
//! API then serves — carrying a [`FilteredSource`]: the filter's path and digest (the
//! snapshot info names them) and the private directory the filtered catalog is read from.
//!
//! How: the catalog is loaded and validated as always, filtered by
//! [`fbc_catalog::filter`] (every guarantee of `fbc-registry filter` checked on the
//! result), and the filtered JSON stream is written to a directory of its own and loaded
//! from there by the very code that loads any catalog. The served tables read metas
//! back from that file (see [`fbc_catalog::tables::MetaTable`]), so the directory lives
//! as long as a snapshot uses it and is removed with the last one.
//!
//! Both the catalog and the filter file are read again on every reload: a filter that
//! does not read, parse or apply to the catalog fails the load like an invalid catalog,
//! and the last good snapshot stays (see [`crate::snapshot::reload`]).
//!
//! Not cached: the index cache is keyed by the catalog's files and holds unfiltered
//! catalogs; a filtered catalog is built at every start (the caller says so in the log).

use crate::snapshot::load::{self, FilteredSource, LoadOptions, LoadedCatalog};
use fbc_catalog::diagnostic::{Diagnostic, Kind, Location};
use fbc_catalog::filter::{self, FilterOptions, config};
use std::path::Path;
use std::sync::Arc;

/// The file the filtered catalog is written to, in its own directory.
const FILE_NAME: &str = "catalog.json";

/// Loads the catalog at `root`, or `root` through the filter at `filter` when one is
/// given: the one entry point of every load that serves (first load and reloads).
pub fn load_source(
    root: &Path,
    filter: Option<&Path>,
    options: &LoadOptions,
) -> Result<LoadedCatalog, Vec<Diagnostic>> {
    match filter {
        Some(filter) => load_filtered(root, filter, options),
        None => load::load(root, options),
    }
}

/// Loads `root`, filters it by the file at `filter` and loads the result (see the
/// module docs).
pub fn load_filtered(
    root: &Path,
    filter: &Path,
    options: &LoadOptions,
) -> Result<LoadedCatalog, Vec<Diagnostic>> {
    let source = apply(root, filter, options)?;
    let mut catalog = load::load(source.dir(), options)?;
    catalog.report.filter_digest = Some(source.digest.clone());
    catalog.filter = Some(Arc::new(source));
    Ok(catalog)
}

/// `root` filtered by the file at `filter`, written to a private directory: the
/// filtered catalog's files, for a caller to load (see [`load_filtered`]).
pub fn apply(
    root: &Path,
    filter: &Path,
    options: &LoadOptions,
) -> Result<FilteredSource, Vec<Diagnostic>> {
    let problem = |p: String| {
        Diagnostic::new(
            Kind::Invalid,
            Location::file(filter.display().to_string()),
            p,
        )
    };
    let file = config::read(filter)
        .map_err(|e| e.problems.into_iter().map(problem).collect::<Vec<_>>())?;
    let digest = fbc_image::digest::Digest::of(&file.bytes).to_string();
    let scratch = write_filtered(root, filter, &file.config, options)?;
    Ok(FilteredSource {
        path: filter.to_path_buf(),
        digest,
        scratch,
    })
}

/// `root` loaded and filtered by `config`, written as `catalog.json` in a new private
/// directory (in the system's temporary directory).
fn write_filtered(
    root: &Path,
    filter: &Path,
    config: &config::FilterConfig,
    options: &LoadOptions,
) -> Result<tempfile::TempDir, Vec<Diagnostic>> {
    let _loading = load::Loading::start();
    // The filter writes every kept meta's JSON: kept from the one parse, not read back.
    let loaded = fbc_catalog::load::load_model_with_json(root, options)?;
    let tables = loaded.tables(root, options.limits);
    let filtered = filter::filter(
        &tables,
        config,
        &FilterOptions::default(),
        options.chain_rule,
    )
    .map_err(|e| {
        vec![Diagnostic::new(
            Kind::Invalid,
            Location::file(filter.display().to_string()),
            format!("the filter does not apply to {}: {e}", root.display()),
        )]
    })?;
    drop(tables);
    let io = |what: &str, e: std::io::Error| {
        vec![Diagnostic::new(
            Kind::Io,
            Location::file(filter.display().to_string()),
            format!("cannot {what} the filtered catalog: {e}"),
        )]
    };
    let scratch = crate::snapshot::scratch::dir("fbc-registry-filtered-")
        .map_err(|e| io("make a directory for", e))?;
    std::fs::write(scratch.path().join(FILE_NAME), &filtered.stream).map_err(|e| io("write", e))?;
    Ok(scratch)
}

#[cfg(test)]
mod tests;
