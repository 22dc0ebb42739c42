//! Go-compatible JSON encoding of `serde_json::Value`.
//!
//! In: a parsed JSON value. Out: the exact bytes Go's `encoding/json` writes for the
//! same data decoded into `map[string]interface{}`, which is the form every answer
//! of the reference server is derived from:
//!
//! 1. object keys sorted by bytes (serde_json's default `Map` is a `BTreeMap`);
//! 2. compact, no insignificant whitespace;
//! 3. numbers go through `float64` ([`Numbers::Float64`]): `4.10` → `4.1`, integers
//!    above 2^53 lose precision, exponent form below 1e-6 and from 1e21 on;
//! 4. strings escape `"`, `\`, control characters, U+2028 and U+2029; `<`, `>`
//!    and `&` are escaped as `\u003c`… only with [`Html::Escape`].

use serde_json::{Number, Value};

/// Whether `<`, `>` and `&` are written as `\u003c`, `\u003e`, `\u0026`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Html {
    /// `json.Encoder` with `SetEscapeHTML(false)`: blobs and property values.
    Literal,
    /// `json.Marshal`: bundle objects converted from YAML, synthesised CSVs.
    Escape,
}

/// How numbers are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// Every number is a `float64` (values decoded into `interface{}`).
    Float64,
    /// Integers stay exact, other numbers are `float64` (YAML converted by sigs.k8s.io/yaml).
    KeepIntegers,
}

/// Encodes `value` as Go would, appending to `out`.
pub fn write_value(out: &mut String, value: &Value, html: Html, numbers: Numbers) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n, numbers),
        Value::String(s) => write_string(out, s, html),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, html, numbers);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k, html);
                out.push(':');
                write_value(out, v, html, numbers);
            }
            out.push('}');
        }
    }
}

/// Encodes `value` into a new string (see [`write_value`]).
pub fn to_string(value: &Value, html: Html, numbers: Numbers) -> String {
    let mut out = String::new();
    write_value(&mut out, value, html, numbers);
    out
}

/// The normalised blob form: sorted keys, compact, float64 numbers, HTML literal.
pub fn normalized(value: &Value) -> String {
    to_string(value, Html::Literal, Numbers::Float64)
}

fn write_number(out: &mut String, n: &Number, numbers: Numbers) {
    if numbers == Numbers::KeepIntegers {
        if let Some(i) = n.as_i64() {
            out.push_str(&i.to_string());
            return;
        }
        if let Some(u) = n.as_u64() {
            out.push_str(&u.to_string());
            return;
        }
    }
    // serde_json numbers are always finite.
    write_float64(out, n.as_f64().unwrap_or(0.0));
}

/// Writes a finite `f64` exactly as Go's `encoding/json` does.
pub fn write_float64(out: &mut String, f: f64) {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Go: strconv 'e' format, shortest digits, exponent with a sign and at
        // least two digits, then "e-09" cleaned to "e-9".
        let s = format!("{f:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        out.push_str(mantissa);
        out.push('e');
        out.push(sign);
        if sign == '+' && digits.len() < 2 {
            out.push('0');
        }
        out.push_str(digits);
    } else if f == 0.0 && f.is_sign_negative() {
        out.push_str("-0");
    } else {
        out.push_str(&format!("{f}"));
    }
}

/// Writes a JSON string literal with Go's escaping rules.
///
/// Long runs without anything to escape are found eight bytes at a time and
/// copied whole: catalog strings (descriptions, `alm-examples`) run to kilobytes.
pub fn write_string(out: &mut String, s: &str, html: Html) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push('"');
    let mut copied = 0;
    let mut at = 0;
    while let Some(i) = next_special(bytes, at, html) {
        let (escape, len): (&str, usize) = match bytes[i..] {
            [b'"', ..] => ("\\\"", 1),
            [b'\\', ..] => ("\\\\", 1),
            [b'\n', ..] => ("\\n", 1),
            [b'\r', ..] => ("\\r", 1),
            [b'\t', ..] => ("\\t", 1),
            [0x08, ..] => ("\\b", 1),
            [0x0c, ..] => ("\\f", 1),
            [b'<', ..] => ("\\u003c", 1),
            [b'>', ..] => ("\\u003e", 1),
            [b'&', ..] => ("\\u0026", 1),
            // U+2028 and U+2029
            [0xe2, 0x80, 0xa8, ..] => ("\\u2028", 3),
            [0xe2, 0x80, 0xa9, ..] => ("\\u2029", 3),
            // another character starting with E2: nothing to escape
            [0xe2, ..] => ("", 0),
            [c, ..] => {
                out.push_str(&s[copied..i]);
                out.push_str(&format!("\\u{c:04x}"));
                copied = i + 1;
                at = i + 1;
                continue;
            }
            [] => break,
        };
        if len == 0 {
            at = i + 1;
            continue;
        }
        out.push_str(&s[copied..i]);
        out.push_str(escape);
        copied = i + len;
        at = i + len;
    }
    out.push_str(&s[copied..]);
    out.push('"');
}

/// Whether a byte may need escaping: control characters, `"`, `\\`, the first
/// byte of U+2028 and U+2029, and with [`Html::Escape`] `<`, `>` and `&`.
fn is_special(b: u8, html: Html) -> bool {
    b < 0x20
        || matches!(b, b'"' | b'\\' | 0xe2)
        || (html == Html::Escape && matches!(b, b'<' | b'>' | b'&'))
}

/// The position of the next byte at or after `from` that [`is_special`].
fn next_special(bytes: &[u8], from: usize, html: Html) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // High bit set in the byte lanes of `w` equal to `b`. Borrows may also mark
    // lanes above the first match, never below: the lowest marked lane is exact.
    let equal = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH
    };
    let rest = bytes.get(from..).unwrap_or_default();
    let mut chunks = rest.chunks_exact(8);
    let mut offset = from;
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let w = u64::from_le_bytes(word);
        let mut hits = (w.wrapping_sub(ONES * 0x20) & !w & HIGH)
            | equal(w, b'"')
            | equal(w, b'\\')
            | equal(w, 0xe2);
        if html == Html::Escape {
            hits |= equal(w, b'<') | equal(w, b'>') | equal(w, b'&');
        }
        if hits != 0 {
            return Some(offset + (hits.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|b| is_special(*b, html))
        .map(|p| p + offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn norm(text: &str) -> String {
        normalized(&serde_json::from_str::<Value>(text).expect("test JSON"))
    }

    #[test]
    fn keys_are_sorted_and_output_is_compact() {
        assert_eq!(
            norm(r#"{ "b": 1, "a": [ true, null ] }"#),
            r#"{"a":[true,null],"b":1}"#
        );
    }

    #[test]
    fn numbers_go_through_float64_like_go() {
        assert_eq!(norm("4.10"), "4.1");
        assert_eq!(norm("10"), "10");
        assert_eq!(norm("9007199254740993"), "9007199254740992");
        assert_eq!(norm("1e21"), "1e+21");
        assert_eq!(norm("123456789012345678901234"), "1.2345678901234569e+23");
        assert_eq!(norm("0.000001"), "0.000001");
        assert_eq!(norm("0.0000001"), "1e-7");
        assert_eq!(norm("1.5e-10"), "1.5e-10");
        assert_eq!(norm("-2.50"), "-2.5");
        assert_eq!(norm("1e20"), "100000000000000000000");
    }

    #[test]
    fn integers_can_stay_exact() {
        let v = json!(9007199254740993u64);
        assert_eq!(
            to_string(&v, Html::Escape, Numbers::KeepIntegers),
            "9007199254740993"
        );
    }

    #[test]
    fn html_characters_are_literal_unless_asked() {
        let v = json!("a<b>&c");
        assert_eq!(
            to_string(&v, Html::Literal, Numbers::Float64),
            r#""a<b>&c""#
        );
        assert_eq!(
            to_string(&v, Html::Escape, Numbers::Float64),
            r#""a\u003cb\u003e\u0026c""#
        );
    }

    #[test]
    fn control_and_separator_characters_are_escaped() {
        let v = json!("\u{1}\n\t\"\\\u{2028}é");
        assert_eq!(normalized(&v), "\"\\u0001\\n\\t\\\"\\\\\\u2028é\"");
    }

    /// The same rules, one character at a time.
    fn escape_by_char(s: &str, html: Html) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '<' | '>' | '&' if html == Html::Escape => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    proptest::proptest! {
        #[test]
        fn string_escaping_equals_the_character_by_character_rules(
            s in "[a-z \"\\\\<>&\u{0}-\u{1f}\u{7f}\u{e9}\u{2027}-\u{202a}\u{e000}]{0,40}",
            escape_html in proptest::bool::ANY,
        ) {
            let html = if escape_html { Html::Escape } else { Html::Literal };
            let mut out = String::new();
            write_string(&mut out, &s, html);
            proptest::prop_assert_eq!(out, escape_by_char(&s, html));
        }
    }

    #[test]
    fn long_runs_are_escaped_at_every_offset() {
        for at in 0..24 {
            let mut s = "x".repeat(24);
            s.insert(at, '\u{2028}');
            s.insert_str(at / 2, "<\"");
            let mut out = String::new();
            write_string(&mut out, &s, Html::Escape);
            assert_eq!(out, escape_by_char(&s, Html::Escape), "offset {at}");
        }
    }
}
