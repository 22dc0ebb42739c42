//! `fbc-registry filter` on the bundled example catalog: the stream, the
//! directory (unchanged files copied byte for byte), `--explain`, `--images`,
//! and the failures that write nothing.

use crate::harness::process::BIN;
use std::path::{Path, PathBuf};
use std::process::Command;

const HEAD: &str =
    "apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\n";

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn filter(dir: &Path, body: &str, extra: &[&str]) -> Run {
    let config = dir.join("filter.yaml");
    std::fs::write(&config, format!("{HEAD}{body}")).unwrap();
    let out = Command::new(BIN)
        .arg("filter")
        .arg(example())
        .arg("--config")
        .arg(&config)
        .args(extra)
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// `validate DIR` accepts the directory.
fn assert_validates(dir: &Path) {
    let out = Command::new(BIN).arg("validate").arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Every file under `root`, relative, sorted.
fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn heads_only_streams_the_heads_and_the_dependency_they_need() {
    let dir = tempfile::tempdir().unwrap();
    let run = filter(
        dir.path(),
        "packages:\n  - name: example-operator\n",
        &["--explain"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let names: Vec<String> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["schema"] == "olm.bundle")
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "example-dependency.v1.1.0",
            "example-operator.v0.3.0",
            "example-operator.v1.0.0"
        ]
    );
    assert!(run.stderr.contains(
        "example-dependency/example-dependency.v1.1.0: kept (dependency) [stable]: example-operator/example-operator.v1.0.0 depends on it"
    ), "{}", run.stderr);
    assert!(run.stderr.contains(
        "example-operator/example-operator.v0.1.0: dropped: not a channel head (heads only)"
    ));
    // The stream is a catalog: validate reads it back.
    let out_dir = dir.path().join("stream");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("catalog.json"), &run.stdout).unwrap();
    assert_validates(&out_dir);
}

#[test]
fn a_full_filter_writes_the_catalog_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = filter(
        dir.path(),
        "full: true\npackages:\n  - name: example-operator\n  - name: example-dependency\n",
        &["--output-dir", out.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    // The catalog's files (the walk skips README.md and .indexignore'd ones).
    for rel in files(&out) {
        let a = std::fs::read(example().join(&rel)).unwrap();
        let b = std::fs::read(out.join(&rel)).unwrap();
        assert_eq!(a, b, "{} differs", rel.display());
    }
    assert!(out.join("example-operator/catalog.yaml").is_file());
    assert!(out.join("example-dependency/catalog.json").is_file());
}

#[test]
fn a_changed_yaml_file_is_rewritten_as_a_json_stream_that_validates() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let images = dir.path().join("images.json");
    let run = filter(
        dir.path(),
        "packages:\n  - name: example-operator\n    channels:\n      - name: stable\n",
        &[
            "--output-dir",
            out.to_str().unwrap(),
            "--images",
            images.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let yaml = std::fs::read_to_string(out.join("example-operator/catalog.yaml")).unwrap();
    assert!(yaml.starts_with('{') && yaml.lines().count() > 3, "{yaml}");
    assert_validates(&out);
    let list: serde_json::Value = serde_json::from_slice(&std::fs::read(&images).unwrap()).unwrap();
    let refs: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["image"].as_str().unwrap())
        .collect();
    assert!(
        refs.contains(&"quay.io/example/example-operator-bundle:v1.0.0"),
        "{refs:?}"
    );
    let unpinned = list
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["image"] == "quay.io/example/example-operator-bundle:v1.0.0")
        .unwrap();
    assert_eq!(unpinned["pinned"], false);
    assert!(run.stderr.contains("is not pinned by digest"));
}

#[test]
fn a_bad_filter_writes_nothing_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = filter(
        dir.path(),
        "packages:\n  - name: example-operator\n    channels:\n      - name: beta\n",
        &["--output-dir", out.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .contains("the default channel \"stable\" is filtered out"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    let run = filter(dir.path(), "packages:\n  - name: example-operprator\n", &[]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("did you mean example-operator"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn an_output_directory_that_holds_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "mine").unwrap();
    let run = filter(
        dir.path(),
        "packages:\n  - name: example-operator\n",
        &["--output-dir", out.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("not empty"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(out.join("keep.txt")).unwrap(),
        "mine"
    );
}
