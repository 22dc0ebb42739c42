//! The HTTP server against hostile clients: oversized heads, silence, idling,
//! connection floods, and a client that stops reading a large answer.

use crate::harness::{TestServer, eventually, http_config};
use crate::http_client::{get, parse};
use fbc_registry::http::HttpLimits;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn server_with(dir: &Path, limits: HttpLimits) -> TestServer {
    let mut config = http_config(dir, "example");
    if let Some((_, http)) = config.http.as_mut() {
        http.limits = limits;
    }
    TestServer::start_config(config).await
}

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

/// Reads until the server closes the connection (or `within` passes: a panic).
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Vec<u8> {
    let mut seen = Vec::new();
    let read = tokio::time::timeout(within, stream.read_to_end(&mut seen)).await;
    assert!(read.is_ok(), "the server kept the connection open");
    seen
}

#[tokio::test]
async fn an_oversized_request_head_is_refused() {
    let server = server_with(&example(), HttpLimits::default()).await;
    let mut stream = TcpStream::connect(server.http_addr()).await.unwrap();
    let huge = "x".repeat(20 * 1024);
    let request =
        format!("GET /catalogs/example/api/v1/all HTTP/1.1\r\nHost: t\r\nX-Big: {huge}\r\n\r\n");
    let _ = stream.write_all(request.as_bytes()).await;
    let seen = closed_within(&mut stream, Duration::from_secs(5)).await;
    assert_eq!(parse(&seen, false).status, 431);
}

/// hyper's own answers to heads that do not parse carry the headers every
/// answer carries: a 70 KB header (431), a malformed request line (400), and
/// the same after a good answer on a kept-alive connection.
#[tokio::test]
async fn hypers_own_error_answers_carry_the_security_headers() {
    let server = server_with(&example(), HttpLimits::default()).await;
    let big = format!(
        "GET /catalogs/example/api/v1/all HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\n\r\n",
        "x".repeat(70 * 1024)
    );
    let good = "GET /catalogs/example/api/v1/metas?schema=olm.package HTTP/1.1\r\nHost: t\r\n\r\n";
    let cases: [(&str, String, u16); 3] = [
        ("a 70 KB header", big.clone(), 431),
        (
            "a malformed request line",
            "GET\x01 / HTTP/1.1\r\n\r\n".into(),
            400,
        ),
        (
            "a 70 KB header after a good answer",
            format!("{good}{big}"),
            431,
        ),
    ];
    for (what, request, status) in cases {
        let mut stream = TcpStream::connect(server.http_addr()).await.unwrap();
        let _ = stream.write_all(request.as_bytes()).await;
        let seen = closed_within(&mut stream, Duration::from_secs(5)).await;
        let text = String::from_utf8_lossy(&seen).to_lowercase();
        let last = text.rfind("http/1.1 ").map_or("", |at| &text[at..]);
        assert!(
            last.starts_with(&format!("http/1.1 {status} ")),
            "{what}: {text}"
        );
        for header in [
            "x-content-type-options: nosniff\r\n",
            "referrer-policy: no-referrer\r\n",
            "content-security-policy: default-src 'none'; frame-ancestors 'none'\r\n",
        ] {
            assert!(
                last.contains(header),
                "{what}: {header:?} missing in {last:?}"
            );
        }
    }
}

#[tokio::test]
async fn silent_and_idle_connections_are_closed() {
    let limits = HttpLimits {
        header_read_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(600),
        ..HttpLimits::default()
    };
    let server = server_with(&example(), limits).await;
    let addr = server.http_addr();
    // silent since accept
    let mut silent = TcpStream::connect(addr).await.unwrap();
    closed_within(&mut silent, Duration::from_secs(5)).await;
    // half a request head, then nothing
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET /catalogs/example/api/v1/all HTTP/1.1\r\nHost:")
        .await
        .unwrap();
    closed_within(&mut slow, Duration::from_secs(5)).await;
    // kept alive after an answer, then idle
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(
        b"GET /catalogs/example/api/v1/metas?schema=olm.package HTTP/1.1\r\nHost: t\r\n\r\n",
    )
    .await
    .unwrap();
    let seen = closed_within(&mut idle, Duration::from_secs(5)).await;
    assert_eq!(parse(&seen, false).status, 200);
}

#[tokio::test]
async fn at_the_connection_cap_the_longest_idle_goes() {
    let limits = HttpLimits {
        max_connections: 4,
        ..HttpLimits::default()
    };
    let server = server_with(&example(), limits).await;
    let addr = server.http_addr();
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(TcpStream::connect(addr).await.unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // a new client is served; the first one held is closed for it
    let reply = get(addr, "/catalogs/example/api/v1/metas?schema=olm.package").await;
    assert_eq!(reply.status, 200);
    closed_within(&mut held[0], Duration::from_secs(5)).await;
}

/// A catalog of one ~12 MB meta: more than the socket buffers hold.
fn big_catalog(dir: &Path) {
    sized_catalog(dir, 12 << 20);
}

/// A catalog of one meta of about `bytes`.
fn sized_catalog(dir: &Path, bytes: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let filler = "x".repeat(bytes);
    let text =
        format!("{{\"schema\":\"example.filler\",\"name\":\"filler\",\"data\":\"{filler}\"}}\n");
    std::fs::write(dir.join("catalog.json"), text).unwrap();
}

/// The stall timeout ends clients that stop reading, not clients that read slowly:
/// one reading a steady 640 KiB/s against a 1 s stall timeout gets the whole
/// answer. Before the server set TCP_NOTSENT_LOWAT, Linux woke its blocked writes
/// only once a third of a multi-megabyte send buffer had drained — over a second
/// at this rate — and the client was closed as stalled.
#[tokio::test]
async fn a_client_that_reads_slowly_but_steadily_gets_the_whole_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("big");
    sized_catalog(&dir, 8 << 20);
    let limits = HttpLimits {
        stall_timeout: Duration::from_secs(1),
        ..HttpLimits::default()
    };
    let server = server_with(&dir, limits).await;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 << 10).unwrap();
    let mut client = socket.connect(server.http_addr()).await.unwrap();
    client
        .write_all(
            b"GET /catalogs/example/api/v1/all HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        )
        .await
        .unwrap();
    // 40 KiB every 62.5 ms
    let mut seen = Vec::new();
    let mut chunk = vec![0u8; 40 << 10];
    let mut tick = tokio::time::interval(Duration::from_micros(62_500));
    loop {
        tick.tick().await;
        let mut filled = 0;
        while filled < chunk.len() {
            match client.read(&mut chunk[filled..]).await {
                Ok(0) | Err(_) => break,
                Ok(n) => filled += n,
            }
        }
        seen.extend_from_slice(&chunk[..filled]);
        if filled < chunk.len() {
            break;
        }
    }
    let reply = parse(&seen, false);
    assert_eq!(reply.status, 200);
    let length: usize = reply.header("content-length").unwrap().parse().unwrap();
    assert!(length > 8 << 20, "{length}");
    assert_eq!(reply.body.len(), length, "cut after {} bytes", seen.len());
}

#[tokio::test]
async fn a_client_that_stops_reading_is_closed_after_the_stall_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("big");
    big_catalog(&dir);
    let limits = HttpLimits {
        stall_timeout: Duration::from_millis(500),
        ..HttpLimits::default()
    };
    let server = server_with(&dir, limits).await;
    let addr: SocketAddr = server.http_addr();
    // a small receive buffer (set before connecting, so the window stays small),
    // and never a read
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stalled = socket.connect(addr).await.unwrap();
    stalled
        .write_all(b"GET /catalogs/example/api/v1/all HTTP/1.1\r\nHost: t\r\n\r\n")
        .await
        .unwrap();
    // the server keeps serving others meanwhile
    let other = get(addr, "/catalogs/example/api/v1/metas?schema=olm.package").await;
    assert_eq!(other.status, 200);
    tokio::time::sleep(Duration::from_secs(3)).await;
    // by now the connection is closed: reading drains what was buffered, then ends
    let mut seen = Vec::new();
    let drained =
        tokio::time::timeout(Duration::from_secs(10), stalled.read_to_end(&mut seen)).await;
    assert!(
        matches!(drained, Ok(Ok(_)) | Ok(Err(_))),
        "the stalled connection is still open"
    );
    assert!(
        seen.len() < 12 << 20,
        "the whole answer was sent ({} bytes)",
        seen.len()
    );
    eventually(Duration::from_secs(5), "the server to stay up", || async {
        get(addr, "/catalogs/example/api/v1/metas?schema=olm.package")
            .await
            .status
            == 200
    })
    .await;
}
