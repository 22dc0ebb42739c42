//! The resolver against answers recorded from the reference resolver (OLM
//! v0.25's `Resolver.Resolve`, `../shared/peers/olm-oracle`) on generated
//! catalogs: `tests/fixtures/resolve-differential/` (see its README for how
//! they were made and re-recorded with `tools/resolve-diff.py --record`).
//!
//! Each case's answer must equal one of the recorded ones, with OLM's
//! at-most-one messages compared as sets of bundles (their order and which of
//! an API's or a package's message is printed follow Go's map order).

use fbc_catalog::resolve::{self, Limits, Outcome, request};
use serde_json::{Value, json};
use std::path::Path;

/// The answer as `fbc-registry resolve -o json` prints it.
fn answer(case: &Path) -> Value {
    // The resolver answers what `fbc-registry resolve` answers: channels only
    // opm before v1.58.0 accepts included (the `stranded-*` cases).
    let options = fbc_catalog::load::LoadOptions {
        chain_rule: fbc_catalog::model::ChainRule::Legacy,
        ..Default::default()
    };
    let loaded = fbc_catalog::load::load_model(&case.join("catalog"), &options)
        .unwrap_or_else(|p| panic!("{}: the catalog does not load: {p:?}", case.display()));
    let tables = loaded.tables(&case.join("catalog"), Default::default());
    let text = std::fs::read_to_string(case.join("request.json")).expect("request");
    let req = request::parse(&text).expect("request parses");
    match resolve::resolve(&[&tables], &req, &Limits::default()) {
        Ok(Outcome::Resolved(ops)) => json!({ "operators": ops }),
        Ok(Outcome::Unsatisfiable { error, constraints }) => {
            json!({"error": error, "unsat_constraints": constraints})
        }
        Err(e) => json!({ "error": e.to_string() }),
    }
}

/// `A, B and C provide K (g/v)` and `A and B originate from package P` as the
/// sorted set of bundles; every other message as it is.
fn canonical(message: &str) -> String {
    let invariant = message
        .rsplit_once(" provide ")
        .filter(|(_, what)| what.ends_with(')'))
        .or_else(|| message.rsplit_once(" originate from package "));
    let Some((ids, _)) = invariant else {
        return message.to_owned();
    };
    let mut ids: Vec<&str> = ids.split(", ").flat_map(|s| s.split(" and ")).collect();
    ids.sort_unstable();
    format!("at most one of {}", ids.join(", "))
}

fn loose(answer: &Value) -> Value {
    match answer.get("unsat_constraints").and_then(Value::as_array) {
        Some(cs) => {
            let mut cs: Vec<String> = cs.iter().filter_map(Value::as_str).map(canonical).collect();
            cs.sort();
            json!({ "unsat_constraints": cs })
        }
        None => answer.clone(),
    }
}

#[test]
fn every_generated_case_gets_one_of_the_reference_resolvers_answers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/resolve-differential");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .expect("corpus")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 100, "the corpus has {} cases", cases.len());
    let stranded = cases
        .iter()
        .filter(|c| c.to_string_lossy().contains("/stranded-"))
        .count();
    assert_eq!(stranded, 2, "the channels only opm before v1.58.0 accepts");
    let mut wrong = Vec::new();
    for case in &cases {
        let expected: Vec<Value> = serde_json::from_str(
            &std::fs::read_to_string(case.join("expected.json")).expect("expected"),
        )
        .expect("expected parses");
        let ours = answer(case);
        if !expected.iter().any(|e| loose(e) == loose(&ours)) {
            wrong.push(format!(
                "{}\n  ours: {ours}\n  OLM:  {}",
                case.display(),
                expected[0]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn at_most_one_messages_compare_as_sets() {
    assert_eq!(
        canonical(
            "cat/olm/a/x.v1, cat/olm/a/x.v2 and @existing/operators//x.v0 originate from package x"
        ),
        canonical(
            "@existing/operators//x.v0, cat/olm/a/x.v2 and cat/olm/a/x.v1 provide X (x.io/v1)"
        )
    );
    assert_ne!(
        canonical("subscription a exists"),
        canonical("subscription b exists")
    );
}
