//! Finding the installed bundle from a version alone.

use super::super::GraphError;
use super::super::installed::identify;
use super::*;
use crate::model::Package;

fn p(t: &Tables) -> &Package {
    t.package("p").map(|(_, p)| p).expect("package p")
}

fn chain() -> Tables {
    tables(&one_channel(
        &["{name: p.v2, replaces: p.v1}", "{name: p.v1}"],
        &[("p.v1", "1.0.0"), ("p.v2", "2.0.0")],
    ))
}

#[test]
fn a_version_names_its_one_bundle() {
    let found = identify(p(&chain()), "", "1.0.0").expect("found");
    assert_eq!(found.name, "p.v1");
    assert!(found.note.is_some_and(|n| n.contains("\"p.v1\"")));
}

#[test]
fn a_given_name_is_kept_and_no_version_looks_nothing_up() {
    let t = chain();
    let kept = identify(p(&t), "p.v0", "1.0.0").expect("kept");
    assert_eq!((kept.name.as_str(), kept.note), ("p.v0", None));
    assert_eq!(identify(p(&t), "", "").expect("kept").name, "");
}

#[test]
fn a_version_no_bundle_has_keeps_no_name_and_says_so() {
    let found = identify(p(&chain()), "", "0.9.0").expect("answered");
    assert_eq!(found.name, "");
    assert!(found.note.is_some_and(|n| n.contains("only skipRanges")));
}

#[test]
fn build_metadata_tells_versions_apart() {
    let t = tables(&one_channel(
        &["{name: p.b, replaces: p.a}", "{name: p.a}"],
        &[("p.a", "1.0.0+1"), ("p.b", "1.0.0+2")],
    ));
    assert_eq!(identify(p(&t), "", "1.0.0+2").expect("one").name, "p.b");
    assert_eq!(identify(p(&t), "", "1.0.0").expect("none").name, "");
}

#[test]
fn a_version_several_releases_share_asks_which_bundle() {
    let release = |r: &str| {
        format!(
            "schema: olm.bundle\npackage: p\nname: p-v1.0.0-{r}\nimage: quay.io/p:{r}\nproperties:\n  - {{type: olm.package, value: {{packageName: p, version: \"1.0.0\", release: \"{r}\"}}}}\n"
        )
    };
    let t = tables(&[
        package("p", "stable"),
        channel(
            "p",
            "stable",
            &[
                "{name: p-v1.0.0-2, replaces: p-v1.0.0-1}",
                "{name: p-v1.0.0-1}",
            ],
        ),
        release("1"),
        release("2"),
    ]);
    let err = identify(p(&t), "", "1.0.0").expect_err("ambiguous");
    assert_eq!(
        err,
        GraphError::AmbiguousVersion {
            package: "p".into(),
            version: "1.0.0".into(),
            bundles: vec!["p-v1.0.0-1".into(), "p-v1.0.0-2".into()],
        }
    );
    assert!(err.to_string().contains("p-v1.0.0-1, p-v1.0.0-2"), "{err}");
}
