//! `publish` with no container engine: to an OCI layout and to a real registry (one platform,
//! then two as an index), each read back by `validate` with the directory's digest, and the
//! image config's label, user, entrypoint and command checked.

use crate::distribution::{Auth, Registry};
use crate::process::BIN;
use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TESTS: &[crate::support::NamedTest<PathBuf>] = &[(
    "publish_writes_a_layout_and_pushes_one_and_two_platform_images",
    publish_writes_a_layout_and_pushes_one_and_two_platform_images,
)];

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("HOME", "/nonexistent")
        .output()
        .expect("run");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn catalog_digest(reference: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["validate", "-o", "json", reference];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = run(&args);
    assert!(ok, "{reference}: {stdout} {stderr}");
    serde_json::from_str::<serde_json::Value>(&stdout).expect("json")["digest"].clone()
}

fn blob(layout: &Path, digest: &str) -> serde_json::Value {
    let hex = digest.trim_start_matches("sha256:");
    serde_json::from_slice(&std::fs::read(layout.join("blobs/sha256").join(hex)).expect("blob"))
        .expect("json")
}

fn publish_writes_a_layout_and_pushes_one_and_two_platform_images(
    _: PathBuf,
) -> Result<(), Failed> {
    let example = example();
    let example_arg = example.to_str().expect("utf-8");
    let want = catalog_digest(example_arg, &[]);
    let scratch = tempfile::tempdir().expect("tempdir");
    let layout = scratch.path().join("layout");
    let target = format!("oci-layout:{}:v1", layout.display());
    // The test binary links libc dynamically: refused unless told it is only read.
    let (ok, _, stderr) = run(&["publish", example_arg, &target]);
    assert!(!ok && stderr.contains("dynamically linked"), "{stderr}");
    let (ok, stdout, stderr) = run(&[
        "publish",
        example_arg,
        &target,
        "--allow-dynamic-binary",
        "--label",
        "org.example=yes",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("sha256:"), "{stdout}");
    assert_eq!(catalog_digest(&target, &[]), want);
    // The image: two layers, the label, a non-root user, serve /configs with the cache.
    let top: serde_json::Value =
        serde_json::from_slice(&std::fs::read(layout.join("index.json")).expect("index"))
            .expect("json");
    let manifest = blob(
        &layout,
        top["manifests"][0]["digest"].as_str().expect("digest"),
    );
    assert_eq!(manifest["layers"].as_array().map(Vec::len), Some(2));
    let config = blob(
        &layout,
        manifest["config"]["digest"].as_str().expect("config"),
    );
    let c = &config["config"];
    assert_eq!(
        c["Labels"]["operators.operatorframework.io.index.configs.v1"],
        "/configs"
    );
    assert_eq!(c["Labels"]["org.example"], "yes");
    assert_eq!(c["User"], "65532:65532");
    assert_eq!(
        c["Entrypoint"],
        serde_json::json!(["/bin/fbc-registry", "serve"])
    );
    assert_eq!(
        c["Cmd"],
        serde_json::json!(["/configs", "--cache-dir=/tmp/cache"])
    );
    // Reproducible: the same inputs, the same digest.
    let (_, again, _) = run(&[
        "publish",
        example_arg,
        &target,
        "--allow-dynamic-binary",
        "--label",
        "org.example=yes",
    ]);
    assert_eq!(again, stdout);

    let registry = Registry::start(Auth::None, None);
    let one = format!("{}/catalogs/example:v1", registry.host());
    let (ok, _, stderr) = run(&["publish", example_arg, &one, "--allow-dynamic-binary"]);
    assert!(ok, "{stderr}");
    assert_eq!(catalog_digest(&one, &[]), want);
    // Served from the pushed reference: the probe says SERVING.
    let served = crate::process::serve([one.as_str()]);
    let addr = format!("-addr={}", served.grpc());
    let (ok, stdout, stderr) = run(&["probe", &addr]);
    assert!(
        ok && format!("{stdout}{stderr}").contains("status: SERVING"),
        "{stdout} {stderr}"
    );
    drop(served);
    // Two platforms (the same test binary stands in for arm64's): an index, each platform
    // pulls its own image.
    let two = format!("{}/catalogs/example:multi", registry.host());
    let binary = format!("linux/arm64={BIN}");
    let (ok, _, stderr) = run(&[
        "publish",
        example_arg,
        &two,
        "--allow-dynamic-binary",
        "--platform",
        "linux/amd64,linux/arm64",
        "--binary",
        &binary,
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(catalog_digest(&two, &["--platform", "linux/arm64"]), want);
    assert_eq!(catalog_digest(&two, &["--platform", "linux/amd64"]), want);
    let (ok, _, stderr) = run(&[
        "publish",
        example_arg,
        &two,
        "--allow-dynamic-binary",
        "--platform",
        "linux/s390x",
    ]);
    assert!(
        !ok && stderr.contains("--binary linux/s390x=PATH"),
        "{stderr}"
    );
    Ok(())
}
