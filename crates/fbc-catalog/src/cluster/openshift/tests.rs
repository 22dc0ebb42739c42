use super::*;

/// Raw JSON value → OLM v0's and OLM v1's reading, as the real parsers gave them
/// (blang/semver with each OLM's steps, recorded in a throwaway Go harness for
/// issue #32; v1's errors are shown without their `error converting…` wrapper).
/// What one OLM makes of a value: its `major.minor`, or its error text.
type Reading = Result<&'static str, &'static str>;

const FORMS: &[(&str, Reading, Reading)] = &[
    (r#""4.8""#, Ok("4.8"), Ok("4.8")),
    ("4.8", Ok("4.8"), Ok("4.8")),
    (r#""4.10""#, Ok("4.10"), Ok("4.10")),
    ("4.10", Ok("4.10"), Ok("4.10")),
    ("4.1", Ok("4.1"), Ok("4.1")),
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
    ("5.0", Ok("5.0"), Ok("5.0")),
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
    // v0 counts before it parses; v1 reports a bad first value, then the duplicate
    // (the controller joins them with errors.Join, one per line)
    let bad_first = [(PROPERTY, "\"x\""), (PROPERTY, "\"4.8\"")];
    assert!(
        from_properties(bad_first, Reader::V0)
            .expect_err("dup")
            .contains("more than one")
    );
    assert_eq!(
        from_properties(bad_first, Reader::V1).expect_err("bad"),
        "error converting to semver for version \"x\": invalid version format\n\
         more than one olm.maxOpenShiftVersion found in bundle"
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

/// What one OLM answered: a maximum, none, or its error text.
type Answer = Result<Option<&'static str>, &'static str>;

/// A catalog property: type, raw JSON value.
type Prop = (&'static str, &'static str);

fn answered(got: Result<Option<MinorVersion>, String>) -> Result<Option<String>, String> {
    got.map(|max| max.map(|v| v.to_string()))
}

fn expected(want: &Answer) -> Result<Option<String>, String> {
    want.map(|max| max.map(str::to_owned))
        .map_err(str::to_owned)
}

// Go's answers below were recorded with the maxocp oracles (tools/maxocp-oracle's
// binaries, run by hand on these inputs; they are not in the fixture): how
// encoding/json decodes an annotation into each OLM's structs, and how a catalog
// value reaches each reader — whole error texts included.

/// Annotations: (what it shows, reader, annotation, Go's answer).
#[rustfmt::skip]
const DECODED: &[(&str, Reader, &str, Answer)] = &[
    ("a repeated list decodes over the first one's elements", Reader::V0, r#"{"properties":[{"type":"olm.maxOpenShiftVersion","value":"4.8"}],"properties":[{"value":"4.9"}]}"#, Ok(Some("4.9"))),
    ("... and a null element leaves the one under it", Reader::V0, r#"{"properties":[{"type":"olm.maxOpenShiftVersion","value":"4.8"}],"properties":[null]}"#, Ok(Some("4.8"))),
    ("... even one past the previous list's end", Reader::V0, r#"{"properties":[{"type":"a"},{"type":"olm.maxOpenShiftVersion","value":"4.7"}],"properties":[{"type":"b"}],"properties":[{"type":"c"},{}]}"#, Ok(Some("4.7"))),
    ("[] starts afresh", Reader::V0, r#"{"properties":[{"type":"a"},{"type":"olm.maxOpenShiftVersion","value":"4.7"}],"properties":[],"properties":[{"type":"c"},{}]}"#, Ok(None)),
    ("null starts afresh", Reader::V0, r#"{"properties":[{"type":"a"},{"type":"olm.maxOpenShiftVersion","value":"4.7"}],"properties":null,"properties":[{"type":"c"},{}]}"#, Ok(None)),
    ("a null type leaves the type before it", Reader::V0, r#"{"properties":[{"type":"olm.maxOpenShiftVersion","type":null,"value":"4.8"}]}"#, Ok(Some("4.8"))),
    ("U+017F folds to s", Reader::V0, "{\"propertie\u{17f}\":[{\"type\":\"olm.maxOpenShiftVersion\",\"value\":\"4.8\"}]}", Ok(Some("4.8"))),
    ("U+212A folds to k (an unknown key, skipped)", Reader::V0, "{\"properties\":[{\"type\":\"olm.maxOpenShiftVersion\",\"value\":\"4.8\",\"\u{212a}ey\":1}]}", Ok(Some("4.8"))),
    ("a folded key after the exact one: the last wins", Reader::V0, r#"{"properties":[{"type":"olm.maxOpenShiftVersion","value":"4.8","VALUE":"4.9"}]}"#, Ok(Some("4.9"))),
    ("a lone surrogate in a key", Reader::V0, r#"{"properties":[{"\ud800":1,"type":"olm.maxOpenShiftVersion","value":"4.8"}]}"#, Ok(Some("4.8"))),
    ("a lone surrogate in a type", Reader::V0, r#"{"properties":[{"type":"\ud800","value":"4.8"},{"type":"olm.maxOpenShiftVersion","value":"4.9"}]}"#, Ok(Some("4.9"))),
    ("an escaped key", Reader::V0, r#"{"properties":[{"\u0074ype":"olm.maxOpenShiftVersion","value":"4.8"}]}"#, Ok(Some("4.8"))),
    ("a type error fails the whole annotation", Reader::V0, r#"{"properties":[{"type":5},{"type":"olm.maxOpenShiftVersion","value":"4.8"}]}"#, Err(r#"failed to unmarshal properties annotation: json: cannot unmarshal number into Go struct field property.properties.type of type string"#)),
    ("true", Reader::V0, r#"true"#, Err(r#"failed to unmarshal properties annotation: json: cannot unmarshal bool into Go value of type projection.propertiesAnnotation"#)),
    ("true", Reader::V1, r#"true"#, Err(r#"failed to unmarshal properties annotation: json: cannot unmarshal bool into Go value of type []property.Property"#)),
    ("a lone surrogate in a type", Reader::V1, r#"[{"type":"\ud800","value":"4.8"},{"type":"olm.maxOpenShiftVersion","value":"4.9"}]"#, Ok(Some("4.9"))),
    ("blanks around a number", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value": 4.8 }]"#, Ok(Some("4.8"))),
    ("a number that underflows float64", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value":1e-400}]"#, Err(r#"error converting to semver for version 1e-400: invalid semver format "1e-400": expected <major>.<minor>"#)),
    ("a surrogate pair", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value":"4.\ud83d\ude00"}]"#, Err("error converting to semver for version \"4.\\ud83d\\ude00\": Invalid character(s) found in minor number \"0\u{1f600}\"")),
    ("a lone low surrogate before a pair", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value":"\udc00\ud800\udc00"}]"#, Err(r#"error converting to semver for version "\udc00\ud800\udc00": invalid version format"#)),
    ("an empty key", Reader::V1, r#"[{"":1,"type":"olm.maxOpenShiftVersion","value":"4.8"}]"#, Ok(Some("4.8"))),
    ("keys in other case", Reader::V1, r#"[{"Type":"olm.maxOpenShiftVersion","ValUe":"4.8"}]"#, Ok(Some("4.8"))),
    ("U+2029 read as written (the annotation is not re-marshalled)", Reader::V0, "{\"properties\":[{\"type\":\"olm.maxOpenShiftVersion\",\"value\":\"4.8\u{2029}\"}]}", Ok(Some("4.8"))),
    ("an element that is a number", Reader::V0, r#"[1]"#, Err(r#"failed to unmarshal properties annotation: json: cannot unmarshal array into Go value of type projection.propertiesAnnotation"#)),
    ("an element that is a number", Reader::V1, r#"[1]"#, Err(r#"failed to unmarshal properties annotation: json: cannot unmarshal number into Go value of type property.Property"#)),
    ("a type that is a number", Reader::V1, r#"[{"type":5}]"#, Err(r#"failed to unmarshal properties annotation: json: cannot unmarshal number into Go struct field Property.type of type string"#)),
    ("properties a string", Reader::V0, r#"{"properties":"x"}"#, Err(r#"failed to unmarshal properties annotation: json: cannot unmarshal string into Go struct field propertiesAnnotation.properties of type []projection.property"#)),
    ("cut short in a number", Reader::V0, r#"[4."#, Err(r#"failed to unmarshal properties annotation: invalid character ' ' after decimal point in numeric literal"#)),
    ("cut short in a number", Reader::V1, r#"[4."#, Err(r#"failed to unmarshal properties annotation: invalid character ' ' after decimal point in numeric literal"#)),
    ("cut short in an escape", Reader::V0, r#""\"#, Err(r#"failed to unmarshal properties annotation: invalid character ' ' in string escape code"#)),
    ("cut short in an escape", Reader::V1, r#""\"#, Err(r#"failed to unmarshal properties annotation: invalid character ' ' in string escape code"#)),
    ("cut short in a literal", Reader::V0, r#"nul"#, Err(r#"failed to unmarshal properties annotation: invalid character ' ' in literal null (expecting 'l')"#)),
    ("cut short in a literal", Reader::V1, r#"nul"#, Err(r#"failed to unmarshal properties annotation: invalid character ' ' in literal null (expecting 'l')"#)),
    ("a nested number float64 cannot hold (v0 reads text)", Reader::V0, r#"{"properties":[{"type":"olm.maxOpenShiftVersion","value":[1e400]}]}"#, Err(r#"failed to parse "[1e400]" as semver: Invalid character(s) found in major number "0[1e400]""#)),
    ("a nested number float64 cannot hold", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value":[1e400]}]"#, Err(r#"error converting to semver for version [1e400]: json: cannot unmarshal number 1e400 into Go value of type float64"#)),
    ("one deeper in an object", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value":{"a":[2e999]}}]"#, Err(r#"error converting to semver for version {"a":[2e999]}: json: cannot unmarshal number 2e999 into Go value of type float64"#)),
    ("a lone surrogate before an escaped digit", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value":"\ud800\u0041.8"}]"#, Err("error converting to semver for version \"\\ud800\\u0041.8\": Invalid character(s) found in major number \"0\u{fffd}A\"")),
    ("a non-ASCII byte where a value starts", Reader::V0, "\u{e9}", Err("failed to unmarshal properties annotation: invalid character '\u{c3}' looking for beginning of value")),
    ("a non-ASCII byte where a value starts", Reader::V1, "\u{e9}", Err("failed to unmarshal properties annotation: invalid character '\u{c3}' looking for beginning of value")),
    ("DEL where a value starts", Reader::V0, "\u{7f}", Err(r#"failed to unmarshal properties annotation: invalid character '\x7f' looking for beginning of value"#)),
    ("DEL where a value starts", Reader::V1, "\u{7f}", Err(r#"failed to unmarshal properties annotation: invalid character '\x7f' looking for beginning of value"#)),
    ("a negative number", Reader::V1, r#"[{"type":"olm.maxOpenShiftVersion","value":-1.8}]"#, Err(r#"error converting to semver for version -1.8: invalid semver format "-1.8": expected <major>.<minor>"#)),
];

/// Catalog property lists: (what it shows, list, v0's answer, v1's answer).
#[rustfmt::skip]
const SERVED: &[(&str, &[Prop], Answer, Answer)] = &[
    ("U+2029, escaped by json.Marshal", &[(PROPERTY, "\"4.8\u{2029}\"")], Err(r#"failed to parse "4.8\u2029" as semver: Invalid character(s) found in minor number "8\\u2029""#), Ok(Some("4.8"))),
    ("> escaped by json.Marshal", &[(PROPERTY, r#"">4.8""#)], Err(r#"failed to parse "\u003e4.8" as semver: Invalid character(s) found in major number "0\\u003e4""#), Err(r#"error converting to semver for version ">4.8": Invalid character(s) found in major number "0>4""#)),
    ("blanks around a number", &[(PROPERTY, r#" 4.8 "#)], Ok(Some("4.8")), Ok(Some("4.8"))),
    ("blanks around a string", &[(PROPERTY, r#" "4.8.1" "#)], Err(r#"property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 4.8.1"#), Err(r#"error converting to semver for version "4.8.1": invalid version format"#)),
    ("three, each refused", &[(PROPERTY, r#""x""#), (PROPERTY, r#""y""#), (PROPERTY, r#""z""#)], Err(r#"defining more than one "olm.maxOpenShiftVersion" property is not allowed"#), Err("error converting to semver for version \"x\": invalid version format\nmore than one olm.maxOpenShiftVersion found in bundle")),
    ("an array with blanks, compacted by json.Marshal", &[(PROPERTY, r#"[ "4.8" , 1 ]"#)], Err(r#"failed to parse "["4.8",1]" as semver: Invalid character(s) found in major number "0[\"4""#), Err(r#"error converting to semver for version [ "4.8" , 1 ]: invalid type []interface {} for olm.maxOpenshiftVersion: [ "4.8" , 1 ]"#)),
    ("& in another property", &[("olm.x", r#""a&b""#), (PROPERTY, r#""4.8""#)], Ok(Some("4.8")), Ok(Some("4.8"))),
    ("a lone surrogate", &[(PROPERTY, r#""4.\ud800""#)], Err(r#"failed to parse "4.\ud800" as semver: Invalid character(s) found in minor number "0\\ud800""#), Err("error converting to semver for version \"4.\\ud800\": Invalid character(s) found in minor number \"0\u{fffd}\"")),
];

#[test]
fn annotations_decode_as_go_decodes_them() {
    for (what, reader, annotation, want) in DECODED {
        let got = match reader {
            Reader::V0 => from_v0_annotation(annotation),
            Reader::V1 => from_csv_annotation(annotation),
        };
        assert_eq!(
            answered(got),
            expected(want),
            "{what} ({reader:?}): {annotation}"
        );
    }
}

#[test]
fn catalog_values_read_as_json_marshal_serves_them() {
    for (what, list, v0, v1) in SERVED {
        let got = from_properties(list.iter().copied(), Reader::V0);
        assert_eq!(answered(got), expected(v0), "{what} (V0)");
        let got = from_properties(list.iter().copied(), Reader::V1);
        assert_eq!(answered(got), expected(v1), "{what} (V1)");
    }
}

#[test]
fn nesting_is_limited_where_go_limits_it_and_never_by_the_stack() {
    let nested = |depth: usize| {
        let value = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        format!(r#"{{"properties":[{{"type":"{PROPERTY}","value":{value}}}]}}"#)
    };
    // the annotation's object, its list and the element take three levels
    let deepest = nested(gojson::MAX_DEPTH - 3);
    let err = from_v0_annotation(&deepest).expect_err("not a version");
    assert!(err.starts_with("failed to parse \"[[[["), "{err}");
    assert_eq!(
        from_v0_annotation(&nested(gojson::MAX_DEPTH - 2)),
        Err(
            "failed to unmarshal properties annotation: invalid character '[' exceeded max depth"
                .into()
        )
    );
}

#[test]
fn json_marshal_compacts_and_escapes_a_raw_value() {
    let marshal = gojson::marshal_raw;
    assert_eq!(
        marshal(r#" { "a" : [ 1 , "x y" ] } "#).as_deref(),
        Ok(r#"{"a":[1,"x y"]}"#)
    );
    assert_eq!(
        marshal("\"<a&b>\u{2028}\u{2029}\\\" \"").as_deref(),
        Ok(r#""\u003ca\u0026b\u003e\u2028\u2029\" ""#)
    );
    assert_eq!(marshal(""), Err("unexpected end of JSON input".into()));
    assert_eq!(
        from_properties(
            [("olm.other", "not json"), (PROPERTY, "\"4.8\"")],
            Reader::V0
        ),
        Err(
            "failed to marshal properties annotation: json: error calling MarshalJSON for type \
             json.RawMessage: invalid character 'o' in literal null (expecting 'u')"
                .into()
        )
    );
}

/// A value as our view of valid JSON reads it (strings unquoted, numbers by serde).
fn read_back(json: &gojson::Json<'_>, s: gojson::Span) -> serde_json::Value {
    use serde_json::Value;
    match json.kind(s) {
        Kind::String => Value::String(json.string(s)),
        Kind::Array => Value::Array(
            json.elements(s)
                .into_iter()
                .map(|e| read_back(json, e))
                .collect(),
        ),
        Kind::Object => Value::Object(
            json.members(s)
                .into_iter()
                .map(|(k, v)| (k, read_back(json, v)))
                .collect(),
        ),
        _ => serde_json::from_str(json.raw(s)).expect("a scalar"),
    }
}

fn any_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    /// Any raw text: an answer or an error from both readers, never a panic.
    #[test]
    fn never_panics(raw in "[ -~]{0,16}") {
        let _ = parse_value(&raw, Reader::V0);
        let _ = parse_value(&raw, Reader::V1);
    }

    /// Text made of JSON's own characters: our copy of Go's scanner and serde_json
    /// agree on what is JSON (no `\u` escapes: serde refuses lone surrogates), the
    /// annotation readers never panic, and json.Marshal's compaction keeps the value.
    #[test]
    fn the_scanner_agrees_with_serde_json(text in r#"[\[\]{}",: \\\tnulltrefas0-9.eE+-]{0,24}"#) {
        let ours = gojson::check(&text).is_ok();
        let serde = serde_json::from_str::<serde_json::Value>(&text);
        proptest::prop_assert_eq!(ours, serde.is_ok(), "{}", text);
        let _ = from_v0_annotation(&text);
        let _ = from_csv_annotation(&text);
        if let (Ok(value), Ok(compact)) = (serde, gojson::marshal_raw(&text)) {
            let again: serde_json::Value = serde_json::from_str(&compact).expect("compact JSON");
            proptest::prop_assert_eq!(value, again);
        }
    }

    /// Any JSON value, written out with blanks: our view reads it back as serde
    /// wrote it, and json.Marshal's compaction gives serde's compact text (where no
    /// string needs HTML escaping).
    #[test]
    fn valid_json_reads_back(value in any_json()) {
        let pretty = serde_json::to_string_pretty(&value).expect("JSON");
        let json = gojson::Json::parse(&pretty).expect("valid");
        proptest::prop_assert_eq!(&read_back(&json, json.root()), &value);
        let compact = serde_json::to_string(&value).expect("JSON");
        if !compact.contains(['<', '>', '&', '\u{2028}', '\u{2029}']) {
            proptest::prop_assert_eq!(gojson::marshal_raw(&pretty), Ok(compact));
        }
    }
}
