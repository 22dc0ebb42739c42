use super::*;
use crate::cluster::state::ClusterState;
use crate::source::ParseLimits;
use crate::tables::testing;

/// [`super::explain`] without a CSV.
fn explain(tables: &Tables, s: &Subscription) -> Result<Explanation, String> {
    super::explain(tables, s, None)
}

/// `stable`: 1.0.0 → 1.1.0 → 1.2.0; `fast`: 1.2.0 skips 1.0.5, which no channel
/// of `stable` reaches; 1.0.5 is only in `legacy`.
fn catalog() -> Tables {
    let bundle = |name: &str, version: &str| {
        format!(
            "schema: olm.bundle\npackage: op\nname: {name}\nimage: quay.io/op:{version}\nproperties:\n  - {{type: olm.package, value: {{packageName: op, version: \"{version}\"}}}}\n"
        )
    };
    let docs = [
        "schema: olm.package\nname: op\ndefaultChannel: stable\n".to_string(),
        "schema: olm.channel\npackage: op\nname: stable\nentries:\n  - {name: op.v1.0.0}\n  - {name: op.v1.1.0, replaces: op.v1.0.0}\n  - {name: op.v1.2.0, replaces: op.v1.1.0}\n".to_string(),
        "schema: olm.channel\npackage: op\nname: legacy\nentries:\n  - {name: op.v1.0.5}\n".to_string(),
        "schema: olm.channel\npackage: op\nname: fast\nentries:\n  - {name: op.v1.2.0, skips: [op.v1.0.5]}\n".to_string(),
        bundle("op.v1.0.0", "1.0.0"),
        bundle("op.v1.0.5", "1.0.5"),
        bundle("op.v1.1.0", "1.1.0"),
        bundle("op.v1.2.0", "1.2.0"),
    ];
    match testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

fn subscription(spec: &str, status: &str) -> Subscription {
    let text = format!(
        "kind: Subscription\nmetadata: {{name: op, namespace: ns}}\nspec: {{name: op, {spec}}}\nstatus: {{{status}}}\n"
    );
    let state =
        ClusterState::read("s.yaml", text.as_bytes(), &ParseLimits::default()).expect("reads");
    state.subscriptions[0].clone()
}

#[test]
fn the_next_hop_and_the_whole_path() {
    let e = explain(
        &catalog(),
        &subscription("channel: stable", "installedCSV: op.v1.0.0"),
    )
    .expect("explains");
    assert_eq!(
        (e.channel.as_str(), e.head.as_str()),
        ("stable", "op.v1.2.0")
    );
    assert_eq!(e.path, ["op.v1.1.0", "op.v1.2.0"]);
    assert_eq!(
        e.summary,
        "OLM v0 installs op.v1.1.0 next, then the rest of the path (2 install(s) to op.v1.2.0)"
    );
    assert!(e.fixes.is_empty());
}

#[test]
fn a_pending_manual_approval_is_what_holds_it() {
    let e = explain(
        &catalog(),
        &subscription(
            "channel: stable, installPlanApproval: Manual",
            "installedCSV: op.v1.0.0, currentCSV: op.v1.1.0, state: UpgradePending",
        ),
    )
    .expect("explains");
    assert!(
        e.summary.starts_with(
            "an InstallPlan waits for approval (installPlanApproval: Manual) to install op.v1.1.0"
        ),
        "{}",
        e.summary
    );
}

#[test]
fn at_the_head_nothing_is_newer_and_nothing_installed_starts_at_the_head_or_starting_csv() {
    let t = catalog();
    let e = explain(
        &t,
        &subscription("channel: stable", "installedCSV: op.v1.2.0"),
    )
    .expect("explains");
    assert_eq!(
        e.summary,
        "op.v1.2.0 is the head of channel \"stable\": nothing newer to install"
    );
    let e = explain(&t, &subscription("", "")).expect("explains");
    assert_eq!(
        (e.channel.as_str(), e.summary.as_str()),
        (
            "stable",
            "nothing is installed yet: OLM v0 installs op.v1.2.0 first"
        )
    );
    let e = explain(&t, &subscription("startingCSV: op.v1.1.0", "")).expect("explains");
    assert_eq!(
        e.summary,
        "nothing is installed yet: OLM v0 installs op.v1.1.0 first"
    );
}

#[test]
fn stuck_says_why_and_the_smallest_changes() {
    let e = explain(
        &catalog(),
        &subscription("channel: stable", "installedCSV: op.v1.0.5"),
    )
    .expect("explains");
    assert!(e.path.is_empty());
    assert!(
        e.summary.starts_with("stuck at op.v1.0.5: "),
        "{}",
        e.summary
    );
    assert_eq!(
        e.fixes,
        [
            "catalog: add \"op.v1.0.5\" to the skips of op.v1.2.0 in channel \"stable\" (or a skipRange on op.v1.2.0 that contains its version)",
            "subscription: set spec.channel to \"fast\", where OLM v0 installs op.v1.2.0 next",
        ]
    );
}

#[test]
fn unknown_names_are_errors_that_name_the_field() {
    let t = catalog();
    let mut s = subscription("channel: nightly", "installedCSV: op.v1.0.0");
    assert_eq!(
        explain(&t, &s).expect_err("no channel"),
        "package \"op\" has no channel \"nightly\" (spec.channel); it has: fast, legacy, stable"
    );
    s.package = "other".into();
    assert_eq!(
        explain(&t, &s).expect_err("no package"),
        "the catalog has no package \"other\" (spec.name)"
    );
}
