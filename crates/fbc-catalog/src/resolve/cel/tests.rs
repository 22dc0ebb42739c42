//! Evaluation as OLM's: properties as `{type, value}` maps with numbers as
//! doubles, `semver_compare` through Go's printing and blang's tolerant
//! parse, and errors as "not satisfied".

mod check;

use super::*;

fn test(rule: &str, props: &[(&str, &str)]) -> bool {
    CelRule::compile(rule)
        .unwrap_or_else(|e| panic!("{rule}: {e}"))
        .test(props.iter().copied())
}

const PKG: (&str, &str) = ("olm.package", r#"{"packageName":"b","version":"1.2.0"}"#);

#[test]
fn a_property_type_is_found() {
    let rule = r#"properties.exists(p, p.type == "certified")"#;
    assert!(test(rule, &[PKG, ("certified", "{}")]));
    assert!(!test(rule, &[PKG]));
}

#[test]
fn semver_compare_reads_versions_tolerantly() {
    let rule = |v: &str| {
        format!(
            r#"properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, {v}) >= 0)"#
        )
    };
    assert!(test(&rule("\"1.0\""), &[PKG]));
    assert!(test(&rule("\"v1.2.0\""), &[PKG]));
    assert!(!test(&rule("\"1.3\""), &[PKG]));
    assert!(
        test(&rule("1"), &[PKG]),
        "an int prints as 1, read as 1.0.0"
    );
    assert!(
        !test(&rule("\"not a version\""), &[PKG]),
        "an error is false"
    );
}

#[test]
fn json_numbers_are_doubles_that_equal_ints_at_run_time() {
    assert!(test("properties[0].value.n == 1", &[("x", r#"{"n":1}"#)]));
    assert!(test("properties[0].value.n > 0.5", &[("x", r#"{"n":1}"#)]));
}

#[test]
fn an_error_on_one_element_does_not_hide_a_match_on_another() {
    let rule = r#"properties.exists(p, semver_compare(p.value.version, "1.0.0") == 1)"#;
    assert!(test(rule, &[("olm.label", r#"{"label":"x"}"#), PKG]));
}

#[test]
fn floats_print_as_go_prints_them() {
    assert_eq!(go_float(1e6), "1e+06");
    assert_eq!(go_float(123456.0), "123456");
    assert_eq!(go_float(4.1), "4.1");
    assert_eq!(go_float(1e-5), "1e-05");
    assert_eq!(go_float(0.0001), "0.0001");
    assert_eq!(go_float(1.5e21), "1.5e+21");
}

/// Every rule of `tests/fixtures/cel/vectors.json` gets the verdict the
/// reference resolver gave (recorded by `tools/cel-vectors.py`): OLM's
/// compile-time error text, or whether bundle r.v1 (which declares the rule)
/// or b.v1 satisfies it; or, for a documented difference, the answer the
/// vector records as ours.
#[test]
fn every_recorded_vector_gets_olms_verdict() {
    let text = include_str!("../../../../../tests/fixtures/cel/vectors.json");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(text).expect("vectors");
    let mut wrong = Vec::new();
    for v in &vectors {
        let rule = v["rule"].as_str().unwrap_or_default();
        // A documented difference records our answer beside OLM's.
        let oracle = v["ours"]
            .as_str()
            .or(v["oracle"].as_str())
            .unwrap_or_default();
        let ours = match CelRule::compile(rule) {
            Err(e) => e,
            Ok(compiled) => {
                let constraint = serde_json::json!({"failureMessage": "m", "cel": {"rule": rule}});
                let r = [
                    (
                        "olm.package".to_owned(),
                        r#"{"packageName":"r","version":"1.0.0"}"#.to_owned(),
                    ),
                    ("olm.constraint".to_owned(), constraint.to_string()),
                ];
                let mut b = vec![("olm.package".to_owned(), PKG.1.to_owned())];
                for p in v["properties"].as_array().into_iter().flatten() {
                    b.push((
                        p["type"].as_str().unwrap_or_default().to_owned(),
                        p["value"].to_string(),
                    ));
                }
                let satisfied = [&r[..], &b[..]]
                    .iter()
                    .any(|ps| compiled.test(ps.iter().map(|(t, v)| (t.as_str(), v.as_str()))));
                satisfied.to_string()
            }
        };
        if ours != oracle {
            wrong.push(format!("{rule}\n  ours:   {ours}\n  oracle: {oracle}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        vectors.len(),
        wrong.join("\n")
    );
}
