//! Catalog directory → blobs.
//!
//! In: a catalog root directory. Out: every catalog object ("blob") in walk order,
//! each with its schema, package, name, JSON value and [`Origin`] (file, document,
//! line), or every load error found.
//!
//! # Rules (as the reference `opm serve` applies them, with noted differences)
//!
//! 1. Files are visited depth-first in byte order of their names, so the order of
//!    blobs is the same on every machine.
//! 2. Every file is a catalog file whatever its extension, except files named
//!    `.indexignore` and the files they exclude (see [`ignore_rules`]).
//! 3. Directories whose names start with `..` are skipped: they are the private
//!    data directories of Kubernetes ConfigMap and Secret volumes, whose files are
//!    also reachable through the volume's own symlinks. Symlinks to files and to
//!    directories are followed; a directory reached twice is read once.
//! 4. A file whose first non-space byte is `{` is a stream of JSON objects; any
//!    other file is a series of YAML documents separated by lines starting with
//!    `---`. Empty documents are skipped. Every document must be an object.
//! 5. Each object's `schema`, `package` and `name` are found case-insensitively and
//!    must be strings (see [`Blob`]).
//!
//! Unlike the reference, every error carries the file path and document number and
//! loading goes on after an error, so one run reports every broken file.

pub mod bounded_json;
pub mod digest;
pub mod ignore_rules;
pub mod json;
pub mod limits;
mod parse;
pub mod read;
mod walk;
pub mod yaml;

pub use digest::{CatalogDigest, FileDigest};
pub use limits::ParseLimits;
use parse::read_and_parse;
pub use parse::{kind_of, parse_file, parse_file_with};
pub use walk::list_catalog_files;

use serde_json::Value;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// Where a blob came from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    /// Path relative to the catalog root, `/`-separated.
    pub file: Arc<str>,
    /// 1-based number of the JSON value or YAML document within the file.
    pub document: usize,
    /// 1-based line where the document starts.
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: document {} (line {})",
            self.file, self.document, self.line
        )
    }
}

/// One top-level catalog object.
#[derive(Clone, Debug, PartialEq)]
pub struct Blob {
    /// The `schema` field (`olm.package`, `olm.channel`, …); may be empty.
    pub schema: String,
    /// The `package` field, or empty.
    pub package: String,
    /// The `name` field, or empty.
    pub name: String,
    /// The whole object.
    pub value: Value,
    /// Where it was read.
    pub origin: Origin,
}

impl Blob {
    /// The normalised JSON text of the blob: sorted keys, compact, Go number form.
    pub fn normalized_json(&self) -> String {
        json::normalized(&self.value)
    }
}

/// Why a catalog could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// The root or a file or directory could not be read.
    #[error("{path}: {message}")]
    Io {
        /// Path as given or relative to the root.
        path: String,
        /// The OS error.
        message: String,
    },
    /// A path names a FIFO, socket or device (directly or through a symlink).
    #[error("{path}: not a regular file or directory ({found}); only regular files are read")]
    NotRegular {
        /// Path relative to the root.
        path: String,
        /// What it is (`a FIFO`, `a character device`, …).
        found: &'static str,
    },
    /// A character the format forbids (NUL and other control characters in YAML),
    /// or bytes that are not UTF-8 in a YAML file.
    #[error("{}: {message}", place(file, *document, Some(*line), Some(*offset)))]
    ForbiddenCharacter {
        /// File relative to the root.
        file: String,
        /// 1-based document number, when the problem is inside one.
        document: Option<usize>,
        /// 1-based line.
        line: usize,
        /// Byte offset within the file.
        offset: u64,
        /// What was found.
        message: String,
    },
    /// A [`limits::ParseLimits`] bound was exceeded.
    #[error("{}: {message}", place(file, *document, *line, None))]
    Limit {
        /// File relative to the root.
        file: String,
        /// 1-based document number, when the limit is about one.
        document: Option<usize>,
        /// 1-based line, when known.
        line: Option<usize>,
        /// Which limit.
        limit: limits::Limit,
        /// What was exceeded, naming the flag that raises the limit.
        message: String,
    },
    /// An `.indexignore` file has an invalid pattern.
    #[error("{path}: line {line}: invalid ignore pattern: {message}")]
    IgnorePattern {
        /// Path of the `.indexignore` file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A JSON value is malformed.
    #[error("{file}: document {document} (line {line}, column {column}): invalid JSON: {message}")]
    Json {
        /// File relative to the root.
        file: String,
        /// 1-based value number.
        document: usize,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A YAML document is malformed.
    #[error("{file}: document {document} (line {line}): invalid YAML: {message}")]
    Yaml {
        /// File relative to the root.
        file: String,
        /// 1-based document number.
        document: usize,
        /// 1-based line in the file.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A line starting with `---` carries more than a comment.
    #[error(
        "{file}: line {line}: invalid YAML document separator: {text:?} (only a comment may follow `---`)"
    )]
    Separator {
        /// File relative to the root.
        file: String,
        /// 1-based line.
        line: usize,
        /// The offending text after `---`.
        text: String,
    },
    /// A document is not a JSON object.
    #[error("{origin}: a catalog object must be a JSON object, found {found}")]
    NotAnObject {
        /// Where.
        origin: Origin,
        /// What was found (`an array`, `a string`, …).
        found: &'static str,
    },
    /// `schema`, `package` or `name` is duplicated or not a string.
    #[error("{origin}: {message}")]
    Envelope {
        /// Where.
        origin: Origin,
        /// The key at fault, when one is.
        field: Option<&'static str>,
        /// What is wrong.
        message: String,
    },
}

/// At most the first 100 characters of `text`, with `…` and the full length when
/// cut: an error message never repeats an unbounded amount of input.
pub fn prefix(text: &str) -> String {
    const MAX_CHARS: usize = 100;
    match text.char_indices().nth(MAX_CHARS) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}… ({} bytes)", &text[..cut], text.len()),
    }
}

/// `file: document D (line L, byte B)`, leaving out what is not known (the form
/// [`crate::diagnostic::Location`] writes too).
fn place(file: &str, document: Option<usize>, line: Option<usize>, offset: Option<u64>) -> String {
    let mut position = Vec::new();
    if let Some(line) = line {
        position.push(format!("line {line}"));
    }
    if let Some(offset) = offset {
        position.push(format!("byte {offset}"));
    }
    match (document, position.is_empty()) {
        (Some(d), true) => format!("{file}: document {d}"),
        (Some(d), false) => format!("{file}: document {d} ({})", position.join(", ")),
        (None, false) => format!("{file}: {}", position.join(", ")),
        (None, true) => file.to_string(),
    }
}

/// The result of reading a catalog root: blobs in walk order, plus what failed.
///
/// `B` is [`Blob`], or what [`load_dir_with`] turned each blob into.
#[derive(Debug)]
pub struct Loaded<B = Blob> {
    /// Every blob, in file walk order, then document order.
    pub blobs: Vec<B>,
    /// Every error, in the same order.
    pub errors: Vec<LoadError>,
    /// The catalog files read, in walk order, with their sizes and hashes.
    pub files: Vec<FileDigest>,
}

impl<B> Default for Loaded<B> {
    fn default() -> Self {
        Loaded {
            blobs: Vec::new(),
            errors: Vec::new(),
            files: Vec::new(),
        }
    }
}

/// Reads every catalog file below `root`.
pub fn load_dir(root: &Path) -> Loaded {
    load_dir_with(root, &ParseLimits::default(), |_: &mut (), blob| blob)
}

/// Reads every catalog file below `root`, on all cores, and passes each blob
/// through `map` on the worker that parsed it, right after its file is parsed.
/// `map` gets the worker's own state `S` (created with `S::default()`).
///
/// A parsed JSON tree is several times the size of its text; mapping each file's
/// blobs to what is kept of them (a decoded bundle, say) before the next file is
/// read keeps only one file's trees alive per worker, instead of the whole catalog's.
pub fn load_dir_with<S: Default, B: Send>(
    root: &Path,
    limits: &ParseLimits,
    map: impl Fn(&mut S, Blob) -> B + Sync,
) -> Loaded<B> {
    let mut loaded = Loaded::default();
    let files = match list_catalog_files(root, limits) {
        Ok(files) => files,
        Err(errors) => {
            loaded.errors = errors;
            return loaded;
        }
    };
    // Each worker reuses one read buffer: a fresh multi-megabyte buffer per file
    // would cost a page fault per page, every time.
    let results = crate::parallel::parallel_map_with(
        &files,
        |(state, buffer): &mut (S, Vec<u8>), (rel, path)| {
            let parsed = read_and_parse(rel, path, buffer, limits);
            let blobs: Vec<B> = parsed.blobs.into_iter().map(|b| map(state, b)).collect();
            let file = (parsed.size, parsed.hash, parsed.modified);
            (blobs, parsed.errors, file)
        },
    );
    for ((rel, _), result) in files.iter().zip(results) {
        let (blobs, errors, (size, hash, modified)) = result.unwrap_or_else(|| {
            let message = "internal error: the worker reading this file failed".to_string();
            (
                Vec::new(),
                vec![io_error_message(rel, message)],
                (0, 0, None),
            )
        });
        loaded.files.push(FileDigest {
            rel: rel.clone(),
            size,
            hash,
            modified,
        });
        loaded.blobs.extend(blobs);
        loaded.errors.extend(errors);
    }
    loaded
}

/// What one file yielded.
#[derive(Debug, Default)]
pub struct FileResult {
    /// Blobs in document order.
    pub blobs: Vec<Blob>,
    /// Errors in document order.
    pub errors: Vec<LoadError>,
    /// Size in bytes.
    pub size: u64,
    /// xxh3-128 of the bytes (see [`digest`]).
    pub hash: u128,
    /// Modification time when read (nanoseconds since the epoch), if known.
    pub modified: Option<i128>,
}

pub(crate) fn io_error_message(path: &str, message: String) -> LoadError {
    LoadError::Io {
        path: path.to_string(),
        message,
    }
}

pub(crate) fn io_error(path: String, e: &std::io::Error) -> LoadError {
    LoadError::Io {
        path,
        message: e.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests;
