//! The server under attack: the real binary as a child process, plain or TLS, with
//! its resident set and CPU time read from `/proc`, and the well-behaved clients whose
//! answers must keep coming while an attack runs.

use crate::process::{self, Served};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_rustls::rustls;

/// How the attacked listeners speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Plain,
    Tls,
}

impl Wire {
    pub const BOTH: [Wire; 2] = [Wire::Plain, Wire::Tls];

    pub fn name(self) -> &'static str {
        match self {
            Wire::Plain => "plain",
            Wire::Tls => "tls",
        }
    }
}

/// A byte stream to the server, TCP or TLS.
pub trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}
pub type Conn = Pin<Box<dyn Stream>>;

/// A running server, its temporary catalog and certificates.
pub struct Target {
    pub served: Served,
    pub wire: Wire,
    /// The CA's PEM when TLS is on.
    ca: Option<String>,
    _dir: tempfile::TempDir,
}

/// How much the server used, from `/proc/PID`.
#[derive(Clone, Copy, Debug)]
pub struct Usage {
    pub rss: u64,
    pub cpu: Duration,
}

impl Target {
    /// `serve` on a catalog whose ListBundles reply is about 2 MB (so an unread reply
    /// fills any window), gRPC and HTTP, with `extra` flags.
    pub fn start(wire: Wire, extra: &[&str]) -> Target {
        let dir = tempfile::tempdir().expect("tempdir");
        let catalog = dir.path().join("catalog");
        std::fs::create_dir(&catalog).expect("catalog dir");
        crate::catalogs::big_catalog(&catalog, 20, 100_000);
        let mut args: Vec<String> = vec![
            catalog.display().to_string(),
            "--http-addr=127.0.0.1:0".into(),
        ];
        let ca = (wire == Wire::Tls).then(|| {
            let (ca, cert, key) = certificates(dir.path());
            args.extend(["--tls-cert".into(), cert.display().to_string()]);
            args.extend(["--tls-key".into(), key.display().to_string()]);
            ca
        });
        args.extend(extra.iter().map(|s| s.to_string()));
        let served = process::serve(&args);
        served.grpc();
        Target {
            served,
            wire,
            ca,
            _dir: dir,
        }
    }

    pub fn grpc(&self) -> SocketAddr {
        self.served.grpc()
    }

    pub fn http(&self) -> SocketAddr {
        self.served
            .addrs
            .http
            .unwrap_or_else(|| panic!("no HTTP listener:\n{}", self.served.stderr()))
    }

    /// Resident set and CPU time (user + system) of the server now.
    pub fn usage(&self) -> Usage {
        let pid = self.served.child.as_ref().expect("child").id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
        let rss = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect("VmRSS")
            * 1024;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
        // fields after the command name, which may hold spaces: utime is the 14th
        // field of the line, the 12th after ") "
        let after = stat.rsplit_once(") ").expect("stat line").1;
        let fields: Vec<&str> = after.split_whitespace().collect();
        let ticks: u64 =
            fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
        Usage {
            rss,
            cpu: Duration::from_secs_f64(ticks as f64 / clock_ticks() as f64),
        }
    }

    /// A new connection to `addr`, TLS with ALPN `alpn` when the server speaks TLS.
    pub async fn connect(&self, addr: SocketAddr, alpn: &[u8]) -> Conn {
        let tcp = tokio::net::TcpStream::connect(addr).await.expect("tcp");
        tcp.set_nodelay(true).expect("nodelay");
        match &self.ca {
            None => Box::pin(tcp),
            Some(ca) => {
                let connector = tls_connector(ca, alpn);
                let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
                Box::pin(connector.connect(name, tcp).await.expect("TLS handshake"))
            }
        }
    }

    /// A TLS client configuration trusting the server (for handshake floods).
    pub fn tls_connector(&self, alpn: &[u8]) -> tokio_rustls::TlsConnector {
        tls_connector(self.ca.as_deref().expect("a TLS target"), alpn)
    }

    /// A gRPC Health check on a new connection: how long the answer took, or why
    /// there was none within 5 s.
    pub async fn health(&self) -> Result<Duration, String> {
        use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};
        use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
        let started = Instant::now();
        let scheme = if self.ca.is_some() { "https" } else { "http" };
        let mut endpoint =
            Endpoint::from_shared(format!("{scheme}://localhost:{}", self.grpc().port()))
                .map_err(|e| e.to_string())?
                .connect_timeout(Duration::from_secs(5));
        if let Some(ca) = &self.ca {
            let tls = ClientTlsConfig::new()
                .ca_certificate(Certificate::from_pem(ca))
                .domain_name("localhost");
            endpoint = endpoint.tls_config(tls).map_err(|e| e.to_string())?;
        }
        let call = async {
            let channel = endpoint
                .connect()
                .await
                .map_err(|e| format!("connect: {e}"))?;
            HealthClient::new(channel)
                .check(HealthCheckRequest::default())
                .await
                .map_err(|e| format!("health: {e}"))
        };
        match tokio::time::timeout(Duration::from_secs(5), call).await {
            Ok(Ok(_)) => Ok(started.elapsed()),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("no answer within 5 s".into()),
        }
    }

    /// `GET /catalogs/catalog/api/v1/metas?schema=olm.package` on a new HTTP/1.1
    /// connection: how long the whole answer took, or why it failed.
    pub async fn http_get(&self) -> Result<Duration, String> {
        let started = Instant::now();
        let call = async {
            let mut conn = self.connect(self.http(), b"http/1.1").await;
            conn.write_all(
                b"GET /catalogs/catalog/api/v1/metas?schema=olm.package HTTP/1.1\r\n\
                  Host: localhost\r\nConnection: close\r\n\r\n",
            )
            .await
            .map_err(|e| e.to_string())?;
            let mut answer = Vec::new();
            let _ = conn.read_to_end(&mut answer).await;
            if answer.starts_with(b"HTTP/1.1 200 ") {
                Ok(())
            } else {
                Err(format!(
                    "answer: {:?}",
                    String::from_utf8_lossy(&answer[..answer.len().min(80)])
                ))
            }
        };
        match tokio::time::timeout(Duration::from_secs(5), call).await {
            Ok(Ok(())) => Ok(started.elapsed()),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("no answer within 5 s".into()),
        }
    }
}

/// The CA's PEM, and the files of a `localhost` leaf it signed.
fn certificates(dir: &Path) -> (String, PathBuf, PathBuf) {
    let ca_key = KeyPair::generate().expect("key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "attacks CA");
    let ca_pem = ca_params.self_signed(&ca_key).expect("CA").pem();
    let key = KeyPair::generate().expect("key");
    let params = CertificateParams::new(vec!["localhost".to_string()]).expect("params");
    let issuer = Issuer::from_params(&ca_params, &ca_key);
    let cert = params.signed_by(&key, &issuer).expect("leaf");
    let (cert_path, key_path) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&cert_path, cert.pem()).expect("write cert");
    std::fs::write(&key_path, key.serialize_pem()).expect("write key");
    (ca_pem, cert_path, key_path)
}

fn tls_connector(ca: &str, alpn: &[u8]) -> tokio_rustls::TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    let mut reader = std::io::BufReader::new(ca.as_bytes());
    for cert in rustls_pemfile_certs(&mut reader) {
        roots.add(cert).expect("CA certificate");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

/// The certificates of a PEM text.
fn rustls_pemfile_certs(
    reader: &mut dyn std::io::BufRead,
) -> Vec<rustls::pki_types::CertificateDer<'static>> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::pem_reader_iter(reader)
        .map(|c| c.expect("PEM certificate"))
        .collect()
}

fn clock_ticks() -> i64 {
    // SAFETY: sysconf reads a constant of the system.
    #[allow(unsafe_code, reason = "sysconf(3)")]
    unsafe {
        libc::sysconf(libc::_SC_CLK_TCK)
    }
}
