//! The binary invoked as `opm`, with the command lines OLM's catalog pods run: the
//! `extractContent` pod's and those of images `opm generate dockerfile` writes — and
//! every cache directory that makes `opm serve` crash-loop (stale, opm's own, one the
//! server's user cannot write or read, a random UID as OpenShift's restricted SCC
//! assigns) starting and SERVING.

use crate::harness::copy_dir;
use crate::harness::process::{self, BIN, Served};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// A directory with `opm` linked to the binary, and the example catalog at
/// `catalog/` (as OLM's extractContent copies it).
fn pod() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    // Readable by a random UID (tempfile makes 0700).
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let opm = tmp.path().join("opm");
    std::os::unix::fs::symlink(BIN, &opm).unwrap();
    let catalog = tmp.path().join("catalog");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example"),
        &catalog,
    );
    (tmp, opm, catalog)
}

fn opm(opm: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(opm);
    command
        .args(args)
        .args(["-p", "0", "--termination-log=/dev/null"]);
    command
}

async fn serving(served: &Served) -> bool {
    let addr = served.grpc();
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let reply = HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap();
    reply.into_inner().status == ServingStatus::Serving as i32
}

#[tokio::test]
async fn the_extract_content_pod_s_command_line_serves() {
    let (tmp, opm_bin, catalog) = pod();
    let cache = tmp.path().join("cache");
    let served = process::start(opm(
        &opm_bin,
        &[
            "serve",
            &catalog.display().to_string(),
            &format!("--cache-dir={}", cache.display()),
        ],
    ));
    assert!(serving(&served).await, "{}", served.stderr());
    assert!(
        cache.join("fbc-registry.v1").is_dir(),
        "the cache was written"
    );
}

#[tokio::test]
async fn an_opm_generate_dockerfile_image_builds_its_cache_then_serves_it_warm() {
    let (tmp, opm_bin, catalog) = pod();
    let cache = format!("--cache-dir={}", tmp.path().join("tmp-cache").display());
    let configs = catalog.display().to_string();
    let built = opm(&opm_bin, &["serve", &configs, &cache, "--cache-only"])
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let served = process::start(opm(&opm_bin, &["serve", &configs, &cache]));
    assert!(serving(&served).await, "{}", served.stderr());
    assert!(
        served.stderr().contains("index read from the cache"),
        "{}",
        served.stderr()
    );
}

#[tokio::test]
async fn stale_and_opm_caches_start_from_the_files_and_serve() {
    let (tmp, opm_bin, catalog) = pod();
    let cache = tmp.path().join("cache");
    let flag = format!("--cache-dir={}", cache.display());
    let configs = catalog.display().to_string();
    let built = opm(&opm_bin, &["serve", &configs, &flag, "--cache-only"])
        .output()
        .unwrap();
    assert!(built.status.success());
    // Stale: the catalog changed after the cache was built (an image rebuilt or filtered).
    rebuild(&catalog);
    // And opm's own cache beside ours, as images built by opm carry.
    std::fs::create_dir_all(cache.join("pogreb.v1")).unwrap();
    std::fs::write(cache.join("pogreb.v1/db.0001.psg"), "opm's").unwrap();
    let served = process::start(opm(&opm_bin, &["serve", &configs, &flag]));
    assert!(serving(&served).await, "{}", served.stderr());
    let log = served.stderr();
    assert!(log.contains("cache requires rebuild"), "{log}");
    assert!(log.contains("written by opm"), "{log}");
    assert_eq!(
        std::fs::read_to_string(cache.join("pogreb.v1/db.0001.psg")).unwrap(),
        "opm's"
    );
}

/// A cache directory the server's user can neither write nor read — as a random UID
/// (OpenShift's restricted SCC: UID 1000650000, GID 0) against a root-owned volume.
#[tokio::test]
async fn a_random_uid_with_a_foreign_read_only_cache_still_serves() {
    if !nix_is_root() || !Path::new("/usr/bin/setpriv").exists() {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(!ci, "CI runs as root with setpriv");
        eprintln!("skipped: needs root and setpriv to run as a random UID");
        return;
    }
    let (tmp, opm_bin, catalog) = pod();
    let configs = catalog.display().to_string();
    let cache = tmp.path().join("cache");
    let flag = format!("--cache-dir={}", cache.display());
    // Built by root at image build time, then stale and unreadable to the pod's user.
    let built = opm(&opm_bin, &["serve", &configs, &flag, "--cache-only"])
        .output()
        .unwrap();
    assert!(built.status.success());
    rebuild(&catalog);
    set_mode_all(&cache.join("fbc-registry.v1"), 0o700);
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o755)).unwrap();
    for args in [
        vec!["serve", &configs, &flag],
        vec!["serve", &configs, "--cache-dir=/proc/nope"],
    ] {
        let mut command = Command::new("/usr/bin/setpriv");
        command
            .args(["--reuid=1000650000", "--regid=0", "--clear-groups", "--"])
            .arg(&opm_bin)
            .args(&args)
            .args(["-p", "0", "--termination-log=/dev/null"]);
        let served = process::start(command);
        assert!(serving(&served).await, "{args:?}: {}", served.stderr());
        let log = served.stderr();
        assert!(
            log.contains("keeping the index in memory"),
            "{args:?}: {log}"
        );
    }
}

/// Changes the catalog's bytes, not its meaning: an image rebuilt after its cache was.
fn rebuild(catalog: &Path) {
    let file = catalog.join("example-operator/catalog.yaml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n# rebuilt\n");
    std::fs::write(file, text).unwrap();
}

fn nix_is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

fn set_mode_all(dir: &Path, mode: u32) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            set_mode_all(&path, mode);
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
}
