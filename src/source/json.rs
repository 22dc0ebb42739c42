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
pub fn write_string(out: &mut String, s: &str, html: Html) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '<' | '>' | '&' if html == Html::Escape => None,
            '\u{2028}' => Some("\\u2028"),
            '\u{2029}' => Some("\\u2029"),
            c if (c as u32) < 0x20 => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
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
}
