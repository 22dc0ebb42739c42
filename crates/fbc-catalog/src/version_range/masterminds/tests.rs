//! Unit and property tests of the Masterminds grammar. The tables pinned from
//! the Go library's own tests are in `masterminds_go_tests.rs` and
//! `masterminds_go_prerelease_tests.rs`, the ones pinned from the differential
//! run against the Go library in `masterminds_oracle_tests.rs`.

use super::*;
use proptest::prelude::*;

mod go_prerelease_tables;
mod go_tables;
mod oracle_tables;

/// A version as Masterminds' coercing `NewVersion` reads the Go tests' short
/// forms (`1`, `1.4`), for the test tables.
pub(super) fn v(s: &str) -> Version {
    let (core, rest) = match s.find(['-', '+']) {
        Some(i) => s.split_at(i),
        None => (s, ""),
    };
    let mut parts: Vec<&str> = core.split('.').collect();
    while parts.len() < 3 {
        parts.push("0");
    }
    Version::parse(&format!("{}{rest}", parts.join("."))).expect("test version")
}

pub(super) fn m(range: &str, version: &str) -> bool {
    let c = parse(range).unwrap_or_else(|e| panic!("{range:?}: {e}"));
    let got = c.matches(&v(version));
    assert_eq!(
        got,
        c.expanded().matches(&v(version)),
        "expansion of {range:?} ({}) disagrees on {version}",
        c.expanded()
    );
    got
}

#[test]
fn and_or_and_separators() {
    assert!(m(">=1.2, <2", "1.5.0"));
    assert!(m(">=1.2 <2", "1.5.0"));
    assert!(m(">= 1.2 , < 2", "1.5.0"));
    assert!(!m(">=1.2, <2", "2.0.0"));
    assert!(m("<1 || >=3", "3.1.0"));
    assert!(m("<1\t||\n>=3", "0.5.0"));
    assert!(m(">=1.2\t<2", "1.5.0"));
    assert!(m(">=1.2\r\n<2", "1.5.0"));
    assert!(m(">=1.2\x0c<2", "1.5.0"));
    assert!(parse(">=1.2\x0b<2").is_err(), "VT is not \\s in Go");
    assert!(parse(">=1.2,,<2").is_err());
    assert!(parse(">=1.2,").is_err());
    assert!(parse(",>=1.2").is_err());
    assert!(parse(">=1.2<2").is_err());
}

#[test]
fn reference_quirks() {
    // `<=*` is `<0.1.0`
    assert!(m("<=*", "0.0.9"));
    assert!(!m("<=*", "0.1.0"));
    // `>*` is `>0.0.0`, `!=*` is `!=0.0.0`
    assert!(!m(">*", "0.0.0"));
    assert!(m(">*", "0.0.1"));
    assert!(!m("!=*", "0.0.0"));
    assert!(m("!=*", "5.0.0"));
    // `^*` is `=0.0.0`
    assert!(m("^*", "0.0.0"));
    assert!(!m("^*", "0.0.1"));
    // `x.2.3` is `*`, `1.x.3` is `1.x`
    assert!(m("x.2.3", "7.0.0"));
    assert!(m("1.x.3", "1.9.0"));
    assert!(!m("1.x.3", "2.0.0"));
    assert!(
        m("x.|.3", "4.0.0"),
        "everything after a wildcard is ignored"
    );
    // leading zeros coerce, leading v
    assert!(m("=01.2.3", "1.2.3"));
    assert!(m("v1.2.3", "1.2.3"));
    assert!(m(">=v1", "1.0.0"));
    // hyphen ranges need spaces; a partial upper bound covers its bucket
    assert!(m("1.2 - 2", "2.9.0"));
    assert!(!m("1.2 - 2", "3.0.0"));
    assert!(m("1.2.3 - 2.3", "2.3.9"));
    assert!(!m("1.2.3 - 2.3", "2.4.0"));
    // no spaces: `1.1-3` is `~1.1.0-3`, a prerelease bound
    assert!(m("1.1-3", "1.1.0"));
    assert!(m("1.1-3", "1.1.0-4"));
    assert!(!m("1.1-3", "4.3.2"));
}

#[test]
fn prerelease_opt_in_is_per_or_group() {
    assert!(!m(">=1.0.0", "1.5.0-rc.1"));
    assert!(
        m(">=1.0.0-0", "3.0.0-rc.1"),
        "any version's prerelease opts in"
    );
    assert!(
        m(">=1.0.0 <2.0.0-0", "1.5.0-rc.1"),
        "one prerelease admits them for the group"
    );
    assert!(
        m(">=1.0.0 || <2.0.0-0", "1.5.0-rc.1"),
        "the second group opts in"
    );
    assert!(m("<2.0.0-0 || >=5", "1.5.0-rc.1"));
    assert!(!m(">=5 || <2.0.0", "1.5.0-rc.1"));
    assert!(
        !m("!=1.2.3", "1.0.0-rc.1"),
        "`!=` gates prereleases too (v3.4+)"
    );
    assert!(c_include("!=1.2.3", "1.0.0-rc.1"));
}

fn c_include(range: &str, version: &str) -> bool {
    parse(range)
        .expect("range")
        .matches_including_prereleases(&v(version))
}

#[test]
fn not_equal_patch_wildcard_compares_prerelease_strings() {
    assert!(!m("!=1.2.x", "1.2.5"));
    assert!(m("!=1.2.x", "1.3.0"));
    assert!(
        !m("!=1.2.x-beta", "1.2.7-beta"),
        "same prerelease string anywhere in 1.2"
    );
    assert!(m("!=1.2.x-beta", "1.2.7-alpha"));
    assert!(m("!=1.2.x-beta", "1.2.7"));
}

#[test]
fn errors_use_the_go_wording() {
    let e = parse(">= bar").expect_err("bad");
    assert_eq!(e.to_string(), r#"improper constraint: ">= bar""#);
    let e = parse("").expect_err("empty");
    assert_eq!(e.to_string(), r#"improper constraint: """#);
    let e = parse("1.0.0 || foo\t").expect_err("bad");
    assert_eq!(e.to_string(), r#"improper constraint: " foo\t""#);
    let e = parse(">1 - 2").expect_err("hyphen after operator");
    assert_eq!(e.to_string(), r#"improper constraint: ">>= 1, <= 2 ""#);
    for bad in [
        "v1.2.3-beta.01",
        "1x",
        "2|",
        "1.2.3|",
        "99999999999999999999",
    ] {
        let e = parse(bad).expect_err(bad);
        assert_eq!(e.to_string(), "constraint parser error", "{bad}");
    }
    assert!(matches!(
        parse(&"1".repeat(MAX_LEN + 1)),
        Err(RangeError::TooLong(_))
    ));
}

#[test]
fn rewrite_range_replaces_first_occurrences_like_go() {
    let r = |s| syntax::rewrite_range(s, " ");
    assert_eq!(r("1,2 - 3"), "1,>= 2, <= 3 ");
    // `|` is in the version class: the low end is `1||2`, later split at `||`
    assert_eq!(r("1||2 - 3"), ">= 1||2, <= 3 ");
    assert_eq!(r("1.2.3.4 - 5"), "1.>= 2.3.4, <= 5 ");
    assert_eq!(r("1 - 2 - 3 2 - 3"), ">= 1, <=>= 2, <= 3  2 - 3");
    assert!(m("1||2 - 3", "2.5.0"));
}

#[test]
fn display_is_go_string_and_expansion_shows_bounds() {
    let c = parse("2.x,   >=1.2.3 || >4.5.6, < 5.7").expect("range");
    assert_eq!(c.to_string(), "2.x >=1.2.3 || >4.5.6 <5.7");
    let c = parse("^1.2 || ~0.3.1-rc.1 || !=1.x").expect("range");
    assert_eq!(
        c.expanded().to_string(),
        ">=1.2.0 <2.0.0-0 || >=0.3.1-rc.1 <0.4.0-0 (prereleases) || (<1.0.0-0 || >=2.0.0-0)"
    );
    assert_eq!(parse("<=*").expect("r").expanded().to_string(), "<0.1.0-0");
    assert_eq!(parse("*").expect("r").expanded().to_string(), ">=0.0.0");
    let json = serde_json::to_string(&parse(">1").expect("r").expanded()).expect("json");
    assert!(json.contains(r#""version":"2.0.0-0""#), "{json}");
}

#[test]
fn overflowing_bounds() {
    let max = u64::MAX;
    assert!(m(&format!("^{max}"), &format!("{max}.5.0")));
    assert!(!m(&format!(">{max}"), &format!("{max}.5.0")));
    assert!(m(&format!("<={max}.{max}"), &format!("{max}.{max}.{max}")));
    assert!(m(&format!("~0.0.{max}"), &format!("0.0.{max}")));
    assert!(m(&format!("^0.0.{max}"), &format!("0.0.{max}")));
    assert!(m(&format!("!=1.{max}.x"), "2.0.0"));
}

#[test]
fn bundle_versions_drop_release_and_refuse_non_blang_versions() {
    let c = parse("1.0.0").expect("range");
    assert!(matches_bundle_version(&c, &v("1.0.0+2")));
    assert!(matches_bundle_version(&c, &v("1.0.0+git.abc")));
    assert!(matches_bundle_version(&c, &v("1.0.0+001")));
    let pre = parse(">=1.0.0-0").expect("range");
    assert!(matches_bundle_version(&pre, &v("1.0.0-1")));
    assert!(!matches_bundle_version(
        &pre,
        &v("1.0.0-99999999999999999999")
    ));
    assert!(pre.matches(&v("1.0.0-99999999999999999999")));
}

fn token() -> impl Strategy<Value = String> {
    let num = prop_oneof!["[0-9]{1,3}", Just("x".to_string()), Just("*".to_string())];
    let version = (
        prop::option::of("v"),
        num.clone(),
        prop::option::of(num.clone()),
        prop::option::of(num),
        prop::option::of("(alpha|beta|rc|0|1|2)(\\.[0-9])?"),
    )
        .prop_map(|(v, a, b, c, pre)| {
            let mut s = format!("{}{a}", v.unwrap_or_default());
            if let Some(b) = b {
                s.push_str(&format!(".{b}"));
                if let Some(c) = c {
                    s.push_str(&format!(".{c}"));
                }
            }
            if let Some(pre) = pre {
                s.push_str(&format!("-{pre}"));
            }
            s
        });
    let op = prop::sample::select(vec![
        "", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^", " - ", "||", ",", " ",
    ]);
    (op, version).prop_map(|(o, v)| format!("{o}{v}"))
}

proptest! {
    #[test]
    fn parse_never_panics(s in "\\PC{0,60}") {
        let _ = parse(&s);
    }

    #[test]
    fn token_soup_never_panics_and_expansion_agrees(
        toks in prop::collection::vec(token(), 1..6),
        seps in prop::collection::vec(prop::sample::select(vec![" ", ",", " || ", ", ", " - ", ""]), 6),
        a in 0u64..4, b in 0u64..4, c in 0u64..4,
        pre in prop::option::of("(alpha|beta|rc|0|1)(\\.[0-9])?"),
    ) {
        let s: String = toks.iter().zip(&seps).map(|(t, s)| format!("{t}{s}")).collect();
        let mut version = Version::new(a, b, c);
        if let Some(pre) = pre {
            version.pre = semver::Prerelease::new(&pre).expect("pre");
        }
        if let Ok(cs) = parse(&s) {
            prop_assert_eq!(cs.matches(&version), cs.expanded().matches(&version), "{} = {}", s, cs.expanded());
            let _ = cs.matches_including_prereleases(&version);
            let _ = matches_bundle_version(&cs, &version);
            prop_assert!(parse(&cs.to_string()).is_ok(), "{} printed as {}", s, cs);
        }
    }

    #[test]
    fn an_exact_version_matches_only_itself(
        a in 0u64..50, b in 0u64..50, c in 0u64..50,
        x in 0u64..50, y in 0u64..50, z in 0u64..50,
        op in prop::sample::select(vec!["", "=", "v", "= v"]),
    ) {
        let cs = parse(&format!("{op}{a}.{b}.{c}")).expect("exact");
        let probe = Version::new(x, y, z);
        prop_assert_eq!(cs.matches(&probe), (a, b, c) == (x, y, z));
        prop_assert!(cs.matches(&Version::new(a, b, c)));
    }

    #[test]
    fn caret_and_tilde_contain_their_base(
        a in 0u64..20, b in 0u64..20, c in 0u64..20,
        parts in 1usize..=3,
        op in prop::sample::select(vec!["^", "~", "~>"]),
        pre in prop::option::of("(alpha|rc)\\.[0-9]"),
    ) {
        let nums = [a, b, c];
        let base: Vec<String> = nums[..parts].iter().map(u64::to_string).collect();
        let mut range = format!("{op}{}", base.join("."));
        let mut version = Version::new(
            a,
            if parts > 1 { b } else { 0 },
            if parts > 2 { c } else { 0 },
        );
        if let Some(pre) = pre {
            range.push_str(&format!("-{pre}"));
            version.pre = semver::Prerelease::new(&pre).expect("pre");
        }
        let cs = parse(&range).expect("range");
        prop_assert!(cs.matches(&version), "{} should contain {}", range, version);
    }
}
