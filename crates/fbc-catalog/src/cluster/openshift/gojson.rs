//! Go's `encoding/json`, the parts OLM runs on an `olm.maxOpenShiftVersion`.
//!
//! In: JSON text (a properties annotation, or one property value). Out:
//! - [`check`]: Go's verdict on the text (`checkValid`: its scanner, its messages,
//!   its nesting limit of 10000);
//! - [`Json`]: a view of text that passed, giving a value's kind, raw text, array
//!   elements and object members (in order, repeated keys kept), and strings
//!   unquoted as Go unquotes them (a lone surrogate escape becomes U+FFFD);
//! - [`marshal_raw`]: what `json.Marshal` writes for a `json.RawMessage`: the text
//!   compacted, with `<`, `>`, `&`, U+2028 and U+2029 escaped (`\u003c`…).
//!
//! Nothing here recurses: nesting costs a byte of heap per level, and Go's own
//! limit applies.
//!
//! Written by hand because no crate decodes as Go does: serde_json refuses what Go
//! accepts (keys matched case-insensitively, a repeated key decoded over the
//! earlier one) and words its errors otherwise, and OLM's answer (and the message
//! the admin sees) depends on both.

use std::fmt::Write as _;

/// Go's `maxNestingDepth` (encoding/json `scanner.go`).
pub(super) const MAX_DEPTH: usize = 10_000;

/// The byte at `i`, or a space past the end: Go's scanner feeds a space at the end
/// of the input, so a token cut short there fails on `' '`.
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(b' ')
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| is_space(*c)) {
        i += 1;
    }
    i
}

/// Go's `quoteChar`: how its syntax errors show a byte.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_owned(),
        b'"' => "'\"'".to_owned(),
        b'\\' => r"'\\'".to_owned(),
        0x07 => r"'\a'".to_owned(),
        0x08 => r"'\b'".to_owned(),
        0x0c => r"'\f'".to_owned(),
        b'\n' => r"'\n'".to_owned(),
        b'\r' => r"'\r'".to_owned(),
        b'\t' => r"'\t'".to_owned(),
        0x0b => r"'\v'".to_owned(),
        // strconv.Quote of the rune U+00XX: not printable below U+00A1 and at U+00AD
        0..=0x1f | 0x7f => format!(r"'\x{c:02x}'"),
        0x80..=0xa0 | 0xad => format!(r"'\u{c:04x}'"),
        c => format!("'{}'", char::from(c)),
    }
}

fn invalid(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

const END: &str = "unexpected end of JSON input";

/// Go's `checkValid`: `Ok` when `text` is one JSON value, with blanks around it.
pub(super) fn check(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    // the open containers: `{` or `[`
    let mut open: Vec<u8> = Vec::new();
    let mut i = 0;
    loop {
        i = value(b, i, &mut open)?;
        // after a value: close containers, or find the next value
        loop {
            i = skip_space(b, i);
            let Some(&top) = open.last() else {
                return match b.get(i) {
                    None => Ok(()),
                    Some(c) => Err(invalid(*c, "after top-level value")),
                };
            };
            let c = *b.get(i).ok_or(END)?;
            match (top, c) {
                (b'[', b',') => i += 1,
                (b'{', b',') => i = key(b, i + 1)?,
                (b'[', b']') | (b'{', b'}') => {
                    open.pop();
                    i += 1;
                    continue;
                }
                (b'[', _) => return Err(invalid(c, "after array element")),
                _ => return Err(invalid(c, "after object key:value pair")),
            }
            break;
        }
    }
}

/// One value from `i` (after blanks): a scalar, an empty container, or the
/// containers it opens up to the first scalar or empty container inside them.
/// Returns where it ends.
fn value(b: &[u8], mut i: usize, open: &mut Vec<u8>) -> Result<usize, String> {
    loop {
        i = skip_space(b, i);
        let c = *b.get(i).ok_or(END)?;
        match c {
            b'{' | b'[' => {
                open.push(c);
                if open.len() > MAX_DEPTH {
                    return Err(invalid(c, "exceeded max depth"));
                }
                i = skip_space(b, i + 1);
                let close = if c == b'{' { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    open.pop();
                    return Ok(i + 1);
                }
                if c == b'{' {
                    i = key(b, i)?;
                }
            }
            b'"' => return string(b, i),
            b'-' | b'0'..=b'9' => return number(b, i),
            b't' => return literal(b, i, "true"),
            b'f' => return literal(b, i, "false"),
            b'n' => return literal(b, i, "null"),
            _ => return Err(invalid(c, "looking for beginning of value")),
        }
    }
}

/// An object key and its `:`; returns where the member's value starts.
fn key(b: &[u8], i: usize) -> Result<usize, String> {
    let i = skip_space(b, i);
    match b.get(i) {
        None => return Err(END.into()),
        Some(b'"') => {}
        Some(c) => return Err(invalid(*c, "looking for beginning of object key string")),
    }
    let i = skip_space(b, string(b, i)?);
    match b.get(i) {
        None => Err(END.into()),
        Some(b':') => Ok(i + 1),
        Some(c) => Err(invalid(*c, "after object key")),
    }
}

fn string(b: &[u8], mut i: usize) -> Result<usize, String> {
    i += 1;
    loop {
        let c = *b.get(i).ok_or(END)?;
        i += 1;
        match c {
            b'"' => return Ok(i),
            b'\\' => match at(b, i) {
                b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => i += 1,
                b'u' => {
                    for k in 1..=4 {
                        let h = at(b, i + k);
                        if !h.is_ascii_hexdigit() {
                            return Err(invalid(h, r"in \u hexadecimal character escape"));
                        }
                    }
                    i += 5;
                }
                e => return Err(invalid(e, "in string escape code")),
            },
            0..=0x1f => return Err(invalid(c, "in string literal")),
            _ => {}
        }
    }
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while at(b, i).is_ascii_digit() {
        i += 1;
    }
    i
}

fn number(b: &[u8], mut i: usize) -> Result<usize, String> {
    if at(b, i) == b'-' {
        i += 1;
    }
    i = match at(b, i) {
        b'0' => i + 1,
        b'1'..=b'9' => digits(b, i),
        c => return Err(invalid(c, "in numeric literal")),
    };
    if at(b, i) == b'.' {
        i += 1;
        if !at(b, i).is_ascii_digit() {
            return Err(invalid(at(b, i), "after decimal point in numeric literal"));
        }
        i = digits(b, i);
    }
    if matches!(at(b, i), b'e' | b'E') {
        i += 1;
        if matches!(at(b, i), b'+' | b'-') {
            i += 1;
        }
        if !at(b, i).is_ascii_digit() {
            return Err(invalid(at(b, i), "in exponent of numeric literal"));
        }
        i = digits(b, i);
    }
    Ok(i)
}

fn literal(b: &[u8], i: usize, word: &str) -> Result<usize, String> {
    for (k, want) in word.bytes().enumerate().skip(1) {
        let c = at(b, i + k);
        if c != want {
            let context = format!("in literal {word} (expecting {})", quote_char(want));
            return Err(invalid(c, &context));
        }
    }
    Ok(i + word.len())
}

/// Where a value of text that passed [`check`] lies: `start..end`, no blanks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    start: usize,
    end: usize,
}

/// What a value is, by its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    /// The word Go's `UnmarshalTypeError` uses for it.
    pub(super) fn go_word(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "bool",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

/// Text that passed [`check`].
pub(super) struct Json<'a> {
    text: &'a str,
}

impl<'a> Json<'a> {
    /// `text` if Go's `checkValid` passes it, else Go's syntax error.
    pub(super) fn parse(text: &'a str) -> Result<Json<'a>, String> {
        check(text)?;
        Ok(Json { text })
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The top-level value.
    pub(super) fn root(&self) -> Span {
        self.span_at(skip_space(self.bytes(), 0))
    }

    fn span_at(&self, start: usize) -> Span {
        Span {
            start,
            end: value_end(self.bytes(), start),
        }
    }

    /// The value's text as written (what a `json.RawMessage` holds).
    pub(super) fn raw(&self, s: Span) -> &'a str {
        self.text.get(s.start..s.end).unwrap_or_default()
    }

    pub(super) fn kind(&self, s: Span) -> Kind {
        match at(self.bytes(), s.start) {
            b'n' => Kind::Null,
            b't' | b'f' => Kind::Bool,
            b'"' => Kind::String,
            b'[' => Kind::Array,
            b'{' => Kind::Object,
            _ => Kind::Number,
        }
    }

    /// A string value, unquoted as Go unquotes it.
    pub(super) fn string(&self, s: Span) -> String {
        let raw = self.raw(s);
        unquote(raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default())
    }

    /// An array's elements.
    pub(super) fn elements(&self, s: Span) -> Vec<Span> {
        let b = self.bytes();
        let mut out = Vec::new();
        let mut i = skip_space(b, s.start + 1);
        while i < s.end && at(b, i) != b']' {
            let element = self.span_at(i);
            out.push(element);
            i = skip_space(b, skip_space(b, element.end) + 1);
        }
        out
    }

    /// An object's members, in order, repeated keys kept; keys unquoted.
    pub(super) fn members(&self, s: Span) -> Vec<(String, Span)> {
        let b = self.bytes();
        let mut out = Vec::new();
        let mut i = skip_space(b, s.start + 1);
        while i < s.end && at(b, i) != b'}' {
            let key = self.span_at(i);
            let value = self.span_at(skip_space(b, skip_space(b, key.end) + 1));
            out.push((self.string(key), value));
            i = skip_space(b, skip_space(b, value.end) + 1);
        }
        out
    }

    /// The numbers written anywhere in the value, in order.
    pub(super) fn numbers(&self, s: Span) -> Vec<&'a str> {
        let b = self.bytes();
        let mut out = Vec::new();
        let mut i = s.start;
        while i < s.end {
            match at(b, i) {
                b'"' => i = string_end(b, i),
                b'-' | b'0'..=b'9' => {
                    let n = self.span_at(i);
                    out.push(self.raw(n));
                    i = n.end;
                }
                _ => i += 1,
            }
        }
        out
    }
}

/// The end of the value starting at `i`, in text that passed [`check`].
fn value_end(b: &[u8], i: usize) -> usize {
    match at(b, i) {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while let Some(&c) = b.get(j) {
                match c {
                    b'"' => {
                        j = string_end(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !is_space(*c) && !matches!(c, b',' | b']' | b'}'))
            {
                j += 1;
            }
            j
        }
    }
}

fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while let Some(&c) = b.get(j) {
        match c {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// Go's `unquote` of a string's inside (valid escapes): a surrogate escape
/// not paired high-then-low becomes U+FFFD, and the escape after it is read anew.
fn unquote(mut rest: &str) -> String {
    let mut out = String::with_capacity(rest.len());
    while let Some(pos) = rest.find('\\') {
        out.push_str(rest.get(..pos).unwrap_or_default());
        let escape = rest.get(pos..).unwrap_or_default();
        let (c, used) = unescape(escape);
        out.push(c);
        rest = escape.get(used..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// The character of the escape `s` starts with, and its length.
fn unescape(s: &str) -> (char, usize) {
    let c = match s.as_bytes().get(1) {
        Some(b'u') => return unescape_u(s),
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(other) => char::from(*other),
        None => '\\',
    };
    (c, 2)
}

/// Go's `getu4`: the value of the `\uXXXX` escape `s` starts with.
fn hex4(s: &str) -> Option<u32> {
    let digits = s.strip_prefix("\\u")?.get(..4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

fn unescape_u(s: &str) -> (char, usize) {
    let Some(r) = hex4(s) else {
        return ('\u{fffd}', s.len().min(2));
    };
    if !(0xd800..0xe000).contains(&r) {
        return (char::from_u32(r).unwrap_or('\u{fffd}'), 6);
    }
    let low = s.get(6..).and_then(hex4).unwrap_or(0);
    if (0xd800..0xdc00).contains(&r) && (0xdc00..0xe000).contains(&low) {
        let pair = 0x10000 + ((r - 0xd800) << 10) + (low - 0xdc00);
        return (char::from_u32(pair).unwrap_or('\u{fffd}'), 12);
    }
    ('\u{fffd}', 6)
}

/// What `json.Marshal` writes for a `json.RawMessage` holding `raw`: Go compacts
/// it and escapes `<`, `>`, `&`, U+2028 and U+2029. Text that is not JSON: Go's
/// syntax error (which `json.Marshal` wraps in a `MarshalerError`).
pub(super) fn marshal_raw(raw: &str) -> Result<String, String> {
    check(raw)?;
    let mut out = String::with_capacity(raw.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in raw.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c.is_ascii() && is_space(c as u8) {
            continue;
        } else if c == '"' {
            in_string = true;
        }
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}
