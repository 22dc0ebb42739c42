//! Explanations on the seeds' examples: the irreducible failing set in OLM's
//! words and plain words, and why each operator won over its alternatives.

use super::super::tests::{B, b, tables_of};
use super::super::{Limits, Outcome, request::parse, resolve_explained};
use super::Explanation;

fn explain(bundles: &[B], request: &str) -> (Outcome, Explanation) {
    let tables = tables_of(bundles);
    let request = parse(request).expect("request");
    resolve_explained(&[&tables], &request, &Limits::default()).expect("resolves")
}

const SUB_A: &str =
    r#"{"catalog":{"name":"cat"},"subscriptions":[{"package":"a","channel":"stable"}]}"#;

#[test]
fn a_passed_over_head_names_the_missing_api_and_its_other_versions() {
    let bundles = [
        b("a.v1", "stable", "1.0.0"),
        B {
            replaces: "a.v1",
            props: &["{type: olm.gvk.required, value: {group: x.io, version: v2, kind: X}}"],
            ..b("a.v2", "stable", "2.0.0")
        },
        B {
            props: &["{type: olm.gvk, value: {group: x.io, version: v1, kind: X}}"],
            ..b("x.v1", "stable", "1.0.0")
        },
    ];
    let (outcome, why) = explain(&bundles, SUB_A);
    assert!(matches!(outcome, Outcome::Resolved(_)));
    let choice = &why.choices[0];
    assert_eq!(
        (choice.operator.as_str(), choice.rank, choice.candidates),
        ("a.v1", 2, 2)
    );
    let passed = &choice.passed_over[0];
    assert_eq!(passed.candidate, "a.v2 (package a, channel stable)");
    let reason = &passed.reasons[0];
    assert_eq!(
        reason.olm,
        "bundle a.v2 requires an operator providing an API with group: x.io, version: v2, kind: X"
    );
    assert!(
        reason.plain.contains("no bundle in catalog cat qualifies"),
        "{}",
        reason.plain
    );
    assert!(
        reason.plain.contains("x.v1 provides X v1"),
        "{}",
        reason.plain
    );
}

#[test]
fn an_unsatisfiable_request_lists_an_irreducible_set_in_plain_words() {
    let bundles = [
        B {
            props: &[
                "{type: olm.package.required, value: {packageName: b, versionRange: '>=2.0.0'}}",
            ],
            ..b("a.v1", "stable", "1.0.0")
        },
        b("b.v1", "stable", "1.0.0"),
    ];
    let (outcome, why) = explain(&bundles, SUB_A);
    let Outcome::Unsatisfiable { constraints, .. } = outcome else {
        panic!("resolved");
    };
    let olm: Vec<&str> = why
        .minimal_unsat_constraints
        .iter()
        .map(|r| r.olm.as_str())
        .collect();
    assert!(olm.len() <= constraints.len());
    assert!(olm.contains(&"subscription a exists"), "{olm:?}");
    let dependency = why
        .minimal_unsat_constraints
        .iter()
        .find(|r| r.olm.starts_with("bundle a.v1 requires"))
        .expect("the dependency");
    assert!(
        dependency
            .plain
            .contains("Package b has versions 1.0.0 (stable), none in range >=2.0.0"),
        "{}",
        dependency.plain
    );
}

#[test]
fn an_unknown_channel_lists_the_channels_there_are() {
    let (_, why) = explain(
        &[b("a.v1", "stable", "1.0.0"), b("a.v1", "fast", "1.0.0")],
        r#"{"catalog":{"name":"cat"},"subscriptions":[{"package":"a","channel":"beta"}]}"#,
    );
    let plain: Vec<&str> = why
        .minimal_unsat_constraints
        .iter()
        .map(|r| r.plain.as_str())
        .collect();
    assert!(
        plain.iter().any(|p| p.contains(
            "Package a has no channel beta; its channels are fast, stable (default stable)"
        )),
        "{plain:?}"
    );
}

#[test]
fn an_installed_csv_without_a_subscription_says_what_to_change() {
    let (_, why) = explain(
        &[
            b("a.v1", "stable", "1.0.0"),
            B {
                replaces: "a.v1",
                ..b("a.v2", "stable", "2.0.0")
            },
        ],
        r#"{"catalog":{"name":"cat"},"subscriptions":[{"package":"a","channel":"stable"}],
            "installed":[{"name":"a.v1","package":"a","version":"1.0.0"}]}"#,
    );
    let plain = why
        .minimal_unsat_constraints
        .iter()
        .find(|r| {
            r.olm == "clusterserviceversion a.v1 exists and is not referenced by a subscription"
        })
        .map(|r| r.plain.clone())
        .unwrap_or_default();
    assert!(
        plain.contains("set that Subscription's installedCSV to a.v1"),
        "{plain}"
    );
}
