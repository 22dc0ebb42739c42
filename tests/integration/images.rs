//! Catalogs given as images (`oci-layout:PATH:TAG`), through the real binary: the same answers
//! as the directory they were built from, hostile layers refused by name with nothing served.

use crate::harness::process::{self, BIN};
use crate::harness::*;
use fbc_image::testing::{self, Tar};
use std::path::Path;
use std::process::Command;

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

fn validate_json(arg: &str) -> (bool, serde_json::Value) {
    let out = Command::new(BIN)
        .args(["validate", "-o", "json", arg])
        .output()
        .expect("run");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.success(), json)
}

#[test]
fn validate_reads_an_oci_layout_as_it_reads_the_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let layout = dir.path().join("example-layout");
    testing::catalog_layout(&layout, "v1", &[testing::configs_tar(&example())]);
    let (ok, from_dir) = validate_json(example().to_str().expect("utf-8"));
    assert!(ok, "{from_dir}");
    let (ok, from_image) = validate_json(&format!("oci-layout:{}:v1", layout.display()));
    assert!(ok, "{from_image}");
    assert_eq!(
        from_image["digest"], from_dir["digest"],
        "the same catalog digest"
    );
    assert_eq!(from_image["bundles"], from_dir["bundles"]);
    assert!(
        from_image["image"]["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:")),
        "{from_image}"
    );
}

#[test]
fn a_hostile_layer_is_refused_naming_the_image_layer_and_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let layout = dir.path().join("l");
    let hostile = Tar::new()
        .file("configs/catalog.json", b"{}")
        .hard_link("configs/passwd", "etc/passwd")
        .finish();
    testing::catalog_layout(&layout, "v1", &[testing::configs_tar(&example()), hostile]);
    let arg = format!("oci-layout:{}:v1", layout.display());
    let out = Command::new(BIN)
        .args(["validate", &arg])
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("image {arg}, layer 1 (sha256:")),
        "{stderr}"
    );
    assert!(stderr.contains("entry \"configs/passwd\": it is a hard link to \"etc/passwd\", outside the catalog directory"), "{stderr}");
}

#[tokio::test]
async fn serve_answers_from_an_oci_layout_and_keeps_the_unpacked_image() {
    let dir = tempfile::tempdir().expect("tempdir");
    let layout = dir.path().join("example-layout");
    testing::catalog_layout(&layout, "v1", &[testing::configs_tar(&example())]);
    let cache = dir.path().join("cache");
    let args = vec![
        format!("oci-layout:{}:v1", layout.display()),
        "--watch=false".to_owned(),
        "-t".to_owned(),
        "/dev/null".to_owned(),
        format!("--cache-dir={}", cache.display()),
    ];
    let served = tokio::task::spawn_blocking(move || process::serve(args))
        .await
        .expect("join");
    let grpc = served.grpc();
    let channel = tonic::transport::Channel::from_shared(format!("http://{grpc}"))
        .expect("uri")
        .connect()
        .await
        .expect("connect");
    let mut client = fbc_registry::api::registry_client::RegistryClient::new(channel);
    assert_eq!(
        package_names(&mut client).await,
        ["example-dependency", "example-operator"]
    );
    served.signal(libc::SIGTERM);
    let (status, stderr) = tokio::task::spawn_blocking(move || served.wait())
        .await
        .expect("join");
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("catalog image unpacked"), "{stderr}");
    let kept: Vec<_> = std::fs::read_dir(cache.join("images"))
        .expect("images")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
}
