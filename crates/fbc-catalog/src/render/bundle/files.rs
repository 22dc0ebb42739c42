//! A bundle directory → its manifest objects and metadata documents, read as opm reads them.
//!
//! In: a directory holding `manifests/` and `metadata/`, and [`ParseLimits`]. Out:
//! [`BundleFiles`]: every non-hidden regular file directly in `manifests/`, in name
//! order, decoded to its first YAML or JSON document (a file that does not decode, or
//! whose object has no string `kind`, is skipped and named in
//! [`BundleFiles::skipped`], as opm skips it with a warning); and the first document
//! of every file of `metadata/`, in name order.
//!
//! Limits: at most [`MAX_FILES`] files per directory, each within
//! `limits.max_document_bytes`; nothing but regular files (and symlinks to them) is
//! opened.

use crate::source::ParseLimits;
use crate::source::parse_file_with;
use crate::source::read::read_regular;
use serde_json::Value;
use std::path::Path;

/// Most files read from `manifests/` or `metadata/`.
pub const MAX_FILES: usize = 10_000;

/// One decoded manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The file's name in `manifests/`.
    pub file: String,
    /// The object.
    pub object: Value,
}

/// One metadata file's first document, kept as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataDocument {
    /// The file's name in `metadata/`.
    pub file: String,
    /// The document.
    pub value: Value,
}

/// What a bundle directory holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BundleFiles {
    /// The manifest objects, in file name order.
    pub manifests: Vec<Manifest>,
    /// Files of `manifests/` that were skipped, with why.
    pub skipped: Vec<String>,
    /// The metadata documents, in file name order.
    pub metadata: Vec<MetadataDocument>,
}

/// Why a bundle directory could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FilesError {
    /// opm's message where opm has one.
    pub message: String,
}

fn fail(message: String) -> FilesError {
    FilesError { message }
}

/// Whether `dir` is a bundle directory: it has both a `manifests` and a `metadata`
/// directory (opm's test).
pub fn is_bundle_dir(dir: &Path) -> bool {
    dir.join("manifests").is_dir() && dir.join("metadata").is_dir()
}

/// Reads the bundle directory `root`.
pub fn read_bundle_dir(root: &Path, limits: &ParseLimits) -> Result<BundleFiles, FilesError> {
    let mut files = BundleFiles::default();
    for (name, path) in list(&root.join("manifests"), "manifests")? {
        if name.starts_with('.') || path.is_dir() {
            continue;
        }
        match first_document(&name, &path, limits) {
            Ok(Some(object)) if has_kind(&object) => {
                files.manifests.push(Manifest { file: name, object })
            }
            Ok(Some(_)) => files
                .skipped
                .push(format!("manifests/{name}: Object 'Kind' is missing")),
            Ok(None) => files.skipped.push(format!("manifests/{name}: no document")),
            Err(e) => files.skipped.push(format!("manifests/{name}: {e}")),
        }
    }
    if files.manifests.is_empty() {
        return Err(fail("no bundle objects found".into()));
    }
    for (name, path) in list(&root.join("metadata"), "metadata")? {
        if path.is_dir() {
            continue;
        }
        if let Ok(Some(value)) = first_document(&name, &path, limits) {
            files.metadata.push(MetadataDocument { file: name, value });
        }
    }
    Ok(files)
}

fn has_kind(object: &Value) -> bool {
    object
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| !k.is_empty())
}

/// The entries of `dir`, sorted by name as Go's `fs.ReadDir` sorts them.
fn list(dir: &Path, what: &str) -> Result<Vec<(String, std::path::PathBuf)>, FilesError> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| fail(format!("error opening {what} directory: {e}")))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| fail(format!("reading {what} directory: {e}")))?;
        if out.len() == MAX_FILES {
            return Err(fail(format!("{what}: more than {MAX_FILES} files")));
        }
        out.push((
            entry.file_name().to_string_lossy().into_owned(),
            entry.path(),
        ));
    }
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(out)
}

/// The first document of a file: a JSON value when its first non-space byte is `{`,
/// else the first YAML document (as Kubernetes' YAML-or-JSON decoder reads it).
fn first_document(name: &str, path: &Path, limits: &ParseLimits) -> Result<Option<Value>, String> {
    let mut buffer = Vec::new();
    read_regular(path, limits.max_document_bytes, &mut buffer).map_err(|e| e.to_string())?;
    let parsed = parse_file_with(name, &buffer, limits);
    let first_blob = parsed.blobs.into_iter().next();
    match (first_blob, parsed.errors.into_iter().next()) {
        (Some(blob), Some(error)) if blob.origin.document > 1 => Err(error.to_string()),
        (Some(blob), _) => Ok(Some(blob.value)),
        (None, Some(error)) => Err(error.to_string()),
        (None, None) => Ok(None),
    }
}
