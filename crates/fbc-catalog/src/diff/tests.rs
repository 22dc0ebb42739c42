//! The diff on small catalogs: content, consequences, renderings, and properties
//! over generated chains.

use super::render::{Form, render};
use super::{CatalogDiff, PathKind, diff};
use crate::tables::Tables;
use crate::tables::testing::from_text;

fn bundle(p: &str, v: &str, extra: &str) -> String {
    format!(
        r#"{{"schema":"olm.bundle","package":"{p}","name":"{p}.v{v}","image":"r/{p}:{v}","properties":[{{"type":"olm.package","value":{{"packageName":"{p}","version":"{v}"}}}}{extra}]}}"#
    )
}

/// Package `p`: stable 1.0.0 ← 1.1.0 ← 1.2.0 ← 1.3.0 by `replaces`, fast holding
/// 1.2.0 ← 1.3.0; package `q`: one bundle.
fn old_text() -> String {
    [
        r#"{"schema":"olm.package","name":"p","defaultChannel":"stable"}"#.to_owned(),
        r#"{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"},{"name":"p.v1.1.0","replaces":"p.v1.0.0"},{"name":"p.v1.2.0","replaces":"p.v1.1.0"},{"name":"p.v1.3.0","replaces":"p.v1.2.0"}]}"#.to_owned(),
        r#"{"schema":"olm.channel","package":"p","name":"fast","entries":[{"name":"p.v1.2.0"},{"name":"p.v1.3.0","replaces":"p.v1.2.0"}]}"#.to_owned(),
        bundle("p", "1.0.0", ""),
        bundle("p", "1.1.0", ""),
        bundle("p", "1.2.0", ""),
        bundle("p", "1.3.0", ""),
        r#"{"schema":"olm.package","name":"q","defaultChannel":"stable"}"#.to_owned(),
        r#"{"schema":"olm.channel","package":"q","name":"stable","entries":[{"name":"q.v1.0.0"}]}"#.to_owned(),
        bundle("q", "1.0.0", ""),
    ]
    .join("\n")
}

/// OLD with 1.1.0 gone (1.2.0 now replaces 1.0.0), channel fast gone, 1.4.0 added
/// as stable's head (default channel still stable), q gone, r added, 1.3.0's
/// image and properties changed.
fn new_text() -> String {
    [
        r#"{"schema":"olm.package","name":"p","defaultChannel":"stable"}"#.to_owned(),
        r#"{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"},{"name":"p.v1.2.0","replaces":"p.v1.0.0"},{"name":"p.v1.3.0","replaces":"p.v1.2.0"},{"name":"p.v1.4.0","replaces":"p.v1.3.0"}]}"#.to_owned(),
        bundle("p", "1.0.0", ""),
        bundle("p", "1.2.0", ""),
        bundle("p", "1.3.0", r#",{"type":"com.example.note","value":"hi"}"#)
            .replace("r/p:1.3.0", "r/p:1.3.0-rebuilt"),
        bundle("p", "1.4.0", ""),
        r#"{"schema":"olm.package","name":"r","defaultChannel":"stable"}"#.to_owned(),
        r#"{"schema":"olm.channel","package":"r","name":"stable","entries":[{"name":"r.v1.0.0"}]}"#.to_owned(),
        bundle("r", "1.0.0", ""),
    ]
    .join("\n")
}

fn tables(text: &str) -> Tables {
    from_text("catalog.json", text).unwrap_or_else(|e| panic!("{e:?}"))
}

fn the_diff() -> CatalogDiff {
    diff(&tables(&old_text()), &tables(&new_text()))
}

#[test]
fn a_catalog_against_itself_is_empty() {
    for text in [old_text(), new_text()] {
        let t = tables(&text);
        let d = diff(&t, &t);
        assert!(d.is_empty(), "{d:#?}");
        assert_eq!(render(&d, Form::Text), "No differences.\n");
    }
}

#[test]
fn content_changes_are_listed_by_package_channel_and_bundle() {
    let d = the_diff();
    assert_eq!(d.packages_added, ["r"]);
    assert_eq!(d.packages_removed, ["q"]);
    let p = &d.packages[0];
    assert_eq!(p.name, "p");
    assert_eq!(p.channels_removed, ["fast"]);
    assert_eq!(p.bundles_added, ["p.v1.4.0"]);
    assert_eq!(p.bundles_removed, ["p.v1.1.0"]);
    let stable = &p.channels[0];
    assert_eq!(stable.name, "stable");
    let head = stable.head.as_ref().unwrap();
    assert_eq!(
        (head.old.as_str(), head.new.as_str()),
        ("p.v1.3.0", "p.v1.4.0")
    );
    assert_eq!(stable.entries_added, ["p.v1.4.0"]);
    assert_eq!(stable.entries_removed, ["p.v1.1.0"]);
    let edges = |v: &[super::EdgeRef]| -> Vec<String> {
        v.iter()
            .map(|e| format!("{} {} {}", e.entry, e.kind, e.target))
            .collect()
    };
    assert_eq!(
        edges(&stable.edges_added),
        ["p.v1.2.0 replaces p.v1.0.0", "p.v1.4.0 replaces p.v1.3.0"]
    );
    assert_eq!(
        edges(&stable.edges_removed),
        ["p.v1.1.0 replaces p.v1.0.0", "p.v1.2.0 replaces p.v1.1.0"]
    );
    let b = &p.bundles[0];
    assert_eq!(b.name, "p.v1.3.0");
    assert_eq!(b.image.as_ref().unwrap().new, "r/p:1.3.0-rebuilt");
    assert_eq!(b.properties_added[0].typ, "com.example.note");
    assert_eq!(b.properties_added[0].value, r#""hi""#);
    assert!(b.properties_removed.is_empty());
    assert!(d.has_removals());
}

#[test]
fn consequences_name_each_installed_bundle() {
    let d = the_diff();
    let paths: Vec<String> = d
        .impact
        .paths
        .iter()
        .map(|p| {
            format!(
                "{}/{} {}: {}",
                p.package,
                p.channel,
                p.bundle,
                p.kind.as_str()
            )
        })
        .collect();
    assert_eq!(
        paths,
        [
            // fast is gone: both of its bundles' subscriptions break
            "p/fast p.v1.2.0: broken",
            // 1.1.0 → 1.2.0 → 1.3.0 became 1.2.0 → 1.3.0 → 1.4.0: as many installs
            "p/stable p.v1.0.0: rerouted",
            // nothing in the new stable replaces or skips 1.1.0
            "p/stable p.v1.1.0: stranded",
            // 1.3.0 became 1.3.0 → 1.4.0 (the head moved)
            "p/stable p.v1.2.0: lengthened",
        ]
    );
    let rerouted = &d.impact.paths[1];
    assert_eq!(rerouted.old_path, ["p.v1.1.0", "p.v1.2.0", "p.v1.3.0"]);
    assert_eq!(rerouted.new_path, ["p.v1.2.0", "p.v1.3.0", "p.v1.4.0"]);
    let gone: Vec<&str> = d
        .impact
        .bundles_gone
        .iter()
        .map(|b| b.bundle.as_str())
        .collect();
    assert_eq!(gone, ["p.v1.1.0", "q.v1.0.0"]);
    let lost: Vec<String> = d
        .impact
        .successors
        .iter()
        .map(|s| format!("{}: -{:?} +{:?}", s.bundle, s.lost, s.gained))
        .collect();
    assert!(
        lost.contains(&r#"p.v1.0.0: -["p.v1.1.0"] +["p.v1.2.0"]"#.to_owned()),
        "{lost:?}"
    );
    let s = d.summary();
    assert_eq!((s.stranded, s.broken_paths, s.bundles_gone), (1, 1, 2));
}

#[test]
fn text_and_markdown_lead_with_the_consequences() {
    let d = the_diff();
    let text = render(&d, Form::Text);
    assert!(
        text.starts_with("1 stranded, 1 broken paths, 2 bundles gone"),
        "{text}"
    );
    assert!(
        text.contains(
            "OLM v0 paths stranded:\n  p/stable p.v1.1.0: was p.v1.2.0 → p.v1.3.0; now (none)"
        ),
        "{text}"
    );
    let md = render(&d, Form::Markdown);
    assert!(md.starts_with("## Catalog diff\n\n**1 stranded"), "{md}");
    assert!(
        md.contains("### Channel heads moved\n\n- p/stable: `p.v1.3.0` → `p.v1.4.0`"),
        "{md}"
    );
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["impact"]["paths"][2]["kind"], "stranded");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Package `p`, one channel: versions 1.0.0 … 1.(n-1).0, each replacing the
    /// one before among those `keep` keeps (the chain repaired around the gaps).
    fn chain(n: usize, keep: &[bool]) -> String {
        let kept: Vec<usize> = (0..n).filter(|i| keep[*i]).collect();
        let mut entries = Vec::new();
        let mut bundles = Vec::new();
        for (k, i) in kept.iter().enumerate() {
            let replaces = match k {
                0 => String::new(),
                _ => format!(r#","replaces":"p.v1.{}.0""#, kept[k - 1]),
            };
            entries.push(format!(r#"{{"name":"p.v1.{i}.0"{replaces}}}"#));
            bundles.push(bundle("p", &format!("1.{i}.0"), ""));
        }
        format!(
            "{}\n{}\n{}",
            r#"{"schema":"olm.package","name":"p","defaultChannel":"stable"}"#,
            format_args!(
                r#"{{"schema":"olm.channel","package":"p","name":"stable","entries":[{}]}}"#,
                entries.join(",")
            ),
            bundles.join("\n")
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn removals_are_exactly_what_was_dropped_and_strand_only_it(
            n in 2usize..12,
            keep in proptest::collection::vec(proptest::bool::weighted(0.7), 12),
        ) {
            let mut keep = keep[..n].to_vec();
            // the head stays, so the channel keeps its head
            keep[n - 1] = true;
            let old = tables(&chain(n, &vec![true; n]));
            let new = tables(&chain(n, &keep));
            prop_assert!(diff(&old, &old).is_empty());
            let d = diff(&old, &new);
            let dropped: Vec<String> = (0..n).filter(|i| !keep[*i]).map(|i| format!("p.v1.{i}.0")).collect();
            let removed = d.packages.first().map(|p| p.bundles_removed.clone()).unwrap_or_default();
            let mut sorted = dropped.clone();
            sorted.sort();
            prop_assert_eq!(&removed, &sorted);
            let gone: Vec<String> = d.impact.bundles_gone.iter().map(|b| b.bundle.clone()).collect();
            prop_assert_eq!(&gone, &sorted);
            for p in &d.impact.paths {
                prop_assert_ne!(p.kind, PathKind::Broken);
                prop_assert_ne!(p.kind, PathKind::Lengthened);
                let was_dropped = dropped.contains(&p.bundle);
                prop_assert_eq!(p.kind == PathKind::Stranded, was_dropped, "{:?}", p);
            }
            // the other way round, the same bundles come back
            let back = diff(&new, &old);
            let added = back.packages.first().map(|p| p.bundles_added.clone()).unwrap_or_default();
            prop_assert_eq!(&added, &sorted);
            prop_assert!(back.impact.bundles_gone.is_empty());
        }
    }
}
