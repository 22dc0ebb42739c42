//! The baseline catalog itself: what it builds into, how a diagnostic displays,
//! and load errors turned into diagnostics.

use super::*;

#[test]
fn the_baseline_catalog_builds_into_one_package_with_its_channel_and_bundles() {
    let model = Catalog::new().model();
    assert_eq!(model.packages.len(), 1);
    let p = &model.packages[0];
    assert_eq!(p.name, "foo");
    assert_eq!(p.default_channel, "alpha");
    assert_eq!(p.description, "The foo operator");
    assert_eq!(&*p.origin.file, PACKAGE);
    assert_eq!(p.channels.len(), 1);
    let ch = p.channel("alpha").expect("channel alpha");
    assert_eq!(ch.head_entry().name, "foo.v0.2.0");
    assert_eq!(ch.entries[1].replaces, "foo.v0.1.0");
    assert_eq!(&*ch.origin.file, CHANNELS);
    let names: Vec<&str> = p.bundles.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["foo.v0.1.0", "foo.v0.2.0"]);
    let b = p.bundle("foo.v0.2.0").expect("bundle");
    assert_eq!(b.image, "quay.io/foo/bundle:v0.2.0");
    assert_eq!(b.version, semver::Version::new(0, 2, 0));
    assert_eq!(b.release, None);
    assert_eq!(b.related_images[0].image, "quay.io/foo/operator:v0.2.0");
    assert_eq!((&*b.origin.file, b.origin.document), (BUNDLES, 2));
    assert!(p.deprecation.is_none() && ch.deprecation.is_none() && b.deprecation.is_none());
    assert!(model.custom.is_empty());
}

#[test]
fn a_diagnostic_displays_its_origin_its_objects_and_its_message() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skips: [\"\"]\n",
        ),
        "skip[0] is empty",
    );
    assert_eq!(
        d.to_string(),
        "foo/channels.yaml: document 1 (line 1): package \"foo\", channel \"alpha\", bundle \"foo.v0.2.0\": skip[0] is empty"
    );
}

#[test]
fn load_errors_become_diagnostics_that_keep_their_location() {
    let mut loaded = Catalog::new().loaded();
    loaded.errors.extend(parse_file("bad.yaml", "[]\n").errors);
    let diags = build(loaded).expect_err("a load error");
    assert_eq!(diags.len(), 1, "{}", lines(&diags));
    assert_eq!(diags[0].location.file.as_deref(), Some("bad.yaml"));
    assert_eq!(diags[0].location.document, Some(1));
    assert_eq!(diags[0].kind, crate::diagnostic::Kind::Envelope);
    assert!(
        diags[0]
            .to_string()
            .starts_with("bad.yaml: document 1 (line 1): ")
            && diags[0]
                .message
                .contains("must be a JSON object, found an array"),
        "{}",
        diags[0]
    );
}
