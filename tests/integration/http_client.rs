//! A raw HTTP/1.1 client for the tests: full control over what is sent (any
//! header, any method, malformed values), and the answer exactly as received.

use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An answer as received.
#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    /// Header names lowercased, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpReply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body, gunzipped when it says it is gzip.
    pub fn decoded(&self) -> Vec<u8> {
        if self.header("content-encoding") != Some("gzip") {
            return self.body.clone();
        }
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&self.body[..]), &mut out)
            .expect("gzip body");
        out
    }
}

/// Sends one request (`Connection: close`) and reads the whole answer.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> HttpReply {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    parse(&raw, method == "HEAD")
}

/// `GET path`.
pub async fn get(addr: SocketAddr, path: &str) -> HttpReply {
    request(addr, "GET", path, &[]).await
}

pub fn parse(raw: &[u8], head_only: bool) -> HttpReply {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let text = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = text.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if head_only {
        Vec::new()
    } else if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    HttpReply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&rest[..line_end])
                .split(';')
                .next()
                .unwrap_or("0")
                .trim(),
            16,
        )
        .expect("hex size");
        rest = &rest[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// What operator-registry's own walk writes for a catalog's `/all`, as
/// recorded in `tests/fixtures/catalogd/all.sha256`: (sha256, bytes, lines).
pub fn recorded_all(catalog: &str) -> (String, usize, usize) {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogd/all.sha256");
    let text = std::fs::read_to_string(&path).expect("all.sha256");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() == 4 && f[3] == catalog)
        .map(|f| {
            (
                f[0].to_string(),
                f[1].parse().expect("bytes"),
                f[2].parse().expect("lines"),
            )
        })
        .unwrap_or_else(|| panic!("{catalog} is not recorded in {}", path.display()))
}

/// (sha256, bytes, lines) of a body.
pub fn digest(body: &[u8]) -> (String, usize, usize) {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(body);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    (
        hex,
        body.len(),
        body.iter().filter(|&&b| b == b'\n').count(),
    )
}

/// Checks `/all` of catalog `name` on `addr` against operator-registry's walk of
/// the catalog `recorded` under, and its gzip and HEAD against it.
pub async fn assert_all_is_operator_registrys(addr: SocketAddr, name: &str, recorded: &str) {
    let path = format!("/catalogs/{name}/api/v1/all");
    let plain = get(addr, &path).await;
    assert_eq!(plain.status, 200, "{name}");
    assert_eq!(
        digest(&plain.body),
        recorded_all(recorded),
        "{name}: /all differs from operator-registry's walk"
    );
    let gzipped = request(addr, "GET", &path, &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(gzipped.decoded(), plain.body, "{name}: gzip");
    let head = request(addr, "HEAD", &path, &[]).await;
    assert_eq!(
        head.header("content-length"),
        Some(plain.body.len().to_string().as_str())
    );
}

/// `POST path` with `body` (and `headers`), `Connection: close`.
pub async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> HttpReply {
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("send");
    stream.write_all(body).await.expect("send body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    parse(&raw, false)
}
