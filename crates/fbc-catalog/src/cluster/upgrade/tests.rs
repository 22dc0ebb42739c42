use super::*;
use crate::tables::testing;

/// A package `op` whose channel `stable` runs 1.0.0 (max 4.14) → 1.1.0 (max 4.15)
/// → 1.2.0 (no max) and whose channel `legacy` holds only 0.9.0 (max 4.12).
fn catalog() -> Tables {
    let bundle = |name: &str, version: &str, max: Option<&str>| {
        let mut out = format!(
            "schema: olm.bundle\npackage: op\nname: {name}\nimage: quay.io/op:{version}\nproperties:\n  - {{type: olm.package, value: {{packageName: op, version: \"{version}\"}}}}\n"
        );
        if let Some(max) = max {
            out.push_str(&format!(
                "  - {{type: olm.maxOpenShiftVersion, value: {max}}}\n"
            ));
        }
        out
    };
    let docs = [
        "schema: olm.package\nname: op\ndefaultChannel: stable\n".to_string(),
        "schema: olm.channel\npackage: op\nname: stable\nentries:\n  - {name: op.v1.0.0}\n  - {name: op.v1.1.0, replaces: op.v1.0.0}\n  - {name: op.v1.2.0, replaces: op.v1.1.0}\n".to_string(),
        "schema: olm.channel\npackage: op\nname: legacy\nentries:\n  - {name: op.v0.9.0}\n".to_string(),
        bundle("op.v0.9.0", "0.9.0", Some("\"4.12\"")),
        bundle("op.v1.0.0", "1.0.0", Some("\"4.14\"")),
        bundle("op.v1.1.0", "1.1.0", Some("\"4.15\"")),
        bundle("op.v1.2.0", "1.2.0", None),
    ];
    match testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

fn installed(bundle: &str, channel: &str, olm: Olm) -> Installed {
    Installed {
        owner: "ns/op".into(),
        package: "op".into(),
        bundle: bundle.into(),
        channel: channel.into(),
        olm,
        on_cluster: None,
    }
}

fn target(t: &str) -> MinorVersion {
    MinorVersion::parse_target(t).expect("a version")
}

#[test]
fn a_blocker_gets_the_path_to_the_first_bundle_that_allows_the_target() {
    let tables = catalog();
    let [v] = check(
        &tables,
        &[installed("op.v1.0.0", "stable", Olm::V0)],
        target("4.15"),
    )
    .try_into()
    .expect("one verdict");
    assert!(v.blocks);
    assert_eq!(
        v.max,
        Some(MinorVersion {
            major: 4,
            minor: 14
        })
    );
    assert_eq!(v.read_from, MaxSource::Catalog);
    assert_eq!(
        v.way_out,
        WayOut::Upgrade {
            path: vec!["op.v1.1.0".into()],
            max: Some(MinorVersion {
                major: 4,
                minor: 15
            })
        }
    );
    // to 4.16, 1.1.0 blocks too: the path goes on to 1.2.0, which has no maximum
    let [v] = check(
        &tables,
        &[installed("op.v1.0.0", "stable", Olm::V0)],
        target("4.16"),
    )
    .try_into()
    .expect("one verdict");
    assert_eq!(
        v.way_out,
        WayOut::Upgrade {
            path: vec!["op.v1.1.0".into(), "op.v1.2.0".into()],
            max: None
        }
    );
    // OLM v1 takes the highest successor at once
    let [v] = check(
        &tables,
        &[installed("op.v1.0.0", "stable", Olm::V1)],
        target("4.16"),
    )
    .try_into()
    .expect("one verdict");
    assert!(
        matches!(&v.way_out, WayOut::Upgrade { path, .. } if path.last().map(String::as_str) == Some("op.v1.2.0")),
        "{v:?}"
    );
}

#[test]
fn a_bundle_that_allows_the_target_does_not_block() {
    let tables = catalog();
    let verdicts = check(
        &tables,
        &[
            installed("op.v1.1.0", "stable", Olm::V0),
            installed("op.v1.2.0", "stable", Olm::V0),
        ],
        target("4.15.7"),
    );
    assert!(
        verdicts
            .iter()
            .all(|v| !v.blocks && v.way_out == WayOut::None),
        "{verdicts:?}"
    );
}

#[test]
fn no_way_out_in_the_channel_means_uninstall() {
    let tables = catalog();
    let [v] = check(
        &tables,
        &[installed("op.v0.9.0", "legacy", Olm::V0)],
        target("4.13"),
    )
    .try_into()
    .expect("one verdict");
    assert!(v.blocks);
    let WayOut::Uninstall { reason } = &v.way_out else {
        panic!("uninstall: {v:?}");
    };
    assert!(
        reason.starts_with("nothing in channel \"legacy\" upgrades op.v0.9.0"),
        "{reason}"
    );
}

#[test]
fn what_the_cluster_object_says_wins_and_a_refused_value_blocks() {
    let tables = catalog();
    let mut on_cluster = installed("op.v1.2.0", "stable", Olm::V0);
    on_cluster.on_cluster = Some(openshift::from_v0_annotation(
        r#"{"properties":[{"type":"olm.maxOpenShiftVersion","value":"4.8.1"}]}"#,
    ));
    let [v] = check(&tables, &[on_cluster], target("4.9"))
        .try_into()
        .expect("one verdict");
    assert_eq!(v.read_from, MaxSource::Cluster);
    assert!(v.blocks, "OLM fails closed on a value it refuses");
    assert_eq!(
        v.error.as_deref(),
        Some(
            "property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 4.8.1"
        )
    );
    // 1.2.0 is the channel head: nothing upgrades it
    assert!(matches!(v.way_out, WayOut::Uninstall { .. }), "{v:?}");
}

#[test]
fn an_unknown_package_cannot_be_upgraded_here() {
    let tables = catalog();
    let mut other = installed("x.v1", "", Olm::V0);
    other.package = "x".into();
    other.on_cluster = Some(Ok(Some(MinorVersion { major: 4, minor: 1 })));
    let [v] = check(&tables, &[other], target("4.2"))
        .try_into()
        .expect("one verdict");
    assert_eq!(
        v.way_out,
        WayOut::Uninstall {
            reason: "the catalog has no package \"x\"".into()
        }
    );
}

#[test]
fn a_bare_number_is_read_as_opm_serves_it_which_is_what_olm_v0_sees() {
    // `value: 4.10` reaches OLM v0 through opm's float64 as 4.1 (docs/olm-cluster-rules.md §1.1)
    let docs = [
        "schema: olm.package\nname: pk\ndefaultChannel: c\n",
        "schema: olm.channel\npackage: pk\nname: c\nentries:\n  - {name: pk.v1}\n",
        "schema: olm.bundle\npackage: pk\nname: pk.v1\nimage: quay.io/pk:1\nproperties:\n  - {type: olm.package, value: {packageName: pk, version: 1.0.0}}\n  - {type: olm.maxOpenShiftVersion, value: 4.10}\n",
    ];
    let tables = testing::from_text("catalog.yaml", &docs.join("---\n")).expect("valid");
    let bundle = tables
        .package("pk")
        .and_then(|(_, p)| p.bundle("pk.v1"))
        .expect("bundle");
    assert_eq!(
        catalog_max(bundle, Reader::V0),
        Ok(Some(MinorVersion { major: 4, minor: 1 }))
    );
}

#[test]
fn a_bundle_neither_side_knows_has_an_unknown_maximum() {
    let tables = catalog();
    let [v] = check(
        &tables,
        &[installed("op.v0.0.1", "stable", Olm::V0)],
        target("4.16"),
    )
    .try_into()
    .expect("one verdict");
    assert_eq!(
        (v.read_from, v.max, v.blocks),
        (MaxSource::Unknown, None, false)
    );
}
