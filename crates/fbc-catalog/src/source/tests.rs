//! Unit tests of the loader: file parsing (JSON streams, YAML documents, the meta
//! envelope) and the directory walk (order, `.indexignore`, `ConfigMap` layout), as the
//! reference loader behaves (spec §2 and the loader cases of §7.6), plus properties
//! that must hold for any input (no panics).

use super::*;
use proptest::prelude::*;
use serde_json::json;
use std::fs;

/// (schema, name, document, line) of every blob.
fn summary(result: &FileResult) -> Vec<(&str, &str, usize, usize)> {
    result
        .blobs
        .iter()
        .map(|b| {
            (
                b.schema.as_str(),
                b.name.as_str(),
                b.origin.document,
                b.origin.line,
            )
        })
        .collect()
}

/// Parses text that must load without errors.
fn parse_ok(file: &str, text: &str) -> FileResult {
    let result = parse_file(file, text);
    assert!(
        result.errors.is_empty(),
        "unexpected errors: {:?}",
        result.errors
    );
    result
}

/// Parses text that must fail with exactly one error.
fn parse_err(file: &str, text: &str) -> LoadError {
    let mut result = parse_file(file, text);
    assert_eq!(result.errors.len(), 1, "errors: {:?}", result.errors);
    result.errors.remove(0)
}

// ---------------------------------------------------------------------------------
// JSON streams

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

// ---------------------------------------------------------------------------------
// YAML documents

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

// ---------------------------------------------------------------------------------
// The meta envelope

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

// ---------------------------------------------------------------------------------
// Directory walk

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, text).expect("write");
}

fn blob_doc(name: &str) -> String {
    format!("schema: test\nname: {name}\n")
}

fn names(loaded: &Loaded) -> Vec<&str> {
    loaded.blobs.iter().map(|b| b.name.as_str()).collect()
}

fn files(loaded: &Loaded) -> Vec<&str> {
    loaded.files.iter().map(|f| f.rel.as_str()).collect()
}

#[test]
fn files_are_walked_depth_first_in_byte_order_of_their_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    for rel in [
        "ab.yaml",
        "a.yaml",
        "a-b.yaml",
        "a/c/d.yaml",
        "a/b.yaml",
        "B.yaml",
        "a/Z.json",
    ] {
        write(dir.path(), rel, &blob_doc(rel));
    }
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let expected = [
        "B.yaml",
        "a/Z.json",
        "a/b.yaml",
        "a/c/d.yaml",
        "a-b.yaml",
        "a.yaml",
        "ab.yaml",
    ];
    assert_eq!(names(&loaded), expected);
    assert_eq!(files(&loaded), expected);
    let origins: Vec<&str> = loaded.blobs.iter().map(|b| &*b.origin.file).collect();
    assert_eq!(origins, expected);
}

#[test]
fn file_sizes_are_recorded_in_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.yaml", "schema: a\n");
    write(dir.path(), "sub/empty.yaml", "");
    let loaded = load_dir(dir.path());
    let sizes: Vec<(&str, u64)> = loaded
        .files
        .iter()
        .map(|f| (f.rel.as_str(), f.size))
        .collect();
    assert_eq!(sizes, [("a.yaml", 10), ("sub/empty.yaml", 0)]);
    assert_eq!(
        loaded.files[0].hash,
        xxhash_rust::xxh3::xxh3_128(b"schema: a\n")
    );
}

#[test]
fn blobs_of_several_documents_keep_file_then_document_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "b.yaml",
        "schema: t\nname: b1\n---\nschema: t\nname: b2\n",
    );
    write(
        dir.path(),
        "a.json",
        "{\"schema\":\"t\",\"name\":\"a1\"}\n{\"schema\":\"t\",\"name\":\"a2\"}\n",
    );
    let loaded = load_dir(dir.path());
    assert_eq!(names(&loaded), ["a1", "a2", "b1", "b2"]);
    assert_eq!(loaded.blobs[3].origin.document, 2);
    assert_eq!(loaded.blobs[3].origin.line, 4);
}

#[test]
fn indexignore_patterns_hide_readmes_and_csv_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        ".indexignore",
        "# keep only catalog files\n*\n!*.json\n!*.yaml\n*.clusterserviceversion.yaml\n",
    );
    write(dir.path(), "README.md", "# Catalog\n\nNot FBC.\n");
    write(
        dir.path(),
        "x.clusterserviceversion.yaml",
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n",
    );
    write(dir.path(), "catalog.yaml", &blob_doc("yaml"));
    write(
        dir.path(),
        "sub/catalog.json",
        "{\"schema\":\"test\",\"name\":\"json\"}",
    );
    write(dir.path(), "sub/notes.txt", "[not, fbc\n");
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(files(&loaded), ["catalog.yaml", "sub/catalog.json"]);
    assert_eq!(names(&loaded), ["yaml", "json"]);
}

#[test]
fn a_non_fbc_file_that_is_not_ignored_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "catalog.yaml", &blob_doc("ok"));
    write(dir.path(), "docs/README.md", "# Catalog\n\nNot FBC.\n");
    let loaded = load_dir(dir.path());
    assert_eq!(names(&loaded), ["ok"]);
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    let shown = loaded.errors[0].to_string();
    assert!(shown.starts_with("docs/README.md: document 1"), "{shown}");
}

#[test]
fn an_invalid_ignore_pattern_is_reported_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "sub/.indexignore", "# fine\n[z-a\n");
    write(dir.path(), "catalog.yaml", &blob_doc("ok"));
    let loaded = load_dir(dir.path());
    assert!(loaded.blobs.is_empty());
    assert!(
        matches!(
            loaded.errors.as_slice(),
            [LoadError::IgnorePattern { path, line: 2, .. }] if path == "sub/.indexignore"
        ),
        "{:?}",
        loaded.errors
    );
}

/// Rules are evaluated in the order the walk collects the `.indexignore` files and
/// the last match wins, so a child's rules must come after its parent's. The walk
/// visits `-sub` (0x2d) before the root's `.indexignore` (0x2e), so the root's `*.md`
/// is evaluated last and overrides the child's `!keep.md`.
#[test]
fn a_child_indexignore_overrides_its_parent_whatever_the_directory_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), ".indexignore", "*.md\n");
    for sub in ["sub", "-sub"] {
        write(dir.path(), &format!("{sub}/.indexignore"), "!keep.md\n");
        write(dir.path(), &format!("{sub}/keep.md"), &blob_doc(sub));
    }
    write(dir.path(), "drop.md", "not fbc");
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(files(&loaded), ["-sub/keep.md", "sub/keep.md"]);
}

#[test]
fn a_missing_root_is_an_io_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("nope");
    let loaded = load_dir(&root);
    assert!(loaded.blobs.is_empty() && loaded.files.is_empty());
    assert!(
        matches!(
            loaded.errors.as_slice(),
            [LoadError::Io { path, .. }] if path == &root.display().to_string()
        ),
        "{:?}",
        loaded.errors
    );
}

#[test]
fn a_root_that_is_a_file_is_an_io_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "catalog.yaml", &blob_doc("x"));
    let loaded = load_dir(&dir.path().join("catalog.yaml"));
    assert!(loaded.blobs.is_empty());
    assert!(
        matches!(
            loaded.errors.as_slice(),
            [LoadError::Io { message, .. }] if message == "not a directory"
        ),
        "{:?}",
        loaded.errors
    );
}

#[test]
fn an_empty_root_loads_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let loaded = load_dir(dir.path());
    assert!(loaded.blobs.is_empty() && loaded.errors.is_empty() && loaded.files.is_empty());
}

#[test]
fn invalid_utf8_in_yaml_is_an_error_naming_its_offset_as_go_yaml_rejects_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("x.yaml"), b"schema: t\nname: caf\xff\n").expect("write");
    let loaded = load_dir(dir.path());
    assert!(loaded.blobs.is_empty());
    assert!(
        matches!(loaded.errors.as_slice(), [LoadError::ForbiddenCharacter { file, line: 2, offset: 19, .. }] if file == "x.yaml"),
        "{:?}",
        loaded.errors
    );
    assert_eq!(
        (loaded.files[0].rel.as_str(), loaded.files[0].size),
        ("x.yaml", 21)
    );
}

#[test]
fn invalid_utf8_in_json_is_read_lossily_as_go_json_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(
        dir.path().join("x.json"),
        b"{\"schema\": \"t\", \"name\": \"caf\xff\"}",
    )
    .expect("write");
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(names(&loaded), ["caf\u{fffd}"]);
}

#[test]
fn directories_starting_with_two_dots_are_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "..2024_01_01/catalog.yaml", &blob_doc("hidden"));
    write(dir.path(), "..data/catalog.yaml", &blob_doc("hidden too"));
    write(dir.path(), ".hidden/catalog.yaml", &blob_doc("dot dir"));
    write(dir.path(), "..file.yaml", &blob_doc("dot-dot file"));
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(names(&loaded), ["dot-dot file", "dot dir"]);
}

#[cfg(unix)]
mod symlinks {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_configmap_volume_loads_each_blob_exactly_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(
            root,
            "..2024_01_01/catalog.yaml",
            "schema: olm.package\nname: foo\n---\nschema: test\nname: second\n",
        );
        symlink("..2024_01_01", root.join("..data")).expect("symlink");
        symlink("..data/catalog.yaml", root.join("catalog.yaml")).expect("symlink");
        let loaded = load_dir(root);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert_eq!(names(&loaded), ["foo", "second"]);
        assert_eq!(files(&loaded), ["catalog.yaml"]);
        assert_eq!(&*loaded.blobs[1].origin.file, "catalog.yaml");
    }

    #[test]
    fn a_directory_reached_twice_is_read_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "a/catalog.yaml", &blob_doc("x"));
        symlink("a", dir.path().join("b")).expect("symlink");
        let loaded = load_dir(dir.path());
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert_eq!(files(&loaded), ["a/catalog.yaml"]);
    }

    #[test]
    fn a_symlink_loop_terminates() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "a/catalog.yaml", &blob_doc("x"));
        symlink("..", dir.path().join("a/up")).expect("symlink");
        symlink(".", dir.path().join("a/self")).expect("symlink");
        let loaded = load_dir(dir.path());
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert_eq!(names(&loaded), ["x"]);
    }

    #[test]
    fn a_dangling_symlink_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), "catalog.yaml", &blob_doc("x"));
        symlink("nowhere.yaml", dir.path().join("broken.yaml")).expect("symlink");
        let loaded = load_dir(dir.path());
        assert!(
            matches!(loaded.errors.as_slice(), [LoadError::Io { path, .. }] if path == "broken.yaml"),
            "{:?}",
            loaded.errors
        );
    }

    /// Editors leave dangling symlinks next to files being edited (Emacs lock files
    /// `.#name`). The reference skips ignored entries before opening them; here the
    /// walk stats every entry first, so an ignored dangling symlink fails the load.
    #[test]

    fn an_ignored_dangling_symlink_is_not_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), ".indexignore", ".#*\n");
        write(dir.path(), "catalog.yaml", &blob_doc("x"));
        symlink(
            "user@host.1234:1700000000",
            dir.path().join(".#catalog.yaml"),
        )
        .expect("symlink");
        let loaded = load_dir(dir.path());
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        assert_eq!(names(&loaded), ["x"]);
    }
}

// ---------------------------------------------------------------------------------
// No panics, whatever the input

const YAML_CATALOG: &str = "---
schema: olm.package
name: foo
defaultChannel: alpha
---
schema: olm.channel
package: foo
name: alpha
entries:
  - name: foo.v0.1.0
  - name: foo.v0.2.0
    replaces: foo.v0.1.0
    skipRange: '< 0.2.0'
---
schema: olm.bundle
package: foo
name: foo.v0.1.0
image: quay.io/foo/bundle:v0.1.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 0.1.0}
  - type: olm.bundle.object
    value: {data: eyJraW5kIjoiQ2x1c3RlclNlcnZpY2VWZXJzaW9uIn0=}
---
schema: olm.bundle
package: foo
name: foo.v0.2.0
image: quay.io/foo/bundle:v0.2.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 0.2.0}
---
schema: olm.deprecations
package: foo
entries:
  - reference: {schema: olm.bundle, name: foo.v0.1.0}
    message: old
";

const JSON_CATALOG: &str = r#"{"schema":"olm.package","name":"foo","defaultChannel":"alpha"}
{"schema":"olm.channel","package":"foo","name":"alpha","entries":[{"name":"foo.v0.1.0"},{"name":"foo.v0.2.0","replaces":"foo.v0.1.0","skips":["foo.v0.0.9"]}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v0.1.0","image":"quay.io/foo/bundle:v0.1.0","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0"}}],"relatedImages":[{"name":"op","image":"quay.io/foo/op@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v0.2.0","image":"quay.io/foo/bundle:v0.2.0","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.2.0"}},{"type":"olm.csv.metadata","value":{"displayName":"Foo"}}]}
{"schema":"my-schema","package":"foo","name":"custom"}
"#;

#[test]
fn the_fuzz_seed_catalogs_are_valid() {
    for (file, text) in [("c.yaml", YAML_CATALOG), ("c.json", JSON_CATALOG)] {
        let result = parse_ok(file, text);
        let loaded = Loaded {
            blobs: result.blobs,
            errors: result.errors,
            files: vec![],
        };
        if let Err(diags) = crate::model::build(loaded) {
            panic!("{file}: {diags:?}");
        }
    }
}

/// Parses `text` and builds a model from whatever loaded; only panics matter.
fn load_and_build(text: &str) {
    let result = parse_file("fuzz.yaml", text);
    for b in &result.blobs {
        assert_eq!(&*b.origin.file, "fuzz.yaml");
        assert!(b.origin.document >= 1 && b.origin.line >= 1);
    }
    let loaded = Loaded {
        blobs: result.blobs,
        errors: result.errors,
        files: vec![],
    };
    let _ = crate::model::build(loaded);
}

/// Applies one mutation: 0 replaces a byte, 1 deletes one, 2 inserts one, 3 truncates.
fn mutate(seed: &str, kind: u8, at: usize, byte: u8) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    let at = at % (bytes.len() + 1);
    match kind % 4 {
        0 if at < bytes.len() => bytes[at] = byte,
        1 if at < bytes.len() => {
            bytes.remove(at);
        }
        2 => bytes.insert(at, byte),
        _ => bytes.truncate(at),
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Bytes that matter to YAML and JSON syntax, to make mutations interesting.
fn syntax_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        proptest::sample::select(b"{}[],:-#&*!|>'\"\n\t ?%@`\\.0~".to_vec()),
        any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn parse_file_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        load_and_build(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn parse_file_never_panics_on_a_mutated_yaml_catalog(kind in 0u8..4, at in any::<usize>(), byte in syntax_byte()) {
        load_and_build(&mutate(YAML_CATALOG, kind, at, byte));
    }

    #[test]
    fn parse_file_never_panics_on_a_mutated_json_catalog(kind in 0u8..4, at in any::<usize>(), byte in syntax_byte()) {
        load_and_build(&mutate(JSON_CATALOG, kind, at, byte));
    }

    #[test]
    fn parse_file_never_panics_on_several_mutations(
        json_seed in any::<bool>(),
        edits in proptest::collection::vec((0u8..4, any::<usize>(), syntax_byte()), 1..6),
    ) {
        let mut text = if json_seed { JSON_CATALOG } else { YAML_CATALOG }.to_string();
        for (kind, at, byte) in edits {
            text = mutate(&text, kind, at, byte);
        }
        load_and_build(&text);
    }

    #[test]
    fn parse_file_never_panics_on_yaml_like_token_soup(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "---", "\n", " ", "  ", "- ", ": ", "{", "}", "[", "]", ",", "#", "&a ", "*a", "<<: ",
            "schema", "olm.package", "name", "\"", "'", "|", ">", "!!str ", "? ", "...", "\t", "{\"k\": 1}",
        ]), 0..40),
    ) {
        load_and_build(&tokens.concat());
    }
}
