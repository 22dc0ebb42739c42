//! Scalar resolution for [`super`] (the YAML → JSON conversion): plain scalars
//! resolved by the YAML 1.1 rules go-yaml v2 follows (null, booleans, timestamps
//! kept as strings, Go integers, floats), and mapping keys written as strings the
//! way sigs.k8s.io/yaml writes them. The rules are listed in [`super`]'s docs.

use granit_parser::{ScalarStyle, Tag};
use serde_json::{Number, Value};

/// Mapping keys as sigs.k8s.io/yaml writes them; a sequence or mapping as a key is
/// go-yaml's `invalid map key` (Go cannot hash it). Written out as text instead, a key
/// holding a key holding a key… grew twice per level as each level escaped the last
/// (a 60-byte `{{{…}}}` took seconds, found by fuzzing the templates).
pub(super) fn key_to_string(key: Value) -> Result<String, String> {
    Ok(match key {
        Value::String(s) => s,
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            _ => {
                let mut s = String::new();
                crate::source::json::write_float64(&mut s, n.as_f64().unwrap_or(0.0));
                s
            }
        },
        Value::Array(_) => return Err("invalid map key: a sequence (go-yaml refuses it)".into()),
        Value::Object(_) => return Err("invalid map key: a mapping (go-yaml refuses it)".into()),
    })
}

fn is_str_tag(tag: Option<&Tag>) -> bool {
    tag.is_some_and(|t| {
        (t.handle() == "!!" && (t.suffix() == "str" || t.suffix() == "binary"))
            || t.suffix() == "tag:yaml.org,2002:str"
            || (t.handle() == "tag:yaml.org,2002:" && t.suffix() == "str")
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

/// The timestamp forms go-yaml v2 recognises (then keeps as strings): what Go's
/// `time.Parse` accepts for one of `2006-1-2T15:4:5.999999999Z07:00` (also with a
/// lowercase `t`), `2006-1-2 15:4:5.999999999` and `2006-1-2`, after go-yaml's quick
/// check that the text starts with four digits and a `-`. Month, day, hour, minute and
/// second take one or two digits and must be in range (the day for its month and year);
/// the zone is `Z` or `±hh:mm`.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: u32 = s[..4].parse().unwrap_or(0);
    let mut at = 5;
    let Some(month) = number(b, &mut at) else {
        return false;
    };
    if b.get(at) != Some(&b'-') {
        return false;
    }
    at += 1;
    let Some(day) = number(b, &mut at) else {
        return false;
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return false;
    }
    let zoned = match b.get(at) {
        None => return true,
        Some(b'T' | b't') => true,
        Some(b' ') => false,
        Some(_) => return false,
    };
    at += 1;
    let Some(hour) = number(b, &mut at) else {
        return false;
    };
    if b.get(at) != Some(&b':') {
        return false;
    }
    at += 1;
    let Some(minute) = number(b, &mut at) else {
        return false;
    };
    if b.get(at) != Some(&b':') {
        return false;
    }
    at += 1;
    let Some(second) = number(b, &mut at) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    if b.get(at) == Some(&b'.') && b.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at += 1;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
    }
    if !zoned {
        return at == b.len();
    }
    match &b[at..] {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit())
                && (h1 - b'0') * 10 + (h2 - b'0') <= 24
                && (m1 - b'0') * 10 + (m2 - b'0') <= 60
        }
        _ => false,
    }
}

/// Go's `getnum(value, false)`: one or two digits.
fn number(b: &[u8], at: &mut usize) -> Option<u32> {
    let first = *b.get(*at).filter(|c| c.is_ascii_digit())?;
    *at += 1;
    let mut n = u32::from(first - b'0');
    if let Some(second) = b.get(*at).filter(|c| c.is_ascii_digit()) {
        n = n * 10 + u32::from(second - b'0');
        *at += 1;
    }
    Some(n)
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
