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

/// Cases where our reading and the Go code's differ: (case id, reader, why). None
/// at this recording: every difference the README once listed (text that is not
/// JSON, json.Marshal's compaction and HTML escaping, lone surrogates, both of
/// cluster-olm-operator's errors, encoding/json's leniency) is now read as Go reads
/// it. A difference left on purpose goes here with its reason, and in the README.
const KNOWN: &[(&str, Reader, &str)] = &[];

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
    let mut json_words: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for case in &fixture.cases {
        for (reader, name, go) in [(Reader::V0, "v0", &case.v0), (Reader::V1, "v1", &case.v1)] {
            let ours = ours(case, reader);
            let verdict = same(go, &ours);
            if go.json_words.is_some() {
                // not required: how many of encoding/json's own words ours has too
                let words = json_words.entry(name).or_default();
                words.1 += 1;
                if ours.as_ref().err() == go.error.as_ref() {
                    words.0 += 1;
                }
            }
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
    eprintln!(
        "same as Go: {agree:?}; known differences: {differ:?}; \
         encoding/json's words word for word (of the errors holding them): {json_words:?}"
    );
}
