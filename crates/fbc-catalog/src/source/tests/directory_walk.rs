//! The directory walk: file order, sizes, `.indexignore` rules, errors naming the
//! root or the file, invalid UTF-8, and symlinks (`ConfigMap` volumes, loops).

use super::*;

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
