//! Directory → validated model, in one call.
//!
//! In: a catalog root and [`LoadOptions`]. Out: a [`LoadedModel`] (the validated
//! [`Model`], the catalog digest, file counts and stage timings), or every problem
//! found as [`Diagnostic`]s in a stable order. No deadline of its own: callers that
//! need one run it under a watchdog.

use crate::diagnostic::Diagnostic;
use crate::model::{self, Model};
use crate::source::{self, CatalogDigest, FileDigest, ParseLimits};
use crate::tables::Tables;
use crate::tables::metas::CatalogFiles;
use std::path::Path;
use std::time::{Duration, Instant};

/// How a catalog is loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Bounds on files, documents, nesting and YAML aliases.
    pub limits: ParseLimits,
    /// The replaces-chain rule: today's opm (the default), or opm before
    /// v1.58.0, whose accepted channels come back as [`LoadedModel::warnings`].
    pub chain_rule: model::ChainRule,
}

/// A validated catalog model and how loading it went.
#[derive(Debug)]
pub struct LoadedModel {
    /// The model.
    pub model: Model,
    /// Problems the chain rule accepted (see [`LoadOptions::chain_rule`]).
    pub warnings: Vec<Diagnostic>,
    /// The digest of the files read (see [`crate::source::digest`]).
    pub digest: CatalogDigest,
    /// The catalog files read, in walk order, with their hashes.
    pub files: Vec<FileDigest>,
    /// Bytes read.
    pub bytes: u64,
    /// Reading and parsing files.
    pub parse: Duration,
    /// Building and validating the model.
    pub validate: Duration,
}

/// Loads and validates the catalog at `root`.
pub fn load_model(root: &Path, options: &LoadOptions) -> Result<LoadedModel, Vec<Diagnostic>> {
    let t0 = Instant::now();
    // Bundles are decoded on the worker that parsed them, file by file, so the
    // parsed trees of the whole catalog never exist at once; what is kept of them
    // (manifests) is written into dense arena blocks (see `crate::arena`).
    let limits = options.limits;
    let loaded = source::load_dir_with(root, &limits, |arena, blob| {
        model::decode_blob(arena, blob, &limits)
    });
    finish(loaded, t0, options)
}

/// A loaded model with each meta's normalised JSON, encoded as the files were
/// parsed, in walk order (what [`crate::tables::MetaTable::json`] would otherwise read
/// back from the files): for a one-shot command that will ask for every meta's JSON
/// (`filter`), which then parses the catalog once instead of twice, at the cost of
/// holding the JSON.
pub struct LoadedWithJson {
    /// The model.
    pub loaded: LoadedModel,
    /// One per meta, in walk order.
    pub json: Vec<bytes::Bytes>,
}

/// As [`load_model`], keeping each meta's JSON (see [`LoadedWithJson`]).
pub fn load_model_with_json(
    root: &Path,
    options: &LoadOptions,
) -> Result<LoadedWithJson, Vec<Diagnostic>> {
    let t0 = Instant::now();
    let limits = options.limits;
    let loaded = source::load_dir_with(root, &limits, |arena, blob| {
        let json = normalized_bytes(&blob.value);
        (model::decode_blob(arena, blob, &limits), json)
    });
    let (blobs, json): (Vec<_>, Vec<_>) = loaded.blobs.into_iter().unzip();
    let loaded = source::Loaded {
        blobs,
        errors: loaded.errors,
        files: loaded.files,
    };
    let loaded = finish(loaded, t0, options)?;
    Ok(LoadedWithJson { loaded, json })
}

thread_local! {
    /// Each worker's encoding buffer: grown once, not once per meta.
    static JSON_BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// `value` in the normalised form ([`source::Blob::normalized_json`]), encoded in the
/// worker's buffer and copied out at its exact size.
fn normalized_bytes(value: &serde_json::Value) -> bytes::Bytes {
    use source::json::{Html, Numbers, write_value};
    JSON_BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        write_value(buffer, value, Html::Literal, Numbers::Float64);
        bytes::Bytes::copy_from_slice(buffer.as_bytes())
    })
}

/// Builds and validates what the files yielded.
fn finish(
    loaded: source::Loaded<model::DecodedMeta>,
    t0: Instant,
    options: &LoadOptions,
) -> Result<LoadedModel, Vec<Diagnostic>> {
    let parse = t0.elapsed();
    let bytes = loaded.files.iter().map(|f| f.size).sum();
    let digest = CatalogDigest::of(&loaded.files);
    let files = loaded.files.clone();
    let t1 = Instant::now();
    let built = model::build_decoded_with(loaded, options.chain_rule)?;
    Ok(LoadedModel {
        model: built.model,
        warnings: built.warnings,
        digest,
        files,
        bytes,
        parse,
        validate: t1.elapsed(),
    })
}

impl LoadedModel {
    /// The tables of the model, which was read from `root` under `limits`.
    pub fn tables(self, root: &Path, limits: ParseLimits) -> Tables {
        let files = CatalogFiles {
            root: root.to_path_buf(),
            files: self.files,
            limits,
        };
        Tables::from_model(self.model, files)
    }
}

impl LoadedWithJson {
    /// The tables, with each meta's JSON at hand.
    pub fn tables(self, root: &Path, limits: ParseLimits) -> Tables {
        let files = CatalogFiles {
            root: root.to_path_buf(),
            files: self.loaded.files,
            limits,
        };
        Tables::from_model_with_json(self.loaded.model, files, self.json)
    }
}

/// Frees a model on two threads: a large one is hundreds of thousands of small
/// allocations and takes tens of milliseconds to free.
pub fn free_on_two_threads(mut model: Model) {
    let half = model.packages.split_off(model.packages.len() / 2);
    std::thread::scope(|scope| {
        // If no thread can be started, `half` is freed here instead.
        let _ = std::thread::Builder::new().spawn_scoped(scope, move || drop(half));
        drop(model);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON kept from the one parse is what reading the files back gives.
    #[test]
    fn json_kept_at_load_is_what_the_files_give_back() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../catalogs/example");
        let options = LoadOptions::default();
        let kept = load_model_with_json(&root, &options)
            .unwrap()
            .tables(&root, options.limits);
        let read_back = load_model(&root, &options)
            .unwrap()
            .tables(&root, options.limits);
        let kept = kept.metas().json().unwrap();
        assert!(!kept.is_empty());
        assert_eq!(kept, read_back.metas().json().unwrap());
    }
}
