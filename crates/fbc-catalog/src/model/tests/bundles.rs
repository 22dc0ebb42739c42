//! `olm.bundle` blobs and their properties: names, `olm.package`, versions and
//! releases, images and related images, channel membership, CSV metadata.

use super::*;

#[test]
fn a_bundle_without_a_package_is_reported() {
    let d = only(
        &Catalog::new().add(
            BUNDLES,
            &bundle_doc("foo", "foo.v0.3.0", "0.3.0").replace("package: foo\n", ""),
        ),
        "package name must be set for bundle \"foo.v0.3.0\"",
    );
    assert_names(&d, BUNDLES, "", "", "");
    assert_eq!(d.location.document, Some(3));
}

#[test]
fn a_bundle_of_an_unknown_package_is_reported() {
    let d = only(
        &Catalog::new().add(EXTRA, &bundle_doc("bar", "bar.v0.1.0", "0.1.0")),
        "unknown package \"bar\" for bundle \"bar.v0.1.0\"",
    );
    assert_names(&d, EXTRA, "bar", "", "");
}

#[test]
fn a_bundle_without_a_name_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &bundle_doc("foo", "foo.v0.3.0", "0.3.0").replace("name: foo.v0.3.0\n", ""),
        ),
        "bundle has no name",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_duplicate_bundle_is_reported_on_the_second_blob() {
    let d = only(
        &Catalog::new().add(EXTRA, &bundle_doc("foo", "foo.v0.1.0", "0.1.0")),
        "duplicate bundle \"foo.v0.1.0\" (first defined at foo/bundles.yaml: document 1 (line 1))",
    );
    assert_names(&d, EXTRA, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_without_an_olm_package_property_is_reported() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "  - type: olm.package\n    value:\n      packageName: foo\n      version: 0.1.0\n",
            "  - type: olm.gvk\n    value:\n      group: foo.io\n      kind: Foo\n      version: v1\n",
        ),
        "must have exactly 1 \"olm.package\" property, found 0",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_with_two_olm_package_properties_is_reported() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n  - type: olm.package\n    value:\n      packageName: foo\n      version: 0.1.1\n",
        ),
        "must have exactly 1 \"olm.package\" property, found 2",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_whose_olm_package_property_names_another_package_is_reported() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      packageName: foo\n      version: 0.1.0\n",
            "      packageName: bar\n      version: 0.1.0\n",
        ),
        "package \"foo\" does not match \"olm.package\" property \"bar\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_version_that_is_not_semver_is_reported() {
    let d = only(
        &Catalog::new().edit(BUNDLES, "      version: 0.1.0\n", "      version: v0.1.0\n"),
        "error parsing bundle version \"v0.1.0\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_property_without_a_value_is_reported_with_its_index_and_type() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n  - type: olm.gvk\n",
        ),
        "parse properties: parse property[1] of type \"olm.gvk\": property has no value",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_image_with_an_unknown_digest_algorithm_is_rejected() {
    let image = format!("quay.io/foo@ssha256:{SHA256}");
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "image: quay.io/foo/bundle:v0.1.0\n",
            &format!("image: {image}\n"),
        ),
        &format!("image: invalid image pull spec {image:?}"),
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_image_with_an_md5_digest_is_rejected() {
    let image = "quay.io/foo@md5:0123456789abcdef0123456789abcdef";
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "image: quay.io/foo/bundle:v0.2.0\n",
            &format!("image: {image}\n"),
        ),
        &format!("image: invalid image pull spec {image:?}"),
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.2.0");
}

#[test]
fn a_bundle_image_with_a_tag_and_a_sha256_digest_is_accepted() {
    let image = format!("quay.io/foo/bundle:v0.1.0@sha256:{SHA256}");
    let model = Catalog::new()
        .edit(
            BUNDLES,
            "image: quay.io/foo/bundle:v0.1.0\n",
            &format!("image: {image}\n"),
        )
        .model();
    assert_eq!(
        model.packages[0]
            .bundle("foo.v0.1.0")
            .expect("bundle")
            .image,
        image
    );
}

#[test]
fn an_invalid_related_image_is_reported_with_its_index() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "    image: quay.io/foo/operator:v0.1.0\n",
            "    image: quay.io/Foo/operator:v0.1.0\n",
        ),
        "relatedImages[0].image: invalid image pull spec \"quay.io/Foo/operator:v0.1.0\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_in_no_channel_is_reported() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "  - name: foo.v0.2.0\n    replaces: foo.v0.1.0\n",
            "",
        ),
        "package \"foo\", bundle \"foo.v0.2.0\" not found in any channel entries",
    );
    assert_eq!(
        d.message,
        "package \"foo\", bundle \"foo.v0.2.0\" not found in any channel entries"
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.2.0");
    assert_eq!(d.location.document, Some(2));
}

#[test]
fn a_bundle_without_an_image_but_with_objects_is_valid() {
    let object = format!(
        "  - type: olm.bundle.object\n    value:\n      data: {}\n",
        b64(r#"{"kind":"ClusterServiceVersion","metadata":{"name":"foo.v0.1.0"}}"#)
    );
    let model = Catalog::new()
        .edit(BUNDLES, "image: quay.io/foo/bundle:v0.1.0\n", "")
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            &format!("      version: 0.1.0\n{object}"),
        )
        .model();
    let b = model.packages[0].bundle("foo.v0.1.0").expect("bundle");
    assert_eq!(b.image, "");
    assert_eq!(b.objects.len(), 1);
    assert_eq!(b.csv_object, Some(0));
}

#[test]
fn a_bundle_without_an_image_or_objects_is_reported() {
    let d = only(
        &Catalog::new().edit(BUNDLES, "image: quay.io/foo/bundle:v0.1.0\n", ""),
        "bundle image must be set",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn an_invalid_release_is_reported_with_the_reference_message() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: \"!!!\"\n",
        ),
        "release version",
    );
    assert_eq!(
        d.message,
        "error parsing bundle release version \"!!!\": invalid release \"!!!\": segment 0: Invalid character(s) found in prerelease \"!!!\""
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_with_a_release_must_be_named_package_v_version_release() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: alpha.1.0.0\n",
        ),
        "name \"foo.v0.1.0\" does not match normalized name \"foo-v0.1.0-alpha.1.0.0\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_with_a_release_and_the_normalized_name_is_valid() {
    let model = Catalog::new()
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: alpha.1.0.0\n",
        )
        .rename_bundle("foo.v0.1.0", "foo-v0.1.0-alpha.1.0.0")
        .model();
    let b = model.packages[0]
        .bundle("foo-v0.1.0-alpha.1.0.0")
        .expect("bundle");
    assert_eq!(b.release.as_deref(), Some("alpha.1.0.0"));
    assert_eq!(b.version_text, "0.1.0");
}

#[test]
fn build_metadata_cannot_be_combined_with_a_release() {
    let d = only(
        &Catalog::new()
            .edit(
                BUNDLES,
                "      version: 0.1.0\n",
                "      version: 0.1.0+build.1\n      release: alpha\n",
            )
            .rename_bundle("foo.v0.1.0", "foo-v0.1.0+build.1-alpha"),
        "cannot use build metadata in version with a release version",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo-v0.1.0+build.1-alpha");
}

#[test]
fn two_bundles_with_the_same_version_are_reported_on_the_package() {
    let d = only(
        &Catalog::new().edit(BUNDLES, "      version: 0.2.0\n", "      version: 0.1.0\n"),
        "duplicate versions found in bundles: [{0.1.0: [foo.v0.1.0, foo.v0.2.0]}]",
    );
    assert_names(&d, PACKAGE, "foo", "", "");
}

#[test]
fn the_same_version_with_different_releases_is_not_a_duplicate() {
    Catalog::new()
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: \"1\"\n",
        )
        .rename_bundle("foo.v0.1.0", "foo-v0.1.0-1")
        .edit(
            BUNDLES,
            "      version: 0.2.0\n",
            "      version: 0.1.0\n      release: \"2\"\n",
        )
        .rename_bundle("foo.v0.2.0", "foo-v0.1.0-2")
        .model();
}

#[test]
fn a_bundle_with_two_csv_metadata_properties_is_reported() {
    let meta = "  - type: olm.csv.metadata\n    value:\n      displayName: Foo\n";
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            &format!("      version: 0.1.0\n{meta}{meta}"),
        ),
        "expected at most 1 property of type \"olm.csv.metadata\", found 2",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn one_csv_metadata_property_is_kept() {
    let model = Catalog::new()
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n  - type: olm.csv.metadata\n    value:\n      displayName: Foo\n",
        )
        .model();
    let b = model.packages[0].bundle("foo.v0.1.0").expect("bundle");
    let pieces = b.csv_pieces.as_ref().expect("a CSV is synthesised");
    let parts = crate::model::csv::PackageParts::new(&model.packages[0]).expect("parts");
    let csv: Vec<u8> = pieces.chunks(&parts).concat();
    let csv: serde_json::Value = serde_json::from_slice(&csv).expect("the CSV is JSON");
    assert_eq!(csv["spec"]["displayName"], "Foo");
}
