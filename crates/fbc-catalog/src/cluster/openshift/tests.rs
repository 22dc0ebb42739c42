use super::*;

/// Raw JSON value → OLM v0's and OLM v1's reading, as the real parsers gave them
/// (blang/semver with each OLM's steps, recorded in a throwaway Go harness for
/// issue #32; v1's errors are shown without their `error converting…` wrapper).
/// What one OLM makes of a value: its `major.minor`, or its error text.
type Reading = Result<&'static str, &'static str>;

const FORMS: &[(&str, Reading, Reading)] = &[
    (r#""4.8""#, Ok("4.8"), Ok("4.8")),
    (r#"4.8"#, Ok("4.8"), Ok("4.8")),
    (r#""4.10""#, Ok("4.10"), Ok("4.10")),
    (r#"4.10"#, Ok("4.10"), Ok("4.10")),
    (r#"4.1"#, Ok("4.1"), Ok("4.1")),
    (r#""4.8.0""#, Ok("4.8"), Err(r#"invalid version format"#)),
    (
        r#""4.8.1""#,
        Err(
            r#"property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 4.8.1"#,
        ),
        Err(r#"invalid version format"#),
    ),
    (r#""v4.8""#, Ok("4.8"), Err(r#"invalid version format"#)),
    (r#""4""#, Ok("4.0"), Err(r#"invalid version format"#)),
    (
        r#"4"#,
        Ok("4.0"),
        Err(r#"invalid semver format "4": expected <major>.<minor>"#),
    ),
    (
        r#""4.8-rc1""#,
        Err(
            r#"failed to parse "4.8-rc1" as semver: Short version cannot contain PreRelease/Build meta data"#,
        ),
        Err(r#"Short version cannot contain PreRelease/Build meta data"#),
    ),
    (
        r#""4.8.0-rc.1""#,
        Err(
            r#"property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 4.8.0-rc.1"#,
        ),
        Err(r#"invalid version format"#),
    ),
    (
        r#""4.8.0+build""#,
        Ok("4.8"),
        Err(r#"invalid version format"#),
    ),
    (r#"" 4.8 ""#, Ok("4.8"), Ok("4.8")),
    (r#""04.08""#, Ok("4.8"), Ok("4.8")),
    (r#""4.08""#, Ok("4.8"), Ok("4.8")),
    (
        r#""""#,
        Err(r#"value cannot be "" (an empty string)"#),
        Err(r#"invalid version format"#),
    ),
    (
        r#""\"4.8\"""#,
        Err(
            r#"failed to parse "\"4.8\" as semver: Invalid character(s) found in major number "0\\\"4""#,
        ),
        Err(r#"Invalid character(s) found in major number "0\"4""#),
    ),
    (
        r#"null"#,
        Err(
            r#"failed to parse "null" as semver: Invalid character(s) found in major number "0null""#,
        ),
        Err(r#"invalid type <nil> for olm.maxOpenshiftVersion: null"#),
    ),
    (
        r#"true"#,
        Err(
            r#"failed to parse "true" as semver: Invalid character(s) found in major number "0true""#,
        ),
        Err(r#"invalid type bool for olm.maxOpenshiftVersion: true"#),
    ),
    (
        r#"{"v":"4.8"}"#,
        Err(
            r#"failed to parse "{"v":"4.8"}" as semver: Invalid character(s) found in major number "0{\"v\":\"4""#,
        ),
        Err(r#"invalid type map[string]interface {} for olm.maxOpenshiftVersion: {"v":"4.8"}"#),
    ),
    (
        r#"["4.8"]"#,
        Err(
            r#"failed to parse "["4.8"]" as semver: Invalid character(s) found in major number "0[\"4""#,
        ),
        Err(r#"invalid type []interface {} for olm.maxOpenshiftVersion: ["4.8"]"#),
    ),
    (
        r#""4.x""#,
        Err(r#"failed to parse "4.x" as semver: Invalid character(s) found in minor number "x""#),
        Err(r#"Invalid character(s) found in minor number "x""#),
    ),
    (
        r#""4.8.x""#,
        Err(r#"failed to parse "4.8.x" as semver: Invalid character(s) found in patch number "x""#),
        Err(r#"invalid version format"#),
    ),
    (r#""5""#, Ok("5.0"), Err(r#"invalid version format"#)),
    (r#"5.0"#, Ok("5.0"), Ok("5.0")),
    (r#""5.0""#, Ok("5.0"), Ok("5.0")),
    (
        r#"4.8e0"#,
        Err(
            r#"failed to parse "4.8e0" as semver: Invalid character(s) found in minor number "8e0""#,
        ),
        Err(r#"invalid semver format "4.8e0": expected <major>.<minor>"#),
    ),
    (
        r#""V4.8""#,
        Err(
            r#"failed to parse "V4.8" as semver: Invalid character(s) found in major number "0V4""#,
        ),
        Err(r#"Invalid character(s) found in major number "0V4""#),
    ),
    (r#""4.8 ""#, Ok("4.8"), Ok("4.8")),
    (
        r#""4.8\n""#,
        Err(
            r#"failed to parse "4.8\n" as semver: Invalid character(s) found in minor number "8\\n""#,
        ),
        Ok("4.8"),
    ),
    (
        r#"0.9"#,
        Ok("0.9"),
        Err(r#"invalid semver format "0.9": expected <major>.<minor>"#),
    ),
    (r#""0.9""#, Ok("0.9"), Ok("0.9")),
];

#[test]
fn every_recorded_form_reads_as_olm_reads_it() {
    for (raw, v0, v1) in FORMS {
        let got0 = parse_value(raw, Reader::V0).map(|v| v.to_string());
        match v0 {
            Ok(want) => assert_eq!(got0.as_deref(), Ok(*want), "v0 {raw}"),
            Err(want) => assert_eq!(got0.expect_err(raw), *want, "v0 {raw}"),
        }
        let got1 = parse_value(raw, Reader::V1).map(|v| v.to_string());
        match v1 {
            Ok(want) => assert_eq!(got1.as_deref(), Ok(*want), "v1 {raw}"),
            Err(want) => {
                let got = got1.expect_err(raw);
                assert_eq!(
                    got,
                    format!("error converting to semver for version {raw}: {want}"),
                    "v1 {raw}"
                );
            }
        }
    }
}

#[test]
fn a_maximum_blocks_every_minor_above_it_and_4_23_is_5_0() {
    let v = |t: &str| MinorVersion::parse_target(t).expect(t);
    assert!(v("4.16").blocks(v("4.17")));
    assert!(!v("4.17").blocks(v("4.17.3")));
    assert!(!v("4.18").blocks(v("4.17")));
    assert!(!v("4.23").blocks(v("5.0")), "4.23 is 5.0");
    assert!(!v("5.0").blocks(v("4.23")));
    assert!(v("4.23").blocks(v("5.1")));
    assert!(v("4.22").blocks(v("5.0")));
    assert_eq!(v("v4.17.2-rc.1").to_string(), "4.17");
    assert!(MinorVersion::parse_target("four").is_err());
}

#[test]
fn duplicates_are_refused_by_both_readers_each_in_its_words() {
    let two = [
        (PROPERTY, "\"4.8\""),
        ("olm.package", "{}"),
        (PROPERTY, "\"4.8\""),
    ];
    assert_eq!(
        from_properties(two, Reader::V0),
        Err("defining more than one \"olm.maxOpenShiftVersion\" property is not allowed".into())
    );
    assert_eq!(
        from_properties(two, Reader::V1),
        Err("more than one olm.maxOpenShiftVersion found in bundle".into())
    );
    // v0 counts before it parses; v1 reports a bad first value first
    let bad_first = [(PROPERTY, "\"x\""), (PROPERTY, "\"4.8\"")];
    assert!(
        from_properties(bad_first, Reader::V0)
            .expect_err("dup")
            .contains("more than one")
    );
    assert!(
        from_properties(bad_first, Reader::V1)
            .expect_err("bad")
            .contains("invalid version format")
    );
    assert_eq!(
        from_properties([("olm.package", "{}")], Reader::V0),
        Ok(None)
    );
}

#[test]
fn annotations_in_each_olms_shape() {
    let v0 = r#"{"properties":[{"type":"olm.gvk","value":{"group":"g","kind":"K","version":"v1"}},{"type":"olm.maxOpenShiftVersion","value":"4.14"}]}"#;
    assert_eq!(
        from_v0_annotation(v0),
        Ok(Some(MinorVersion {
            major: 4,
            minor: 14
        }))
    );
    assert_eq!(from_v0_annotation(r#"{"properties":[]}"#), Ok(None));
    assert!(
        from_v0_annotation("[]")
            .expect_err("a list is not v0's shape")
            .starts_with("failed to unmarshal properties annotation: ")
    );
    let v1 = r#"[{"type":"olm.maxOpenShiftVersion","value":4.10}]"#;
    assert_eq!(
        from_csv_annotation(v1),
        Ok(Some(MinorVersion {
            major: 4,
            minor: 10
        })),
        "v1 reads the text as written: 4.10 stays 4.10"
    );
}

proptest::proptest! {
    /// Any raw text: an answer or an error from both readers, never a panic.
    #[test]
    fn never_panics(raw in "[ -~]{0,16}") {
        let _ = parse_value(&raw, Reader::V0);
        let _ = parse_value(&raw, Reader::V1);
    }
}
