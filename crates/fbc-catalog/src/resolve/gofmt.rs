//! Go's text formatting where OLM's messages use it, so ours read the same.
//!
//! In: strings. Out: Go's `%q` (`strconv.Quote`) of them.
//!
//! The quoting itself lives in `version_range::go_text`, which the range grammars
//! use too (see there for what counts as printable); this is the resolver's name
//! for it, with the resolver's expected outputs as tests.

/// Go's `strconv.Quote(s)` (one implementation for the crate, beside the range
/// grammars that print it too).
pub fn quote(s: &str) -> String {
    crate::version_range::go_text::go_quote(s)
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
