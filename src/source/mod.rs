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

pub mod ignore_rules;
pub mod json;
pub mod yaml;

use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};
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
        /// What is wrong.
        message: String,
    },
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
    /// The catalog files read (relative paths, walk order) and their sizes.
    pub files: Vec<(String, u64)>,
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
    load_dir_with(root, |_: &mut (), blob| blob)
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
    map: impl Fn(&mut S, Blob) -> B + Sync,
) -> Loaded<B> {
    let mut loaded = Loaded::default();
    let files = match list_catalog_files(root) {
        Ok(files) => files,
        Err(errors) => {
            loaded.errors = errors;
            return loaded;
        }
    };
    // Each worker reuses one read buffer: a fresh multi-megabyte buffer per file
    // would cost a page fault per page, every time.
    let results = parallel_map_with(&files, |(state, buffer): &mut (S, Vec<u8>), (rel, path)| {
        let parsed = read_and_parse(rel, path, buffer);
        let blobs: Vec<B> = parsed.blobs.into_iter().map(|b| map(state, b)).collect();
        (blobs, parsed.errors, parsed.size)
    });
    for ((rel, _), result) in files.iter().zip(results) {
        let (blobs, errors, size) = result.unwrap_or_else(|| {
            let message = "internal error: the worker reading this file failed".to_string();
            (Vec::new(), vec![io_error_message(rel, message)], 0)
        });
        loaded.files.push((rel.clone(), size));
        loaded.blobs.extend(blobs);
        loaded.errors.extend(errors);
    }
    loaded
}

/// Lists the catalog files below `root` in walk order: (relative path, absolute path).
pub fn list_catalog_files(root: &Path) -> Result<Vec<(String, PathBuf)>, Vec<LoadError>> {
    let meta = std::fs::metadata(root).map_err(|e| {
        vec![LoadError::Io {
            path: root.display().to_string(),
            message: e.to_string(),
        }]
    })?;
    if !meta.is_dir() {
        return Err(vec![LoadError::Io {
            path: root.display().to_string(),
            message: "not a directory".into(),
        }]);
    }
    let mut walker = Walker {
        root: root.to_path_buf(),
        files: Vec::new(),
        ignore_files: Vec::new(),
        errors: Vec::new(),
        seen_dirs: Vec::new(),
    };
    walker.walk_dir(root, "");
    if !walker.errors.is_empty() {
        return Err(walker.errors);
    }
    // Parents before children, whatever the names: `-sub/` sorts before `.indexignore`.
    walker
        .ignore_files
        .sort_by_key(|(rel, _)| rel.matches('/').count());
    let rules = ignore_rules::IgnoreRules::from_files(&walker.ignore_files).map_err(|e| vec![e])?;
    Ok(walker
        .files
        .into_iter()
        .filter(|(rel, _)| !rules.is_ignored(rel))
        .collect())
}

struct Walker {
    root: PathBuf,
    files: Vec<(String, PathBuf)>,
    ignore_files: Vec<(String, PathBuf)>,
    errors: Vec<LoadError>,
    seen_dirs: Vec<PathBuf>,
}

impl Walker {
    fn walk_dir(&mut self, dir: &Path, rel: &str) {
        if let Ok(canonical) = dir.canonicalize() {
            if self.seen_dirs.contains(&canonical) {
                return;
            }
            self.seen_dirs.push(canonical);
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(rd) => rd,
            Err(e) => {
                self.errors.push(io_error(rel_or_root(rel, &self.root), &e));
                return;
            }
        };
        let mut names: Vec<(Vec<u8>, std::ffi::OsString)> = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => {
                    let name = entry.file_name();
                    names.push((name.as_encoded_bytes().to_vec(), name));
                }
                Err(e) => self.errors.push(io_error(rel_or_root(rel, &self.root), &e)),
            }
        }
        names.sort();
        for (_, name) in names {
            let name_str = name.to_string_lossy();
            let child_rel = if rel.is_empty() {
                name_str.to_string()
            } else {
                format!("{rel}/{name_str}")
            };
            let path = dir.join(&name);
            // follows symlinks
            // An entry that cannot be inspected (a dangling symlink) is listed as a
            // file: reading it reports the error, unless `.indexignore` excludes it.
            let is_dir = std::fs::metadata(&path)
                .map(|m| m.is_dir())
                .unwrap_or(false);
            if is_dir {
                if name_str.starts_with("..") {
                    continue;
                }
                self.walk_dir(&path, &child_rel);
            } else if name_str == ".indexignore" {
                self.ignore_files.push((child_rel, path));
            } else {
                self.files.push((child_rel, path));
            }
        }
    }
}

fn rel_or_root(rel: &str, root: &Path) -> String {
    if rel.is_empty() {
        root.display().to_string()
    } else {
        rel.to_string()
    }
}

fn io_error_message(path: &str, message: String) -> LoadError {
    LoadError::Io {
        path: path.to_string(),
        message,
    }
}

fn io_error(path: String, e: &std::io::Error) -> LoadError {
    LoadError::Io {
        path,
        message: e.to_string(),
    }
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
}

/// Applies `f` to every item on all cores; results come back in item order.
/// An item is `None` only if `f` panicked on it: the panic is caught (and
/// printed by the panic hook), so one bad item cannot take the process down.
///
/// Each worker thread has a state of its own (an [`crate::arena::Arena`], a read
/// buffer), created with `S::default()` (and again after a panic, which may have
/// left it half-updated). If no worker thread can be started, the calling thread
/// does all the work.
pub fn parallel_map_with<T: Sync, R: Send, S: Default>(
    items: &[T],
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<Option<R>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        let mut state = S::default();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                break;
            };
            let call = std::panic::AssertUnwindSafe(|| f(&mut state, item));
            match std::panic::catch_unwind(call) {
                Ok(result) => {
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(result);
                    }
                }
                Err(_) => state = S::default(),
            }
        }
    };
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..workers {
            // a worker that cannot be started leaves its share to the others
            if std::thread::Builder::new()
                .spawn_scoped(scope, work)
                .is_ok()
            {
                started += 1;
            }
        }
        if started == 0 {
            work();
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

fn read_and_parse(rel: &str, path: &Path, buffer: &mut Vec<u8>) -> FileResult {
    use std::io::Read;
    buffer.clear();
    let read = std::fs::File::open(path).and_then(|mut f| f.read_to_end(buffer));
    if let Err(e) = read {
        return FileResult {
            errors: vec![io_error(rel.to_string(), &e)],
            ..FileResult::default()
        };
    }
    let size = buffer.len() as u64;
    let lossy;
    let text = match std::str::from_utf8(buffer) {
        Ok(s) => s,
        Err(_) => {
            lossy = String::from_utf8_lossy(buffer).into_owned();
            lossy.as_str()
        }
    };
    let mut result = parse_file(rel, text);
    result.size = size;
    result
}

/// Parses the text of one catalog file named `rel`.
pub fn parse_file(rel: &str, text: &str) -> FileResult {
    // A UTF-8 byte-order mark is not content (Go's YAML and JSON readers skip it too).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file: Arc<str> = Arc::from(rel);
    let mut out = FileResult::default();
    let first = text.trim_start();
    if first.starts_with('{') {
        if parse_json_stream(&file, text, &mut out) {
            return out;
        }
        // Not JSON after all: the reference falls back to YAML (`{a: b}` is YAML).
        let mut yaml_out = FileResult::default();
        parse_yaml_documents(&file, text, &mut yaml_out);
        if yaml_out.errors.is_empty() {
            return yaml_out;
        }
        return out;
    }
    parse_yaml_documents(&file, text, &mut out);
    out
}

/// Returns false when the very first value failed to parse (the caller may retry as YAML).
fn parse_json_stream(file: &Arc<str>, text: &str, out: &mut FileResult) -> bool {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut document = 0;
    let mut lines = LineCounter::new(text);
    loop {
        let start = stream.byte_offset();
        let next = stream.next();
        let Some(next) = next else { break };
        document += 1;
        // the value starts at the first non-space byte after `start`
        let value_start = start + (text[start..].len() - text[start..].trim_start().len());
        let line = lines.line_at(value_start);
        match next {
            Ok(value) => {
                let origin = Origin {
                    file: file.clone(),
                    document,
                    line,
                };
                push_document(value, origin, out);
            }
            Err(e) => {
                if document == 1 {
                    out.errors.push(json_error(file, document, &e));
                    return false;
                }
                out.errors.push(json_error(file, document, &e));
                break;
            }
        }
    }
    true
}

fn json_error(file: &Arc<str>, document: usize, e: &serde_json::Error) -> LoadError {
    let message = e.to_string();
    // serde_json appends " at line L column C"; we report them as fields.
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    LoadError::Json {
        file: file.to_string(),
        document,
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// Incremental byte offset → 1-based line number.
struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        LineCounter {
            text,
            offset: 0,
            line: 1,
        }
    }

    fn line_at(&mut self, offset: usize) -> usize {
        if offset >= self.offset {
            let end = offset.min(self.text.len());
            self.line +=
                memchr::memchr_iter(b'\n', &self.text.as_bytes()[self.offset..end]).count();
            self.offset = end;
        }
        self.line
    }
}

fn parse_yaml_documents(file: &Arc<str>, text: &str, out: &mut FileResult) {
    let mut document = 0;
    let mut chunk_start: Option<(usize, usize)> = None; // (byte offset, line)
    let mut offset = 0;
    let mut line_no = 0;
    let mut flush = |start: Option<(usize, usize)>, end: usize, out: &mut FileResult| {
        if let Some((s, line)) = start
            && end > s
        {
            document += 1;
            parse_yaml_chunk(file, &text[s..end], document, line, out);
        }
    };
    for line in text.split_inclusive('\n') {
        line_no += 1;
        if let Some(rest) = line.strip_prefix("---") {
            let trimmed = rest.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                out.errors.push(LoadError::Separator {
                    file: file.to_string(),
                    line: line_no,
                    text: trimmed.to_string(),
                });
                return;
            }
            flush(chunk_start.take(), offset, out);
        } else if chunk_start.is_none() {
            chunk_start = Some((offset, line_no));
        }
        offset += line.len();
    }
    flush(chunk_start, offset, out);
}

fn parse_yaml_chunk(
    file: &Arc<str>,
    chunk: &str,
    document: usize,
    first_line: usize,
    out: &mut FileResult,
) {
    match yaml::document_to_json(chunk) {
        Ok(None) => {}
        Ok(Some(value)) => {
            // report the first line that holds content
            let skipped = chunk
                .lines()
                .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
                .count();
            let origin = Origin {
                file: file.clone(),
                document,
                line: first_line + skipped,
            };
            push_document(value, origin, out);
        }
        Err(e) => out.errors.push(LoadError::Yaml {
            file: file.to_string(),
            document,
            line: first_line + e.line.saturating_sub(1),
            message: strip_saphyr_position(&e.message),
        }),
    }
}

fn strip_saphyr_position(message: &str) -> String {
    match message.rfind(" at byte ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn push_document(value: Value, origin: Origin, out: &mut FileResult) {
    match value {
        Value::Object(_) => match envelope(value, origin) {
            Ok(blob) => out.blobs.push(blob),
            Err(e) => out.errors.push(e),
        },
        other => out.errors.push(LoadError::NotAnObject {
            origin,
            found: kind_of(&other),
        }),
    }
}

/// A short description of a JSON value's kind for messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Unicode simple case folding, as Go's `cases.Fold` applies it to object keys.
fn fold_case(key: &str) -> String {
    key.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'ſ' => 's',
            'ς' => 'σ',
            other => other,
        })
        .collect()
}

/// Extracts `schema`, `package` and `name` (case-insensitive keys, string values).
fn envelope(value: Value, origin: Origin) -> Result<Blob, LoadError> {
    let Value::Object(map) = &value else {
        return Err(LoadError::NotAnObject {
            origin,
            found: kind_of(&value),
        });
    };
    // Keys that differ only by case folding are duplicates, whichever key it is.
    let mut folded: std::collections::BTreeMap<String, Vec<&String>> =
        std::collections::BTreeMap::new();
    for k in map.keys() {
        folded.entry(fold_case(k)).or_default().push(k);
    }
    let dups: Vec<String> = folded
        .iter()
        .filter(|(_, keys)| keys.len() > 1)
        .map(|(f, keys)| format!("duplicate keys for key {f:?}: {keys:?}"))
        .collect();
    if !dups.is_empty() {
        return Err(LoadError::Envelope {
            origin,
            message: dups.join("; "),
        });
    }
    let mut fields = [String::new(), String::new(), String::new()];
    for (slot, key) in ["schema", "package", "name"].iter().enumerate() {
        let Some(k) = folded.get(*key).and_then(|keys| keys.first()) else {
            continue;
        };
        match &map[k.as_str()] {
            Value::String(s) => fields[slot] = s.clone(),
            other => {
                return Err(LoadError::Envelope {
                    origin,
                    message: format!(
                        "expected value for key {key:?} to be a string, got {}: {}",
                        kind_of(other),
                        json::normalized(other)
                    ),
                });
            }
        }
    }
    let [schema, package, name] = fields;
    Ok(Blob {
        schema,
        package,
        name,
        value,
        origin,
    })
}

#[cfg(test)]
mod tests;
