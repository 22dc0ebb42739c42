//! `olm.deprecations` blobs: their package, their entries, and where valid
//! deprecations end up in the model.

use super::*;

const DEPRECATE_PACKAGE: &str =
    "  - reference:\n      schema: olm.package\n    message: foo is deprecated\n";

#[test]
fn deprecations_without_a_package_are_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc("foo", DEPRECATE_PACKAGE).replace("package: foo\n", ""),
        ),
        "package name must be set for olm.deprecations",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn deprecations_of_an_unknown_package_are_reported() {
    let d = only(
        &Catalog::new().add(EXTRA, &deprecations_doc("bar", DEPRECATE_PACKAGE)),
        "cannot apply deprecations to an unknown package \"bar\"",
    );
    assert_names(&d, EXTRA, "bar", "", "");
}

#[test]
fn a_second_deprecations_blob_for_a_package_is_reported() {
    let d = only(
        &Catalog::new()
            .add(EXTRA, &deprecations_doc("foo", DEPRECATE_PACKAGE))
            .add(
                "zz/deprecations.yaml",
                &deprecations_doc("foo", DEPRECATE_PACKAGE),
            ),
        "expected a maximum of one deprecation per package: \"foo\" (first at foo/extra.yaml: document 1 (line 1))",
    );
    assert_names(&d, "zz/deprecations.yaml", "foo", "", "");
}

#[test]
fn a_deprecation_entry_without_a_schema_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      name: foo.v0.1.0\n    message: gone\n",
            ),
        ),
        "schema must be set for deprecation entry [0]",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_duplicate_deprecation_entry_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc("foo", &format!("{DEPRECATE_PACKAGE}{DEPRECATE_PACKAGE}")),
        ),
        "duplicate deprecation entry for olm.package \"\"",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_an_unknown_bundle_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.bundle\n      name: foo.v9.9.9\n    message: gone\n",
            ),
        ),
        "cannot deprecate bundle \"foo.v9.9.9\": bundle not found",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_an_unknown_channel_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.channel\n      name: beta\n    message: gone\n",
            ),
        ),
        "cannot deprecate channel \"beta\": channel not found",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_a_package_by_name_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.package\n      name: foo\n    message: gone\n",
            ),
        ),
        "package name must be empty for deprecated package \"foo\" (specified \"foo\")",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_an_object_of_an_unknown_schema_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.foo\n      name: x\n    message: gone\n",
            ),
        ),
        "cannot deprecate object olm.foo \"x\": object schema unknown",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_deprecation_without_a_message_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc("foo", "  - reference:\n      schema: olm.package\n"),
        ),
        "invalid deprecation: entry [0] (olm.package \"\"): message must be set",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn valid_deprecations_are_attached_to_the_package_channel_and_bundle() {
    let model = Catalog::new()
        .add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.package\n    message: foo is deprecated\n\
                 \x20 - reference:\n      schema: olm.channel\n      name: alpha\n    message: alpha is deprecated\n\
                 \x20 - reference:\n      schema: olm.bundle\n      name: foo.v0.1.0\n    message: foo.v0.1.0 is deprecated\n",
            ),
        )
        .model();
    let p = &model.packages[0];
    assert_eq!(p.deprecation.as_deref(), Some("foo is deprecated"));
    assert_eq!(
        p.channel("alpha").expect("alpha").deprecation.as_deref(),
        Some("alpha is deprecated")
    );
    assert_eq!(
        p.bundle("foo.v0.1.0")
            .expect("bundle")
            .deprecation
            .as_deref(),
        Some("foo.v0.1.0 is deprecated")
    );
    assert_eq!(p.bundle("foo.v0.2.0").expect("bundle").deprecation, None);
}
