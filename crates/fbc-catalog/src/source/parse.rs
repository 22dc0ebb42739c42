//! One catalog file → blobs: JSON streams, YAML documents and the meta envelope.
//!
//! In: a file's path (relative to the root) and bytes. Out: a [`FileResult`] with
//! every blob (with its origin) and every error, in document order.

use super::limits::{Limit, ParseLimits};
use super::read::{ReadError, read_regular};
use super::{Blob, FileResult, LoadError, Origin, bounded_json, json, yaml};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// Reads and parses the catalog file at `path` (named `rel`) through `buffer`.
pub(super) fn read_and_parse(
    rel: &str,
    path: &Path,
    buffer: &mut Vec<u8>,
    limits: &ParseLimits,
) -> FileResult {
    match read_regular(path, limits.max_file_bytes, buffer) {
        Ok(read) => {
            let mut result = parse_file_with(rel, buffer, limits);
            result.size = read.size;
            result.modified = read.modified;
            result.hash = xxhash_rust::xxh3::xxh3_128(buffer);
            result
        }
        Err(e) => FileResult {
            errors: vec![read_error(rel, e)],
            ..FileResult::default()
        },
    }
}

/// The load error for a file that could not be read.
pub(crate) fn read_error(rel: &str, e: ReadError) -> LoadError {
    match e {
        ReadError::Io(e) => LoadError::Io {
            path: rel.to_string(),
            message: e.to_string(),
        },
        ReadError::NotRegular(found) => LoadError::NotRegular {
            path: rel.to_string(),
            found,
        },
        ReadError::TooLarge { limit } => LoadError::Limit {
            file: rel.to_string(),
            document: None,
            line: None,
            limit: Limit::FileSize,
            message: format!(
                "the file is larger than {limit} bytes (limit {})",
                Limit::FileSize.flag()
            ),
        },
    }
}

/// Parses the text of one catalog file named `rel` with the default limits.
pub fn parse_file(rel: &str, text: &str) -> FileResult {
    parse_file_with(rel, text.as_bytes(), &ParseLimits::default())
}

/// Parses the bytes of one catalog file named `rel` within `limits`.
///
/// A file whose first non-space byte is `{` is a JSON stream (bytes that are not
/// UTF-8 become U+FFFD, as Go's JSON decoder makes them); any other file is YAML,
/// where they are an error naming their offset.
pub fn parse_file_with(rel: &str, bytes: &[u8], limits: &ParseLimits) -> FileResult {
    // A UTF-8 byte-order mark is not content (Go's YAML and JSON readers skip it too).
    let (bom, bytes) = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    let file: Arc<str> = Arc::from(rel);
    let mut out = FileResult::default();
    let looks_like_json = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let lossy;
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) if !looks_like_json => {
            let offset = e.valid_up_to();
            out.errors.push(LoadError::ForbiddenCharacter {
                file: rel.to_string(),
                document: None,
                line: 1 + memchr::memchr_iter(b'\n', &bytes[..offset]).count(),
                offset: (bom + offset) as u64,
                message: format!(
                    "invalid YAML: bytes that are not UTF-8 at byte {}",
                    bom + offset
                ),
            });
            return out;
        }
        Err(_) => {
            lossy = String::from_utf8_lossy(bytes);
            &lossy
        }
    };
    if looks_like_json {
        if parse_json_stream(&file, text, limits, &mut out) {
            return out;
        }
        // Not JSON after all: the reference falls back to YAML (`{a: b}` is YAML).
        let mut yaml_out = FileResult::default();
        parse_yaml_documents(&file, text, bom, limits, &mut yaml_out);
        if yaml_out.errors.is_empty() {
            return yaml_out;
        }
        return out;
    }
    parse_yaml_documents(&file, text, bom, limits, &mut out);
    out
}

/// Returns false when the very first value failed to parse (the caller may retry as YAML).
fn parse_json_stream(
    file: &Arc<str>,
    text: &str,
    limits: &ParseLimits,
    out: &mut FileResult,
) -> bool {
    let mut document = 0;
    let mut lines = LineCounter::new(text);
    let mut stream = bounded_json::stream(text, limits.max_depth).peekable();
    while let Some(item) = stream.next() {
        document += 1;
        // the value starts at the first non-space byte after `start`
        let start = item.start;
        let value_start = start + (text[start..].len() - text[start..].trim_start().len());
        let line = lines.line_at(value_start);
        let value = match item.value {
            Ok(value) => value,
            Err(e) if item.too_deep => {
                out.errors.push(LoadError::Limit {
                    file: file.to_string(),
                    document: Some(document),
                    line: Some(e.line()),
                    limit: Limit::Depth,
                    message: bounded_json::depth_message(limits.max_depth),
                });
                break;
            }
            Err(e) => {
                out.errors.push(json_error(file, document, &e));
                if document == 1 {
                    return false;
                }
                break;
            }
        };
        let end = stream.peek().map_or(text.len(), |next| next.start);
        if (end - value_start) as u64 > limits.max_document_bytes {
            out.errors
                .push(document_too_large(file, document, line, limits));
            continue;
        }
        let origin = Origin {
            file: file.clone(),
            document,
            line,
        };
        push_document(value, origin, out);
    }
    true
}

fn document_too_large(
    file: &Arc<str>,
    document: usize,
    line: usize,
    limits: &ParseLimits,
) -> LoadError {
    LoadError::Limit {
        file: file.to_string(),
        document: Some(document),
        line: Some(line),
        limit: Limit::DocumentSize,
        message: format!(
            "the document is larger than {} bytes (limit {})",
            limits.max_document_bytes,
            Limit::DocumentSize.flag()
        ),
    }
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

/// Splits YAML text at `---` lines and parses each document. `bom` is the number
/// of bytes stripped before `text`, so offsets are reported within the file.
fn parse_yaml_documents(
    file: &Arc<str>,
    text: &str,
    bom: usize,
    limits: &ParseLimits,
    out: &mut FileResult,
) {
    let mut document = 0;
    let mut chunk_start: Option<(usize, usize)> = None; // (byte offset, line)
    let mut offset = 0;
    let mut line_no = 0;
    let mut flush = |start: Option<(usize, usize)>, end: usize, out: &mut FileResult| {
        if let Some((s, line)) = start
            && end > s
        {
            document += 1;
            let chunk = YamlChunk {
                text: &text[s..end],
                document,
                first_line: line,
                offset: bom + s,
            };
            parse_yaml_chunk(file, &chunk, limits, out);
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
                    text: super::prefix(trimmed),
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

/// One YAML document's text and where it sits in its file.
struct YamlChunk<'a> {
    text: &'a str,
    /// 1-based document number.
    document: usize,
    /// 1-based line of its first line.
    first_line: usize,
    /// Byte offset of its first byte.
    offset: usize,
}

fn parse_yaml_chunk(
    file: &Arc<str>,
    chunk: &YamlChunk,
    limits: &ParseLimits,
    out: &mut FileResult,
) {
    if chunk.text.len() as u64 > limits.max_document_bytes {
        out.errors.push(document_too_large(
            file,
            chunk.document,
            chunk.first_line,
            limits,
        ));
        return;
    }
    match yaml::document_to_json_with(chunk.text, limits) {
        Ok(None) => {}
        Ok(Some(value)) => {
            // report the first line that holds content
            let skipped = chunk
                .text
                .lines()
                .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
                .count();
            let origin = Origin {
                file: file.clone(),
                document: chunk.document,
                line: chunk.first_line + skipped,
            };
            push_document(value, origin, out);
        }
        Err(e) => out.errors.push(yaml_error(file, chunk, e)),
    }
}

fn yaml_error(file: &Arc<str>, chunk: &YamlChunk, e: yaml::YamlError) -> LoadError {
    let line = chunk.first_line + e.line.saturating_sub(1);
    match e.kind {
        yaml::YamlErrorKind::Syntax => LoadError::Yaml {
            file: file.to_string(),
            document: chunk.document,
            line,
            message: strip_parser_position(&e.message),
        },
        yaml::YamlErrorKind::ForbiddenCharacter => {
            let offset = (chunk.offset + e.offset.unwrap_or(0)) as u64;
            LoadError::ForbiddenCharacter {
                file: file.to_string(),
                document: Some(chunk.document),
                line,
                offset,
                message: format!(
                    "invalid YAML: {}",
                    e.message.split(" (at byte").next().unwrap_or(&e.message)
                ),
            }
        }
        yaml::YamlErrorKind::Limit(limit) => LoadError::Limit {
            file: file.to_string(),
            document: Some(chunk.document),
            line: Some(line),
            limit,
            message: e.message,
        },
    }
}

/// The parser's message without its own position (`at char N line L column C`):
/// the error already names the file, document and line.
fn strip_parser_position(message: &str) -> String {
    match message
        .rfind(" at char ")
        .or_else(|| message.rfind(" at byte "))
    {
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
            field: None,
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
                    field: Some(key),
                    message: format!(
                        "expected value for key {key:?} to be a string, got {}: {}",
                        kind_of(other),
                        super::prefix(&json::normalized(other))
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
