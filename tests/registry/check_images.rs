//! `check-images` against real registries: a catalog naming images that exist (by tag and by
//! digest), a tag and a repository that do not, and a registry that wants credentials.

use crate::distribution::{Auth, Registry};
use crate::process::BIN;
use crate::support::block_on;
use fbc_image::testing;
use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TESTS: &[crate::support::NamedTest<PathBuf>] = &[(
    "check_images_reports_missing_unpinned_and_refused_images",
    check_images_reports_missing_unpinned_and_refused_images,
)];

fn push(registry: &Registry, repo: &str) -> fbc_image::Digest {
    let layer = testing::gzip(
        &testing::Tar::new()
            .file("manifests/x.yaml", b"kind: X\n")
            .finish(),
    );
    let mut digest = None;
    block_on(async {
        digest = Some(
            registry
                .push_image(
                    repo,
                    "v1",
                    &[("operators.operatorframework.io.bundle.package.v1", "p")],
                    &[layer],
                )
                .await,
        );
    })
    .expect("runtime");
    digest.expect("pushed")
}

fn catalog(dir: &Path, bundle_image: &str, related: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let related: Vec<serde_json::Value> = related
        .iter()
        .map(|(n, i)| serde_json::json!({"name": n, "image": i}))
        .collect();
    let blobs = [
        serde_json::json!({"schema": "olm.package", "name": "p", "defaultChannel": "stable"}),
        serde_json::json!({"schema": "olm.channel", "name": "stable", "package": "p", "entries": [{"name": "p.v1.0.0"}]}),
        serde_json::json!({"schema": "olm.bundle", "name": "p.v1.0.0", "package": "p", "image": bundle_image,
            "properties": [{"type": "olm.package", "value": {"packageName": "p", "version": "1.0.0"}}],
            "relatedImages": related}),
    ];
    let text: String = blobs.iter().map(|b| format!("{b}\n")).collect();
    std::fs::write(dir.join("catalog.json"), text).expect("write");
}

fn check(dir: &Path, extra: &[&str]) -> (bool, serde_json::Value, String) {
    let out = Command::new(BIN)
        .args(["check-images", "-o", "json", dir.to_str().expect("utf-8")])
        .args(extra)
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("DOCKER_CONFIG")
        .env("HOME", "/nonexistent")
        .output()
        .expect("run");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.success(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn status_of<'a>(report: &'a serde_json::Value, image: &str) -> &'a serde_json::Value {
    report["images"]
        .as_array()
        .and_then(|a| a.iter().find(|i| i["image"] == image))
        .unwrap_or(&serde_json::Value::Null)
}

fn check_images_reports_missing_unpinned_and_refused_images(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    let digest = push(&registry, "bundles/p");
    let scratch = tempfile::tempdir().expect("tempdir");
    let tag = format!("{host}/bundles/p:v1");
    let pinned = format!("{host}/bundles/p@{digest}");
    let gone = format!("{host}/bundles/p:v9");
    let no_repo = format!("{host}/nothing/here:v1");
    let bad = scratch.path().join("bad");
    catalog(
        &bad,
        &tag,
        &[
            ("op", &pinned),
            ("gone", &gone),
            ("nope", &no_repo),
            ("odd", "not a reference"),
        ],
    );
    let (ok, report, stderr) = check(&bad, &[]);
    assert!(!ok, "missing images must fail: {report} {stderr}");
    assert_eq!(status_of(&report, &tag)["status"], "present", "{report}");
    assert_eq!(status_of(&report, &tag)["pinned"], false);
    assert_eq!(status_of(&report, &tag)["digest"], digest.to_string());
    assert_eq!(status_of(&report, &pinned)["pinned"], true);
    assert_eq!(status_of(&report, &gone)["status"], "missing", "{report}");
    assert_eq!(
        status_of(&report, &no_repo)["status"],
        "missing",
        "{report}"
    );
    assert_eq!(
        status_of(&report, "not a reference")["status"],
        "invalid",
        "{report}"
    );
    assert_eq!(status_of(&report, &gone)["uses"][0]["bundle"], "p.v1.0.0");
    assert_eq!(report["summary"]["missing"], 2, "{report}");
    // The text report names the bundle, the role and the digest to pin to.
    let text = Command::new(BIN)
        .args(["check-images", bad.to_str().expect("utf-8")])
        .env("HOME", "/nonexistent")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("bundle p.v1.0.0") && text.contains(&format!("missing       {gone}")),
        "{text}"
    );
    assert!(text.contains(&format!("resolves to {digest}")), "{text}");
    // Everything present: exit 0.
    let good = scratch.path().join("good");
    catalog(&good, &tag, &[("op", &pinned)]);
    let (ok, report, stderr) = check(&good, &[]);
    assert!(ok, "{report} {stderr}");

    // A registry that wants credentials: refused without them, present with them.
    let locked = Registry::start(Auth::Htpasswd, None);
    let locked_digest = push(&locked, "bundles/p");
    let locked_ref = format!("{}/bundles/p@{locked_digest}", locked.host());
    let private = scratch.path().join("private");
    catalog(&private, &locked_ref, &[]);
    let (ok, report, _) = check(&private, &[]);
    assert!(!ok);
    assert_eq!(
        status_of(&report, &locked_ref)["status"],
        "unauthorized",
        "{report}"
    );
    let (user, password) = locked.user.clone().expect("htpasswd user");
    use base64::Engine;
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    let auth_file = scratch.path().join("auth.json");
    std::fs::write(
        &auth_file,
        serde_json::json!({"auths": {locked.host(): {"auth": auth}}}).to_string(),
    )
    .expect("auth file");
    let flag = format!("--auth-file={}", auth_file.display());
    let (ok, report, stderr) = check(&private, &[&flag]);
    assert!(ok, "{report} {stderr}");
    assert!(
        !report.to_string().contains(&password),
        "the password must never be printed"
    );
    Ok(())
}
