use super::*;
use crate::source::ParseLimits;
use crate::tables::testing;

/// `op`: `stable` 1.0.0 → 1.1.0 → 1.2.0, where 1.2.0 requires package `dep`,
/// which the catalog does not have; `old` (deprecated) holds 1.0.0 alone.
fn catalog() -> Tables {
    let bundle = |name: &str, version: &str, extra: &str| {
        format!(
            "schema: olm.bundle\npackage: op\nname: {name}\nimage: quay.io/op:{version}\nproperties:\n  - {{type: olm.package, value: {{packageName: op, version: \"{version}\"}}}}\n{extra}"
        )
    };
    let docs = [
        "schema: olm.package\nname: op\ndefaultChannel: stable\n".to_string(),
        "schema: olm.channel\npackage: op\nname: stable\nentries:\n  - {name: op.v1.0.0}\n  - {name: op.v1.1.0, replaces: op.v1.0.0, skipRange: \">=0.9.0 <1.1.0\"}\n  - {name: op.v1.2.0, replaces: op.v1.1.0}\n".to_string(),
        "schema: olm.channel\npackage: op\nname: old\nentries:\n  - {name: op.v1.0.0}\n".to_string(),
        "schema: olm.deprecations\npackage: op\nentries:\n  - {reference: {schema: olm.channel, name: old}, message: use stable}\n".to_string(),
        bundle("op.v1.0.0", "1.0.0", ""),
        bundle("op.v1.1.0", "1.1.0", ""),
        bundle(
            "op.v1.2.0",
            "1.2.0",
            "  - {type: olm.package.required, value: {packageName: dep, versionRange: \">=1.0.0\"}}\n",
        ),
    ];
    match testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

fn state(text: &str) -> ClusterState {
    ClusterState::read("state.yaml", text.as_bytes(), &ParseLimits::default()).expect("reads")
}

fn subscription(name: &str, spec: &str, installed: &str) -> String {
    format!(
        "kind: Subscription\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{name: op, source: cat, sourceNamespace: olm, {spec}}}\nstatus: {{installedCSV: {installed}}}\n"
    )
}

fn csv(name: &str, version: &str) -> String {
    format!(
        "kind: ClusterServiceVersion\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{version: {version}}}\nstatus: {{phase: Succeeded}}\n"
    )
}

#[test]
fn an_unsatisfiable_dependency_holds_a_subscription_the_graph_would_move() {
    let text = [
        subscription("op", "channel: stable", "op.v1.1.0"),
        csv("op.v1.1.0", "1.1.0"),
    ]
    .join("---\n");
    let report = explain_state(&catalog(), &state(&text), None).expect("explains");
    let e = &report.subscriptions[0];
    assert_eq!(e.path, ["op.v1.2.0"]);
    let Some(Resolution::Resolves {
        next: None,
        passed_over,
    }) = &e.resolution
    else {
        panic!(
            "resolution should keep the installed CSV: {:?}",
            e.resolution
        );
    };
    assert!(
        passed_over[0].candidate.starts_with("op.v1.2.0"),
        "{passed_over:?}"
    );
    assert!(
        e.summary.starts_with(
            "the graph's next hop is op.v1.2.0, but OLM v0's resolution keeps op.v1.1.0: "
        ) && e.summary.contains("dep"),
        "{}",
        e.summary
    );
    assert!(e.fixes[0].starts_with("dependency: "), "{:?}", e.fixes);
    assert!(report.stuck());
}

#[test]
fn the_resolution_agrees_with_the_path_when_it_goes_through() {
    let text = [
        subscription("op", "channel: stable", "op.v1.0.0"),
        csv("op.v1.0.0", "1.0.0"),
    ]
    .join("---\n");
    let report = explain_state(&catalog(), &state(&text), None).expect("explains");
    let e = &report.subscriptions[0];
    assert_eq!(e.path[0], "op.v1.1.0");
    assert_eq!(
        e.resolution,
        Some(Resolution::Resolves {
            next: Some("op.v1.1.0".into()),
            passed_over: Vec::new(),
        })
    );
    assert!(!report.stuck());
}

#[test]
fn a_bundle_gone_from_the_catalog_is_placed_by_its_csv_version() {
    let text = [
        subscription("op", "channel: stable", "op.v0.9.5"),
        csv("op.v0.9.5", "0.9.5"),
    ]
    .join("---\n");
    let e = &explain_state(&catalog(), &state(&text), None)
        .expect("explains")
        .subscriptions[0];
    assert_eq!(e.path, ["op.v1.1.0", "op.v1.2.0"], "{}", e.summary);
}

#[test]
fn a_deprecated_channel_is_said_and_its_way_out_offered() {
    let text = [
        subscription("op", "channel: old", "op.v1.0.0"),
        csv("op.v1.0.0", "1.0.0"),
    ]
    .join("---\n");
    let e = &explain_state(&catalog(), &state(&text), None)
        .expect("explains")
        .subscriptions[0];
    assert_eq!(e.deprecations, ["channel \"old\": use stable"]);
    assert!(
        e.summary
            .starts_with("op.v1.0.0 is the head of channel \"old\"")
    );
}

#[test]
fn objects_that_cannot_be_explained_are_problems_and_the_rest_is_sorted() {
    let text = [
        subscription("b", "channel: stable", "op.v1.0.0"),
        subscription("a", "channel: nope", "op.v1.0.0"),
        "kind: ClusterExtension\nmetadata: {name: x}\nspec: {namespace: x, serviceAccount: {name: x}, source: {sourceType: Catalog, catalog: {packageName: missing}}}\n".to_string(),
    ]
    .join("---\n");
    let report = explain_state(&catalog(), &state(&text), None).expect("explains");
    assert_eq!(report.subscriptions.len(), 1);
    assert_eq!(report.problems.len(), 2);
    assert!(
        report.problems[0].starts_with("Subscription ns/a (state.yaml")
            && report.problems[0].contains("(spec.channel)"),
        "{:?}",
        report.problems
    );
    assert!(
        report.problems[1].starts_with("ClusterExtension x (state.yaml")
            && report.problems[1].ends_with("(spec.source.catalog.packageName)"),
        "{:?}",
        report.problems
    );
}

#[test]
fn more_objects_than_the_limit_is_an_error_not_a_long_wait() {
    let one = subscription("s", "channel: stable", "op.v1.0.0");
    let mut many = ClusterState::default();
    let s = state(&one).subscriptions[0].clone();
    many.subscriptions = vec![s; MAX_EXPLAINED + 1];
    let err = explain_state(&catalog(), &many, None).expect_err("too many");
    assert!(err.contains("at most 2000 are explained at once"), "{err}");
}

mod no_panic {
    //! Cluster state comes from strangers: whatever the text, reading it and
    //! explaining what was read ends in an answer or an error, never a panic.
    use super::*;
    use proptest::prelude::*;

    const STATE: &str = "kind: Subscription
metadata: {name: op, namespace: ns}
spec: {name: op, channel: stable, source: cat, sourceNamespace: olm, startingCSV: op.v1.0.0, installPlanApproval: Manual}
status: {installedCSV: op.v1.0.0, currentCSV: op.v1.1.0, state: UpgradePending}
---
kind: ClusterServiceVersion
metadata: {name: op.v1.0.0, namespace: ns, annotations: {operatorframework.io/properties: '{\"properties\":[{\"type\":\"olm.gvk.required\",\"value\":{}}]}'}}
spec: {version: 1.0.0}
---
kind: ClusterExtension
metadata: {name: e}
spec: {namespace: e, serviceAccount: {name: e}, source: {sourceType: Catalog, catalog: {packageName: op, version: '>=1.0.0', channels: [stable], upgradeConstraintPolicy: SelfCertified}}}
status: {install: {bundle: {name: op.v1.0.0, version: 1.0.0}}}
";

    fn explain_text(text: &[u8]) {
        if let Ok(state) = ClusterState::read("s.yaml", text, &ParseLimits::default()) {
            let _ = explain_state(&catalog(), &state, None);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            explain_text(&bytes);
        }

        #[test]
        fn a_real_state_mutated(at in 0usize..STATE.len(), cut in 0usize..40, insert in "[ -~\n]{0,12}") {
            let mut text = STATE.to_string();
            let at = (0..=at).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            let end = (at + cut).min(text.len());
            let end = (end..=text.len()).find(|i| text.is_char_boundary(*i)).unwrap_or(text.len());
            text.replace_range(at..end, &insert);
            explain_text(text.as_bytes());
        }
    }
}
