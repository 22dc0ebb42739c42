//! The command line as people type it, through the real binary: errors printed
//! once, `--debug` without HTTP/2 frame traces, diagnostics as JSON objects.

use crate::harness::process::{self, BIN};
use crate::harness::*;
use std::process::Command;
use std::time::Duration;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

#[test]
fn an_integrity_failure_at_start_is_printed_once_and_written_to_the_termination_log() {
    let tmp = tempfile::tempdir().expect("tmp");
    let log = tmp.path().join("termination-log");
    let out = Command::new(BIN)
        .args(["serve", "--cache-enforce-integrity", "--cache-dir"])
        .arg(tmp.path().join("empty-cache"))
        .arg("-t")
        .arg(&log)
        .arg(fixture("catalog-b"))
        .env_remove("RUST_LOG")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("integrity check failed").count(),
        1,
        "{stderr}"
    );
    let reason = std::fs::read_to_string(&log).expect("termination log");
    assert!(reason.contains("integrity check failed"), "{reason}");
}

/// What a server run said: its exit status, its stderr, its metrics text.
struct Run {
    status: std::process::ExitStatus,
    stderr: String,
    metrics: String,
}

/// `GET /metrics` from `addr`, as text ("" when it cannot be had).
async fn scrape(addr: std::net::SocketAddr) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    for _ in 0..50 {
        if let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await {
            let request = "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
            let mut seen = Vec::new();
            if stream.write_all(request.as_bytes()).await.is_ok()
                && stream.read_to_end(&mut seen).await.is_ok()
            {
                return String::from_utf8_lossy(&seen).into_owned();
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    String::new()
}

/// Starts `serve` with `args` and the catalog, waits for gRPC health, scrapes
/// its metrics, stops it with SIGTERM.
async fn serve_until_healthy(args: &[&std::ffi::OsStr]) -> Run {
    let mut all: Vec<std::ffi::OsString> = ["--watch=false", "-t", "/dev/null"]
        .map(Into::into)
        .to_vec();
    all.push("--metrics-addr=127.0.0.1:0".into());
    all.extend(args.iter().map(|a| a.to_os_string()));
    let served = tokio::task::spawn_blocking(move || process::serve(all))
        .await
        .expect("join");
    let mut metrics = String::new();
    if let (Some(grpc), Some(metrics_addr)) = (served.addrs.grpc, served.addrs.metrics) {
        let endpoint =
            tonic::transport::Channel::from_shared(format!("http://{grpc}")).expect("uri");
        if let Ok(channel) = endpoint.connect().await {
            let mut health = HealthClient::new(channel);
            let _ = health
                .check(HealthCheckRequest {
                    service: String::new(),
                })
                .await;
            metrics = scrape(metrics_addr).await;
        }
        served.signal(libc::SIGTERM);
    }
    let (status, stderr) = tokio::task::spawn_blocking(move || served.wait())
        .await
        .expect("join");
    Run {
        status,
        stderr,
        metrics,
    }
}

/// The value of the cache-lookup counter for `result` in `metrics`.
fn cache_lookups(metrics: &str, result: &str) -> Option<String> {
    let prefix = format!("fbc_registry_index_cache_lookups_total{{result=\"{result}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()).map(str::to_string))
}

#[tokio::test]
async fn a_cache_dir_alone_never_stops_a_start_a_missing_or_stale_cache_is_rebuilt() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tmp.path().join("cache");
    let catalog = tmp.path().join("catalog");
    copy_dir(&fixture("catalog-b"), &catalog);
    let args = [
        std::ffi::OsStr::new("--cache-dir"),
        cache.as_os_str(),
        catalog.as_os_str(),
    ];
    // An empty directory: opm's default would refuse ("integrity check failed").
    let missing = serve_until_healthy(&args).await;
    let say = |run: &Run| format!("exit {:?}: {}", run.status, run.stderr);
    assert!(missing.status.success(), "{}", say(&missing));
    assert!(
        missing.stderr.contains("no index cache of ours"),
        "{}",
        say(&missing)
    );
    assert!(
        !missing.stderr.contains("integrity check failed"),
        "{}",
        say(&missing)
    );
    assert!(cache.join("fbc-registry.v1/index.pb").is_file(), "written");
    assert_eq!(
        cache_lookups(&missing.metrics, "miss").as_deref(),
        Some("1"),
        "{}",
        missing.metrics
    );
    // The catalog changes: the cache is stale, rebuilt with a warning.
    let file = std::fs::read_dir(&catalog)
        .expect("catalog")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.is_file())
        .expect("a catalog file");
    let mut text = std::fs::read_to_string(&file).expect("read");
    text.push('\n');
    std::fs::write(&file, text).expect("edit");
    let stale = serve_until_healthy(&args).await;
    assert!(stale.status.success(), "{}", say(&stale));
    assert!(
        stale.stderr.contains("cache requires rebuild"),
        "{}",
        say(&stale)
    );
    assert_eq!(
        cache_lookups(&stale.metrics, "stale").as_deref(),
        Some("1"),
        "{}",
        stale.metrics
    );
    // Now it matches: read warm, no warning.
    let warm = serve_until_healthy(&args).await;
    assert!(warm.status.success(), "{}", say(&warm));
    assert!(
        warm.stderr.contains("index read from the cache"),
        "{}",
        say(&warm)
    );
    assert!(!warm.stderr.contains("WARN"), "{}", say(&warm));
    assert_eq!(
        cache_lookups(&warm.metrics, "hit").as_deref(),
        Some("1"),
        "{}",
        warm.metrics
    );
}

#[test]
fn catalog_errors_at_start_are_each_printed_once() {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_dir(&fixture("catalog-b"), tmp.path());
    std::fs::write(tmp.path().join("a.yaml"), "[]\n").expect("write");
    std::fs::write(tmp.path().join("b.yaml"), "- - x\n").expect("write");
    let out = Command::new(BIN)
        .args(["serve", "--watch=false", "-t", "/dev/null"])
        .arg(tmp.path())
        .env_remove("RUST_LOG")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for file in ["a.yaml", "b.yaml"] {
        assert_eq!(stderr.matches(file).count(), 1, "{file}: {stderr}");
    }
    assert!(stderr.contains("2 errors"), "{stderr}");
}

#[test]
fn validate_prints_diagnostics_as_json_objects() {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_dir(&fixture("catalog-b"), tmp.path());
    std::fs::write(tmp.path().join("deep.yaml"), "- ".repeat(200) + "x\n").expect("write");
    let out = Command::new(BIN)
        .args(["validate", "-o", "json"])
        .arg(tmp.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["valid"], false);
    let error = &report["errors"][0];
    assert_eq!(error["kind"], "limit");
    assert_eq!(error["file"], "deep.yaml");
    assert_eq!(error["document"], 1);
    assert_eq!(error["line"], 1);
    assert_eq!(error["limit"], "--max-depth");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("100 levels"))
    );
}

#[tokio::test]
async fn debug_logs_our_calls_but_not_http2_frames() {
    let catalog = fixture("catalog-b");
    let run = serve_until_healthy(&[std::ffi::OsStr::new("--debug"), catalog.as_os_str()]).await;
    assert!(run.status.success(), "exit {:?}", run.status);
    let stderr = run.stderr;
    assert!(
        stderr.contains("grpc.Health/Check") || stderr.contains("Health/Check"),
        "{stderr}"
    );
    assert!(
        !stderr
            .lines()
            .any(|l| l.contains(" h2::") || l.contains(" hyper::")),
        "HTTP/2 internals leaked into --debug output:\n{stderr}"
    );
}

#[test]
fn a_first_load_past_its_deadline_exits_1_with_the_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    let log = tmp.path().join("termination-log");
    let out = Command::new(BIN)
        .args(["serve", "--watch=false", "--load-timeout=1ns", "-t"])
        .arg(&log)
        .arg(fixture("catalog-a"))
        .env_remove("RUST_LOG")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let reason = std::fs::read_to_string(&log).expect("termination log");
    assert!(reason.contains("did not load within"), "{reason}");
    let out = Command::new(BIN)
        .args(["validate", "-o", "json", "--load-timeout=1ns"])
        .arg(fixture("catalog-a"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["errors"][0]["kind"], "timeout");
}

#[test]
fn log_format_json_writes_one_object_per_line() {
    // --cache-only logs the load line and exits: no server to stop.
    let out = Command::new(BIN)
        .args([
            "serve",
            "--cache-only",
            "--log-format=json",
            "-t",
            "/dev/null",
        ])
        .arg(fixture("catalog-a"))
        .env_remove("RUST_LOG")
        .output()
        .expect("run");
    assert!(out.status.success(), "exit {:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<serde_json::Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let loaded = lines
        .iter()
        .find(|l| l["message"] == "catalog loaded")
        .unwrap_or_else(|| panic!("no load line in {stderr}"));
    assert_eq!(loaded["level"], "INFO");
    for field in [
        "digest",
        "packages",
        "channels",
        "bundles",
        "load_ms",
        "generation",
    ] {
        assert!(!loaded[field].is_null(), "{field} missing: {loaded}");
    }
    assert!(loaded["timestamp"].is_string());
}

#[test]
fn search_finds_packages_across_catalogs_and_names_the_providing_one() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
    let low = format!("community={}", example.display());
    let high = format!("mirror={},priority=7", example.display());
    let run = |extra: &[&str]| {
        let out = Command::new(BIN)
            .args([
                "search",
                "--catalog",
                &low,
                "--catalog",
                &high,
                "-o",
                "json",
            ])
            .args(extra)
            .output()
            .expect("runs");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        (out.status.code(), json)
    };
    let (code, found) = run(&["operator"]);
    assert_eq!(code, Some(0));
    let hits = crate::harness::search_hits(&found);
    assert_eq!(
        hits,
        [
            ("example-operator", "mirror"),
            ("example-operator", "community")
        ]
    );
    let (code, chosen) = run(&["--package", "example-operator"]);
    assert_eq!(code, Some(0));
    assert_eq!(chosen["catalog"], "mirror");
    let (code, none) = run(&["--package", "example-operator", "--version", ">=99"]);
    assert_eq!(code, Some(2));
    assert!(
        none["message"]
            .as_str()
            .unwrap()
            .starts_with("no bundles found")
    );
    let out = Command::new(BIN)
        .args(["search", "--catalog", &low, "--catalog", &low, "x"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "a name twice is refused");
}

#[test]
fn cache_only_with_several_catalogs_writes_each_cache_and_fails_if_one_fails() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let run = |second: &str| {
        Command::new(BIN)
            .args(["serve", "--cache-only", "--cache-dir"])
            .arg(&cache)
            .arg("--catalog")
            .arg(format!("a={}", example.display()))
            .arg("--catalog")
            .arg(format!("b={second}"))
            .output()
            .expect("runs")
    };
    let out = run(&example.display().to_string());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["a", "b"] {
        let dir = cache.join("catalogs").join(name);
        assert!(
            std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0) > 0,
            "{dir:?} is empty"
        );
    }
    let out = run("/nonexistent/catalog");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("catalog \"b\""));
}
