//! `fbc-registry probe` and the binary run as `grpc_health_probe`: exit codes
//! and messages against a live server, a stopped one, one that is not SERVING,
//! one without the health service, and bad arguments.

use crate::harness::{TestServer, fixture};
use fbc_registry::snapshot::Publisher;
use std::process::Output;

use crate::harness::process::BIN;

/// Runs the probe (`probe ARGS`) off the async runtime; its exit code and stderr.
async fn probe(args: &[&str]) -> (i32, String) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out: Output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(BIN)
            .arg("probe")
            .args(&args)
            .output()
            .expect("run the probe")
    })
    .await
    .expect("probe thread");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn a_live_server_is_serving() {
    let server = TestServer::start(&fixture("catalog-a")).await;
    let addr = format!("-addr={}", server.addr);
    assert_eq!(probe(&[&addr]).await, (0, "status: SERVING\n".into()));
    let port = format!("-addr=:{}", server.addr.port());
    assert_eq!(
        probe(&[&port, "-service", "Registry", "-connect-timeout=2s"]).await,
        (0, "status: SERVING\n".into())
    );
    let (code, verbose) = probe(&[&addr, "-v", "-rpc-header", "x-probe: yes"]).await;
    assert_eq!(code, 0, "{verbose}");
    assert!(verbose.contains("connection established"), "{verbose}");
}

#[tokio::test]
async fn a_stopped_server_is_a_connection_failure() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr = format!("-addr=127.0.0.1:{port}");
    let (code, message) = probe(&[&addr]).await;
    assert_eq!(code, 2, "{message}");
    assert!(
        message.starts_with(&format!(
            "error: failed to connect service at \"127.0.0.1:{port}\""
        )) || message.starts_with("timeout: failed to connect service"),
        "{message}"
    );
    assert!(
        message.matches("tcp connect error").count() <= 1,
        "each cause is said once: {message}"
    );
}

#[tokio::test]
async fn a_server_without_a_catalog_is_not_serving() {
    let (_publisher, catalog) = Publisher::new();
    let (addr, _stop) = TestServer::serve_unloaded(catalog).await;
    let addr = format!("-addr={addr}");
    assert_eq!(
        probe(&[&addr]).await,
        (
            4,
            "service unhealthy (responded with \"NOT_SERVING\")\n".into()
        )
    );
}

#[tokio::test]
async fn a_server_without_health_is_an_rpc_failure() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(fbc_registry::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("reflection");
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(reflection)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    let addr = format!("-addr={addr}");
    assert_eq!(
        probe(&[&addr]).await,
        (
            3,
            "error: this server does not implement the grpc health protocol (grpc.health.v1.Health)\n"
                .into()
        )
    );
}

#[tokio::test]
async fn bad_arguments_exit_1() {
    assert_eq!(probe(&[]).await, (1, "error: -addr not specified\n".into()));
    assert_eq!(
        probe(&["-addr=:1", "-bogus"]).await,
        (1, "error: flag provided but not defined: -bogus\n".into())
    );
    assert_eq!(
        probe(&["-addr=:1", "-tls-no-verify"]).await,
        (
            1,
            "error: specified -tls-no-verify without specifying -tls\n".into()
        )
    );
    let (code, usage) = probe(&["-h"]).await;
    assert_eq!(code, 0);
    assert!(usage.contains("-connect-timeout"), "{usage}");
}

#[tokio::test]
async fn the_binary_answers_to_grpc_health_probe() {
    let server = TestServer::start(&fixture("catalog-a")).await;
    let dir = tempfile::tempdir().expect("tmp");
    let link = dir.path().join("grpc_health_probe");
    std::os::unix::fs::symlink(BIN, &link).expect("symlink");
    let addr = format!("-addr={}", server.addr);
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(&link)
            .arg(&addr)
            .output()
            .expect("run")
    })
    .await
    .expect("thread");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "status: SERVING\n");
}

/// SIGTERM with `--shutdown-delay`: health says NOT_SERVING at once (the probe
/// exits 4) while registry calls are still answered, then the process exits 0.
#[tokio::test]
async fn sigterm_turns_health_not_serving_before_the_listener_closes() {
    use fbc_registry::api::ListPackageRequest;
    use fbc_registry::api::registry_client::RegistryClient;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = std::process::Command::new(BIN)
        .args([
            "serve",
            "--watch=false",
            "-t",
            "/dev/null",
            "--shutdown-delay=2s",
            "-p",
        ])
        .arg(port.to_string())
        .arg(fixture("catalog-a"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start");
    let addr = format!("-addr=127.0.0.1:{port}");
    let mut code = -1;
    for _ in 0..200 {
        code = probe(&[&addr]).await.0;
        if code == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(code, 0, "the server did not come up");
    // SAFETY: kill sends a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        probe(&[&addr]).await,
        (
            4,
            "service unhealthy (responded with \"NOT_SERVING\")\n".into()
        )
    );
    let channel = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .expect("uri")
        .connect()
        .await
        .expect("a new connection is still accepted during the delay");
    let packages = RegistryClient::new(channel)
        .list_packages(ListPackageRequest {})
        .await
        .expect("calls are still answered during the delay");
    drop(packages);
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("exit");
    assert!(out.status.success(), "exit {:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("health NOT_SERVING"), "{stderr}");
}
