//! The meta envelope: `schema`, `package` and `name` found case-insensitively,
//! keys that fold alike are duplicates, and bad values are envelope errors.

use super::*;

#[test]
fn schema_keys_differing_only_in_case_are_duplicates() {
    let err = parse_err("x.yaml", "Schema: a\nschema: b\n");
    match &err {
        LoadError::Envelope {
            origin, message, ..
        } => {
            assert_eq!(
                (&*origin.file, origin.document, origin.line),
                ("x.yaml", 1, 1)
            );
            assert!(
                message.starts_with("duplicate keys for key \"schema\""),
                "{message}"
            );
            assert!(
                message.contains("Schema") && message.contains("schema"),
                "{message}"
            );
        }
        other => panic!("expected an envelope error, got {other:?}"),
    }
}

/// The reference (`extractUniqueMetaKeys`) folds every top-level key and rejects any
/// two that fold alike, not only `schema`, `package` and `name`; here a bundle with
/// `image` and `Image` loads, and the model silently picks one of them.
#[test]
fn any_two_top_level_keys_differing_only_in_case_are_duplicates() {
    let err = parse_err(
        "x.yaml",
        "schema: olm.bundle\nname: b\nimage: quay.io/a/b:1\nImage: quay.io/a/c:1\n",
    );
    assert!(
        matches!(&err, LoadError::Envelope { message, .. } if message.starts_with("duplicate keys for key \"image\"")),
        "{err:?}"
    );
}

/// The reference folds keys with Unicode case folding (`cases.Fold`), under which
/// `ſ` (U+017F) is `s`; `str::to_lowercase` leaves `ſ` as it is.
#[test]
fn envelope_keys_are_compared_by_unicode_case_folding() {
    let result = parse_ok("x.yaml", "\u{17f}chema: olm.package\nname: foo\n");
    assert_eq!(result.blobs[0].schema, "olm.package");
}

#[test]
fn a_name_that_is_not_a_string_is_an_envelope_error() {
    let err = parse_err("x.yaml", "schema: olm.bundle\nname: 5\n");
    match &err {
        LoadError::Envelope {
            origin, message, ..
        } => {
            assert_eq!(&*origin.file, "x.yaml");
            assert!(
                message.starts_with("expected value for key \"name\" to be a string"),
                "{message}"
            );
        }
        other => panic!("expected an envelope error, got {other:?}"),
    }
}

#[test]
fn a_null_schema_is_an_envelope_error() {
    let err = parse_err("x.json", "{\"schema\": null}");
    assert!(
        matches!(&err, LoadError::Envelope { message, .. } if message.contains("\"schema\" to be a string, got null")),
        "{err:?}"
    );
}

#[test]
fn envelope_keys_are_found_case_insensitively() {
    let result = parse_ok("x.yaml", "SCHEMA: olm.channel\nPackage: foo\nnAmE: alpha\n");
    let b = &result.blobs[0];
    assert_eq!(
        (b.schema.as_str(), b.package.as_str(), b.name.as_str()),
        ("olm.channel", "foo", "alpha")
    );
    // the value keeps the keys as written
    assert_eq!(b.value["Package"], json!("foo"));
}

#[test]
fn one_bad_document_does_not_stop_the_others() {
    let result = parse_file(
        "x.yaml",
        "schema: a\n---\nname: 5\n---\n[]\n---\nschema: d\n",
    );
    assert_eq!(summary(&result), [("a", "", 1, 1), ("d", "", 4, 7)]);
    assert_eq!(result.errors.len(), 2, "{:?}", result.errors);
}
