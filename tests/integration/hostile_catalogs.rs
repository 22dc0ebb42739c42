//! Hostile catalogs (issue table, catalog rows): each bad file is refused on
//! reload with a clear diagnostic, memory stays bounded, and the server keeps
//! answering Health and every RPC from the last good catalog.

use crate::harness::*;
use fbc_registry::api;
use fbc_registry::app::ServeConfig;
use fbc_registry::snapshot::reload::ReloadHandle;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const PATIENCE: Duration = Duration::from_secs(20);

/// Resident memory of this process, in bytes (the server runs in it).
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Triggers a reload and waits until it has been counted as failed.
async fn reload_fails(reload: &ReloadHandle) {
    let before = reload.stats.failed.load(Ordering::Relaxed);
    reload.trigger();
    eventually(PATIENCE, "the reload to be rejected", || async {
        reload.stats.failed.load(Ordering::Relaxed) > before
    })
    .await;
}

/// Health answers SERVING and the good catalog answers as before.
async fn still_serving_the_good_catalog(server: &TestServer) {
    let mut health = HealthClient::new(server.channel().await);
    let status = health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health")
        .into_inner()
        .status;
    assert_eq!(status, 1, "SERVING");
    let mut c = server.client().await;
    let p = c
        .get_package(api::GetPackageRequest {
            name: "cockroachdb".into(),
        })
        .await
        .expect("GetPackage from the last good catalog")
        .into_inner();
    assert_eq!(p.name, "cockroachdb");
    assert_eq!(server.catalog.load().map(|s| s.generation), Some(1));
}

async fn start(dir: &Path) -> (TestServer, ReloadHandle) {
    TestServer::start_reloading(dir, false, Duration::from_millis(10)).await
}

fn good_catalog() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_dir(&fixture("catalog-b"), tmp.path());
    tmp
}

#[tokio::test]
async fn a_yaml_file_of_3000_nested_sequences_is_refused_and_the_server_lives() {
    let tmp = good_catalog();
    let (server, reload) = start(tmp.path()).await;
    std::fs::write(tmp.path().join("deep.yaml"), "- ".repeat(3000) + "x\n").expect("write");
    reload_fails(&reload).await;
    still_serving_the_good_catalog(&server).await;
}

#[tokio::test]
async fn a_700_byte_alias_bomb_is_refused_within_bounded_memory() {
    let tmp = good_catalog();
    let (server, reload) = start(tmp.path()).await;
    let mut bomb = String::from("schema: x\na: &a [x,x,x,x,x,x,x,x,x,x]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 10].join(",");
        bomb.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    assert!(bomb.len() < 800);
    let before = rss();
    std::fs::write(tmp.path().join("bomb.yaml"), &bomb).expect("write");
    reload_fails(&reload).await;
    let grown = rss().saturating_sub(before);
    assert!(
        grown < 400 << 20,
        "memory grew by {} MiB refusing the bomb",
        grown >> 20
    );
    still_serving_the_good_catalog(&server).await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_fifo_and_a_link_to_dev_zero_are_refused_without_blocking() {
    let tmp = good_catalog();
    let (server, reload) = start(tmp.path()).await;
    let fifo = tmp.path().join("pipe.yaml");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: mkfifo reads a NUL-terminated path and creates a FIFO.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    reload_fails(&reload).await;
    still_serving_the_good_catalog(&server).await;
    std::fs::remove_file(&fifo).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", tmp.path().join("zero.yaml")).expect("symlink");
    reload_fails(&reload).await;
    still_serving_the_good_catalog(&server).await;
    let errors =
        fbc_registry::snapshot::load::load(tmp.path(), &Default::default()).expect_err("refused");
    assert!(
        errors[0].to_string().contains("zero.yaml")
            && errors[0].to_string().contains("character device"),
        "{}",
        errors[0]
    );
}

#[tokio::test]
async fn nul_bytes_are_refused_with_their_offset() {
    let tmp = good_catalog();
    let (server, reload) = start(tmp.path()).await;
    std::fs::write(tmp.path().join("nul.yaml"), b"schema: x\nname: a\0b\n").expect("write");
    reload_fails(&reload).await;
    still_serving_the_good_catalog(&server).await;
    let errors =
        fbc_registry::snapshot::load::load(tmp.path(), &Default::default()).expect_err("refused");
    let d = &errors[0];
    assert_eq!(d.kind, fbc_catalog::diagnostic::Kind::Encoding);
    assert_eq!(
        (
            d.location.file.as_deref(),
            d.location.offset,
            d.location.line
        ),
        (Some("nul.yaml"), Some(17), Some(2))
    );
    std::fs::write(tmp.path().join("nul.yaml"), b"\0schema: x\n").expect("write");
    reload_fails(&reload).await;
    still_serving_the_good_catalog(&server).await;
}

#[tokio::test]
async fn a_load_past_its_deadline_fails_like_an_invalid_catalog() {
    let tmp = good_catalog();
    // the first load has no deadline of its own (the CLI puts a watchdog on it)
    let server = TestServer::start_config(ServeConfig {
        load_timeout: Duration::from_nanos(1),
        reload_debounce: Duration::from_millis(10),
        ..test_config(tmp.path())
    })
    .await;
    let reload = server.reload.clone();
    reload_fails(&reload).await;
    still_serving_the_good_catalog(&server).await;
}

#[tokio::test]
async fn a_reload_rewrites_the_cache_so_an_enforced_restart_starts_warm_on_the_new_catalog() {
    let tmp = good_catalog();
    let cache = tempfile::tempdir().expect("cache");
    let options = fbc_registry::snapshot::load::LoadOptions::default();
    let cfg = fbc_registry::snapshot::cache::CacheConfig {
        dir: cache.path().to_path_buf(),
        enforce_integrity: false,
        must_write: true,
    };
    fbc_registry::snapshot::cache::load(tmp.path(), &cfg, &options).expect("cache built");
    let server = TestServer::start_config(ServeConfig {
        cache: Some(fbc_registry::snapshot::cache::CacheConfig {
            must_write: false,
            ..cfg.clone()
        }),
        reload_debounce: Duration::from_millis(10),
        ..test_config(tmp.path())
    })
    .await;
    let reload = server.reload.clone();
    edit(
        &tmp.path().join("cockroachdb.json"),
        "\"defaultChannel\": \"stable-v6.x\"",
        "\"defaultChannel\": \"stable-5.x\"",
    );
    reload.trigger();
    eventually(PATIENCE, "generation 2", || async {
        server.catalog.load().map(|s| s.generation) == Some(2)
    })
    .await;
    // the cache write follows the publish; a restart with enforcement must find it
    let restart = fbc_registry::snapshot::cache::CacheConfig {
        enforce_integrity: true,
        must_write: false,
        ..cfg
    };
    let mut warm = None;
    for _ in 0..200 {
        if let Ok(loaded) = fbc_registry::snapshot::cache::load(tmp.path(), &restart, &options) {
            warm = Some(loaded);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let warm = warm.expect("an enforced restart after the reload starts");
    assert_eq!(warm.outcome, fbc_registry::snapshot::cache::Outcome::Warm);
    assert_eq!(
        warm.catalog.registry.default_channel("cockroachdb"),
        Some("stable-5.x")
    );
}

#[test]
fn forty_thousand_package_directories_load() {
    // The walk was quadratic in directories (51 s here); it must be linear. This is
    // no timing test (see benches/walk.rs for the figures), but a quadratic walk
    // would make it crawl.
    // tmpfs where there is one: 80,000 entries on a journaling disk take seconds
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("tmp");
    for i in 0..40_000 {
        let dir = tmp.path().join(format!("pkg-{i:05}"));
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(dir.join("c.yaml"), format!("schema: x.thing\nname: t{i}\n"))
            .expect("write");
    }
    let loaded =
        fbc_registry::snapshot::load::load(tmp.path(), &Default::default()).expect("loads");
    assert_eq!(loaded.report.files, 40_000);
    assert_eq!(loaded.registry.stats().custom_blobs, 40_000);
}
