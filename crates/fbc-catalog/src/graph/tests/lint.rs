//! Graph lint: each check fires on the catalog it is about, and stays quiet on
//! the graphs the OLM docs recommend.

use super::super::lint::{LintWarning, Severity, lint};
use super::*;

fn checks(warnings: &[LintWarning]) -> Vec<(&str, &str)> {
    warnings
        .iter()
        .map(|w| (w.check, w.entry.as_str()))
        .collect()
}

fn warnings_only(all: Vec<LintWarning>) -> Vec<LintWarning> {
    all.into_iter()
        .filter(|w| w.severity == Severity::Warning)
        .collect()
}

#[test]
fn the_divergence_example_is_skipped_on_chain_and_diverges_from_the_pruned_bundle() {
    let w = lint(&divergence(), None).expect("lint");
    assert_eq!(
        checks(&w),
        [
            ("v0-v1-divergence", "p.v1"),
            ("dangling-replaces", "p.v2"),
            ("skipped-on-chain", "p.v2")
        ]
    );
    assert!(
        w[0].message
            .contains(r#"from "p.v1" (no longer an entry), OLM v0 stays"#),
        "{}",
        w[0]
    );
    assert!(
        w[0].message.contains(r#"OLM v1 moves to "p.v2""#),
        "{}",
        w[0]
    );
    assert_eq!(w[1].severity, Severity::Info, "a pruned tail is normal");
    assert!(
        w[2].message.contains(
            r#""p.v2" is both skipped and replaced in channel "stable" ("p.v3" skips it, "p.v3" replaces it)"#
        ),
        "the finding names the entries to change: {}",
        w[2]
    );
    assert!(
        w[2].message.contains(
            r#"subscribers on "p.v1" stay there under OLM v0 (OLM v1 moves them to "p.v2")"#
        ),
        "{}",
        w[2]
    );
    assert_eq!(
        (w[2].file.as_str(), w[2].document, w[2].line),
        ("catalog.yaml", 2, 5)
    );
    assert!(w[2].to_string().starts_with(r#"warning: catalog.yaml: document 2 (line 5): package "p", channel "stable", entry "p.v2": "#));
}

#[test]
fn the_docs_recommended_graphs_have_no_warnings() {
    let pruned_tail = tables(&one_channel(
        &[
            "{name: p.v1.0.3, replaces: p.v1.0.2, skips: [p.v1.0.1], skipRange: '>=1.0.0 <1.0.3'}",
            "{name: p.v1.0.2, replaces: p.v1.0.0}",
        ],
        &[("p.v1.0.2", "1.0.2"), ("p.v1.0.3", "1.0.3")],
    ));
    let all = lint(&pruned_tail, None).expect("lint");
    assert_eq!(
        checks(&all),
        [
            ("dangling-replaces", "p.v1.0.2"),
            ("dangling-skips", "p.v1.0.3")
        ]
    );
    assert_eq!(warnings_only(all), []);
}

#[test]
fn seed_001_has_no_warnings_and_its_skip_range_covers_only_pruned_versions() {
    let all = lint(&seed_001(), None).expect("lint");
    assert_eq!(checks(&all), [("skip-range-empty", "example.v2.0.0")]);
    assert_eq!(all[0].severity, Severity::Info);
}

#[test]
fn a_stranded_entry_is_one_olm_v0_never_moves_from() {
    // p.v1 is skipped by p.v2, which p.v3 skips too: OLM v0 hides p.v2, and
    // nothing on the chain names p.v1.
    let t = tables(&one_channel(
        &[
            "{name: p.v3, skips: [p.v2]}",
            "{name: p.v2, skips: [p.v1]}",
            "{name: p.v1}",
        ],
        &[("p.v1", "1.0.0"), ("p.v2", "2.0.0"), ("p.v3", "3.0.0")],
    ));
    let w = warnings_only(lint(&t, None).expect("lint"));
    assert_eq!(checks(&w), [("stranded", "p.v1")]);
    assert!(
        w[0].message.contains(r#"(OLM v1 would move to "p.v2")"#),
        "{}",
        w[0]
    );
    assert!(
        w[0].message
            .contains(r#"only "p.v2" (skipped by "p.v3") would upgrade "p.v1""#),
        "the finding names who hides the way up: {}",
        w[0]
    );
}

#[test]
fn skip_range_mistakes_and_version_down_are_reported() {
    let t = tables(&one_channel(
        &[
            "{name: p.v3, replaces: p.v2, skipRange: '>=1.0.0 <=3.0.0'}",
            "{name: p.v2, replaces: p.v1, skipRange: '>=1.0.0 <4.0.0'}",
            "{name: p.v1}",
        ],
        &[("p.v1", "1.0.0"), ("p.v2", "2.5.0"), ("p.v3", "2.0.0")],
    ));
    let w = lint(&t, None).expect("lint");
    let found = checks(&w);
    let severity = |check: &str, entry: &str| {
        w.iter()
            .find(|x| x.check == check && x.entry == entry)
            .map(|x| x.severity)
    };
    assert_eq!(severity("skip-range-self", "p.v3"), Some(Severity::Info));
    assert_eq!(
        severity("skip-range-downgrade", "p.v3"),
        Some(Severity::Warning)
    );
    for expected in [
        ("skip-range-self", "p.v3"),
        ("skip-range-self", "p.v2"),
        ("skip-range-downgrade", "p.v3"),
        ("version-down", "p.v3"),
    ] {
        assert!(found.contains(&expected), "{expected:?} not in {found:?}");
    }
}

#[test]
fn names_that_are_not_entries_are_info_cross_channel_or_pruned() {
    let t = tables(&[
        package("p", "stable"),
        channel(
            "p",
            "stable",
            &[
                "{name: p.v3, replaces: p.v2, skips: [p.v0]}",
                "{name: p.v2, replaces: p.v1}",
            ],
        ),
        channel("p", "other", &["{name: p.v1}"]),
        bundle("p", "p.v1", "1.0.0"),
        bundle("p", "p.v2", "2.0.0"),
        bundle("p", "p.v3", "3.0.0"),
    ]);
    let all = lint(&t, None).expect("lint");
    let dangling: Vec<&LintWarning> = all
        .iter()
        .filter(|w| w.check.starts_with("dangling-"))
        .collect();
    assert_eq!(dangling.len(), 2, "{all:?}");
    assert!(dangling.iter().all(|w| w.severity == Severity::Info));
    assert!(
        dangling[0]
            .message
            .contains(r#"replaces "p.v1", an entry of channel(s) other but not of "stable""#),
        "{}",
        dangling[0]
    );
    assert!(
        dangling[1]
            .message
            .contains(r#"skips "p.v0", which is no bundle of the package"#),
        "{}",
        dangling[1]
    );
    assert_eq!(warnings_only(all), []);
}

#[test]
fn near_known_names_catch_typos_of_olm_property_types_and_annotations() {
    let t = tables(&[
        package("p", "stable"),
        channel("p", "stable", &["{name: p.v1}"]),
        bundle_with(
            "p",
            "p.v1",
            "1.0.0",
            &[
                "{type: olm.pakage.required, value: {packageName: q, versionRange: '>=1'}}",
                "{type: olm.csv.metadata, value: {annotations: {olm.skiprange: '<1.0.0'}}}",
                "{type: example.com/custom, value: {}}",
            ],
        ),
    ]);
    let w = lint(&t, None).expect("lint");
    let messages: Vec<&str> = w
        .iter()
        .filter(|w| w.check == "near-known-name")
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages
            .iter()
            .any(|m| m.contains(r#"did you mean "olm.package.required"?"#)),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains(r#"did you mean "olm.skipRange"?"#)),
        "{messages:?}"
    );
}

#[test]
fn an_unknown_package_is_an_error_and_one_package_can_be_linted_alone() {
    let t = divergence();
    assert!(lint(&t, Some("q")).is_err());
    assert_eq!(lint(&t, Some("p")).expect("lint").len(), 3);
}
