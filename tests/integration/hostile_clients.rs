//! Clients that try to take the server down: unread streams, idle and silent
//! connections, huge requests, a stalled stream at shutdown, a low fd limit.
//!
//! Memory is measured in a child process running one test alone (the server runs
//! in the test process, and other tests would share its resident set).

use crate::harness::catalogs::big_catalog;
use crate::harness::*;
use fbc_registry::api::experimental_registry_client::ExperimentalRegistryClient;
use fbc_registry::api::{self, registry_client::RegistryClient};
use fbc_registry::transport::limits::TransportLimits;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::Code;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const CHILD: &str = "FBC_HOSTILE_CHILD";

/// Runs `body` in a fresh process that runs only the test `name`.
fn isolated(name: &str, body: impl std::future::Future<Output = ()>) {
    if std::env::var_os(CHILD).is_some() {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(body);
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(out.status.success(), "child failed");
    assert!(stdout.contains("1 passed"), "the child ran no test");
}

/// Resident set size of this process.
fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmRSS");
    kb * 1024
}

/// A client that never reads: its windows stay at the protocol's 64 KiB.
async fn unread_channel(addr: SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .expect("uri")
        .initial_stream_window_size(65_535)
        .initial_connection_window_size(65_535)
        .connect()
        .await
        .expect("connect")
}

/// A Health check on a new connection, which must answer within 5 s: a starved server never
/// answers, and 5 s leaves room for a CI machine whose two cores are busy compiling (1 s failed
/// once there, with the server fine).
async fn health_answers(addr: SocketAddr) {
    let check = async {
        let channel = Channel::from_shared(format!("http://{addr}"))
            .expect("uri")
            .connect()
            .await
            .expect("connect");
        HealthClient::new(channel)
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await
            .expect("health")
    };
    tokio::time::timeout(Duration::from_secs(5), check)
        .await
        .expect("a new client gets Health within 5 s");
}

/// Opens `n` ListBundles calls on `channel` and never reads them; returns the
/// streams that started and the statuses of the calls refused, once `settle` passed.
async fn open_unread_streams(
    channel: &Channel,
    n: usize,
    settle: Duration,
) -> (Vec<tonic::Streaming<api::Bundle>>, Vec<tonic::Status>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..n {
        let mut client = RegistryClient::new(channel.clone());
        let tx = tx.clone();
        tokio::spawn(async move {
            let r = client.list_bundles(api::ListBundlesRequest {}).await;
            let _ = tx.send(r.map(tonic::Response::into_inner));
        });
    }
    tokio::time::sleep(settle).await;
    let (mut open, mut refused) = (Vec::new(), Vec::new());
    while let Ok(r) = rx.try_recv() {
        match r {
            Ok(stream) => open.push(stream),
            Err(status) => refused.push(status),
        }
    }
    (open, refused)
}

fn stall_limits() -> TransportLimits {
    TransportLimits {
        max_connections: 16,
        max_inflight_calls: 64,
        max_buffered_reply_bytes: 16 << 20,
        // generous: opening 3,000 calls on a loaded CI machine must finish well inside it,
        // or the reaper (rightly) closes the connection mid-measurement
        stall_timeout: Duration::from_secs(8),
        ..TransportLimits::default()
    }
}

#[test]
fn unread_list_bundles_streams_are_bounded_then_closed_and_unpin_the_snapshot() {
    isolated(
        "hostile_clients::unread_list_bundles_streams_are_bounded_then_closed_and_unpin_the_snapshot",
        unread_streams_attack(),
    );
}

async fn unread_streams_attack() {
    let dir = tempfile::tempdir().expect("tempdir");
    big_catalog(dir.path(), 20, 100_000);
    let limits = stall_limits();
    let server = TestServer::start_with(dir.path(), limits.clone()).await;
    let old = server.catalog.load().expect("snapshot");
    let largest = (0..old.registry.copy_count())
        .filter_map(|i| old.registry.list_bundles_item(i))
        .map(|r| r.len() as u64)
        .max()
        .expect("bundles");
    health_answers(server.addr).await;
    let before = rss_bytes();

    let channel = unread_channel(server.addr).await;
    let started = Instant::now();
    let (open, refused) = open_unread_streams(&channel, 3_000, Duration::from_millis(1200)).await;
    let grown = rss_bytes().saturating_sub(before);
    let bound = limits.memory_bound(largest);
    println!(
        "unread streams: {} open, {} refused, rss +{} KiB (bound {} KiB)",
        open.len(),
        refused.len(),
        grown / 1024,
        bound / 1024
    );
    assert!(open.len() <= limits.max_inflight_calls, "{}", open.len());
    assert!(!refused.is_empty(), "calls past the cap are refused");
    // refused by admission, or (when the client's stream count runs ahead of the
    // server's) by HTTP/2 with REFUSED_STREAM, which Go clients retry
    let busy = |s: &&tonic::Status| {
        s.code() == Code::ResourceExhausted && s.message().starts_with("server busy: ")
    };
    // h2 also ends a connection that makes it reset over a thousand streams
    // (GOAWAY ENHANCE_YOUR_CALM: the limit of 1024 local error resets in
    // docs/security.md), which a loaded machine's timing can reach: a right
    // answer to this client, after which its calls fail as the connection goes;
    // the client may see the GOAWAY or only the closed socket
    let went_away = refused.iter().any(|s| {
        let text = format!("{s:?}");
        [
            "ENHANCE_YOUR_CALM",
            "broken pipe",
            "connection closed",
            "DispatchGone",
        ]
        .iter()
        .any(|t| text.contains(t))
    });
    let connection_gone = |s: &&tonic::Status| {
        went_away
            && ["transport", "h2 protocol", "connection closed", "canceled"]
                .iter()
                .any(|t| format!("{s:?}").contains(t))
    };
    let odd: Vec<_> = refused
        .iter()
        .filter(|s| !busy(s) && !connection_gone(s) && !format!("{s:?}").contains("REFUSED_STREAM"))
        .take(3)
        .collect();
    assert!(odd.is_empty(), "{odd:?}");
    assert!(went_away || refused.iter().filter(busy).count() > refused.len() / 2);
    assert!(grown <= bound, "rss grew {grown} bytes, bound {bound}");
    health_answers(server.addr).await;
    assert!(
        started.elapsed() < limits.stall_timeout,
        "measured before the stall timeout"
    );

    // a reload, then the stall timeout: the stalled connection goes, and the old
    // snapshot with it
    server.reload.trigger();
    eventually(
        limits.stall_timeout + Duration::from_secs(3),
        "old snapshot released",
        || {
            let count = Arc::strong_count(&old);
            async move { count == 1 }
        },
    )
    .await;
    // unless h2 already ended the connection, the stalled streams held the
    // old snapshot until the stall timeout closed them
    assert!(
        went_away || started.elapsed() >= limits.stall_timeout,
        "not before the stall timeout"
    );
    drop(open);
    server.stop().await;
}

#[tokio::test]
async fn past_max_connections_the_connection_idle_longest_is_closed_and_idle_ones_time_out() {
    let limits = TransportLimits {
        max_connections: 8,
        idle_timeout: Duration::from_secs(2),
        ..TransportLimits::default()
    };
    let server = TestServer::start_with(&fixture("catalog-b"), limits.clone()).await;
    let mut conns = Vec::new();
    for _ in 0..12 {
        let tcp = tokio::net::TcpStream::connect(server.addr)
            .await
            .expect("tcp");
        let (send, conn) = h2::client::handshake(tcp).await.expect("h2 handshake");
        conns.push((send, tokio::spawn(conn)));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eventually(Duration::from_secs(1), "the 4 oldest evicted", || {
        let done: Vec<bool> = conns.iter().map(|(_, t)| t.is_finished()).collect();
        async move { done == [[true; 4].as_slice(), &[false; 8]].concat() }
    })
    .await;
    health_answers(server.addr).await;
    eventually(
        limits.idle_timeout + Duration::from_secs(2),
        "idle ones closed",
        || {
            let all = conns.iter().all(|(_, t)| t.is_finished());
            async move { all }
        },
    )
    .await;
}

#[tokio::test]
async fn a_connection_that_never_speaks_is_closed_after_the_handshake_timeout() {
    let limits = TransportLimits {
        handshake_timeout: Duration::from_millis(500),
        ..TransportLimits::default()
    };
    let server = TestServer::start_with(&fixture("catalog-b"), limits).await;
    let mut silent = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("tcp");
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(3), async {
        use tokio::io::AsyncReadExt;
        loop {
            match silent.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {} // the server's SETTINGS
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the silent connection was closed");
}

#[tokio::test]
async fn an_oversize_request_gets_grpc_go_status_without_its_content() {
    let server = TestServer::start(&fixture("catalog-c")).await;
    let mut c = ExperimentalRegistryClient::new(server.channel().await);
    let huge = api::ExperimentalListPackageCustomSchemasRequest {
        schema: "s".repeat(10 << 20),
        package_name: String::new(),
    };
    let len = prost::Message::encoded_len(&huge);
    let e = c
        .experimental_list_package_custom_schemas(ack(huge))
        .await
        .expect_err("too large");
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert_eq!(
        e.message(),
        format!("grpc: received message larger than max ({len} vs. 4194304)")
    );
    let five_kb = api::ExperimentalListPackageCustomSchemasRequest {
        schema: "s".repeat(5_000),
        package_name: String::new(),
    };
    let e = c
        .experimental_list_package_custom_schemas(ack(five_kb))
        .await
        .expect_err("too long");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().len() < 300, "{}", e.message());
    let invalid = api::ExperimentalListPackageCustomSchemasRequest {
        schema: "-".repeat(4_000),
        package_name: String::new(),
    };
    let e = c
        .experimental_list_package_custom_schemas(ack(invalid))
        .await
        .expect_err("invalid");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().len() < 300, "{}", e.message());
    // the connection is still good
    let mut r = server.client().await;
    assert_eq!(package_names(&mut r).await, ["testpkg"]);
}

fn ack<T>(msg: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut().insert(
        "x-acknowledge-experimental",
        "true".parse().expect("header"),
    );
    r
}

#[tokio::test]
async fn shutdown_ends_within_the_grace_despite_a_stalled_stream() {
    let dir = tempfile::tempdir().expect("tempdir");
    big_catalog(dir.path(), 4, 100_000);
    let limits = TransportLimits {
        shutdown_grace: Duration::from_secs(1),
        ..TransportLimits::default()
    };
    let server = TestServer::start_with(dir.path(), limits.clone()).await;
    let channel = unread_channel(server.addr).await;
    let (open, _) = open_unread_streams(&channel, 1, Duration::from_millis(300)).await;
    assert_eq!(open.len(), 1);
    let started = Instant::now();
    tokio::time::timeout(
        limits.shutdown_grace + Duration::from_secs(1),
        server.stop(),
    )
    .await
    .expect("the server stops within grace + 1 s");
    assert!(started.elapsed() >= limits.shutdown_grace - Duration::from_millis(100));
    drop(open);
}

/// The real binary under `RLIMIT_NOFILE` 1024 (soft) / 4096 (hard).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn spawn_with_fd_limit(port: u16) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fbc-registry"));
    cmd.args(["serve", "--watch=false", "-p", &port.to_string()])
        .arg(fixture("catalog-b"))
        .args(["-t", "/dev/null"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: setrlimit is async-signal-safe and only touches the child's limits.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 1024,
                rlim_max: 4096,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn().expect("spawn fbc-registry")
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_binary_raises_its_fd_limit_and_serves_past_two_thousand_idle_connections() {
    // this process holds the client ends
    fbc_registry::transport::limits::raise_fd_limit().expect("raise our own fd limit");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let mut child = spawn_with_fd_limit(port);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    eventually(Duration::from_secs(30), "the server is up", || async move {
        tokio::net::TcpStream::connect(addr).await.is_ok()
    })
    .await;
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id())).expect("limits");
    let open_files = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("Max open files")
        .split_whitespace()
        .skip(3)
        .take(2)
        .collect::<Vec<_>>();
    assert_eq!(
        open_files,
        ["4096", "4096"],
        "soft limit raised to the hard one"
    );
    let mut idle = Vec::new();
    for _ in 0..2_000 {
        idle.push(tokio::net::TcpStream::connect(addr).await.expect("connect"));
    }
    health_answers(addr).await;
    // SIGTERM: exit 0 within the default grace (10 s) + 1 s
    // SAFETY: kill only sends a signal to the child we spawned.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0);
    let deadline = Instant::now() + Duration::from_secs(11);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
    drop(idle);
}
