//! `serve --filter`: every API sees only the filtered catalog, the snapshot names
//! the filter, and a changed filter swaps in live — a bad one never does — while
//! clients call without one failure.

use crate::harness::*;
use crate::http_client;
use fbc_registry::api::{self, registry_client::RegistryClient};
use fbc_registry::fbc_v1 as pb;
use fbc_registry::fbc_v1::graph_client::GraphClient;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tonic::transport::Channel;

const HEADER: &str =
    "apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\n";
const HEADS: &str = "packages:\n  - name: example-operator\n";
const FULL: &str = "full: true\n";

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

/// Writes like an editor (or a ConfigMap update): a new file renamed over the old.
fn save_filter(path: &Path, body: &str) {
    let tmp = path.with_extension("swp");
    std::fs::write(&tmp, format!("{HEADER}{body}")).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn bundle_names(c: &mut RegistryClient<Channel>) -> Vec<String> {
    let mut names: Vec<String> = collect(
        c.list_bundles(api::ListBundlesRequest {})
            .await
            .unwrap()
            .into_inner(),
    )
    .await
    .into_iter()
    .map(|b| b.csv_name)
    .collect();
    names.sort();
    names.dedup();
    names
}

const FILTERED: [&str; 3] = [
    "example-dependency.v1.1.0",
    "example-operator.v0.3.0",
    "example-operator.v1.0.0",
];

#[tokio::test]
async fn every_api_sees_only_the_filtered_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let filter = dir.path().join("filter.yaml");
    save_filter(&filter, HEADS);
    let config = fbc_registry::app::ServeConfig {
        filter: Some(filter.clone()),
        ..http_config(&example(), "example")
    };
    let server = TestServer::start_config(config).await;
    let mut c = server.client().await;

    // api.Registry
    assert_eq!(bundle_names(&mut c).await, FILTERED);
    let dropped = c
        .get_bundle(api::GetBundleRequest {
            pkg_name: "example-operator".into(),
            channel_name: "alpha".into(),
            csv_name: "example-operator.v0.1.0".into(),
        })
        .await
        .unwrap_err();
    // opm answers a missing bundle with Unknown and "not found", and so do we
    assert!(dropped.message().contains("not found"), "{dropped:?}");

    // fbc.v1 names the filter in its snapshot info
    let mut graph = GraphClient::new(server.channel().await);
    let answer = graph
        .get_successors(pb::GetSuccessorsRequest {
            package: "example-operator".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let snapshot = answer.snapshot.unwrap();
    let digest = format!(
        "sha256:{}",
        fbc_image::digest::Digest::of(&std::fs::read(&filter).unwrap()).hex()
    );
    assert_eq!(snapshot.filter_digest, digest);
    assert_eq!(snapshot.filter_path, filter.display().to_string());
    assert!(
        answer
            .candidates
            .iter()
            .all(|c| FILTERED.contains(&c.name.as_str())),
        "{:?}",
        answer.candidates
    );

    // catalogd's HTTP API
    let http = server.http_addr();
    let all = http_client::get(http, "/catalogs/example/api/v1/all").await;
    assert_eq!(all.status, 200);
    let mut names: Vec<String> = String::from_utf8(all.decoded())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["schema"] == "olm.bundle")
        .map(|v| v["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(names, FILTERED);

    // GraphQL
    let query = br#"{"query":"{ olmbundles { name } }"}"#;
    let reply = http_client::post(
        http,
        "/catalogs/example/api/v1/graphql",
        &[("content-type", "application/json")],
        query,
    )
    .await;
    let body = String::from_utf8(reply.body).unwrap();
    assert_eq!(reply.status, 200, "{body}");
    assert!(body.contains("example-operator.v1.0.0"), "{body}");
    assert!(!body.contains("example-operator.v0.1.0"), "{body}");

    // the browser
    let page = http_client::get(http, "/packages/example-operator").await;
    let html = String::from_utf8(page.decoded()).unwrap();
    assert_eq!(page.status, 200);
    assert!(html.contains("example-operator.v1.0.0"));
    assert!(!html.contains("example-operator.v0.1.0"));
}

#[tokio::test]
async fn a_filter_change_swaps_live_with_zero_failed_calls() {
    let dir = tempfile::tempdir().unwrap();
    let filter_dir = dir.path().join("filter");
    std::fs::create_dir(&filter_dir).unwrap();
    let filter = filter_dir.join("filter.yaml");
    save_filter(&filter, HEADS);
    let config = fbc_registry::app::ServeConfig {
        filter: Some(filter.clone()),
        watch: true,
        reload_debounce: Duration::from_millis(50),
        ..test_config(&example())
    };
    let server = TestServer::start_config(config).await;
    let reload = server.reload.clone();

    // Clients call without pause through every swap.
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let failures = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut clients = Vec::new();
    for _ in 0..4 {
        let (stop, calls, failures) = (stop.clone(), calls.clone(), failures.clone());
        let mut c = server.client().await;
        clients.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let answer = c
                    .get_package(api::GetPackageRequest {
                        name: "example-operator".into(),
                    })
                    .await;
                match answer {
                    Ok(_) => calls.fetch_add(1, Ordering::Relaxed),
                    Err(e) => {
                        failures.lock().unwrap().push(e.to_string());
                        0
                    }
                };
                let listed = c.list_bundles(api::ListBundlesRequest {}).await;
                match listed {
                    Ok(stream) => match collect_checked(stream.into_inner()).await {
                        Ok(()) => calls.fetch_add(1, Ordering::Relaxed),
                        Err(e) => {
                            failures.lock().unwrap().push(e);
                            0
                        }
                    },
                    Err(e) => {
                        failures.lock().unwrap().push(e.to_string());
                        0
                    }
                };
            }
        }));
    }
    let mut c = server.client().await;

    save_filter(&filter, FULL);
    eventually(
        PATIENCE,
        "the whole catalog, once the filter is full",
        || {
            let mut c = c.clone();
            async move { bundle_names(&mut c).await.len() > FILTERED.len() }
        },
    )
    .await;
    let whole = bundle_names(&mut c).await;

    // A filter that names a package the catalog lacks keeps the last good catalog.
    let failed_before = reload.stats.failed.load(Ordering::Relaxed);
    save_filter(&filter, "packages:\n  - name: no-such-package\n");
    eventually(PATIENCE, "the bad filter to be refused", || async {
        reload.stats.failed.load(Ordering::Relaxed) > failed_before
    })
    .await;
    assert_eq!(bundle_names(&mut c).await, whole);

    // A file that is not a filter at all: refused too.
    let failed_before = reload.stats.failed.load(Ordering::Relaxed);
    std::fs::write(&filter, "packages: [\n").unwrap();
    eventually(PATIENCE, "the broken file to be refused", || async {
        reload.stats.failed.load(Ordering::Relaxed) > failed_before
    })
    .await;
    assert_eq!(bundle_names(&mut c).await, whole);

    save_filter(&filter, HEADS);
    eventually(PATIENCE, "the heads-only filter again", || {
        let mut c = c.clone();
        async move { bundle_names(&mut c).await == FILTERED }
    })
    .await;

    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.await.unwrap();
    }
    let failures = failures.lock().unwrap();
    assert!(failures.is_empty(), "failed calls: {failures:?}");
    assert!(calls.load(Ordering::Relaxed) > 10);
}

/// Reads a stream to its end; the first error, if any.
async fn collect_checked<T>(mut s: tonic::Streaming<T>) -> Result<(), String> {
    while let Some(item) = s.message().await.map_err(|e| e.to_string())? {
        drop(item);
    }
    Ok(())
}

const PATIENCE: Duration = Duration::from_secs(20);

#[test]
fn the_binary_serves_through_a_filter_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let filter = dir.path().join("filter.yaml");
    save_filter(&filter, HEADS);
    let served = crate::harness::process::serve([
        example().as_os_str(),
        "--filter".as_ref(),
        filter.as_os_str(),
        "--cache-dir".as_ref(),
        dir.path().join("cache").as_os_str(),
    ]);
    assert!(served.addrs.grpc.is_some(), "{}", served.stderr());
    let log = served.stderr();
    let digest = fbc_image::digest::Digest::of(&std::fs::read(&filter).unwrap()).to_string();
    assert!(log.contains(&digest), "{log}");
    assert!(
        log.contains("not read or written while a filter applies"),
        "{log}"
    );
    assert!(!dir.path().join("cache/fbc-registry.v1").exists());

    // --cache-only builds a cache of the catalog as it is: not with a filter.
    let out = std::process::Command::new(crate::harness::process::BIN)
        .args(["serve", "--cache-only", "--cache-dir"])
        .arg(dir.path().join("cache"))
        .arg("--filter")
        .arg(&filter)
        .arg(example())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("does not go with --filter"), "{stderr}");

    // A filter that does not apply stops the start, naming the file.
    save_filter(&filter, "packages:\n  - name: no-such-package\n");
    let out = std::process::Command::new(crate::harness::process::BIN)
        .args(["serve", "-p", "0", "--termination-log"])
        .arg(dir.path().join("termination-log"))
        .arg("--filter")
        .arg(&filter)
        .arg(example())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("filter.yaml"), "{stderr}");
    assert!(stderr.contains("no-such-package"), "{stderr}");
}

#[tokio::test]
async fn a_fleet_entry_is_served_and_searched_through_its_filter() {
    let dir = tempfile::tempdir().unwrap();
    let filter = dir.path().join("filter.yaml");
    save_filter(&filter, "packages:\n  - name: example-dependency\n");
    let entry = format!(
        "ex=/{},port=0,filter={}",
        example().display().to_string().trim_start_matches('/'),
        filter.display()
    );
    let served =
        crate::harness::process::serve(["--catalog", &entry, "--http-addr", "127.0.0.1:0"]);
    let http = served
        .addrs
        .http
        .unwrap_or_else(|| panic!("{}", served.stderr()));
    let digest = fbc_image::digest::Digest::of(&std::fs::read(&filter).unwrap()).to_string();
    let catalogs = || async move {
        let reply = http_client::get(http, "/api/v1/catalogs").await;
        serde_json::from_slice::<serde_json::Value>(&reply.body).unwrap()
    };
    eventually(PATIENCE, "the catalog to load", || async move {
        catalogs().await["catalogs"][0]["serving"] == true
    })
    .await;
    let listed = catalogs().await;
    assert_eq!(listed["catalogs"][0]["filterDigest"], digest.as_str());
    let packages = http_client::get(http, "/api/v1/packages").await;
    let body = String::from_utf8(packages.body).unwrap();
    assert!(body.contains("example-dependency"), "{body}");
    assert!(!body.contains("example-operator"), "{body}");

    // `search` reads the same entry the same way.
    let out = std::process::Command::new(crate::harness::process::BIN)
        .args(["search", "--catalog", &entry, "-o", "json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("example-dependency"), "{stdout}");
    assert!(!stdout.contains("example-operator"), "{stdout}");
}
