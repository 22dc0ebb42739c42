//! OLM v1 successors: the examples of OpenShift's "update paths" documentation for OLM v1 (OLM Classic semantics), operator-controller's successor rules and error texts.

use super::super::EdgeKind;
use super::super::successors::{
    Installed, Policy, ReleaseMode, SuccessorQuery, Successors, successors,
};
use super::*;

fn installed(name: &str, version: &str) -> Option<Installed> {
    Some(Installed {
        name: name.into(),
        version: version.into(),
        release: None,
    })
}

fn ask(t: &Tables, q: SuccessorQuery) -> Successors {
    successors(t, &q).expect("answer")
}

fn names(s: &Successors) -> Vec<&str> {
    s.candidates.iter().map(|c| c.name.as_str()).collect()
}

fn query(installed_bundle: Option<Installed>) -> SuccessorQuery {
    SuccessorQuery {
        package: "p".into(),
        installed: installed_bundle,
        ..SuccessorQuery::default()
    }
}

#[test]
fn seed_001_v1_finds_the_skipped_entry_through_its_skip_range() {
    let t = seed_001();
    let q = SuccessorQuery {
        package: "p".into(),
        installed: installed("example.v1.0.0", "1.0.0"),
        ..Default::default()
    };
    let s = ask(&t, q);
    assert_eq!(
        names(&s),
        ["example.v2.0.0"],
        "v3 names only v2, so v1 sees v2 alone"
    );
    assert_eq!(s.selected.as_deref(), Some("example.v2.0.0"));
    assert_eq!(s.candidates[0].edges.len(), 1);
    assert_eq!(s.candidates[0].edges[0].kind, EdgeKind::SkipRange);
    assert_eq!(s.candidates[0].edges[0].skip_range, ">=1.0.0 <2.0.0");
    assert_eq!(s.message, None);
}

#[test]
fn the_divergence_example_offers_v2_from_v1_and_v3_from_v2() {
    let t = divergence();
    let from_v1 = ask(&t, query(installed("p.v1", "1.0.0")));
    assert_eq!(names(&from_v1), ["p.v2"]);
    let from_v2 = ask(&t, query(installed("p.v2", "2.0.0")));
    assert_eq!(
        names(&from_v2),
        ["p.v3", "p.v2"],
        "v3 by replaces and skips; v2 stays (same version)"
    );
    let kinds: Vec<EdgeKind> = from_v2.candidates[0].edges.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EdgeKind::Replaces, EdgeKind::Skips]);
    assert_eq!(from_v2.candidates[1].edges[0].kind, EdgeKind::SameVersion);
}

#[test]
fn without_an_installed_bundle_the_highest_version_of_any_channel_wins() {
    let mut docs = vec![
        package("p", "stable"),
        channel("p", "stable", &["{name: p.v1}"]),
        channel(
            "p",
            "fast",
            &["{name: p.v2, replaces: p.v1}", "{name: p.v1}"],
        ),
    ];
    docs.extend([bundle("p", "p.v1", "1.0.0"), bundle("p", "p.v2", "2.0.0")]);
    let t = tables(&docs);
    let s = ask(&t, query(None));
    assert_eq!(
        s.selected.as_deref(),
        Some("p.v2"),
        "OLM v1 never consults defaultChannel"
    );
    assert_eq!(s.candidates[0].channels, ["fast"]);
    assert_eq!(s.candidates[1].channels, ["fast", "stable"]);
    let stable = ask(
        &t,
        SuccessorQuery {
            channels: vec!["stable".into()],
            ..query(None)
        },
    );
    assert_eq!(names(&stable), ["p.v1"]);
}

#[test]
fn z_and_y_stream_bests_come_from_the_candidates() {
    let t = tables(&one_channel(
        &[
            "{name: p.v2.0.0, replaces: p.v1.2.0, skipRange: '>=1.0.0 <2.0.0'}",
            "{name: p.v1.2.0, replaces: p.v1.1.3, skipRange: '>=1.0.0 <1.2.0'}",
            "{name: p.v1.1.3, replaces: p.v1.1.0, skipRange: '>=1.1.0 <1.1.3'}",
            "{name: p.v1.1.0}",
        ],
        &[
            ("p.v1.1.0", "1.1.0"),
            ("p.v1.1.3", "1.1.3"),
            ("p.v1.2.0", "1.2.0"),
            ("p.v2.0.0", "2.0.0"),
        ],
    ));
    let s = ask(&t, query(installed("p.v1.1.0", "1.1.0")));
    assert_eq!(names(&s), ["p.v2.0.0", "p.v1.2.0", "p.v1.1.3", "p.v1.1.0"]);
    assert_eq!(s.selected.as_deref(), Some("p.v2.0.0"));
    assert_eq!(s.best_z_stream.as_deref(), Some("p.v1.1.3"));
    assert_eq!(s.best_y_stream.as_deref(), Some("p.v1.2.0"));
}

#[test]
fn a_version_range_filters_and_an_empty_answer_carries_olm_v1s_message() {
    let t = divergence();
    let q = SuccessorQuery {
        version_range: Some(">=5".into()),
        channels: vec!["stable".into()],
        ..query(installed("p.v2", "2.0.0"))
    };
    let s = ask(&t, q);
    assert!(s.candidates.is_empty());
    assert_eq!(s.selected, None);
    assert_eq!(
        s.message.as_deref(),
        Some(
            r#"error upgrading from currently installed version "2.0.0": no bundles found for package "p" matching version ">=5" in channels [stable]"#
        )
    );
    let fresh = ask(
        &t,
        SuccessorQuery {
            version_range: Some("<1".into()),
            ..query(None)
        },
    );
    assert_eq!(
        fresh.message.as_deref(),
        Some(r#"no bundles found for package "p" matching version "<1""#)
    );
}

#[test]
fn errors_use_olm_v1s_words_and_suggest_near_names() {
    let t = divergence();
    let bad_range = successors(
        &t,
        &SuccessorQuery {
            version_range: Some(">=1 <".into()),
            ..query(None)
        },
    );
    let text = bad_range.expect_err("bad range").to_string();
    assert!(
        text.starts_with(r#"desired version range ">=1 <" is invalid: "#),
        "{text}"
    );
    let bad_version = successors(&t, &query(installed("p.v2", "2.0")));
    assert!(
        bad_version
            .expect_err("bad version")
            .to_string()
            .starts_with("error finding upgrade edges: ")
    );
    let unknown = successors(
        &t,
        &SuccessorQuery {
            package: "pp".into(),
            ..query(None)
        },
    );
    assert_eq!(
        unknown.expect_err("unknown").to_string(),
        r#"package "pp" not found (did you mean p?)"#
    );
}

#[test]
fn deprecated_bundles_sort_last_but_still_qualify() {
    let mut docs = one_channel(
        &["{name: p.v2, replaces: p.v1}", "{name: p.v1}"],
        &[("p.v1", "1.0.0"), ("p.v2", "2.0.0")],
    );
    docs.push(
        "schema: olm.deprecations\npackage: p\nentries:\n  - reference: {schema: olm.bundle, name: p.v2}\n    message: p.v2 is broken\n"
            .into(),
    );
    let t = tables(&docs);
    let s = ask(&t, query(None));
    assert_eq!(names(&s), ["p.v1", "p.v2"]);
    assert_eq!(
        s.candidates[1].deprecated.as_deref(),
        Some("p.v2 is broken")
    );
}

#[test]
fn self_certified_allows_downgrades_and_catalog_provided_does_not() {
    let t = divergence();
    let provided = ask(&t, query(installed("p.v3", "3.0.0")));
    assert_eq!(
        names(&provided),
        ["p.v3"],
        "only the installed version itself"
    );
    let certified = ask(
        &t,
        SuccessorQuery {
            policy: Policy::SelfCertified,
            ..query(installed("p.v3", "3.0.0"))
        },
    );
    assert_eq!(names(&certified), ["p.v3", "p.v2"]);
    assert!(certified.candidates.iter().all(|c| c.edges.is_empty()));
}

#[test]
fn releases_order_legacy_build_metadata_and_the_installed_release_stays() {
    let t = tables(&one_channel(
        &[
            "{name: p.v1-10, replaces: p.v1-9}",
            "{name: p.v1-9, replaces: p.v1-2}",
            "{name: p.v1-2}",
        ],
        &[
            ("p.v1-2", "1.0.0+2"),
            ("p.v1-9", "1.0.0+9"),
            ("p.v1-10", "1.0.0+10"),
        ],
    ));
    let s = ask(
        &t,
        SuccessorQuery {
            policy: Policy::SelfCertified,
            ..query(None)
        },
    );
    assert_eq!(names(&s), ["p.v1-10", "p.v1-9", "p.v1-2"], "+10 > +9 > +2");
    assert_eq!(s.candidates[0].release, "10");
    let from_9 = ask(&t, query(installed("p.v1-9", "1.0.0+9")));
    assert_eq!(names(&from_9), ["p.v1-10", "p.v1-9"]);
    let explicit = ask(
        &t,
        SuccessorQuery {
            release_mode: ReleaseMode::Explicit,
            policy: Policy::SelfCertified,
            ..query(None)
        },
    );
    assert_eq!(
        explicit.candidates.len(),
        3,
        "no olm.package release: build metadata is kept, versions tie"
    );
}

#[test]
fn explain_says_why_each_bundle_is_left_out_and_warnings_name_what_v1_refuses() {
    let mut docs = vec![
        package("p", "stable"),
        channel(
            "p",
            "stable",
            &["{name: p.v3, replaces: p.v2}", "{name: p.v2}"],
        ),
        channel("p", "other", &["{name: p.v9}"]),
    ];
    docs.extend([
        bundle("p", "p.v2", "2.0.0"),
        bundle_with(
            "p",
            "p.v3",
            "3.0.0",
            &["{type: olm.package.required, value: {packageName: q, versionRange: '>=1'}}"],
        ),
        bundle("p", "p.v9", "9.0.0"),
    ]);
    let t = tables(&docs);
    let q = SuccessorQuery {
        channels: vec!["stable".into(), "nope".into()],
        explain: true,
        ..query(installed("p.v2", "2.0.0"))
    };
    let s = ask(&t, q);
    assert_eq!(s.selected.as_deref(), Some("p.v3"));
    assert_eq!(s.rejected.len(), 1);
    assert_eq!(s.rejected[0].name, "p.v9");
    assert!(
        s.rejected[0]
            .reason
            .contains("not an entry of the channels considered [stable]"),
        "{:?}",
        s.rejected
    );
    let warnings = s.warnings.join("\n");
    assert!(
        warnings.contains(r#"channel "nope" is not in package "p""#),
        "{warnings}"
    );
    assert!(
        warnings.contains(r#"via property "olm.package.required""#),
        "{warnings}"
    );
}
