//! `compose` with references on a real registry: the catalog directory and its lock made;
//! a second run renders nothing; a moved tag re-renders only its reference; a dropped
//! reference disappears; a missing image or a result that does not validate leaves the
//! previous catalog as it was.

use crate::distribution::{Auth, Registry, catalog_layer};
use crate::process::BIN;
use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TESTS: &[crate::support::NamedTest<PathBuf>] = &[(
    "compose_renders_each_reference_once_and_keeps_the_last_good_catalog",
    compose_renders_each_reference_once_and_keeps_the_last_good_catalog,
)];

fn compose(config: &Path) -> (bool, String) {
    let out = Command::new(BIN)
        .args(["compose", config.to_str().expect("utf-8"), "--no-cache"])
        .env("HOME", "/nonexistent")
        .output()
        .expect("run");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(tree(&path).into_iter().map(|(n, b)| {
                (
                    format!("{}/{n}", path.file_name().expect("n").to_string_lossy()),
                    b,
                )
            }));
        } else {
            out.push((
                path.file_name().expect("n").to_string_lossy().into_owned(),
                std::fs::read(&path).expect("read"),
            ));
        }
    }
    out.sort();
    out
}

fn compose_renders_each_reference_once_and_keeps_the_last_good_catalog(
    _: PathBuf,
) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    let sources = tempfile::tempdir().expect("tempdir");
    for (package, version, tag) in [
        ("alpha", "1.0.0", "v1"),
        ("beta", "1.0.0", "v1"),
        ("gamma", "2.0.0", "v1"),
        ("gamma", "2.1.0", "v2"),
    ] {
        let dir = sources.path().join(format!("{package}-{tag}"));
        catalog_dir(&dir, package, version);
        crate::support::block_on(async {
            registry
                .push_image(
                    &format!("catalogs/{package}"),
                    tag,
                    &[LABEL],
                    &[catalog_layer(&dir)],
                )
                .await;
        })
        .expect("runtime");
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let config = scratch.path().join("catalog.yaml");
    let write = |refs: &[(&str, &str)]| {
        let mut text = String::from(
            "name: my-catalog\nrepo: quay.io/example/catalog\ntag: latest\nreferences:\n",
        );
        for (name, image) in refs {
            text.push_str(&format!(
                "- name: {name}\n  image: {host}/catalogs/{image}\n"
            ));
        }
        std::fs::write(&config, text).expect("config");
    };
    write(&[("alpha", "alpha:v1"), ("beta", "beta:v1")]);
    let (ok, said) = compose(&config);
    assert!(ok, "{said}");
    assert!(said.contains("2 rendered, 0 unchanged"), "{said}");
    let out = scratch.path().join("my-catalog");
    let first = tree(&out);
    assert_eq!(
        first.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["alpha/index.yaml", "beta/index.yaml"]
    );
    let lock: serde_json::Value = serde_json::from_slice(
        &std::fs::read(scratch.path().join("catalog.lock.json")).expect("lock"),
    )
    .expect("json");
    assert_eq!(lock["image"], "quay.io/example/catalog:latest");
    assert!(
        lock["references"]["alpha"]["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:")),
        "{lock}"
    );

    // Idempotent: nothing rendered, the same bytes.
    let (ok, said) = compose(&config);
    assert!(ok && said.contains("0 rendered, 2 unchanged"), "{said}");
    assert_eq!(tree(&out), first);

    // A reference whose image changes is rendered again; a dropped one goes.
    write(&[("alpha", "alpha:v1"), ("gamma", "gamma:v1")]);
    let (ok, said) = compose(&config);
    assert!(
        ok && said.contains("1 rendered, 1 unchanged, 1 removed"),
        "{said}"
    );
    let names: Vec<String> = tree(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["alpha/index.yaml", "gamma/index.yaml"]);
    // A tag moved to another image: only that reference is rendered.
    write(&[("alpha", "alpha:v1"), ("gamma", "gamma:v2")]);
    let (ok, said) = compose(&config);
    assert!(
        ok && said.contains("1 rendered, 1 unchanged, 0 removed"),
        "{said}"
    );
    let gamma = String::from_utf8(std::fs::read(out.join("gamma/index.yaml")).expect("read"))
        .expect("utf-8");
    assert!(gamma.contains("2.1.0"), "{gamma}");
    let good = tree(&out);

    // A missing image, and a result that does not validate (one package twice): refused,
    // the catalog left as it was.
    write(&[("alpha", "alpha:v1"), ("gamma", "gamma:missing")]);
    let (ok, said) = compose(&config);
    assert!(!ok && said.contains("gamma"), "{said}");
    assert_eq!(tree(&out), good);
    write(&[("alpha", "alpha:v1"), ("again", "alpha:v1")]);
    let (ok, said) = compose(&config);
    assert!(!ok && said.contains("does not validate"), "{said}");
    assert_eq!(tree(&out), good);
    // Hostile names are refused before anything is written.
    std::fs::write(&config, "name: ../escape\nreferences: []\n").expect("config");
    let (ok, said) = compose(&config);
    assert!(!ok && said.contains("one path component"), "{said}");
    assert!(
        !scratch
            .path()
            .parent()
            .expect("parent")
            .join("escape")
            .exists()
    );
    Ok(())
}

const LABEL: (&str, &str) = (
    "operators.operatorframework.io.index.configs.v1",
    "/configs",
);

/// A one-bundle catalog of `package` at `version`.
fn catalog_dir(dir: &Path, package: &str, version: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let name = format!("{package}.v{version}");
    let blobs = [
        serde_json::json!({"schema": "olm.package", "name": package, "defaultChannel": "stable"}),
        serde_json::json!({"schema": "olm.channel", "name": "stable", "package": package, "entries": [{"name": name}]}),
        serde_json::json!({"schema": "olm.bundle", "name": name, "package": package, "image": format!("quay.io/example/{package}:{version}"),
            "properties": [{"type": "olm.package", "value": {"packageName": package, "version": version}}]}),
    ];
    let text: String = blobs.iter().map(|b| format!("{b}\n")).collect();
    std::fs::write(dir.join("catalog.json"), text).expect("write");
}
