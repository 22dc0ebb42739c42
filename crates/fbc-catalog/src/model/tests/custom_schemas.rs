//! Blobs of other schemas: schema and package keys, walk order, and the meta key
//! pattern.

use super::*;

#[test]
fn a_custom_schema_with_a_slash_is_invalid() {
    let d = only(
        &Catalog::new().add(EXTRA, "schema: a/b\nname: x\n"),
        "invalid custom schema meta: invalid schema \"a/b\": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn a_blob_without_a_schema_is_invalid() {
    let d = only(
        &Catalog::new().add(EXTRA, "hello: world\n"),
        "invalid custom schema meta: invalid schema: must not be empty",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn a_custom_blob_with_an_invalid_package_key_is_invalid() {
    let d = only(
        &Catalog::new().add(EXTRA, "schema: my-schema\npackage: ../foo\n"),
        "invalid custom schema meta: invalid package \"../foo\": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$",
    );
    assert_names(&d, EXTRA, "../foo", "", "");
}

#[test]
fn valid_custom_blobs_are_kept_in_walk_order() {
    let model = Catalog::new()
        .add("a/custom.yaml", "schema: my-schema\nname: first\n")
        .add(
            "a/custom.yaml",
            "schema: custom.operator.io\npackage: foo\nname: second\n",
        )
        .add(
            "z/custom.yaml",
            "schema: foo..\npackage: no-such-package\nname: third\n",
        )
        .add("z/custom.yaml", "schema: '123'\nname: fourth\n")
        .add("z/custom.yaml", "schema: my_schema\nname: fifth\n")
        .model();
    let names: Vec<(&str, &str)> = model
        .custom
        .iter()
        .map(|b| (b.schema.as_str(), b.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("my-schema", "first"),
            ("custom.operator.io", "second"),
            ("foo..", "third"),
            ("123", "fourth"),
            ("my_schema", "fifth"),
        ]
    );
    assert_eq!(model.custom[2].package, "no-such-package");
    assert_eq!(model.packages.len(), 1);
}

#[test]
fn meta_keys_follow_the_reference_pattern() {
    for ok in [
        "my-schema",
        "custom.operator.io",
        "foo..",
        "my_schema",
        "123",
    ] {
        assert!(
            super::super::is_valid_meta_key(ok),
            "{ok:?} should be valid"
        );
    }
    for bad in [
        "",
        ".",
        "..",
        "...",
        "../foo",
        "foo/..",
        "foo/bar",
        "foo\\bar",
        "..foo",
        ".hidden",
        "-flag",
        "_private",
        "v1+beta",
        "custom:v1",
        "has space",
    ] {
        assert!(
            !super::super::is_valid_meta_key(bad),
            "{bad:?} should be invalid"
        );
    }
}
