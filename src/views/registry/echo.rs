//! Client input quoted in error messages, never more than a short prefix of it.
//!
//! In: a request field (any length up to the request limit). Out: text to put in a
//! status message. A client must not be able to make the server send back (or log)
//! megabytes of its own input, so every message that echoes a field goes through
//! one of these. Names a catalog can hold keep the reference's exact wording:
//! [`name_quoted`] and [`name_bare`] only cut names longer than
//! [`REFERENCE_ECHO_LEN`] bytes.

/// Characters of client input quoted before the rest is cut.
pub const ECHO_CHARS: usize = 64;

/// Names up to this many bytes are echoed whole, byte-identical to the reference.
pub const REFERENCE_ECHO_LEN: usize = 256;

/// `s` quoted (as `{:?}`), at most [`ECHO_CHARS`] characters of it, followed by
/// `… (N bytes)` when cut.
pub fn quoted_prefix(s: &str) -> String {
    match cut(s) {
        Some(prefix) => format!("{prefix:?}… ({} bytes)", s.len()),
        None => format!("{s:?}"),
    }
}

/// A name as the reference quotes it (`%q`), or [`quoted_prefix`] past
/// [`REFERENCE_ECHO_LEN`] bytes.
pub fn name_quoted(s: &str) -> String {
    if s.len() <= REFERENCE_ECHO_LEN {
        format!("{s:?}")
    } else {
        quoted_prefix(s)
    }
}

/// A name as the reference prints it bare (`%s`), or its first [`ECHO_CHARS`]
/// characters and `… (N bytes)` past [`REFERENCE_ECHO_LEN`] bytes.
pub fn name_bare(s: &str) -> String {
    match cut(s).filter(|_| s.len() > REFERENCE_ECHO_LEN) {
        Some(prefix) => format!("{prefix}… ({} bytes)", s.len()),
        None => s.to_string(),
    }
}

/// The first [`ECHO_CHARS`] characters of `s`, if it has more.
fn cut(s: &str) -> Option<&str> {
    let (end, _) = s.char_indices().nth(ECHO_CHARS)?;
    Some(&s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_input_is_quoted_whole() {
        assert_eq!(quoted_prefix("etcd"), "\"etcd\"");
        assert_eq!(quoted_prefix(""), "\"\"");
        let exact = "x".repeat(ECHO_CHARS);
        assert_eq!(quoted_prefix(&exact), format!("\"{exact}\""));
    }

    #[test]
    fn long_input_is_cut_on_a_character_boundary_with_its_length() {
        let long = "é".repeat(10_000);
        let echoed = quoted_prefix(&long);
        assert_eq!(
            echoed,
            format!("\"{}\"… (20000 bytes)", "é".repeat(ECHO_CHARS))
        );
        assert!(echoed.len() < 200);
        let quotes = "\"".repeat(1000);
        assert!(quoted_prefix(&quotes).len() < 2 * ECHO_CHARS + 30);
    }

    #[test]
    fn names_a_catalog_can_hold_keep_the_reference_wording() {
        let name = "n".repeat(REFERENCE_ECHO_LEN);
        assert_eq!(name_quoted(&name), format!("\"{name}\""));
        assert_eq!(name_bare(&name), name);
        let longer = "n".repeat(REFERENCE_ECHO_LEN + 1);
        assert_eq!(
            name_quoted(&longer),
            format!("\"{}\"… (257 bytes)", "n".repeat(ECHO_CHARS))
        );
        assert_eq!(
            name_bare(&longer),
            format!("{}… (257 bytes)", "n".repeat(ECHO_CHARS))
        );
    }
}
