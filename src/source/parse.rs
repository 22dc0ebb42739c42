//! One catalog file → blobs: JSON streams, YAML documents and the meta envelope.
//!
//! In: a file's path (relative to the root) and bytes. Out: a [`FileResult`] with
//! every blob (with its origin) and every error, in document order.

use super::{Blob, FileResult, LoadError, Origin, io_error, json, yaml};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

pub(super) fn read_and_parse(rel: &str, path: &Path, buffer: &mut Vec<u8>) -> FileResult {
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
