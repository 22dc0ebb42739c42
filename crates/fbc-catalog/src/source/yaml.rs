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
//! keys become strings (`on:` is the key `"true"`, as in Go). Anchors, aliases and
//! `<<` merge keys are supported.

use super::limits::{Limit, ParseLimits};
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;

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
        parser: Parser::new_from_str(text),
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
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
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
                Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => continue,
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
                Event::SequenceStart(anchor, _) => {
                    self.check_depth(stack.len(), line)?;
                    stack.push(Frame::Sequence {
                        items: Vec::new(),
                        anchor,
                        nodes: 1,
                    });
                    None
                }
                Event::MappingStart(anchor, _) => {
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
                    Some(parent) => add_child(parent, node),
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

/// Adds a finished node to the collection being built.
fn add_child(parent: &mut Frame, child: Node) {
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
                None => *key = Some(Key::Plain(key_to_string(child.value))),
                Some(Key::Plain(k)) => {
                    map.insert(k, child.value);
                }
                Some(Key::Merge(line)) => merges.push((child.value, line)),
            }
        }
    }
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

/// Mapping keys as sigs.k8s.io/yaml writes them.
fn key_to_string(key: Value) -> String {
    match key {
        Value::String(s) => s,
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            _ => {
                let mut s = String::new();
                super::json::write_float64(&mut s, n.as_f64().unwrap_or(0.0));
                s
            }
        },
        other => super::json::normalized(&other),
    }
}

fn is_str_tag(tag: Option<&Tag>) -> bool {
    tag.is_some_and(|t| {
        (t.handle == "!!" && (t.suffix == "str" || t.suffix == "binary"))
            || t.suffix == "tag:yaml.org,2002:str"
            || (t.handle == "tag:yaml.org,2002:" && t.suffix == "str")
    })
}

/// Resolves one scalar (see the module docs for the rules).
pub fn resolve_scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if style != ScalarStyle::Plain || is_str_tag(tag) {
        return Ok(Value::String(text.to_string()));
    }
    Ok(resolve_plain(text)).and_then(|v| {
        v.ok_or_else(|| format!("unsupported value {text:?}: JSON has no infinity or NaN"))
    })
}

fn resolve_plain(text: &str) -> Option<Value> {
    let first = match text.as_bytes().first() {
        None => return Some(Value::Null),
        Some(b) => *b,
    };
    match text {
        "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Some(Value::Bool(true));
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Some(Value::Bool(false));
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return None,
        _ => {}
    }
    let string = || Some(Value::String(text.to_string()));
    match first {
        b'.' => match text.parse::<f64>() {
            Ok(f) if f.is_finite() && is_yaml_float(text) => Some(float(f)),
            _ => string(),
        },
        b'0'..=b'9' | b'+' | b'-' => {
            if is_timestamp(text) {
                return string();
            }
            let plain: String = text.chars().filter(|c| *c != '_').collect();
            if let Some(i) = parse_go_int(&plain) {
                return Some(Value::Number(i));
            }
            if is_yaml_float(&plain)
                && let Ok(f) = plain.parse::<f64>()
                && f.is_finite()
            {
                return Some(float(f));
            }
            let (neg, rest) = match plain.strip_prefix('-') {
                Some(r) => (true, r),
                None => (false, plain.as_str()),
            };
            if let Some(bin) = rest.strip_prefix("0b")
                && let Ok(v) = i64::from_str_radix(bin, 2)
            {
                return Some(Value::Number(Number::from(if neg { -v } else { v })));
            }
            string()
        }
        _ => string(),
    }
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint(s, 0, 64)`.
fn parse_go_int(s: &str) -> Option<Number> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) =
        if let Some(d) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, d)
        } else if let Some(d) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (8, d)
        } else if let Some(d) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (2, d)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if neg {
        if magnitude <= i64::MAX as u64 + 1 {
            Some(Number::from((magnitude as i128).wrapping_neg() as i64))
        } else {
            None
        }
    } else {
        Some(Number::from(magnitude))
    }
}

/// The timestamp forms go-yaml v2 recognises (then keeps as strings).
fn is_timestamp(s: &str) -> bool {
    // YYYY-MM-DD, optionally followed by [Tt ]HH:MM:SS[.frac][Z|±HH:MM] in loose forms.
    let b = s.as_bytes();
    if b.len() < 10 {
        return false;
    }
    let d = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    if !(d(0)
        && d(1)
        && d(2)
        && d(3)
        && b[4] == b'-'
        && d(5)
        && d(6)
        && b[7] == b'-'
        && d(8)
        && d(9))
    {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    matches!(b[10], b'T' | b't' | b' ') && b.len() > 11 && b[11].is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(text: &str) -> Value {
        document_to_json(text).expect("valid yaml").expect("a node")
    }

    #[test]
    fn yaml_1_1_booleans_resolve_like_go() {
        assert_eq!(
            yaml("a: yes\nb: off\nc: 'yes'\nd: Y"),
            json!({"a": true, "b": false, "c": "yes", "d": true})
        );
    }

    #[test]
    fn unquoted_timestamps_stay_strings() {
        assert_eq!(
            yaml("createdAt: 2026-01-26T17:53:29"),
            json!({"createdAt": "2026-01-26T17:53:29"})
        );
        assert_eq!(yaml("d: 2026-01-26"), json!({"d": "2026-01-26"}));
    }

    #[test]
    fn numbers_resolve_like_go() {
        assert_eq!(
            yaml(
                "a: 10\nb: 4.10\nc: 0x1F\nd: 017\ne: 1_000\nf: 1e3\ng: 1.2.3\nh: -5\ni: .5\nj: 0b101"
            ),
            json!({"a": 10, "b": 4.1, "c": 31, "d": 15, "e": 1000, "f": 1000.0, "g": "1.2.3", "h": -5, "i": 0.5, "j": 5})
        );
    }

    #[test]
    fn nulls_and_strings() {
        assert_eq!(
            yaml("a: ~\nb:\nc: null\nd: hello world\ne: \"5\""),
            json!({"a": null, "b": null, "c": null, "d": "hello world", "e": "5"})
        );
    }

    #[test]
    fn keys_become_strings_like_go() {
        assert_eq!(yaml("on: 1\n2: x"), json!({"true": 1, "2": "x"}));
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        assert_eq!(
            yaml("base: &b {a: 1, b: 2}\nderived:\n  <<: *b\n  b: 3\nlist: [*b]"),
            json!({"base": {"a": 1, "b": 2}, "derived": {"a": 1, "b": 3}, "list": [{"a": 1, "b": 2}]})
        );
    }

    #[test]
    fn block_scalars_and_tags() {
        assert_eq!(
            yaml("a: |\n  line\nb: !!str 12"),
            json!({"a": "line\n", "b": "12"})
        );
    }

    #[test]
    fn infinity_is_rejected_with_its_line() {
        let err = document_to_json("a: 1\nb: .inf").expect_err("infinity");
        assert_eq!(err.line, 2);
    }

    #[test]
    fn empty_documents_are_none() {
        assert_eq!(document_to_json("").expect("ok"), None);
        assert_eq!(document_to_json("# just a comment\n").expect("ok"), None);
    }

    #[test]
    fn syntax_errors_name_a_line() {
        let err = document_to_json("a: 1\nb: [unclosed\n").expect_err("bad");
        assert!(err.line >= 2, "{err}");
    }
    fn limits(max_depth: usize, max_alias_nodes: usize) -> ParseLimits {
        ParseLimits {
            max_depth,
            max_alias_nodes,
            ..ParseLimits::default()
        }
    }

    #[test]
    fn deep_block_sequences_are_a_depth_error_not_a_stack_overflow() {
        // 3,000 nested block sequences in about 6 KB: this crashed the recursive builder.
        let text = "- ".repeat(3000) + "x\n";
        let err = document_to_json(&text).expect_err("too deep");
        assert_eq!(err.kind, YamlErrorKind::Limit(Limit::Depth), "{err}");
        assert!(err.message.contains("--max-depth"), "{err}");
        // with no limit in the way, the iterative builder still copes
        let deep = document_to_json_with(&text, &limits(5000, 10)).expect("builds");
        let mut v = deep.expect("a node");
        let mut depth = 0;
        while let Value::Array(mut items) = v {
            depth += 1;
            v = items.pop().unwrap_or(Value::Null);
        }
        assert_eq!((depth, v), (3000, json!("x")));
    }

    #[test]
    fn depth_counts_collections_and_the_limit_is_inclusive() {
        assert!(document_to_json_with("a: {b: [1]}", &limits(3, 10)).is_ok());
        let err = document_to_json_with("a: {b: [1]}", &limits(2, 10)).expect_err("deep");
        assert_eq!(err.kind, YamlErrorKind::Limit(Limit::Depth));
        assert_eq!(err.line, 1);
    }

    #[test]
    fn an_alias_bomb_stops_at_the_alias_budget() {
        // ~700 bytes that expand to 10^9 nodes
        let mut text = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
            .iter()
            .zip(["a", "b", "c", "d", "e", "f", "g", "h"])
        {
            let refs = vec![format!("*{prev}"); 10].join(",");
            text.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        assert!(text.len() < 800, "{}", text.len());
        let err = document_to_json(&text).expect_err("bomb");
        assert_eq!(err.kind, YamlErrorKind::Limit(Limit::AliasNodes), "{err}");
        assert!(err.line >= 2, "{err}");
    }

    #[test]
    fn modest_anchor_use_fits_the_budget() {
        let text = "base: &b {a: 1, b: 2}\nx: *b\ny: *b\n";
        // the anchored mapping is 5 nodes (itself, two keys, two values): kept once,
        // copied twice
        assert!(document_to_json_with(text, &limits(10, 15)).is_ok());
        let err = document_to_json_with(text, &limits(10, 14)).expect_err("budget");
        assert_eq!(err.kind, YamlErrorKind::Limit(Limit::AliasNodes));
    }

    #[test]
    fn a_recursive_alias_is_an_unknown_anchor() {
        let err = document_to_json("a: &a [*a]").expect_err("recursive");
        assert!(err.message.contains("unknown anchor"), "{err}");
    }

    #[test]
    fn nul_and_control_characters_are_errors_with_their_offset() {
        let err = document_to_json("a: 1\nb: x\0y\n").expect_err("nul");
        assert_eq!(err.kind, YamlErrorKind::ForbiddenCharacter);
        assert_eq!((err.line, err.offset), (2, Some(9)));
        assert!(err.message.contains("U+0000"), "{err}");
        for bad in ["\u{1}", "\u{7f}", "\u{9b}", "\u{fffe}", "\u{b}"] {
            let text = format!("key: va{bad}lue");
            assert!(document_to_json(&text).is_err(), "{bad:?}");
        }
        for good in ["\t", "\r\n", "\u{85}", "é", "\u{a0}", "\u{feff}", "😀"] {
            let text = format!("key: va{good}lue and some more text");
            assert_eq!(find_forbidden_char(&text), None, "{good:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_word_scan_finds_what_a_char_scan_finds(
            text in "[\\x00-\\x{a0}a-z\\n\\t é\\u{fffd}-\\u{ffff}\\u{feff}\\u{1f600}]{0,80}",
            any in proptest::prelude::any::<String>(),
        ) {
            for text in [&text, &any] {
                let slow = text.char_indices().find(|(_, c)| is_forbidden(*c));
                proptest::prop_assert_eq!(find_forbidden_char(text), slow);
            }
        }

        #[test]
        fn any_nesting_of_flow_and_block_collections_parses_or_errors(
            opens in proptest::collection::vec(proptest::sample::select(vec!["[", "{a: ", "- ", "\n  - ", "? "]), 0..400),
        ) {
            let text: String = opens.concat();
            let _ = document_to_json(&text);
        }
    }
}
