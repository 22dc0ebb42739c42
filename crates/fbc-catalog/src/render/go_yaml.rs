//! JSON text → the YAML sigs.k8s.io/yaml's `JSONToYAML` writes (go-yaml v2.4's encoder).
//!
//! In: one JSON value's text. Out: its YAML document, byte for byte as go-yaml v2.4
//! emits it (this is what `opm render -o yaml` prints after each `---`). Written by
//! hand because no Rust YAML writer follows go-yaml's choices, and the output must be
//! identical:
//!
//! - mappings in block style, keys in go-yaml's "natural" order (digit runs compared
//!   as numbers, other characters before letters); sequences in block style, not
//!   indented under a mapping key; empty ones as `{}` and `[]`;
//! - a string is plain when it would read back as a string and the emitter allows it,
//!   else single-quoted, else double-quoted; a string that would read back as another
//!   type (`"true"`, `"4.16"`, a timestamp) is double-quoted; a string with a line
//!   break is a literal block (`|`, `|-`, `|+`) when allowed;
//! - plain, single- and double-quoted scalars are folded at a space once the line is
//!   past 80 columns; keys never;
//! - integers as written, floats as Go's `strconv.FormatFloat(f, 'g', -1, 64)`;
//! - the document ends with one line break, unless it ends in a literal block whose
//!   own last line break already ended the line (`k: |2+` then `\n\n` for `"\n"`); no
//!   `...` end marker after a `|+` block.

use serde_json::Value;

mod scalar;
pub use scalar::natural_order;
use scalar::{
    Style, format_g, has_break, is_break, is_printable, resolves_to_string, select_style,
};

/// The width past which scalars are folded.
const BEST_WIDTH: usize = 80;
/// Spaces per level.
const BEST_INDENT: usize = 2;
/// The longest key written in the simple `key: value` form.
const MAX_SIMPLE_KEY: usize = 128;

/// Converts one JSON value's text; text that is not JSON is returned as one
/// double-quoted scalar (the writers of this crate never produce it).
pub fn json_to_yaml(json: &str) -> String {
    let value: Value = match serde_json::from_str(json) {
        Ok(value) => value,
        Err(_) => Value::String(json.to_string()),
    };
    let mut e = Emitter {
        whitespace: true,
        indention: true,
        ..Emitter::default()
    };
    e.node(&value, Context::Root);
    e.document_end();
    e.out
}

/// Where a node is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Root,
    /// The value of a block mapping entry (after `:`).
    MappingValue,
    /// An item of a block sequence (after `-`).
    SequenceItem,
    /// A simple mapping key.
    SimpleKey,
    /// A complex mapping key (after `?`).
    ComplexKey,
}

#[derive(Default)]
struct Emitter {
    out: String,
    /// Characters on the current line.
    column: usize,
    /// The current indentation; `None` before the first block collection.
    indent: Option<usize>,
    /// The last character written is whitespace (or nothing was written).
    whitespace: bool,
    /// Only indentation has been written on this line.
    indention: bool,
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// go-yaml's `write_break`: a newline, or another line break character as it is.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    /// go-yaml's `emit_document_end` for the implicit end `Marshal` asks for: only
    /// `write_indent`, which breaks the line unless a block scalar's own line break
    /// ended it. No `...` marker: the encoder's `finish` clears `open_ended` first.
    fn document_end(&mut self) {
        self.indent = None;
        self.write_indent();
    }

    fn indicator(
        &mut self,
        text: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in text.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    /// `increase_indent`: a block collection's or a scalar's own indentation.
    fn increase_indent(&mut self, flow: bool, indentless: bool) -> Option<usize> {
        let previous = self.indent;
        self.indent = Some(match self.indent {
            None if flow => BEST_INDENT,
            None => 0,
            Some(i) if indentless => i,
            Some(i) => i + BEST_INDENT,
        });
        previous
    }

    fn node(&mut self, value: &Value, context: Context) {
        match value {
            Value::Object(map) if map.is_empty() => self.indicator("{}", true, false, false),
            Value::Array(items) if items.is_empty() => self.indicator("[]", true, false, false),
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort_by(|a, b| natural_order(a, b));
                let previous = self.increase_indent(false, false);
                for key in keys {
                    let simple = key.len() <= MAX_SIMPLE_KEY && !has_break(key);
                    self.write_indent();
                    if simple {
                        self.string(key, Context::SimpleKey);
                        self.indicator(":", false, false, false);
                    } else {
                        self.indicator("?", true, false, true);
                        self.string(key, Context::ComplexKey);
                        self.write_indent();
                        self.indicator(":", true, false, true);
                    }
                    if let Some(v) = map.get(key) {
                        self.node(v, Context::MappingValue);
                    }
                }
                self.indent = previous;
            }
            Value::Array(items) => {
                let indentless = context == Context::MappingValue && !self.indention;
                let previous = self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.indicator("-", true, false, true);
                    self.node(item, Context::SequenceItem);
                }
                self.indent = previous;
            }
            Value::String(s) => self.string(s, context),
            Value::Null => self.scalar("null", Style::Plain, context),
            Value::Bool(b) => self.scalar(if *b { "true" } else { "false" }, Style::Plain, context),
            Value::Number(n) => {
                let text = match (n.as_i64(), n.as_u64()) {
                    (Some(i), _) => i.to_string(),
                    (None, Some(u)) => u.to_string(),
                    _ => format_g(n.as_f64().unwrap_or(0.0)),
                };
                self.scalar(&text, Style::Plain, context);
            }
        }
    }

    /// go-yaml's `stringv`: the style the encoder asks for.
    fn string(&mut self, s: &str, context: Context) {
        let style = if s.contains('\n') {
            Style::Literal
        } else if resolves_to_string(s) {
            Style::Plain
        } else {
            Style::DoubleQuoted
        };
        self.scalar(s, style, context);
    }

    fn scalar(&mut self, value: &str, requested: Style, context: Context) {
        let simple_key = context == Context::SimpleKey;
        let style = select_style(value, requested, simple_key);
        let previous = self.increase_indent(true, false);
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.plain(value, allow_breaks),
            Style::SingleQuoted => self.single_quoted(value, allow_breaks),
            Style::DoubleQuoted => self.double_quoted(value, allow_breaks),
            Style::Literal => self.literal(value),
        }
        self.indent = previous;
    }

    fn plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let inner = i > 0 && i + 1 < chars.len();
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && inner && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    breaks = false;
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
            }
        }
        self.indicator("'", false, false, false);
    }

    fn double_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.indicator("\"", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let code = c as u32;
                match c {
                    '\0' => self.put('0'),
                    '\u{7}' => self.put('a'),
                    '\u{8}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{b}' => self.put('v'),
                    '\u{c}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1b}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{a0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    _ => {
                        let (letter, digits) = match code {
                            0..=0xff => ('x', 2),
                            0x100..=0xffff => ('u', 4),
                            _ => ('U', 8),
                        };
                        self.put(letter);
                        for c in format!("{code:0digits$X}").chars() {
                            self.put(c);
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                let inner = i > 0 && i + 1 < chars.len();
                if allow_breaks && !spaces && self.column > BEST_WIDTH && inner {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.indicator("\"", false, false, false);
    }

    fn literal(&mut self, value: &str) {
        self.indicator("|", true, false, false);
        let first = value.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let mut tail = value.chars().rev();
        let chomp = match (tail.next(), tail.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(before)) if is_break(before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    breaks = false;
                }
                self.put(c);
                self.indention = false;
            }
        }
    }
}

#[cfg(test)]
mod tests;
