//! Tests of the `(version, release)` pair: the reference's examples
//! (operator-controller's bundle version-release parsing, its "`+N` legacy" rule).

use super::*;

fn legacy(s: &str) -> VersionRelease {
    VersionRelease::parse_legacy(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn ids(r: &Release) -> Vec<String> {
    r.0.iter().map(ToString::to_string).collect()
}

#[test]
fn legacy_build_metadata_becomes_the_release() {
    let vr = legacy("1.0.0+2");
    assert_eq!(vr.version.to_string(), "1.0.0");
    assert_eq!(vr.release.0, vec![Identifier::Numeric(2)]);
    let vr = legacy("1.0.0+git.abc");
    assert_eq!(vr.version.to_string(), "1.0.0");
    assert_eq!(ids(&vr.release), ["git", "abc"]);
    assert_eq!(vr.to_string(), "1.0.0+git.abc");
}

#[test]
fn legacy_build_that_is_not_a_release_stays_build() {
    for s in [
        "1.0.0+001",
        "1.0.0+a.01",
        "1.0.0+123456789012345678901",
        "1.0.0+99999999999999999999",
    ] {
        let vr = legacy(s);
        assert!(vr.release.is_empty(), "{s}");
        assert_eq!(vr.version.to_string(), s);
    }
    let vr = legacy("1.0.0+12345678901234567890");
    assert_eq!(
        ids(&vr.release),
        ["12345678901234567890"],
        "20 characters fit"
    );
    assert!(legacy("1.0.0").release.is_empty());
}

#[test]
fn legacy_parsing_is_strict_blang() {
    for bad in [
        "v1.0.0",
        "1.0",
        "01.0.0",
        "1.0.0-01",
        "1.0.0+",
        "1.0.0-99999999999999999999",
    ] {
        assert!(VersionRelease::parse_legacy(bad).is_err(), "{bad}");
    }
}

#[test]
fn order_is_version_then_release() {
    let sorted = [
        "1.0.0-rc.1+5",
        "1.0.0",
        "1.0.0+0",
        "1.0.0+2",
        "1.0.0+9",
        "1.0.0+10",
        "1.0.0+10.1",
        "1.0.0+a",
        "1.0.0+b",
        "1.0.1",
    ];
    let parsed: Vec<VersionRelease> = sorted.iter().map(|s| legacy(s)).collect();
    for pair in parsed.windows(2) {
        assert!(pair[0] < pair[1], "{} < {}", pair[0], pair[1]);
    }
    assert!(legacy("1.0.0+10") > legacy("1.0.0+9"));
    assert!(legacy("1.0.0+a") > legacy("1.0.0+10"));
    assert_eq!(
        legacy("1.0.0+001"),
        legacy("1.0.0+002"),
        "build is not compared"
    );
}

#[test]
fn explicit_release_keeps_build() {
    let vr = VersionRelease::parse_explicit("1.0.0+001", "3").expect("explicit");
    assert_eq!(vr.version.to_string(), "1.0.0+001");
    assert_eq!(vr.release.0, vec![Identifier::Numeric(3)]);
    assert_eq!(vr.to_string(), "1.0.0+3");
    let none = VersionRelease::parse_explicit("1.0.0+2", "").expect("explicit");
    assert!(none.release.is_empty());
    assert!(none < vr);
    for bad in [
        "01",
        "a..b",
        "a_b",
        "123456789012345678901",
        "99999999999999999999",
    ] {
        assert!(
            VersionRelease::parse_explicit("1.0.0", bad).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn release_serializes_as_a_string() {
    let vr = legacy("1.2.3+4.x");
    let json = serde_json::to_string(&vr).expect("json");
    assert_eq!(json, r#"{"version":"1.2.3","release":"4.x"}"#);
}
