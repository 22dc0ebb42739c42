//! Upgrade paths: seeds 000 and 004 (one hop at a time along the channel), the
//! reference's divergence example, and how a walk ends.

use super::super::EdgeKind;
use super::super::upgrade_path::{Outcome, PathQuery, Semantics, UpgradePath, upgrade_path};
use super::*;

fn walk(t: &Tables, from: &str, semantics: Semantics) -> UpgradePath {
    upgrade_path(
        t,
        &PathQuery {
            package: "p".into(),
            from: from.into(),
            semantics,
            ..PathQuery::default()
        },
    )
    .expect("path")
}

fn hops(path: &UpgradePath) -> Vec<(&str, EdgeKind)> {
    path.steps.iter().map(|s| (s.to.as_str(), s.edge)).collect()
}

/// Seed 004: channel beta's head 0.1.3 replaces 0.1.2, which replaces 0.1.1.
fn seed_004() -> Tables {
    tables(&[
        package("p", "alpha"),
        channel(
            "p",
            "alpha",
            &[
                "{name: example.v0.1.2, replaces: example.v0.1.1}",
                "{name: example.v0.1.1}",
            ],
        ),
        channel(
            "p",
            "beta",
            &[
                "{name: example.v0.1.3, replaces: example.v0.1.2}",
                "{name: example.v0.1.2, replaces: example.v0.1.1}",
                "{name: example.v0.1.1}",
            ],
        ),
        bundle("p", "example.v0.1.1", "0.1.1"),
        bundle("p", "example.v0.1.2", "0.1.2"),
        bundle("p", "example.v0.1.3", "0.1.3"),
    ])
}

#[test]
fn seed_004_walks_one_version_at_a_time_to_the_head() {
    let t = seed_004();
    let q = PathQuery {
        package: "p".into(),
        channel: "beta".into(),
        from: "example.v0.1.1".into(),
        ..PathQuery::default()
    };
    let path = upgrade_path(&t, &q).expect("path");
    assert_eq!(
        hops(&path),
        [
            ("example.v0.1.2", EdgeKind::Replaces),
            ("example.v0.1.3", EdgeKind::Replaces)
        ]
    );
    assert_eq!(path.outcome, Outcome::ReachedHead);
    let default_channel = walk(&t, "example.v0.1.1", Semantics::V0);
    assert_eq!(
        default_channel.channel, "alpha",
        "an empty channel is the default channel"
    );
    assert_eq!(
        hops(&default_channel),
        [("example.v0.1.2", EdgeKind::Replaces)]
    );
    let at_head = walk(&t, "example.v0.1.2", Semantics::V0);
    assert_eq!(
        (at_head.outcome, at_head.steps.len()),
        (Outcome::AlreadyAtHead, 0)
    );
    let target = PathQuery {
        to: Some("example.v0.1.2".into()),
        ..q
    };
    let to = upgrade_path(&t, &target).expect("path");
    assert_eq!((to.outcome, to.steps.len()), (Outcome::ReachedTarget, 1));
}

#[test]
fn seed_000_a_replaces_chain_is_walked_from_a_bundle_no_longer_in_the_catalog() {
    let t = tables(&one_channel(
        &[
            "{name: myoperator.v1.0.2, replaces: myoperator.v1.0.1}",
            "{name: myoperator.v1.0.1, replaces: myoperator.v1.0.0}",
        ],
        &[
            ("myoperator.v1.0.1", "1.0.1"),
            ("myoperator.v1.0.2", "1.0.2"),
        ],
    ));
    let q = PathQuery {
        package: "p".into(),
        from: "myoperator.v1.0.0".into(),
        from_version: Some("1.0.0".into()),
        ..PathQuery::default()
    };
    let path = upgrade_path(&t, &q).expect("path");
    assert_eq!(
        hops(&path),
        [
            ("myoperator.v1.0.1", EdgeKind::Replaces),
            ("myoperator.v1.0.2", EdgeKind::Replaces)
        ]
    );
    let missing = upgrade_path(
        &t,
        &PathQuery {
            from_version: None,
            ..q
        },
    );
    assert_eq!(
        missing.expect_err("no version").to_string(),
        r#"bundle "myoperator.v1.0.0" not found in package "p" (did you mean myoperator.v1.0.1, myoperator.v1.0.2?)"#
    );
}

#[test]
fn seed_000_skips_and_skip_range_are_one_hop() {
    let skips = tables(&one_channel(
        &[
            "{name: myoperator.v1.0.3, replaces: myoperator.v1.0.0, skips: [myoperator.v1.0.1, myoperator.v1.0.2]}",
            "{name: myoperator.v1.0.0}",
        ],
        &[
            ("myoperator.v1.0.0", "1.0.0"),
            ("myoperator.v1.0.3", "1.0.3"),
        ],
    ));
    assert_eq!(
        hops(&walk(&skips, "myoperator.v1.0.0", Semantics::V0)),
        [("myoperator.v1.0.3", EdgeKind::Replaces)]
    );
    let q = |from: &str, version: &str| PathQuery {
        package: "p".into(),
        from: from.into(),
        from_version: Some(version.into()),
        ..PathQuery::default()
    };
    let from_skipped = upgrade_path(&skips, &q("myoperator.v1.0.2", "1.0.2")).expect("path");
    assert_eq!(
        hops(&from_skipped),
        [("myoperator.v1.0.3", EdgeKind::Skips)]
    );
    let range = tables(&one_channel(
        &["{name: myoperator.v1.0.3, skipRange: '>=1.0.0 <1.0.3'}"],
        &[("myoperator.v1.0.3", "1.0.3")],
    ));
    for version in ["1.0.0", "1.0.1", "1.0.2"] {
        let path = upgrade_path(&range, &q("myoperator.old", version)).expect("path");
        assert_eq!(
            hops(&path),
            [("myoperator.v1.0.3", EdgeKind::SkipRange)],
            "{version}"
        );
    }
    let outside = upgrade_path(&range, &q("myoperator.old", "0.9.0")).expect("path");
    assert_eq!(outside.outcome, Outcome::Stuck);
}

#[test]
fn v0_takes_the_candidate_nearest_the_head_and_lists_the_others() {
    let t = tables(&one_channel(
        &[
            "{name: p.v1.0.3, replaces: p.v1.0.2, skipRange: '>=1.0.0 <1.0.3'}",
            "{name: p.v1.0.2, replaces: p.v1.0.1}",
            "{name: p.v1.0.1, replaces: p.v1.0.0}",
            "{name: p.v1.0.0}",
        ],
        &[
            ("p.v1.0.0", "1.0.0"),
            ("p.v1.0.1", "1.0.1"),
            ("p.v1.0.2", "1.0.2"),
            ("p.v1.0.3", "1.0.3"),
        ],
    ));
    let path = walk(&t, "p.v1.0.0", Semantics::V0);
    assert_eq!(hops(&path), [("p.v1.0.3", EdgeKind::SkipRange)]);
    assert_eq!(path.steps[0].alternatives, ["p.v1.0.1"]);
}

#[test]
fn the_divergence_example_is_stuck_under_v0_and_walks_under_v1() {
    let t = divergence();
    let q = PathQuery {
        package: "p".into(),
        from: "p.v1".into(),
        from_version: Some("1.0.0".into()),
        ..PathQuery::default()
    };
    let v0 = upgrade_path(&t, &q).expect("path");
    assert_eq!(v0.outcome, Outcome::Stuck);
    assert!(v0.steps.is_empty());
    let reason = v0.stuck_reason.expect("reason");
    assert!(
        reason.contains(
            r#"only "p.v2" (skipped by "p.v3") would upgrade "p.v1", and OLM v0 hides it"#
        ),
        "{reason}"
    );
    let v1 = upgrade_path(
        &t,
        &PathQuery {
            semantics: Semantics::V1,
            ..q
        },
    )
    .expect("path");
    assert_eq!(
        hops(&v1),
        [("p.v2", EdgeKind::Replaces), ("p.v3", EdgeKind::Replaces)]
    );
    assert_eq!(v1.outcome, Outcome::ReachedHead);
}

#[test]
fn seed_001_v0_is_stuck_and_v1_goes_through_the_skipped_entry() {
    let t = seed_001();
    let q = PathQuery {
        package: "p".into(),
        from: "example.v1.0.0".into(),
        from_version: Some("1.0.0".into()),
        ..PathQuery::default()
    };
    assert_eq!(upgrade_path(&t, &q).expect("path").outcome, Outcome::Stuck);
    let v1 = upgrade_path(
        &t,
        &PathQuery {
            semantics: Semantics::V1,
            ..q
        },
    )
    .expect("path");
    assert_eq!(
        hops(&v1),
        [
            ("example.v2.0.0", EdgeKind::SkipRange),
            ("example.v3.0.0", EdgeKind::Skips)
        ]
    );
}

#[test]
fn max_steps_bounds_the_walk_and_unknown_channels_suggest_names() {
    let t = seed_004();
    let q = PathQuery {
        package: "p".into(),
        channel: "beta".into(),
        from: "example.v0.1.1".into(),
        max_steps: 1,
        ..PathQuery::default()
    };
    let path = upgrade_path(&t, &q).expect("path");
    assert_eq!((path.outcome, path.steps.len()), (Outcome::Stuck, 1));
    assert_eq!(path.stuck_reason.as_deref(), Some("stopped after 1 steps"));
    let wrong = upgrade_path(
        &t,
        &PathQuery {
            channel: "betaa".into(),
            ..q
        },
    );
    assert_eq!(
        wrong.expect_err("unknown").to_string(),
        r#"channel "betaa" not found in package "p" (did you mean beta?)"#
    );
}
