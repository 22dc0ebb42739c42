//! The loader against hostile input: special files, limits, forbidden characters,
//! deep and wide trees, and properties over arbitrary bytes and nesting (never a
//! panic, output bounded by input plus the alias budget).

use crate::source::limits::{Limit, ParseLimits};
use crate::source::*;
use proptest::prelude::*;
use std::fs;

fn write(root: &Path, rel: &str, text: &[u8]) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, text).expect("write");
}

fn limits(f: impl FnOnce(&mut ParseLimits)) -> ParseLimits {
    let mut l = ParseLimits::default();
    f(&mut l);
    l
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: mkfifo reads a NUL-terminated path and creates a FIFO.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0, "mkfifo");
}

#[cfg(unix)]
#[test]
fn a_fifo_in_the_tree_is_an_error_naming_it_and_the_walk_does_not_block() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "pkg/catalog.yaml", b"schema: a\n");
    mkfifo(&dir.path().join("pkg/pipe.yaml"));
    let loaded = load_dir(dir.path());
    assert!(
        matches!(loaded.errors.as_slice(), [LoadError::NotRegular { path, found: "a FIFO" }] if path == "pkg/pipe.yaml"),
        "{:?}",
        loaded.errors
    );
}

#[cfg(unix)]
#[test]
fn a_special_file_that_indexignore_excludes_is_no_error() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "catalog.yaml", b"schema: a\n");
    write(dir.path(), ".indexignore", b"*.sock\n");
    mkfifo(&dir.path().join("x.sock"));
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.blobs.len(), 1);
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_device_is_an_error_naming_the_link() {
    let dir = tempfile::tempdir().expect("tmp");
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.yaml")).expect("symlink");
    let loaded = load_dir(dir.path());
    assert!(
        matches!(loaded.errors.as_slice(), [LoadError::NotRegular { path, found: "a character device" }] if path == "zero.yaml"),
        "{:?}",
        loaded.errors
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_as_indexignore_is_refused_not_read() {
    let dir = tempfile::tempdir().expect("tmp");
    mkfifo(&dir.path().join(".indexignore"));
    let loaded = load_dir(dir.path());
    assert!(
        matches!(loaded.errors.as_slice(), [LoadError::NotRegular { path, .. }] if path == ".indexignore"),
        "{:?}",
        loaded.errors
    );
}

#[cfg(unix)]
#[test]
fn a_directory_symlink_cycle_is_walked_once() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "a/catalog.yaml", b"schema: a\n");
    std::os::unix::fs::symlink("..", dir.path().join("a/up")).expect("symlink");
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.blobs.len(), 1);
}

#[test]
fn a_deep_directory_tree_is_walked_without_recursion() {
    let dir = tempfile::tempdir().expect("tmp");
    let rel: String = (0..400).map(|_| "d/").collect::<String>() + "catalog.yaml";
    write(dir.path(), &rel, b"schema: a\n");
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.files[0].rel, rel);
}

#[test]
fn many_directories_keep_walk_order() {
    let dir = tempfile::tempdir().expect("tmp");
    for i in (0..300).rev() {
        write(
            dir.path(),
            &format!("p{i:03}/catalog.yaml"),
            format!("schema: a\nname: n{i:03}\n").as_bytes(),
        );
    }
    let loaded = load_dir(dir.path());
    let names: Vec<&str> = loaded.blobs.iter().map(|b| b.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 300);
}

#[test]
fn a_file_over_the_size_limit_is_a_limit_error_without_being_parsed() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "big.yaml", &b"x".repeat(2000));
    let loaded = load_dir_with(
        dir.path(),
        &limits(|l| l.max_file_bytes = 1000),
        |_: &mut (), b| b,
    );
    assert!(
        matches!(loaded.errors.as_slice(), [LoadError::Limit { file, limit: Limit::FileSize, .. }] if file == "big.yaml"),
        "{:?}",
        loaded.errors
    );
    assert!(loaded.errors[0].to_string().contains("--max-file-size"));
}

/// Parses a file whose second of three documents is too large: the others load,
/// and the error names document 2 at `line`.
#[track_caller]
fn second_document_too_large(file: &str, text: &str, line: usize) {
    let result = parse_file_with(
        file,
        text.as_bytes(),
        &limits(|l| l.max_document_bytes = 100),
    );
    let names: Vec<&str> = result.blobs.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["one", "three"]);
    assert!(
        matches!(
            result.errors.as_slice(),
            [LoadError::Limit { document: Some(2), line: Some(l), limit: Limit::DocumentSize, .. }] if *l == line
        ),
        "{:?}",
        result.errors
    );
}

#[test]
fn a_yaml_document_over_the_size_limit_is_an_error_and_the_others_load() {
    let big = format!("schema: a\nname: x\ndata: {}\n", "y".repeat(500));
    let text = format!("schema: a\nname: one\n---\n{big}---\nschema: a\nname: three\n");
    second_document_too_large("f.yaml", &text, 4);
}

#[test]
fn a_json_value_over_the_size_limit_is_an_error_and_the_others_load() {
    let text = format!(
        "{{\"schema\":\"a\",\"name\":\"one\"}}\n{{\"schema\":\"a\",\"name\":\"x\",\"d\":\"{}\"}}\n{{\"schema\":\"a\",\"name\":\"three\"}}",
        "y".repeat(500)
    );
    second_document_too_large("f.json", &text, 2);
}

#[test]
fn json_nesting_beyond_the_limit_is_a_depth_error_with_its_line() {
    let deep = format!("{}1{}", "[".repeat(20), "]".repeat(20));
    let text = format!("{{\"schema\":\"a\",\n\"v\":{deep}}}");
    let result = parse_file_with("f.json", text.as_bytes(), &limits(|l| l.max_depth = 10));
    assert!(
        matches!(
            result.errors.as_slice(),
            [LoadError::Limit {
                document: Some(1),
                line: Some(2),
                limit: Limit::Depth,
                ..
            }]
        ),
        "{:?}",
        result.errors
    );
    let ok = parse_file_with("f.json", text.as_bytes(), &limits(|l| l.max_depth = 21));
    assert!(ok.errors.is_empty(), "{:?}", ok.errors);
}

#[test]
fn json_deeper_than_the_parsers_own_ceiling_is_the_same_depth_error() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let text = format!("{{\"schema\":\"a\",\"v\":{deep}}}");
    let result = parse_file_with("f.json", text.as_bytes(), &ParseLimits::default());
    assert!(
        result.errors.iter().any(|e| matches!(
            e,
            LoadError::Limit {
                limit: Limit::Depth,
                ..
            }
        )),
        "{:?}",
        result.errors
    );
}

#[test]
fn a_yaml_file_of_3000_nested_sequences_is_a_depth_error() {
    let text = "- ".repeat(3000) + "x\n";
    let result = parse_file_with("deep.yaml", text.as_bytes(), &ParseLimits::default());
    assert!(
        matches!(
            result.errors.as_slice(),
            [LoadError::Limit {
                limit: Limit::Depth,
                ..
            }]
        ),
        "{:?}",
        result.errors
    );
}

#[test]
fn nul_inside_a_yaml_document_is_an_error_at_its_file_offset_and_nothing_is_dropped() {
    let text = b"schema: a\nname: one\n---\nschema: a\nname: tw\0o\ndata: after\n";
    let result = parse_file_with("nul.yaml", text, &ParseLimits::default());
    assert_eq!(result.blobs.len(), 1, "only the clean document loads");
    match result.errors.as_slice() {
        [
            LoadError::ForbiddenCharacter {
                file,
                document: Some(2),
                line: 5,
                offset,
                message,
            },
        ] => {
            assert_eq!(file, "nul.yaml");
            assert_eq!(*offset, 42);
            assert_eq!(text[*offset as usize], 0);
            assert!(message.contains("U+0000"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_file_starting_with_nul_is_an_error() {
    let result = parse_file_with("x.yaml", b"\0schema: a\n", &ParseLimits::default());
    assert!(result.blobs.is_empty());
    assert!(
        matches!(
            result.errors.as_slice(),
            [LoadError::ForbiddenCharacter { offset: 0, .. }]
        ),
        "{:?}",
        result.errors
    );
}

#[test]
fn nul_in_a_json_file_is_an_error() {
    let result = parse_file_with(
        "x.json",
        b"{\"schema\":\"a\"}\0{\"schema\":\"b\"}",
        &ParseLimits::default(),
    );
    assert_eq!(result.blobs.len(), 1);
    assert_eq!(result.errors.len(), 1, "{:?}", result.errors);
}

#[test]
fn an_envelope_error_echoes_only_a_prefix_of_a_huge_value() {
    let huge = "z".repeat(100_000);
    let text = format!("{{\"schema\": {{\"x\": \"{huge}\"}}}}");
    let result = parse_file_with("x.json", text.as_bytes(), &ParseLimits::default());
    let message = result.errors[0].to_string();
    assert!(message.len() < 400, "{} bytes", message.len());
    assert!(message.contains("bytes)"), "{message}");
}

/// Nodes in a JSON value, itself included (object keys count as nodes, as YAML's do).
fn nodes(v: &serde_json::Value) -> usize {
    let mut stack = vec![v];
    let mut n = 0;
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => {
                n += map.len();
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    n
}

fn nesting() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(vec![
            "[", "]", "{", "}", "a: ", "- ", "\n", "  ", ",", "&x ", "*x", "&y ", "*y", "<<: ",
            "\"k\":", "1", "? ", "\t", "\0", "\u{85}",
        ]),
        0..200,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_parse_or_fail_cleanly_as_yaml_or_json(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        json in any::<bool>(),
    ) {
        let mut bytes = bytes;
        if json {
            bytes.insert(0, b'{');
        }
        let tight = limits(|l| {
            l.max_depth = 8;
            l.max_alias_nodes = 50;
            l.max_document_bytes = 300;
        });
        let result = parse_file_with("f", &bytes, &tight);
        for blob in &result.blobs {
            // bounded memory: a blob holds no more nodes than its text had bytes,
            // plus what the alias budget allows to be copied
            prop_assert!(nodes(&blob.value) <= bytes.len() + tight.max_alias_nodes);
        }
    }

    #[test]
    fn any_nesting_respects_the_depth_limit_and_the_alias_budget(text in nesting(), depth in 1usize..12) {
        let tight = limits(|l| {
            l.max_depth = depth;
            l.max_alias_nodes = 40;
        });
        if let Ok(Some(v)) = yaml::document_to_json_with(&text, &tight) {
            prop_assert!(nodes(&v) <= text.len() + 1 + tight.max_alias_nodes);
            prop_assert!(json_depth(&v) <= depth);
        }
        let result = parse_file_with("f.json", format!("{{\"v\":{text}}}").as_bytes(), &tight);
        for blob in &result.blobs {
            prop_assert!(json_depth(&blob.value) <= depth);
        }
    }

    #[test]
    fn any_indexignore_text_compiles_or_is_an_error(text in "[ -~\n!*?/\\[\\]]{0,200}") {
        let dir = tempfile::tempdir().expect("tmp");
        write(dir.path(), ".indexignore", text.as_bytes());
        write(dir.path(), "a/b.yaml", b"schema: a\n");
        let _ = list_catalog_files(dir.path(), &ParseLimits::default());
    }
}

/// Collections nested in a value (the top-level object counts as 1).
fn json_depth(v: &serde_json::Value) -> usize {
    let mut stack = vec![(v, 0usize)];
    let mut max = 0;
    while let Some((v, d)) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
            serde_json::Value::Object(map) => stack.extend(map.values().map(|i| (i, d + 1))),
            _ => {}
        }
        max = max.max(match v {
            serde_json::Value::Array(_) | serde_json::Value::Object(_) => d + 1,
            _ => d,
        });
    }
    max
}
