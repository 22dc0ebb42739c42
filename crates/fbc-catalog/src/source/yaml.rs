//! YAML documents → JSON values, resolved the way the reference Go loader resolves them.
//!
//! In: the text of one YAML document (the loader splits files at `---` lines first).
//! Out: a `serde_json::Value`, or `None` for an empty document.
//!
//! The reference converts YAML with sigs.k8s.io/yaml on top of go-yaml v2, which
//! follows YAML 1.1. Plain (unquoted) scalars are resolved by these rules, in order:
//!
//! 1. `~`, `null`, `Null`, `NULL` and the empty scalar are null;
//! 2. `y Y yes Yes YES on On ON true True TRUE` are true, `n N no No NO off Off OFF
//!    false False FALSE` are false;
//! 3. scalars that look like timestamps (`2026-01-26T17:53:29`) stay strings, with their
//!    original text;
//! 4. integers (decimal, `0x`, `0o`, leading-`0` octal, `0b`, `_` separators), then
//!    floats; `.inf` and `.nan` are rejected because JSON cannot carry them;
//! 5. everything else is a string.
//!
//! Quoted and block scalars, and scalars tagged `!!str`, are always strings. Mapping
//! keys become strings (`on:` is the key `"true"`, as in Go); a sequence or mapping as a
//! key is an error, go-yaml's `invalid map key`. Anchors, aliases and `<<` merge keys are
//! supported.
//!
//! The scalar rules are in `yaml_scalar.rs` (module `scalar`, [`resolve_scalar`]
//! re-exported here), the unit tests in `yaml_tests.rs`.

use super::limits::{Limit, ParseLimits};
use granit_parser::{Event, Parser, ScalarStyle, Span};
use serde_json::{Map, Value};
use std::collections::HashMap;

mod scalar;

use scalar::key_to_string;
pub use scalar::{is_timestamp, resolve_scalar};

/// What kind of problem a [`YamlError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// Not well-formed YAML, or a value JSON cannot carry.
    Syntax,
    /// A character the YAML specification forbids (NUL and other control characters).
    ForbiddenCharacter,
    /// A [`ParseLimits`] bound was exceeded.
    Limit(Limit),
}

/// A YAML syntax or conversion error, with the 1-based line (within the document
/// text given) where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct YamlError {
    /// 1-based line within the document text.
    pub line: usize,
    /// Byte offset within the document text, when known exactly.
    pub offset: Option<usize>,
    /// What kind of problem.
    pub kind: YamlErrorKind,
    /// What is wrong.
    pub message: String,
}

impl YamlError {
    fn syntax(line: usize, message: impl Into<String>) -> Self {
        YamlError {
            line,
            offset: None,
            kind: YamlErrorKind::Syntax,
            message: message.into(),
        }
    }

    fn limit(line: usize, limit: Limit, message: String) -> Self {
        YamlError {
            line,
            offset: None,
            kind: YamlErrorKind::Limit(limit),
            message,
        }
    }
}

/// Parses one YAML document into a JSON value with the default [`ParseLimits`];
/// `Ok(None)` when it holds no node.
pub fn document_to_json(text: &str) -> Result<Option<Value>, YamlError> {
    document_to_json_with(text, &ParseLimits::default())
}

/// Parses one YAML document into a JSON value within `limits`; `Ok(None)` when it
/// holds no node.
///
/// Characters YAML forbids are reported (the parser underneath would take a NUL
/// for the end of the text and drop what follows); nesting deeper than
/// `limits.max_depth` and alias expansion beyond `limits.max_alias_nodes` stop the
/// parse. The tree is built without recursion, whatever the input's depth.
pub fn document_to_json_with(text: &str, limits: &ParseLimits) -> Result<Option<Value>, YamlError> {
    if let Some((offset, c)) = find_forbidden_char(text) {
        let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count();
        return Err(YamlError {
            line,
            offset: Some(offset),
            kind: YamlErrorKind::ForbiddenCharacter,
            message: format!(
                "control character U+{:04X} is not allowed in YAML (at byte {offset})",
                c as u32
            ),
        });
    }
    let mut builder = Builder {
        parser: Parser::new_from_str_with_options(text, {
            let mut options = granit_parser::Options::default();
            options.emit_comments = false;
            // ours is the limit that applies, with its own error (the parser's
            // defaults, 255, would refuse what --max-depth allows)
            options.block_nesting_limit = limits.max_depth.saturating_add(1);
            options.flow_nesting_limit = limits.max_depth.saturating_add(1);
            options
        }),
        anchors: HashMap::new(),
        limits: *limits,
        copied_nodes: 0,
    };
    builder.document()
}

/// The first character the YAML specification does not allow in a stream, with
/// its byte offset: C0 controls other than tab, line feed and carriage return,
/// DEL, C1 controls other than NEL, and U+FFFE/U+FFFF (go-yaml's reader rejects the
/// same set).
///
/// Written by hand for speed (it reads every byte of every YAML file): blocks of
/// 32 bytes are tested with a branch-free reduction the compiler turns into SIMD
/// compares, and only a block holding a forbidden ASCII byte or a `C2`/`EF` byte is
/// looked at byte by byte. The text is UTF-8, so the forbidden non-ASCII characters
/// are recognised by their encodings alone: C1 controls are `C2 80`–`C2 9F` (NEL is
/// `C2 85`), U+FFFE/U+FFFF are `EF BF BE`/`EF BF BF`, and neither `C2` nor `EF`
/// can be a continuation byte.
pub fn find_forbidden_char(text: &str) -> Option<(usize, char)> {
    const BLOCK: usize = 32;
    let bytes = text.as_bytes();
    let mut start = 0;
    for block in bytes.chunks(BLOCK) {
        let suspicious = match <&[u8; BLOCK]>::try_from(block) {
            Ok(block) => block_may_hold_forbidden(block),
            Err(_) => true, // the last few bytes
        };
        if suspicious {
            for i in start..start + block.len() {
                if forbidden_at(bytes, i) {
                    return text[i..].chars().next().map(|c| (i, c));
                }
            }
        }
        start += block.len();
    }
    None
}

/// Whether a block may hold the start of a forbidden character: an ASCII control
/// other than tab, LF and CR, DEL, or a `C2`/`EF` lead byte. No early exit, so
/// the loop vectorises.
fn block_may_hold_forbidden(block: &[u8; 32]) -> bool {
    block.iter().fold(false, |any, &b| {
        let control = b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r';
        any | control | (b == 0x7f) | (b == 0xc2) | (b == 0xef)
    })
}

/// Whether a forbidden character starts at byte `i` of UTF-8 `bytes`.
fn forbidden_at(bytes: &[u8], i: usize) -> bool {
    let at = |k: usize| bytes.get(i + k).copied().unwrap_or(0);
    match bytes[i] {
        b'\t' | b'\n' | b'\r' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => (0x80..=0x9f).contains(&at(1)) && at(1) != 0x85,
        0xef => at(1) == 0xbf && matches!(at(2), 0xbe | 0xbf),
        _ => false,
    }
}

#[cfg(test)]
fn is_forbidden(c: char) -> bool {
    match c {
        '\t' | '\n' | '\r' | '\u{85}' => false,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{fffe}' | '\u{ffff}' => true,
        _ => false,
    }
}

struct Builder<'a> {
    parser: Parser<'a, granit_parser::StrInput<'a>>,
    /// Anchored nodes by the parser's anchor id, with their node counts.
    anchors: HashMap<usize, (Value, usize)>,
    limits: ParseLimits,
    /// Nodes copied so far for anchors and aliases (see `ParseLimits::max_alias_nodes`).
    copied_nodes: usize,
}

type Spanned<'a> = (Event<'a>, Span);

/// A built node and how many nodes it holds (itself included).
struct Node {
    value: Value,
    nodes: usize,
}

/// A collection being built.
enum Frame {
    Sequence {
        items: Vec<Value>,
        anchor: usize,
        nodes: usize,
    },
    Mapping {
        map: Map<String, Value>,
        /// The key waiting for its value: a string, or a `<<` merge key.
        key: Option<Key>,
        merges: Vec<(Value, usize)>,
        anchor: usize,
        nodes: usize,
    },
}

enum Key {
    Plain(String),
    /// `<<`, at this line.
    Merge(usize),
}

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<Spanned<'a>, YamlError> {
        match self.parser.next() {
            Some(Ok(ev)) => Ok(ev),
            Some(Err(e)) => Err(YamlError::syntax(e.marker().line(), e.to_string())),
            None => Err(YamlError::syntax(0, "unexpected end of YAML stream")),
        }
    }

    fn document(&mut self) -> Result<Option<Value>, YamlError> {
        loop {
            let (event, span) = self.next()?;
            match event {
                Event::StreamStart | Event::DocumentStart(..) | Event::Comment(..) => continue,
                Event::StreamEnd | Event::DocumentEnd => return Ok(None),
                other => {
                    let value = self.tree(other, span)?;
                    // go-yaml reads only the first document of the text it is given.
                    return Ok(match value {
                        Value::Null => None,
                        v => Some(v),
                    });
                }
            }
        }
    }

    /// Builds the node that starts with `event`, reading events until it is complete.
    /// An explicit stack of open collections stands in for recursion.
    fn tree(&mut self, first: Event<'a>, first_span: Span) -> Result<Value, YamlError> {
        let mut stack: Vec<Frame> = Vec::new();
        let (mut event, mut span) = (first, first_span);
        loop {
            let line = span.start.line();
            let done = match event {
                Event::Scalar(text, style, anchor, tag) => {
                    let merge_key = text == "<<"
                        && style == ScalarStyle::Plain
                        && tag.is_none()
                        && matches!(stack.last(), Some(Frame::Mapping { key: None, .. }));
                    if merge_key {
                        if let Some(Frame::Mapping { key, .. }) = stack.last_mut() {
                            *key = Some(Key::Merge(line));
                        }
                        None
                    } else {
                        let value = resolve_scalar(&text, style, tag.as_deref())
                            .map_err(|message| YamlError::syntax(line, message))?;
                        let node = Node { value, nodes: 1 };
                        Some(if anchor == 0 {
                            node
                        } else {
                            self.remember(anchor, node, line)?
                        })
                    }
                }
                Event::Alias(id) => Some(self.alias(id, line)?),
                Event::SequenceStart(_, anchor, _) => {
                    self.check_depth(stack.len(), line)?;
                    stack.push(Frame::Sequence {
                        items: Vec::new(),
                        anchor,
                        nodes: 1,
                    });
                    None
                }
                Event::MappingStart(_, anchor, _) => {
                    self.check_depth(stack.len(), line)?;
                    stack.push(Frame::Mapping {
                        map: Map::new(),
                        key: None,
                        merges: Vec::new(),
                        anchor,
                        nodes: 1,
                    });
                    None
                }
                Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                    Some(frame) => Some(self.close(frame, line)?),
                    None => return Err(YamlError::syntax(line, "unbalanced YAML collection end")),
                },
                other => {
                    return Err(YamlError::syntax(
                        line,
                        format!("unexpected YAML event {other:?}"),
                    ));
                }
            };
            if let Some(node) = done {
                match stack.last_mut() {
                    None => return Ok(node.value),
                    Some(parent) => add_child(parent, node)
                        .map_err(|message| YamlError::syntax(line, message))?,
                }
            }
            (event, span) = self.next()?;
        }
    }

    fn check_depth(&self, open: usize, line: usize) -> Result<(), YamlError> {
        if open >= self.limits.max_depth {
            return Err(YamlError::limit(
                line,
                Limit::Depth,
                format!(
                    "nesting deeper than {} levels (limit {})",
                    self.limits.max_depth,
                    Limit::Depth.flag()
                ),
            ));
        }
        Ok(())
    }

    /// Finishes a collection: applies merge keys, remembers its anchor.
    fn close(&mut self, frame: Frame, line: usize) -> Result<Node, YamlError> {
        match frame {
            Frame::Sequence {
                items,
                anchor,
                nodes,
            } => self.remember(
                anchor,
                Node {
                    value: Value::Array(items),
                    nodes,
                },
                line,
            ),
            Frame::Mapping {
                mut map,
                merges,
                anchor,
                nodes,
                ..
            } => {
                for (merge, merge_line) in merges {
                    merge_into(&mut map, merge)
                        .map_err(|message| YamlError::syntax(merge_line, message))?;
                }
                self.remember(
                    anchor,
                    Node {
                        value: Value::Object(map),
                        nodes,
                    },
                    line,
                )
            }
        }
    }

    /// Charges `nodes` copied nodes to the alias budget.
    fn charge(&mut self, nodes: usize, line: usize) -> Result<(), YamlError> {
        self.copied_nodes = self.copied_nodes.saturating_add(nodes);
        if self.copied_nodes > self.limits.max_alias_nodes {
            return Err(YamlError::limit(
                line,
                Limit::AliasNodes,
                format!(
                    "anchors and aliases expand to more than {} nodes (limit {})",
                    self.limits.max_alias_nodes,
                    Limit::AliasNodes.flag()
                ),
            ));
        }
        Ok(())
    }

    fn alias(&mut self, id: usize, line: usize) -> Result<Node, YamlError> {
        let nodes = match self.anchors.get(&id) {
            Some((_, nodes)) => *nodes,
            None => return Err(YamlError::syntax(line, "alias refers to an unknown anchor")),
        };
        self.charge(nodes, line)?;
        let value = self
            .anchors
            .get(&id)
            .map(|(v, _)| v.clone())
            .unwrap_or(Value::Null);
        Ok(Node { value, nodes })
    }

    /// Keeps a copy of an anchored node for later aliases (charged to the budget).
    fn remember(&mut self, anchor: usize, node: Node, line: usize) -> Result<Node, YamlError> {
        if anchor > 0 {
            self.charge(node.nodes, line)?;
            self.anchors
                .insert(anchor, (node.value.clone(), node.nodes));
        }
        Ok(node)
    }
}

/// Adds a finished node to the collection being built; refuses a key go-yaml refuses.
fn add_child(parent: &mut Frame, child: Node) -> Result<(), String> {
    match parent {
        Frame::Sequence { items, nodes, .. } => {
            *nodes = nodes.saturating_add(child.nodes);
            items.push(child.value);
        }
        Frame::Mapping {
            map,
            key,
            merges,
            nodes,
            ..
        } => {
            *nodes = nodes.saturating_add(child.nodes);
            match key.take() {
                None => *key = Some(Key::Plain(key_to_string(child.value)?)),
                Some(Key::Plain(k)) => {
                    map.insert(k, child.value);
                }
                Some(Key::Merge(line)) => merges.push((child.value, line)),
            }
        }
    }
    Ok(())
}

/// `<<: *base` or `<<: [*a, *b]`: keys already present win, earlier merges win.
fn merge_into(map: &mut Map<String, Value>, merge: Value) -> Result<(), String> {
    let sources = match merge {
        Value::Object(m) => vec![m],
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(m) => Ok(m),
                _ => Err("map merge requires a map or a sequence of maps".to_string()),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err("map merge requires a map or a sequence of maps".into()),
    };
    for source in sources {
        for (k, v) in source {
            map.entry(k).or_insert(v);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
