//! JSON streams: one blob per value, with its document number and line; malformed
//! and non-object values; text starting with `{` that is YAML.

use super::*;

#[test]
fn a_json_stream_of_pretty_printed_objects_gives_one_blob_per_value_with_document_and_line() {
    let text = r#"{
  "schema": "olm.package",
  "name": "foo"
}
{
  "schema": "olm.channel",
  "package": "foo",
  "name": "alpha",
  "entries": [
    {"name": "foo.v0.1.0"}
  ]
}

  {"schema": "olm.bundle", "package": "foo", "name": "foo.v0.1.0"}
"#;
    let result = parse_ok("foo/catalog.json", text);
    assert_eq!(
        summary(&result),
        [
            ("olm.package", "foo", 1, 1),
            ("olm.channel", "alpha", 2, 5),
            ("olm.bundle", "foo.v0.1.0", 3, 14),
        ]
    );
    assert_eq!(&*result.blobs[0].origin.file, "foo/catalog.json");
    assert_eq!(result.blobs[1].package, "foo");
    assert_eq!(result.blobs[1].value["entries"][0]["name"], "foo.v0.1.0");
}

#[test]
fn json_values_may_share_a_line_and_follow_leading_blank_lines() {
    let text = "  \n\n{\"schema\":\"a\"}  {\"schema\":\"b\"}\n\n\n{\"schema\":\"c\"}";
    assert_eq!(
        summary(&parse_ok("x.json", text)),
        [("a", "", 1, 3), ("b", "", 2, 3), ("c", "", 3, 6)]
    );
}

#[test]
fn a_malformed_second_json_value_is_reported_with_document_2_and_its_line() {
    let text = "{\"schema\": \"a\"}\n{\"schema\": \"b\",\n \"name\": }\n";
    let result = parse_file("bad.json", text);
    assert_eq!(summary(&result), [("a", "", 1, 1)]);
    assert_eq!(result.errors.len(), 1, "{:?}", result.errors);
    match &result.errors[0] {
        LoadError::Json {
            file,
            document,
            line,
            ..
        } => assert_eq!((file.as_str(), *document, *line), ("bad.json", 2, 3)),
        other => panic!("expected a JSON error, got {other:?}"),
    }
    let shown = result.errors[0].to_string();
    assert!(
        shown.starts_with("bad.json: document 2 (line 3, column ")
            && shown.contains("invalid JSON"),
        "{shown}"
    );
    assert!(
        !shown.contains(" at line "),
        "position is not repeated: {shown}"
    );
}

#[test]
fn a_non_object_json_value_after_an_object_is_not_an_object() {
    let result = parse_file("x.json", "{\"schema\":\"a\"}\n[1]");
    assert_eq!(summary(&result), [("a", "", 1, 1)]);
    assert_eq!(
        result.errors,
        [LoadError::NotAnObject {
            origin: Origin {
                file: "x.json".into(),
                document: 2,
                line: 2
            },
            found: "an array"
        }]
    );
}

#[test]
fn text_starting_with_a_brace_that_is_not_json_is_read_as_yaml() {
    let result = parse_ok("flow.yaml", "{schema: olm.package, name: foo}\n");
    assert_eq!(summary(&result), [("olm.package", "foo", 1, 1)]);
}

#[test]
fn text_starting_with_a_brace_that_is_neither_json_nor_yaml_is_a_json_error() {
    let err = parse_err("bad.json", "{\"schema\": \"a\",, }\n");
    assert!(
        matches!(&err, LoadError::Json { file, document: 1, line: 1, .. } if file == "bad.json"),
        "{err:?}"
    );
}

#[test]
fn an_exact_duplicate_json_key_keeps_the_last_value() {
    let result = parse_ok("x.json", "{\"schema\":\"a\",\"schema\":\"b\"}");
    assert_eq!(result.blobs[0].schema, "b");
}
