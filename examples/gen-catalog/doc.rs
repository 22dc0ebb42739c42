//! A tiny document tree ([`V`]), written as YAML or JSON without serde: compact
//! JSON with sorted keys, pretty JSON in construction order, and YAML with keys
//! sorted as `opm render` writes them.

use std::borrow::Cow;
use std::fmt::Write as _;

pub(crate) enum V<'a> {
    S(Cow<'a, str>),
    /// A timestamp: an unquoted YAML 1.1 timestamp, a string with `Z` in JSON.
    Ts(String),
    B(bool),
    I(i64),
    O(Vec<(&'a str, V<'a>)>),
    A(Vec<V<'a>>),
}

pub(crate) fn s<'a>(x: impl Into<Cow<'a, str>>) -> V<'a> {
    V::S(x.into())
}

fn sorted<'b, 'a>(kv: &'b [(&'a str, V<'a>)]) -> Vec<&'b (&'a str, V<'a>)> {
    let mut v: Vec<_> = kv.iter().collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        let esc = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{c:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn json_scalar(v: &V, out: &mut String) {
    match v {
        V::S(x) => json_str(out, x),
        V::Ts(t) => {
            out.push('"');
            out.push_str(t);
            out.push_str("Z\"");
        }
        V::B(b) => out.push_str(if *b { "true" } else { "false" }),
        V::I(n) => {
            let _ = write!(out, "{n}");
        }
        V::O(_) | V::A(_) => unreachable!("not a scalar"),
    }
}

/// Compact JSON with keys sorted, as Kubernetes manifests embedded in bundles are.
pub(crate) fn json_compact(v: &V, out: &mut String) {
    match v {
        V::O(kv) => {
            out.push('{');
            for (n, (k, v)) in sorted(kv).into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                json_str(out, k);
                out.push(':');
                json_compact(v, out);
            }
            out.push('}');
        }
        V::A(items) => {
            out.push('[');
            for (n, v) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                json_compact(v, out);
            }
            out.push(']');
        }
        _ => json_scalar(v, out),
    }
}

fn pad(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// Pretty JSON, 4-space indent, keys in construction order (as `opm render -o json`).
pub(crate) fn json_pretty(v: &V, out: &mut String, ind: usize) {
    match v {
        V::O(kv) if !kv.is_empty() => {
            out.push_str("{\n");
            for (n, (k, v)) in kv.iter().enumerate() {
                pad(out, ind + 4);
                json_str(out, k);
                out.push_str(": ");
                json_pretty(v, out, ind + 4);
                out.push_str(if n + 1 < kv.len() { ",\n" } else { "\n" });
            }
            pad(out, ind);
            out.push('}');
        }
        V::A(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (n, v) in items.iter().enumerate() {
                pad(out, ind + 4);
                json_pretty(v, out, ind + 4);
                out.push_str(if n + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, ind);
            out.push(']');
        }
        V::O(_) => out.push_str("{}"),
        V::A(_) => out.push_str("[]"),
        _ => json_scalar(v, out),
    }
}

/// Whether `s` can be written as a plain YAML scalar and read back as the same string
/// (conservative: anything doubtful is quoted).
fn yaml_plain_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if !(first.is_ascii_alphanumeric() || first == b'/') || s.ends_with([' ', ':']) {
        return false;
    }
    if s.contains(": ") || s.contains(" #") {
        return false;
    }
    let ok_chars = s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || " ._/:@+=-()',;".contains(c)
            || (!c.is_ascii() && c.is_alphabetic())
    });
    if !ok_chars {
        return false;
    }
    const RESERVED: &[&str] = &["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    if RESERVED.iter().any(|r| s.eq_ignore_ascii_case(r)) {
        return false;
    }
    if first.is_ascii_digit() {
        // Only dotted versions with at least two dots (`1.2.3`) are unambiguous strings.
        let dots = b.iter().filter(|c| **c == b'.').count();
        return dots >= 2 && b.iter().all(|c| c.is_ascii_digit() || *c == b'.');
    }
    true
}

/// Whether `s` can be written as a YAML literal block scalar.
fn yaml_block_ok(s: &str) -> bool {
    !s.starts_with([' ', '\n'])
        && s.chars().all(|c| {
            c == '\n'
                || (c >= ' '
                    && c != '\u{7f}'
                    && !('\u{80}'..='\u{9f}').contains(&c)
                    && c != '\u{feff}')
        })
        && s.split('\n').all(|l| l.is_empty() || !l.trim().is_empty())
}

/// Writes a scalar and its line break; block content is indented by `ind`.
fn yaml_scalar(v: &V, out: &mut String, ind: usize) {
    match v {
        V::S(x) if x.contains('\n') && yaml_block_ok(x) => {
            let body = x.trim_end_matches('\n');
            let trailing = x.len() - body.len();
            out.push_str(match trailing {
                0 => "|-\n",
                1 => "|\n",
                _ => "|+\n",
            });
            for line in body.split('\n') {
                if !line.is_empty() {
                    pad(out, ind);
                    out.push_str(line);
                }
                out.push('\n');
            }
            for _ in 1..trailing {
                out.push('\n');
            }
            return;
        }
        V::S(x) if yaml_plain_ok(x) => out.push_str(x),
        V::Ts(t) => out.push_str(t),
        _ => json_scalar(v, out),
    }
    out.push('\n');
}

pub(crate) fn yaml_map(kv: &[(&str, V)], out: &mut String, ind: usize, inline_first: bool) {
    for (n, (k, v)) in sorted(kv).into_iter().enumerate() {
        if n > 0 || !inline_first {
            pad(out, ind);
        }
        if yaml_plain_ok(k) {
            out.push_str(k);
        } else {
            json_str(out, k);
        }
        out.push(':');
        match v {
            V::O(m) if m.is_empty() => out.push_str(" {}\n"),
            V::O(m) => {
                out.push('\n');
                yaml_map(m, out, ind + 2, false);
            }
            V::A(items) if items.is_empty() => out.push_str(" []\n"),
            V::A(items) => {
                out.push('\n');
                yaml_seq(items, out, ind);
            }
            _ => {
                out.push(' ');
                yaml_scalar(v, out, ind + 2);
            }
        }
    }
}

fn yaml_seq(items: &[V], out: &mut String, ind: usize) {
    for it in items {
        pad(out, ind);
        out.push('-');
        match it {
            V::O(m) if m.is_empty() => out.push_str(" {}\n"),
            V::O(m) => {
                out.push(' ');
                yaml_map(m, out, ind + 2, true);
            }
            V::A(inner) if inner.is_empty() => out.push_str(" []\n"),
            V::A(inner) => {
                out.push('\n');
                yaml_seq(inner, out, ind + 2);
            }
            _ => {
                out.push(' ');
                yaml_scalar(it, out, ind + 2);
            }
        }
    }
}
