//! Go's `%q` (`strconv.Quote`) for the error texts the range grammars print as Go does.
//!
//! In: a string. Out: its quoted form. Written here because no crate formats as Go
//! does; shared by the blang and Masterminds readers.

/// Go's `%q` for an error message: ASCII printable bytes as they are, `"` and
/// `\` escaped, C escapes for `\a\b\f\n\r\t\v`, `\xHH` for other control bytes,
/// `\uHHHH` for non-ASCII characters Go would not print (approximated with
/// Rust's control/whitespace tests plus the common format characters).
pub(crate) fn go_quote(s: &str) -> String {
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
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_ascii() => out.push(c),
            c if go_unprintable(c) => {
                let u = c as u32;
                if u < 0x10000 {
                    out.push_str(&format!("\\u{u:04x}"));
                } else {
                    out.push_str(&format!("\\U{u:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn go_unprintable(c: char) -> bool {
    c.is_control()
        || c.is_whitespace()
        || matches!(c,
            '\u{ad}' | '\u{600}'..='\u{605}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
            | '\u{e000}'..='\u{f8ff}' | '\u{fffe}' | '\u{ffff}')
}
