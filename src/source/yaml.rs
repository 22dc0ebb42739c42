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

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;

/// A YAML syntax or conversion error, with the 1-based line (within the document
/// text given) where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct YamlError {
    /// 1-based line within the document text.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses one YAML document into a JSON value; `Ok(None)` when it holds no node.
pub fn document_to_json(text: &str) -> Result<Option<Value>, YamlError> {
    let mut builder = Builder {
        parser: Parser::new_from_str(text),
        anchors: HashMap::new(),
    };
    builder.document()
}

struct Builder<'a> {
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
    anchors: HashMap<usize, Value>,
}

type Spanned<'a> = (Event<'a>, Span);

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<Spanned<'a>, YamlError> {
        match self.parser.next() {
            Some(Ok(ev)) => Ok(ev),
            Some(Err(e)) => Err(YamlError {
                line: e.marker().line(),
                message: e.to_string(),
            }),
            None => Err(YamlError {
                line: 0,
                message: "unexpected end of YAML stream".into(),
            }),
        }
    }

    fn document(&mut self) -> Result<Option<Value>, YamlError> {
        loop {
            let (event, span) = self.next()?;
            match event {
                Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => continue,
                Event::StreamEnd | Event::DocumentEnd => return Ok(None),
                other => {
                    let value = self.node(other, span)?;
                    // go-yaml reads only the first document of the text it is given.
                    return Ok(match value {
                        Value::Null => None,
                        v => Some(v),
                    });
                }
            }
        }
    }

    fn node(&mut self, event: Event<'a>, span: Span) -> Result<Value, YamlError> {
        let line = span.start.line();
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let value = resolve_scalar(&text, style, tag.as_deref())
                    .map_err(|message| YamlError { line, message })?;
                self.remember(anchor, &value);
                Ok(value)
            }
            Event::Alias(id) => self.anchors.get(&id).cloned().ok_or_else(|| YamlError {
                line,
                message: "alias refers to an unknown anchor".into(),
            }),
            Event::SequenceStart(anchor, _) => {
                let mut items = Vec::new();
                loop {
                    let (event, span) = self.next()?;
                    if matches!(event, Event::SequenceEnd) {
                        break;
                    }
                    items.push(self.node(event, span)?);
                }
                let value = Value::Array(items);
                self.remember(anchor, &value);
                Ok(value)
            }
            Event::MappingStart(anchor, _) => {
                let mut map = Map::new();
                let mut merges: Vec<(Value, usize)> = Vec::new();
                loop {
                    let (event, span) = self.next()?;
                    if matches!(event, Event::MappingEnd) {
                        break;
                    }
                    let key_line = span.start.line();
                    let is_merge = matches!(&event, Event::Scalar(k, ScalarStyle::Plain, _, None) if k == "<<");
                    let key = self.node(event, span)?;
                    let (event, span) = self.next()?;
                    let value = self.node(event, span)?;
                    if is_merge {
                        merges.push((value, key_line));
                    } else {
                        map.insert(key_to_string(&key), value);
                    }
                }
                for (merge, line) in merges {
                    merge_into(&mut map, merge).map_err(|message| YamlError { line, message })?;
                }
                let value = Value::Object(map);
                self.remember(anchor, &value);
                Ok(value)
            }
            other => Err(YamlError {
                line,
                message: format!("unexpected YAML event {other:?}"),
            }),
        }
    }

    fn remember(&mut self, anchor: usize, value: &Value) {
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
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
fn key_to_string(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
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
        other => super::json::normalized(other),
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
}
