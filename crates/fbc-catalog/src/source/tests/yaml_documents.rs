//! YAML documents: `---` separators and document numbers, empty documents, line
//! endings, non-object documents, errors with their lines, scalar resolution and
//! key order.

use super::*;

#[test]
fn yaml_documents_separated_by_dashes_give_document_numbers_and_lines() {
    let text = "schema: olm.package\nname: foo\n---\nschema: olm.channel\npackage: foo\nname: alpha\n---\n\nschema: olm.bundle\nname: foo.v0.1.0\n";
    assert_eq!(
        summary(&parse_ok("foo/catalog.yaml", text)),
        [
            ("olm.package", "foo", 1, 1),
            ("olm.channel", "alpha", 2, 4),
            ("olm.bundle", "foo.v0.1.0", 3, 9),
        ]
    );
}

#[test]
fn a_yaml_file_may_start_with_a_separator() {
    let text = "---\nschema: a\nname: x\n---\nschema: b\n";
    assert_eq!(
        summary(&parse_ok("x.yaml", text)),
        [("a", "x", 1, 2), ("b", "", 2, 5)]
    );
}

#[test]
fn empty_and_comment_only_yaml_documents_are_skipped() {
    let text = "# header\n---\n\n---\n---\n# only a comment\n   \n---\nschema: a\n---\n---\nschema: b\n---\n";
    let result = parse_ok("x.yaml", text);
    let lines: Vec<(&str, usize)> = result
        .blobs
        .iter()
        .map(|b| (b.schema.as_str(), b.origin.line))
        .collect();
    assert_eq!(lines, [("a", 9), ("b", 12)]);
    assert!(result.blobs[0].origin.document < result.blobs[1].origin.document);
}

#[test]
fn empty_and_blank_files_yield_nothing() {
    for text in ["", "\n\n", "   \n", "---\n", "---\n---\n", "# comment\n"] {
        let result = parse_file("empty.yaml", text);
        assert!(
            result.blobs.is_empty() && result.errors.is_empty(),
            "{text:?}: {result:?}"
        );
    }
}

#[test]
fn a_separator_may_carry_a_comment_and_a_document_may_end_with_dots() {
    let text = "schema: a\n...\n--- # next\nschema: b\n---   \nschema: c\n";
    assert_eq!(
        summary(&parse_ok("x.yaml", text)),
        [("a", "", 1, 1), ("b", "", 2, 4), ("c", "", 3, 6)]
    );
}

#[test]
fn crlf_line_endings_are_accepted() {
    let text = "schema: a\r\n---\r\nschema: b\r\nname: x\r\n";
    assert_eq!(
        summary(&parse_ok("x.yaml", text)),
        [("a", "", 1, 1), ("b", "x", 2, 3)]
    );
}

#[test]
fn a_separator_followed_by_text_is_a_separator_error_with_its_line() {
    let err = parse_err("x.yaml", "schema: a\nname: x\n--- foo\nschema: b\n");
    assert_eq!(
        err,
        LoadError::Separator {
            file: "x.yaml".into(),
            line: 3,
            text: "foo".into()
        }
    );
    assert!(
        err.to_string()
            .starts_with("x.yaml: line 3: invalid YAML document separator")
    );
}

#[test]
fn an_empty_array_is_not_an_object() {
    let err = parse_err("x.yaml", "[]");
    assert_eq!(
        err,
        LoadError::NotAnObject {
            origin: Origin {
                file: "x.yaml".into(),
                document: 1,
                line: 1
            },
            found: "an array"
        }
    );
    assert_eq!(
        err.to_string(),
        "x.yaml: document 1 (line 1): a catalog object must be a JSON object, found an array"
    );
}

#[test]
fn a_scalar_document_is_not_an_object() {
    let result = parse_file("README.md", "# Title\n\nSome text.\n");
    assert!(
        matches!(
            result.errors.as_slice(),
            [LoadError::NotAnObject { origin, found: "a string" }] if &*origin.file == "README.md" && origin.line == 3
        ),
        "{:?}",
        result.errors
    );
}

#[test]
fn a_mapping_without_schema_loads_as_a_blob_with_an_empty_schema() {
    let result = parse_ok("x.yaml", "hello: world");
    assert_eq!(result.blobs.len(), 1);
    let b = &result.blobs[0];
    assert_eq!(
        (b.schema.as_str(), b.package.as_str(), b.name.as_str()),
        ("", "", "")
    );
    assert_eq!(b.value, json!({"hello": "world"}));
}

#[test]
fn text_that_is_neither_yaml_nor_json_is_a_yaml_error_naming_file_and_line() {
    let err = parse_err("bad.yaml", "[This is not yaml or json.}");
    match &err {
        LoadError::Yaml {
            file,
            document,
            line,
            message,
        } => {
            assert_eq!((file.as_str(), *document, *line), ("bad.yaml", 1, 1));
            assert!(!message.contains(" at byte "), "{message}");
        }
        other => panic!("expected a YAML error, got {other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("bad.yaml: document 1 (line 1): invalid YAML: ")
    );
}

#[test]
fn a_yaml_error_in_a_later_document_reports_its_line_in_the_file() {
    let result = parse_file(
        "x.yaml",
        "schema: a\n---\nschema: b\nname: [unclosed\nother: x\n",
    );
    assert_eq!(summary(&result), [("a", "", 1, 1)]);
    match result.errors.as_slice() {
        [
            LoadError::Yaml {
                document: 2, line, ..
            },
        ] => assert_eq!(*line, 5, "the line of `other: x` in the file"),
        other => panic!("expected one YAML error in document 2, got {other:?}"),
    }
}

#[test]
fn an_unquoted_yaml_timestamp_stays_a_string_and_yes_is_true() {
    let result = parse_ok(
        "x.yaml",
        "schema: s\ncreated: 2026-01-26T17:53:29Z\nday: 2026-01-26\nflag: yes\noff: no\nquoted: \"yes\"\n",
    );
    let v = &result.blobs[0].value;
    assert_eq!(v["created"], json!("2026-01-26T17:53:29Z"));
    assert_eq!(v["day"], json!("2026-01-26"));
    assert_eq!(v["flag"], json!(true));
    assert_eq!(v["quoted"], json!("yes"));
    // a YAML 1.1 boolean key becomes the string "false", as sigs.k8s.io/yaml writes it
    assert_eq!(v["false"], json!(false));
}

#[test]
fn blob_json_is_normalized_with_sorted_keys() {
    let result = parse_ok("x.yaml", "schema: s\nb: 1\na: {d: x, c: [1, 2]}\n");
    assert_eq!(
        result.blobs[0].normalized_json(),
        r#"{"a":{"c":[1,2],"d":"x"},"b":1,"schema":"s"}"#
    );
}

/// go-yaml skips a UTF-8 byte-order mark at the start of a stream, so the reference
/// loads such files; here the mark becomes part of the first key (`\u{feff}schema`).
#[test]
fn a_leading_byte_order_mark_is_ignored() {
    let yaml = parse_ok("bom.yaml", "\u{feff}schema: olm.package\nname: foo\n");
    assert_eq!(summary(&yaml), [("olm.package", "foo", 1, 1)]);
    let separated = parse_ok("bom.yaml", "\u{feff}---\nschema: olm.package\nname: foo\n");
    assert_eq!(separated.blobs.len(), 1);
    assert_eq!(separated.blobs[0].schema, "olm.package");
    let json = parse_ok(
        "bom.json",
        "\u{feff}{\"schema\":\"olm.package\",\"name\":\"foo\"}",
    );
    assert_eq!(summary(&json), [("olm.package", "foo", 1, 1)]);
}
