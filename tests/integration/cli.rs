//! The command line as people type it, through the real binary: errors printed
//! once, `--debug` without HTTP/2 frame traces, diagnostics as JSON objects.

use crate::harness::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const BIN: &str = env!("CARGO_BIN_EXE_fbc-registry");

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[test]
fn an_integrity_failure_at_start_is_printed_once_and_written_to_the_termination_log() {
    let tmp = tempfile::tempdir().expect("tmp");
    let log = tmp.path().join("termination-log");
    let out = Command::new(BIN)
        .args(["serve", "--cache-dir"])
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
    let port = free_port();
    let child = Command::new(BIN)
        .args(["serve", "--debug", "--watch=false", "-t", "/dev/null", "-p"])
        .arg(port.to_string())
        .arg(fixture("catalog-b"))
        .env_remove("RUST_LOG")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start");
    let deadline = Instant::now() + Duration::from_secs(20);
    let channel = loop {
        let endpoint = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
            .expect("uri");
        match endpoint.connect().await {
            Ok(c) => break c,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            Err(e) => panic!("server did not start: {e}"),
        }
    };
    let mut health = HealthClient::new(channel);
    health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health");
    drop(health);
    // SAFETY: kill sends a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    // waiting blocks: off the runtime, so the client side can still close
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("exit");
    assert!(out.status.success(), "exit {:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
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
