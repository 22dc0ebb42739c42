//! Unit and property tests of the blang grammar; the Go-derived tables are in
//! `blang_go_tests.rs` and `blang_oracle_tests.rs`.

use super::*;
use proptest::prelude::*;

fn v(s: &str) -> Version {
    Version::parse(s).expect("test version")
}

fn m(range: &str, version: &str) -> bool {
    parse(range).expect("test range").matches(&v(version))
}

/// blang v4's `ParseTolerant` (semver.go), case by case.
#[test]
fn tolerant_parsing_fills_short_versions_and_drops_v_spaces_and_leading_zeros() {
    for (input, want) in [
        ("v1.2", Some("1.2.0")),
        (" 01.02.03 ", Some("1.2.3")),
        ("1", Some("1.0.0")),
        ("0", Some("0.0.0")),
        ("00", Some("0.0.0")),
        ("1.02.3-beta.1+b", Some("1.2.3-beta.1+b")),
        ("1.0.0-rc.1", Some("1.0.0-rc.1")),
        ("1.2-rc", None),
        ("1+b", None),
        ("v", None),
        ("", None),
        ("1.2.3.4", None),
        ("1.2.3-01", None),
        ("1.0.0-99999999999999999999", None),
    ] {
        let got = parse_tolerant(input).ok().map(|v| v.to_string());
        assert_eq!(got.as_deref(), want, "{input:?}");
    }
    assert_eq!(
        parse_tolerant("1.2-rc").expect_err("short").to_string(),
        "Short version cannot contain PreRelease/Build meta data"
    );
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
fn operators_end_at_any_scripts_decimal_digit() {
    // Go's unicode.IsDigit: the Arabic-Indic three starts the version
    assert!(parse(".x\r\u{663}\t2.0.0").is_err());
    assert!(parse("\u{663}1.2.x").is_err());
    // a superscript two is not a decimal digit: an unknown operator,
    // dropped by the wildcard expansion
    assert!(m("\u{b2}1.2.x", "1.2.0"));
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
