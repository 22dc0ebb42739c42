//! A JSON value as the GraphQL scalar catalogd answers for it.
//!
//! In: a field's declared scalar and its value's JSON text. Out: the value
//! graphql-go v0.8.1 serialises (`scalars.go`: `coerceString`, `coerceInt`,
//! `coerceFloat`, `coerceBool`) after catalogd's resolver has turned objects and
//! lists into their JSON text (`marshalComplexValue`: `json.Marshal`, so keys
//! sorted and `<`, `>`, `&` escaped). Numbers are Go `float64`s throughout.
//! Written by hand: these are Go's rules, which no crate reproduces.

use async_graphql::Value;
use fbc_catalog::catalogd::schema::Scalar;

/// A decoded JSON value the way catalogd's resolver hands it to graphql-go.
enum GoValue<'a> {
    Nil,
    Bool(bool),
    Float(f64),
    Str(String),
    /// An object or a list, already as `json.Marshal` text.
    Complex(&'a str),
}

fn decode(text: &str) -> GoValue<'_> {
    match text.as_bytes().first() {
        Some(b'{' | b'[') => GoValue::Complex(text),
        _ => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Bool(b)) => GoValue::Bool(b),
            Ok(serde_json::Value::Number(n)) => GoValue::Float(n.as_f64().unwrap_or(0.0)),
            Ok(serde_json::Value::String(s)) => GoValue::Str(s),
            _ => GoValue::Nil,
        },
    }
}

/// The value of a field of scalar type `scalar` whose JSON text is `text`
/// (`None`: null).
pub fn scalar(scalar: Scalar, text: &str) -> Option<Value> {
    let value = decode(text);
    match scalar {
        Scalar::String => string(value).map(Value::String),
        Scalar::Int => int(value).map(|i| Value::Number(i.into())),
        Scalar::Float => float(value)
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        Scalar::Boolean => boolean(value).map(Value::Boolean),
    }
}

/// `coerceString`: `fmt.Sprintf("%v", v)`.
fn string(value: GoValue<'_>) -> Option<String> {
    Some(match value {
        GoValue::Nil => return None,
        GoValue::Bool(b) => b.to_string(),
        GoValue::Float(f) => go_float_v(f),
        GoValue::Str(s) => s,
        GoValue::Complex(text) => html_escaped(text),
    })
}

/// `coerceInt`: truncated toward zero, null outside int32.
fn int(value: GoValue<'_>) -> Option<i64> {
    let f = match value {
        GoValue::Nil => return None,
        GoValue::Bool(b) => return Some(i64::from(b)),
        GoValue::Float(f) => f,
        GoValue::Str(s) => parse_go_float(&s)?,
        // JSON text of a list or object never parses as a number.
        GoValue::Complex(_) => return None,
    };
    if f < f64::from(i32::MIN) || f > f64::from(i32::MAX) || f.is_nan() {
        return None;
    }
    Some(f.trunc() as i64)
}

/// `coerceFloat`.
fn float(value: GoValue<'_>) -> Option<f64> {
    match value {
        GoValue::Nil => None,
        GoValue::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
        GoValue::Float(f) => Some(f),
        GoValue::Str(s) => parse_go_float(&s),
        GoValue::Complex(_) => None,
    }
}

/// `coerceBool`: strings are false only when empty or `"false"`.
fn boolean(value: GoValue<'_>) -> Option<bool> {
    match value {
        GoValue::Nil => None,
        GoValue::Bool(b) => Some(b),
        GoValue::Float(f) => Some(f != 0.0),
        GoValue::Str(s) => Some(!(s.is_empty() || s == "false")),
        GoValue::Complex(_) => Some(true),
    }
}

/// `strconv.ParseFloat(s, 64)` for the forms a catalog holds (decimal and
/// exponent notation, `Inf`, `NaN`).
fn parse_go_float(s: &str) -> Option<f64> {
    if s.contains('_') {
        return None;
    }
    s.parse::<f64>().ok()
}

/// A list or object's text as `json.Marshal` writes it. The text is already
/// Go's encoding with HTML left alone (the snapshot's metas are catalogd's
/// bytes); `<`, `>` and `&` only occur inside strings, where Go escapes them.
pub fn html_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

/// Go's `%v` of a `float64` (`strconv.FormatFloat(f, 'g', -1, 64)`): the
/// shortest digits, in exponent form when the decimal exponent is below -4 or
/// 6 and over (`1e-05`, `1e+06`), else plain (`0.0001`, `123456`).
pub fn go_float_v(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let formatted = format!("{:e}", f.abs());
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{point}{rest}e{exp_sign}{:02}", exponent.abs());
    }
    let point = exponent + 1; // digits before the decimal point
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go_percent_v() {
        for (f, go) in [
            (100.0, "100"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (1.5, "1.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
            (0.1, "0.1"),
            (-0.0, "-0"),
        ] {
            assert_eq!(go_float_v(f), go, "{f}");
        }
    }

    #[test]
    fn scalars_coerce_as_graphql_go() {
        use Scalar::*;
        let s = |t, text| scalar(t, text);
        assert_eq!(s(String, "1000000"), Some(Value::String("1e+06".into())));
        assert_eq!(s(String, "true"), Some(Value::String("true".into())));
        assert_eq!(
            s(String, r#"{"a":"<b>"}"#),
            Some(Value::String(r#"{"a":"\u003cb\u003e"}"#.into()))
        );
        assert_eq!(s(String, "null"), None);
        assert_eq!(s(Int, "2.9"), Some(Value::Number((2).into())));
        assert_eq!(s(Int, "-2.9"), Some(Value::Number((-2).into())));
        assert_eq!(s(Int, "3000000000"), None);
        assert_eq!(s(Int, r#""42""#), Some(Value::Number(42.into())));
        assert_eq!(s(Int, r#""x""#), None);
        assert_eq!(s(Int, "true"), Some(Value::Number(1.into())));
        assert_eq!(s(Int, "[1]"), None);
        assert_eq!(s(Boolean, r#""false""#), Some(Value::Boolean(false)));
        assert_eq!(s(Boolean, r#""no""#), Some(Value::Boolean(true)));
        assert_eq!(s(Boolean, "0"), Some(Value::Boolean(false)));
        assert_eq!(s(Boolean, "{}"), Some(Value::Boolean(true)));
        assert_eq!(
            s(Float, "1"),
            Some(Value::Number(serde_json::Number::from_f64(1.0).unwrap()))
        );
        assert_eq!(
            s(Float, "false"),
            Some(Value::Number(serde_json::Number::from_f64(0.0).unwrap()))
        );
    }
}
