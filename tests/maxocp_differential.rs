//! `olm.maxOpenShiftVersion` as `fbc_catalog::cluster::openshift` reads it, against
//! the answers the real Go code gave for the same inputs:
//! `tests/fixtures/maxocp-differential/cases.json`, recorded by `tools/maxocp-oracle/`
//! from OLM v0 (operator-lifecycle-manager v0.25.0, `maxOpenShiftVersion`) and OLM v1
//! on OpenShift (cluster-olm-operator, `checkIncompatibility` / `ToAllowedSemver`).
//! The fixture's README says how it was made and what "the same" means; in short:
//! the same maximum, both none, or both an error with the same text, except that the
//! part of a Go error written by Go's JSON decoder is not compared.
//!
//! Where our reading differs from Go's, the case is listed in [`KNOWN`] with the
//! reason; the test fails on any other difference, and on a listed case that no
//! longer differs.

use fbc_catalog::cluster::openshift::{self, MinorVersion, Reader};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
    oracles: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    properties: Option<Vec<Prop>>,
    annotation: Option<String>,
    v0: Answer,
    v1: Answer,
}

#[derive(Deserialize)]
struct Prop {
    #[serde(rename = "type")]
    typ: String,
    /// The raw JSON text.
    value: String,
}

#[derive(Deserialize)]
struct Answer {
    outcome: String,
    max: Option<String>,
    error: Option<String>,
    json_words: Option<JsonWords>,
}

/// Go's error is `before`, then a message of Go's `encoding/json`, then `after`.
#[derive(Deserialize)]
struct JsonWords {
    before: String,
    after: String,
}

/// The value is not JSON text: OLM v0 cannot write it into the CSV's annotation
/// (`json.Marshal` of the `json.RawMessage` fails, operator-lifecycle-manager
/// `pkg/controller/registry/resolver/projection/properties.go:31`), and an
/// `olm.properties` annotation holding it is not JSON (cluster-olm-operator
/// `pkg/controller/incompatible_operator_controller.go:356`). `from_properties` takes
/// raw JSON text and reads such text anyway (v0: trims the quotes and parses; v1:
/// reports it as a value error, and never looks at other properties' values).
const NOT_JSON: &str = "not JSON";
/// OLM v0: `json.Marshal` compacts a `json.RawMessage` while writing the annotation
/// (`projection/properties.go:31`), so blanks outside strings are gone before
/// `helpers.go:275` trims the quotes; ours trims the text as given. (A catalog
/// server's property values are compact JSON.)
const NOT_COMPACT: &str = "not compact";
/// OLM v0: `json.Marshal` also escapes `<`, `>`, `&`, U+2028 and U+2029 inside a
/// `json.RawMessage` (`\u003c`…, `projection/properties.go:31`); `helpers.go:275`
/// then trims and parses the escaped text.
const HTML_ESCAPED: &str = "escaped by json.Marshal";
/// OLM v1: encoding/json decodes a lone surrogate escape (`\ud800`) to U+FFFD and
/// blang then refuses the character (`version_utils.go:32`, `:56`); serde_json
/// refuses the escape, so ours says `invalid JSON: …`.
const LONE_SURROGATE: &str = "lone surrogate";
/// OLM v1: when the first value is refused, `checkIncompatibility` appends its
/// error and `continue`s (`incompatible_operator_controller.go:304`), then appends
/// the duplicate's error (`:295`) and stops; the callers join both with
/// `errors.Join` (`:185`, `:258`). Ours returns the first error only.
const BOTH_ERRORS: &str = "both errors";
/// encoding/json decodes `null` into a slice as an empty slice: no properties, no
/// limit (v0 `projection/properties.go:40`, v1 `incompatible_operator_controller.go:356`);
/// serde refuses `null` where a list is expected.
const NULL_LIST: &str = "null list";
/// encoding/json matches object keys to struct fields case-insensitively
/// (`Properties`, `Type`, `VALUE`); serde matches them exactly (v0: ours ignores
/// `Properties` and finds no property; v1: ours misses `type`).
const KEY_CASE: &str = "key case";
/// encoding/json leaves a missing or `null` field at its zero value (`type` "",
/// `value` nil); serde refuses a missing field. Go then skips a property without
/// type, and reads a missing value as empty text (v0 `helpers.go:276`: `value
/// cannot be ""`; v1 `version_utils.go:32`: `unexpected end of JSON input`).
const MISSING_FIELD: &str = "missing field";
/// encoding/json decodes a `null` list element to an empty property, which has no
/// type and is skipped; serde refuses it.
const NULL_ELEMENT: &str = "null element";
/// encoding/json keeps the last of repeated keys; serde refuses duplicate fields.
const DUPLICATE_KEY: &str = "duplicate key";

/// Cases where our reading and the Go code's differ: (case id, reader, which of
/// the differences above). The fixture's README has the list too.
const KNOWN: &[(&str, Reader, &str)] = &[
    ("value ", Reader::V0, NOT_JSON),
    ("value ", Reader::V1, NOT_JSON),
    ("value  ", Reader::V0, NOT_JSON),
    ("value  ", Reader::V1, NOT_JSON),
    ("value 4.", Reader::V0, NOT_JSON),
    ("value 4.", Reader::V1, NOT_JSON),
    ("value v4.17", Reader::V0, NOT_JSON),
    ("value v4.17", Reader::V1, NOT_JSON),
    ("value 4.17.1", Reader::V0, NOT_JSON),
    ("value 4.17.1", Reader::V1, NOT_JSON),
    ("value 04.017", Reader::V0, NOT_JSON),
    ("value 04.017", Reader::V1, NOT_JSON),
    (r#"value ""4.8"""#, Reader::V0, NOT_JSON),
    (r#"value ""4.8"""#, Reader::V1, NOT_JSON),
    (r#"value "\f4.8\v""#, Reader::V0, NOT_JSON),
    (r#"value "\f4.8\v""#, Reader::V1, NOT_JSON),
    (
        "another property whose value is not JSON",
        Reader::V0,
        NOT_JSON,
    ),
    (
        "another property whose value is not JSON",
        Reader::V1,
        NOT_JSON,
    ),
    ("another property, empty value", Reader::V0, NOT_JSON),
    ("another property, empty value", Reader::V1, NOT_JSON),
    (r#"value  "4.8" "#, Reader::V0, NOT_COMPACT),
    (r#"value { "v" : "4.8" }"#, Reader::V0, NOT_COMPACT),
    (r#"value "4.8<""#, Reader::V0, HTML_ESCAPED),
    (r#"value "4.8&x""#, Reader::V0, HTML_ESCAPED),
    (r#"value "<4.8>""#, Reader::V0, HTML_ESCAPED),
    ("value \"4.8\u{2028}\"", Reader::V0, HTML_ESCAPED),
    (r#"value "4.\ud800""#, Reader::V1, LONE_SURROGATE),
    ("v1 shape, lone surrogate", Reader::V1, LONE_SURROGATE),
    ("two, bad first", Reader::V1, BOTH_ERRORS),
    ("two, both bad", Reader::V1, BOTH_ERRORS),
    ("two, first a number v1 refuses", Reader::V1, BOTH_ERRORS),
    (
        "two, first a number v1 cannot read",
        Reader::V1,
        BOTH_ERRORS,
    ),
    ("v0 shape, properties null", Reader::V0, NULL_LIST),
    ("null", Reader::V1, NULL_LIST),
    ("v0 shape, keys in other case", Reader::V0, KEY_CASE),
    ("v1 shape, keys in other case", Reader::V1, KEY_CASE),
    ("v0 shape, value missing", Reader::V0, MISSING_FIELD),
    ("v1 shape, value missing", Reader::V1, MISSING_FIELD),
    ("v0 shape, type missing", Reader::V0, MISSING_FIELD),
    ("v0 shape, type null", Reader::V0, MISSING_FIELD),
    ("v1 shape, type missing", Reader::V1, MISSING_FIELD),
    ("v0 shape, element null", Reader::V0, NULL_ELEMENT),
    ("v1 shape, element null", Reader::V1, NULL_ELEMENT),
    ("v0 shape, value key twice", Reader::V0, DUPLICATE_KEY),
    ("v0 shape, properties key twice", Reader::V0, DUPLICATE_KEY),
    ("v1 shape, value key twice", Reader::V1, DUPLICATE_KEY),
];

fn fixture() -> Fixture {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/maxocp-differential/cases.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Our reading of a case, as `reader`.
fn ours(case: &Case, reader: Reader) -> Result<Option<MinorVersion>, String> {
    match (&case.properties, &case.annotation, reader) {
        (Some(props), None, _) => openshift::from_properties(
            props.iter().map(|p| (p.typ.as_str(), p.value.as_str())),
            reader,
        ),
        (None, Some(text), Reader::V0) => openshift::from_v0_annotation(text),
        (None, Some(text), Reader::V1) => openshift::from_csv_annotation(text),
        _ => panic!("{}: exactly one of properties and annotation", case.id),
    }
}

/// `Ok` when ours is the same as Go's answer, else what differs.
fn same(go: &Answer, ours: &Result<Option<MinorVersion>, String>) -> Result<(), String> {
    let differ = |want: String| {
        Err(format!(
            "Go: {want}; ours: {}",
            match ours {
                Ok(Some(v)) => format!("max {v}"),
                Ok(None) => "none".to_owned(),
                Err(e) => format!("error {e:?}"),
            }
        ))
    };
    match (go.outcome.as_str(), ours) {
        ("max", Ok(Some(v))) if go.max.as_deref() == Some(v.to_string().as_str()) => Ok(()),
        ("max", _) => differ(format!("max {}", go.max.as_deref().unwrap_or("?"))),
        ("none", Ok(None)) => Ok(()),
        ("none", _) => differ("none".to_owned()),
        ("error", Err(e)) => {
            let want = go.error.as_deref().unwrap_or_default();
            match &go.json_words {
                // encoding/json's own words are Go's: only the text around them counts
                Some(w)
                    if e.len() > w.before.len() + w.after.len()
                        && e.starts_with(&w.before)
                        && e.ends_with(&w.after) =>
                {
                    Ok(())
                }
                Some(w) => differ(format!(
                    "error {want:?} (compared: begins {:?}, ends {:?})",
                    w.before, w.after
                )),
                None if e == want => Ok(()),
                None => differ(format!("error {want:?}")),
            }
        }
        ("error", _) => differ(format!(
            "error {:?}",
            go.error.as_deref().unwrap_or_default()
        )),
        (other, _) => panic!("unknown outcome {other:?}"),
    }
}

#[test]
fn every_case_reads_as_the_go_code_reads_it() {
    let fixture = fixture();
    assert!(
        fixture.oracles.contains_key("v0") && fixture.oracles.contains_key("v1"),
        "the fixture names both oracles"
    );
    let mut problems = Vec::new();
    let mut agree: BTreeMap<&str, usize> = BTreeMap::new();
    let mut differ: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for case in &fixture.cases {
        for (reader, name, go) in [(Reader::V0, "v0", &case.v0), (Reader::V1, "v1", &case.v1)] {
            let verdict = same(go, &ours(case, reader));
            let known = KNOWN
                .iter()
                .find(|(id, r, _)| *id == case.id && *r == reader)
                .map(|(_, _, kind)| *kind);
            match (verdict, known) {
                (Ok(()), None) => *agree.entry(name).or_default() += 1,
                (Err(_), Some(kind)) => *differ.entry((name, kind)).or_default() += 1,
                (Err(why), None) => problems.push(format!("{:?} {name}: {why}", case.id)),
                (Ok(()), Some(_)) => problems.push(format!(
                    "{:?} {name}: listed in KNOWN but now the same as Go: take it off the list",
                    case.id
                )),
            }
        }
    }
    for (id, reader, _) in KNOWN {
        assert!(
            fixture.cases.iter().any(|c| c.id == *id),
            "KNOWN names {id:?} ({reader:?}), which is not in the fixture"
        );
    }
    assert!(
        problems.is_empty(),
        "{} difference(s) from the Go code:\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!("same as Go: {agree:?}; known differences: {differ:?}");
}
