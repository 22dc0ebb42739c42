use super::*;
use crate::cluster::state::ClusterState;
use crate::source::ParseLimits;
use crate::tables::testing;

/// `stable`: 1.0.0 → 1.1.0 → 1.2.0 (replaces); `fast`: 1.2.0 → 2.0.0; `deps`:
/// 1.2.0 → 1.3.0, which requires another package; `legacy`: 1.0.5 alone, with no
/// edge to anything.
fn catalog() -> Tables {
    let bundle = |name: &str, version: &str, extra: &str| {
        format!(
            "schema: olm.bundle\npackage: op\nname: {name}\nimage: quay.io/op:{version}\nproperties:\n  - {{type: olm.package, value: {{packageName: op, version: \"{version}\"}}}}\n{extra}"
        )
    };
    let docs = [
        "schema: olm.package\nname: op\ndefaultChannel: stable\n".to_string(),
        "schema: olm.channel\npackage: op\nname: stable\nentries:\n  - {name: op.v1.0.0}\n  - {name: op.v1.1.0, replaces: op.v1.0.0}\n  - {name: op.v1.2.0, replaces: op.v1.1.0}\n".to_string(),
        "schema: olm.channel\npackage: op\nname: fast\nentries:\n  - {name: op.v1.2.0}\n  - {name: op.v2.0.0, replaces: op.v1.2.0}\n".to_string(),
        "schema: olm.channel\npackage: op\nname: legacy\nentries:\n  - {name: op.v1.0.5}\n".to_string(),
        bundle("op.v1.0.5", "1.0.5", ""),
        "schema: olm.channel\npackage: op\nname: deps\nentries:\n  - {name: op.v1.2.0}\n  - {name: op.v1.3.0, replaces: op.v1.2.0}\n".to_string(),
        bundle("op.v1.0.0", "1.0.0", ""),
        bundle("op.v1.1.0", "1.1.0", ""),
        bundle("op.v1.2.0", "1.2.0", ""),
        bundle(
            "op.v1.3.0",
            "1.3.0",
            "  - {type: olm.package.required, value: {packageName: other, versionRange: \">=1.0.0\"}}\n",
        ),
        bundle("op.v2.0.0", "2.0.0", ""),
    ];
    match testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

/// A ClusterExtension for `op` with `catalog` fields and `installed` as `name@version`.
fn extension(catalog: &str, installed: Option<(&str, &str)>) -> ClusterExtension {
    let status = installed
        .map(|(name, version)| {
            format!("status: {{install: {{bundle: {{name: {name}, version: \"{version}\"}}}}}}\n")
        })
        .unwrap_or_default();
    let text = format!(
        "kind: ClusterExtension\nmetadata: {{name: op}}\nspec:\n  namespace: op\n  serviceAccount: {{name: op}}\n  source:\n    sourceType: Catalog\n    catalog: {{packageName: op{catalog}}}\n{status}"
    );
    let state =
        ClusterState::read("e.yaml", text.as_bytes(), &ParseLimits::default()).expect("reads");
    state.extensions[0].clone()
}

fn explain(e: &ClusterExtension) -> ExtensionExplanation {
    explain_extension(&catalog(), e).expect("explains")
}

#[test]
fn the_next_install_and_the_whole_path() {
    let e = explain(&extension(
        ", channels: [stable]",
        Some(("op.v1.0.0", "1.0.0")),
    ));
    assert_eq!(e.path, ["op.v1.1.0", "op.v1.2.0"]);
    assert_eq!(
        e.summary,
        "OLM v1 installs op.v1.1.0 next, then the rest of the path (2 install(s) to op.v1.2.0)"
    );
    assert!(e.fixes.is_empty() && e.left_out.is_empty());
}

#[test]
fn a_bundle_named_by_version_only_is_found() {
    let e = explain(&extension(", channels: [stable]", Some(("\"\"", "1.1.0"))));
    assert_eq!(e.path, ["op.v1.2.0"]);
}

#[test]
fn the_newest_bundle_allowed_has_nothing_to_do() {
    let e = explain(&extension("", Some(("op.v2.0.0", "2.0.0"))));
    assert!(e.path.is_empty());
    assert_eq!(
        e.summary,
        "op.v2.0.0 is the newest bundle the spec allows: nothing newer to install"
    );
    assert!(e.fixes.is_empty());
}

#[test]
fn a_version_range_that_excludes_every_successor_is_named_with_the_fix() {
    let e = explain(&extension(
        ", version: \"<1.1.0\", channels: [stable]",
        Some(("op.v1.0.0", "1.0.0")),
    ));
    assert!(e.path.is_empty());
    assert_eq!(
        e.summary,
        "stuck at op.v1.0.0: 5 newer bundle(s) left out; the highest, op.v1.2.0: its version 1.2.0 is outside the range \"<1.1.0\""
    );
    // no catalog edge is offered: the range, not the graph, leaves them out
    assert_eq!(
        e.fixes,
        [
            "spec: widen spec.source.catalog.version (\"<1.1.0\") to include op.v1.1.0's version; without it OLM v1 installs op.v1.1.0"
        ]
    );
}

#[test]
fn no_edge_from_the_installed_bundle_offers_self_certified_and_a_catalog_edge() {
    let e = explain(&extension("", Some(("op.v1.0.5", "1.0.5"))));
    assert!(e.path.is_empty());
    assert_eq!(
        e.summary,
        "stuck at op.v1.0.5: 4 newer bundle(s) left out; the highest, op.v2.0.0: no upgrade edge from \"op.v1.0.5\": no entry of it replaces or skips \"op.v1.0.5\", and it has no skipRange"
    );
    assert_eq!(
        e.fixes,
        [
            "spec: set upgradeConstraintPolicy: SelfCertified; OLM v1 then installs op.v2.0.0 without a catalog edge (and would allow downgrades: use with care)",
            "catalog: add \"op.v1.0.5\" to the skips of op.v2.0.0 (or a skipRange on it that contains 1.0.5)",
        ]
    );
}

#[test]
fn a_channel_left_out_of_the_spec_is_the_fix() {
    let e = explain(&extension(
        ", channels: [stable]",
        Some(("op.v1.2.0", "1.2.0")),
    ));
    assert!(e.path.is_empty());
    assert_eq!(
        e.summary,
        "stuck at op.v1.2.0: 2 newer bundle(s) left out; the highest, op.v2.0.0: it is not an entry of the channels considered [stable]"
    );
    assert_eq!(
        e.fixes[0],
        "spec: add channel \"fast\" to spec.source.catalog.channels; OLM v1 then installs op.v2.0.0"
    );
}

#[test]
fn a_declared_dependency_is_a_warning_ov1_refuses() {
    let e = explain(&extension(
        ", channels: [deps]",
        Some(("op.v1.2.0", "1.2.0")),
    ));
    assert_eq!(e.path, ["op.v1.3.0"]);
    assert!(
        e.warnings[0].contains("which is currently not supported: OLM v1 would refuse it"),
        "{:?}",
        e.warnings
    );
}

#[test]
fn nothing_installed_yet_installs_the_highest_in_range() {
    let e = explain(&extension(", version: \">=1.1.0 <2.0.0\"", None));
    assert_eq!(e.path, ["op.v1.3.0"]);
    assert_eq!(
        e.summary,
        "nothing is installed yet: OLM v1 installs op.v1.3.0, the highest version the spec allows"
    );
}

#[test]
fn a_range_without_the_installed_version_is_olm_v1s_error() {
    let e = explain(&extension(
        ", version: \">=3.0.0\"",
        Some(("op.v1.0.0", "1.0.0")),
    ));
    assert_eq!(
        e.summary,
        "nothing moves: error upgrading from currently installed version \"1.0.0\": no bundles found for package \"op\" matching version \">=3.0.0\""
    );
    assert_eq!(
        e.fixes,
        [
            "spec: widen spec.source.catalog.version (\">=3.0.0\") to include op.v1.1.0's version; without it OLM v1 installs op.v1.1.0"
        ]
    );
}

#[test]
fn an_unknown_package_names_the_spec_field() {
    let mut e = extension("", None);
    e.package = "nope".into();
    assert_eq!(
        explain_extension(&catalog(), &e).expect_err("no package"),
        "the catalog has no package \"nope\" (spec.source.catalog.packageName)"
    );
}
