//! The blang/semver v4 range grammar, used by `skipRange`.
//!
//! In: a range string such as `>=1.0.0 <2.0.0 || 3.x`. Out: a [`Range`], or why it
//! does not parse. The rules, exactly as the Go library applies them:
//!
//! 1. the string is split at spaces, except a space right after `>`, `<` or `=`
//!    (`>= 1.0.0` is one token); single-character tokens are dropped;
//! 2. `||` tokens separate OR groups (AND binds tighter); a leading or trailing
//!    `||` is an error, and so is an empty group (`a || || b`: Go accepts it and
//!    panics when evaluation reaches it);
//! 3. every token containing `x` is a wildcard: `1.2.x` and `1.x` (also `1.x.x`,
//!    which the library treats as `1.0.x`) expand to comparators
//!    (`=1.2.x` → `>=1.2.0 <1.3.0`; `>1.2.x` → `>=1.3.0`; `<=1.2.x` → `<1.3.0`;
//!    `!=1.2.x` → `<1.2.0` **and** `>=1.3.0` in the same AND group, which can
//!    never match: a library bug that OLM inherits, kept on purpose);
//! 4. each token is an operator (`=`, `==`, none; `!`, `!=`; `>`, `>=`, `<`, `<=`)
//!    followed by a strict `MAJOR.MINOR.PATCH[-pre][+build]` version (numeric
//!    prerelease identifiers within `u64`, as blang's `ParseUint` demands);
//! 5. comparison is semver precedence; build metadata is ignored and prereleases
//!    are **not** excluded (`<2.0.0` matches `2.0.0-rc.1`).
//!
//! A comma is not a separator: `>=1.0.0, <2.0.0` fails, and OLM then ignores the
//! skipRange.

use semver::Version;
use std::cmp::Ordering;
use std::fmt;

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`, `==` or none.
    Eq,
    /// `!` or `!=`.
    Ne,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
}

/// One `op version` test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparator {
    /// The operator.
    pub op: Op,
    /// The version compared against.
    pub version: Version,
}

impl Comparator {
    fn matches(&self, v: &Version) -> bool {
        let ord = v.cmp_precedence(&self.version);
        match self.op {
            Op::Eq => ord == Ordering::Equal,
            Op::Ne => ord != Ordering::Equal,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
        }
    }
}

/// A parsed blang range: an OR of AND groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// OR of AND groups.
    pub any_of: Vec<Vec<Comparator>>,
}

impl Range {
    /// Whether `v` is in the range.
    pub fn matches(&self, v: &Version) -> bool {
        self.any_of
            .iter()
            .any(|group| group.iter().all(|c| c.matches(v)))
    }
}

/// Why a range does not parse; the text matches the Go library's where it can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct RangeError(pub String);

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses a range in the blang/semver v4 grammar (see the module docs).
pub fn parse(s: &str) -> Result<Range, RangeError> {
    let tokens = split_and_trim(s);
    let groups = split_or(&tokens)?;
    let mut any_of = Vec::with_capacity(groups.len());
    for group in groups {
        let mut all_of = Vec::new();
        for token in expand_wildcards(&group)? {
            let (op, version) = split_comparator(&token)?;
            // Go wraps both failures in `Could not parse Range %q: …`.
            let op = parse_op(op).ok_or_else(|| {
                RangeError(format!(
                    "Could not parse Range {token:?}: Could not parse comparator {op:?} in {:?}",
                    format!("{op}{version}")
                ))
            })?;
            let bad_version = |why: String| {
                RangeError(format!(
                    "Could not parse Range {token:?}: Could not parse version {version:?} in {token:?}: {why}"
                ))
            };
            let version = Version::parse(version).map_err(|e| bad_version(e.to_string()))?;
            if !is_blang_version(&version) {
                return Err(bad_version("strconv.ParseUint: value out of range".into()));
            }
            all_of.push(Comparator { op, version });
        }
        any_of.push(all_of);
    }
    Ok(Range { any_of })
}

/// Whether blang's strict `Parse` accepts what the `semver` crate parsed: the
/// crate allows numeric prerelease identifiers of any size, blang only those
/// that fit a `u64` (`NewPRVersion` uses `ParseUint`).
pub fn is_blang_version(v: &Version) -> bool {
    v.pre.is_empty()
        || v.pre
            .as_str()
            .split('.')
            .all(|id| !id.bytes().all(|b| b.is_ascii_digit()) || id.parse::<u64>().is_ok())
}

fn split_and_trim(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut result = Vec::new();
    let mut last = 0usize;
    let mut last_char = 0u8;
    for i in 0..b.len() {
        if b[i] == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            if last + 1 < i {
                result.push(&s[last..i]);
            }
            last = i + 1;
        } else if b[i] != b' ' {
            last_char = b[i];
        }
    }
    if last + 1 < b.len() {
        result.push(&s[last..]);
    }
    result.into_iter().map(|t| t.replace(' ', "")).collect()
}

fn split_or(tokens: &[String]) -> Result<Vec<Vec<String>>, RangeError> {
    let mut groups = Vec::new();
    let mut last = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t == "||" {
            if i == 0 {
                return Err(RangeError("First element in range is '||'".into()));
            }
            // `a || || b`: Go builds a nil AND function here and panics when
            // evaluation reaches it; refusing it at parse time is the only
            // answer that never differs from Go's in a match.
            if last == i {
                return Err(RangeError("Empty element between '||' in range".into()));
            }
            groups.push(tokens[last..i].to_vec());
            last = i + 1;
        }
    }
    if last == tokens.len() {
        return Err(RangeError("Last element in range is '||'".into()));
    }
    groups.push(tokens[last..].to_vec());
    Ok(groups)
}

fn split_comparator(token: &str) -> Result<(&str, &str), RangeError> {
    match token.find(|c: char| c.is_ascii_digit()) {
        Some(i) => Ok((token[..i].trim(), &token[i..])),
        None => Err(RangeError(format!(
            "Could not get version from string: {token:?}"
        ))),
    }
}

fn parse_op(op: &str) -> Option<Op> {
    Some(match op {
        "" | "=" | "==" => Op::Eq,
        "!" | "!=" => Op::Ne,
        ">" => Op::Gt,
        ">=" => Op::Ge,
        "<" => Op::Lt,
        "<=" => Op::Le,
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Wildcard {
    None,
    Major,
    Minor,
    Patch,
}

fn wildcard_type(v: &str) -> Wildcard {
    let parts: Vec<&str> = v.split('.').collect();
    if parts.last() != Some(&"x") {
        return Wildcard::None;
    }
    match parts.len() {
        1 => Wildcard::Major,
        2 => Wildcard::Minor,
        3 => Wildcard::Patch,
        _ => Wildcard::None,
    }
}

fn flatten_wildcard(v: &str) -> String {
    let v = v.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
    if v.split('.').count() == 2 {
        format!("{v}.0")
    } else {
        v
    }
}

/// `incrementMajorVersion` / `incrementMinorVersion`: the part goes through
/// Go's `strconv.Atoi` (an `i64`, sign allowed: `1.-1.x` bumps to `1.0.0`),
/// lower parts are left alone (`1.2.3` → `2.2.3`; expansion only bumps versions
/// whose lower parts are already 0). A part out of `i64` range, or one that
/// would overflow, yields a string that does not parse, as Go's error or
/// wrapped negative number does.
fn increment(v: &str, part: usize) -> String {
    let mut parts: Vec<String> = v.split('.').map(str::to_string).collect();
    let Some(n) = parts
        .get(part)
        .and_then(|p| p.parse::<i64>().ok())
        .and_then(|n| n.checked_add(1))
    else {
        return String::new();
    };
    parts[part] = n.to_string();
    parts.join(".")
}

fn expand_wildcards(group: &[String]) -> Result<Vec<String>, RangeError> {
    let mut out = Vec::new();
    for token in group {
        if !token.contains('x') {
            out.push(token.clone());
            continue;
        }
        let (op, v) = split_comparator(token)?;
        let kind = wildcard_type(v);
        let flat = flatten_wildcard(v);
        let (result_op, bump) = match op {
            ">" => (">=", true),
            ">=" => (">=", false),
            "<" => ("<", false),
            "<=" => ("<", true),
            "" | "=" | "==" => {
                out.push(format!(">={flat}"));
                ("<", true)
            }
            "!=" | "!" => {
                out.push(format!("<{flat}"));
                (">=", true)
            }
            _ => ("", false),
        };
        let version = if bump {
            match kind {
                Wildcard::Patch => increment(&flat, 1),
                Wildcard::Minor => increment(&flat, 0),
                _ => String::new(),
            }
        } else {
            flat
        };
        out.push(format!("{result_op}{version}"));
    }
    Ok(out)
}

#[cfg(test)]
#[path = "blang_go_tests.rs"]
mod go_tables;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(s: &str) -> Version {
        Version::parse(s).expect("test version")
    }

    fn m(range: &str, version: &str) -> bool {
        parse(range).expect("test range").matches(&v(version))
    }

    #[test]
    fn and_groups_and_or() {
        assert!(m(">=1.0.0 <2.0.0", "1.5.0"));
        assert!(!m(">=1.0.0 <2.0.0", "2.0.0"));
        assert!(m("<1.0.0 || >=3.0.0", "3.1.0"));
        assert!(!m("<1.0.0 || >=3.0.0", "2.0.0"));
    }

    #[test]
    fn a_space_after_an_operator_is_allowed() {
        assert!(m("< 0.6.0", "0.5.9"));
        assert!(m(">= 1.0.0 < 2.0.0", "1.0.0"));
    }

    #[test]
    fn prereleases_are_not_excluded_and_build_is_ignored() {
        assert!(m("<2.0.0", "2.0.0-rc.1"));
        assert!(m(">=1.0.0 <2.0.0", "2.0.0-rc.1"));
        assert!(m("=1.0.0", "1.0.0+build.5"));
    }

    #[test]
    fn wildcards_expand_like_blang() {
        assert!(m("1.2.x", "1.2.9"));
        assert!(!m("1.2.x", "1.3.0"));
        assert!(m("1.x", "1.9.0"));
        assert!(m(">1.2.x", "1.3.0"));
        assert!(!m(">1.2.x", "1.2.5"));
        assert!(m("<=1.2.x", "1.2.9"));
        assert!(!m("<=1.2.x", "1.3.0"));
        // the library's bug: `!=` with a wildcard never matches
        assert!(!m("!=1.2.x", "1.1.0"));
        assert!(!m("!=1.2.x", "2.0.0"));
    }

    #[test]
    fn grammar_errors() {
        for bad in [
            ">=1.0.0, <2.0.0",
            ">=1.0",
            "v1.0.0",
            "~1.0.0",
            "^1.0.0",
            "|| 1.0.0",
            "1.0.0 ||",
            "<1.0.0||>2.0.0",
            "1.0.0-xyz",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn a_prerelease_containing_x_goes_through_wildcard_expansion() {
        // bare: expanded to `>=1.0.0-xyz <` which fails; with an operator it survives
        assert!(parse("1.0.0-xyz").is_err());
        assert!(m(">=1.0.0-xyz", "1.0.0"));
    }

    #[test]
    fn single_character_tokens_are_dropped() {
        // ">=1.0.0 a" → the lone "a" disappears, as in Go
        assert!(m(">=1.0.0 a", "1.0.0"));
    }

    #[test]
    fn an_empty_or_group_is_refused() {
        // Go parses it and panics on a nil function once evaluation gets there
        assert!(parse("1.0.0 || || 2.0.0").is_err());
        assert!(parse("1.0.0 || a || 2.0.0").is_err(), "`a` vanishes");
    }

    #[test]
    fn wildcard_bumps_read_numbers_like_atoi() {
        assert!(m(">1.-1.x", "1.0.0"), "Atoi(\"-1\") + 1 = 0");
        assert!(!m(">1.-1.x", "0.9.0"));
        assert!(m(">1.+2.x", "1.3.0"));
        assert!(
            parse(">1.x2.x").is_err(),
            "Go keeps the patch `x` after bumping"
        );
        assert!(parse(">1.9223372036854775807.x").is_err());
        assert!(parse(">9223372036854775807.x").is_err());
        assert!(m(">1.9223372036854775806.x", "1.9223372036854775807.0"));
    }

    #[test]
    fn numeric_prerelease_identifiers_must_fit_u64() {
        assert!(parse(">=1.0.0-18446744073709551615").is_ok());
        assert!(parse(">=1.0.0-18446744073709551616").is_err());
        assert!(is_blang_version(&v("1.0.0-a.18446744073709551615")));
        assert!(!is_blang_version(&v("1.0.0-a.18446744073709551616")));
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,40}") {
            let _ = parse(&s);
        }

        #[test]
        fn bounds_match_semver_order(a in 0u64..20, b in 0u64..20, c in 0u64..20, x in 0u64..20, y in 0u64..20, z in 0u64..20) {
            let lo = Version::new(a, b, c);
            let probe = Version::new(x, y, z);
            let r = parse(&format!(">={lo}")).expect("range");
            prop_assert_eq!(r.matches(&probe), probe >= lo);
            let r = parse(&format!("<{lo}")).expect("range");
            prop_assert_eq!(r.matches(&probe), probe < lo);
            let r = parse(&format!("{lo}")).expect("range");
            prop_assert_eq!(r.matches(&probe), probe == lo);
        }

        #[test]
        fn patch_wildcard_is_a_minor_bucket(a in 0u64..10, b in 0u64..10, x in 0u64..10, y in 0u64..10, z in 0u64..10) {
            let r = parse(&format!("{a}.{b}.x")).expect("range");
            let probe = Version::new(x, y, z);
            prop_assert_eq!(r.matches(&probe), x == a && y == b);
        }
    }
}
