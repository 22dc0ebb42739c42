//! Go's text formatting where OLM's messages use it, so ours read the same.
//!
//! In: strings. Out: Go's `%q` (`strconv.Quote`) of them.
//!
//! Written here because no crate formats as Go does. Go leaves every printable
//! character as it is and escapes the rest; deciding "printable" exactly needs
//! Unicode's category tables, so this treats as unprintable the control
//! characters, every space but U+0020, and the invisible format characters
//! catalogs are known to carry (soft hyphen, zero-width and direction marks,
//! the byte-order mark). Names in real catalogs are ASCII.

use std::fmt::Write;

/// Go's `strconv.Quote(s)`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if printable(c) => out.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// Go's `unicode.IsPrint`, as far as the module docs say.
fn printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    !(c.is_control()
        || c.is_whitespace()
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}'))
}

#[cfg(test)]
mod tests {
    use super::quote;

    /// Expected values printed by Go 1.19's `fmt.Printf("%q")`.
    #[test]
    fn quotes_as_go_does() {
        for (input, want) in [
            ("a.v1", r#""a.v1""#),
            ("", r#""""#),
            ("say \"hi\"\\", r#""say \"hi\"\\""#),
            ("tab\there\nnl", r#""tab\there\nnl""#),
            ("\u{1b}[31m", r#""\x1b[31m""#),
            ("\u{7f}", r#""\x7f""#),
            ("caf\u{e9}", "\"caf\u{e9}\""),
            ("nb\u{a0}sp", r#""nb\u00a0sp""#),
            ("bom\u{feff}", r#""bom\ufeff""#),
            ("\u{85}", r#""\u0085""#),
        ] {
            assert_eq!(quote(input), want, "{input:?}");
        }
    }
}
