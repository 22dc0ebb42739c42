//! TLS and mutual TLS on the gRPC and HTTP listeners, with certificates made
//! here (rcgen): a client that trusts the CA gets answers, a plain-text one does
//! not; with a client CA, only clients with a certificate it signed get in;
//! a rewritten certificate is served to new connections without a restart; a
//! bad pair is refused at start, and on rotation the old pair is kept; the probe
//! speaks TLS with `-tls -tls-ca-cert`.

use crate::harness::{TestServer, fixture, http_config};
use fbc_registry::app::Listen;
use fbc_registry::transport::tls::TlsFiles;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

use crate::harness::process::BIN;

/// A CA, and certificates it signs.
struct Ca {
    params: CertificateParams,
    key: KeyPair,
    pem: String,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let key = KeyPair::generate().expect("key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let pem = params.self_signed(&key).expect("CA").pem();
        Ca { params, key, pem }
    }

    /// A leaf for `localhost` (server and client use), as (cert PEM, key PEM).
    fn leaf(&self, name: &str) -> (String, String) {
        let key = KeyPair::generate().expect("key");
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).expect("params");
        params.distinguished_name.push(DnType::CommonName, name);
        let issuer = Issuer::from_params(&self.params, &self.key);
        let cert = params.signed_by(&key, &issuer).expect("leaf");
        (cert.pem(), key.serialize_pem())
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// A server with TLS from `files`, HTTP and metrics on too.
async fn tls_server(files: TlsFiles) -> TestServer {
    let mut config = http_config(&fixture("catalog-a"), "catalog-a");
    config.tls = Some(files);
    config.metrics = Some(Listen::Addr(([127, 0, 0, 1], 0).into()));
    TestServer::start_config(config).await
}

/// A plain-text GET; the status line, or `None` if the server does not answer
/// in HTTP.
async fn plain_get(addr: std::net::SocketAddr, path: &str) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.ok()?;
    let mut raw = Vec::new();
    let read = tokio::time::timeout(std::time::Duration::from_secs(5), tcp.read_to_end(&mut raw));
    let _ = read.await;
    let text = String::from_utf8_lossy(&raw);
    text.starts_with("HTTP/1.1 ")
        .then(|| text.lines().next().unwrap_or_default().to_string())
}

#[tokio::test]
async fn metrics_tls_false_keeps_the_metrics_port_in_plain_text() {
    let dir = tempfile::tempdir().expect("tmp");
    let ca = Ca::new("test CA");
    let mut config = http_config(&fixture("catalog-a"), "catalog-a");
    config.tls = Some(server_files(dir.path(), &ca, false));
    config.metrics = Some(Listen::Addr(([127, 0, 0, 1], 0).into()));
    config.metrics_tls = false;
    let server = TestServer::start_config(config).await;
    let metrics = server.metrics.expect("the metrics listener runs");
    assert_eq!(
        plain_get(metrics, "/metrics").await.as_deref(),
        Some("HTTP/1.1 200 OK")
    );
}

async fn health(addr: std::net::SocketAddr, tls: Option<ClientTlsConfig>) -> Result<i32, String> {
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut endpoint = Endpoint::from_shared(format!("{scheme}://localhost:{}", addr.port()))
        .map_err(|e| e.to_string())?
        .connect_timeout(Duration::from_secs(3));
    if let Some(tls) = tls {
        endpoint = endpoint.tls_config(tls).map_err(|e| e.to_string())?;
    }
    let channel = endpoint.connect().await.map_err(|e| format!("{e:?}"))?;
    let reply = tokio::time::timeout(
        Duration::from_secs(3),
        HealthClient::new(channel).check(HealthCheckRequest::default()),
    )
    .await
    .map_err(|_| "timed out".to_string())?
    .map_err(|e| e.to_string())?;
    Ok(reply.into_inner().status)
}

/// A server certificate from `ca` in `dir`, and with `mutual` the CA as the client CA.
fn server_files(dir: &Path, ca: &Ca, mutual: bool) -> TlsFiles {
    let (cert, key) = ca.leaf("server");
    TlsFiles {
        cert: write(dir, "tls.crt", &cert),
        key: write(dir, "tls.key", &key),
        client_ca: mutual.then(|| write(dir, "client-ca.crt", &ca.pem)),
    }
}

fn trusting(ca: &Ca) -> ClientTlsConfig {
    ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&ca.pem))
        .domain_name("localhost")
}

#[tokio::test]
async fn tls_serves_clients_that_trust_the_ca_and_only_over_tls() {
    let dir = tempfile::tempdir().expect("tmp");
    let ca = Ca::new("test CA");
    let server = tls_server(server_files(dir.path(), &ca, false)).await;
    assert_eq!(health(server.addr, Some(trusting(&ca))).await, Ok(1));
    assert!(
        health(server.addr, None).await.is_err(),
        "plain text must fail"
    );
    let stranger = Ca::new("another CA");
    assert!(
        health(server.addr, Some(trusting(&stranger)))
            .await
            .is_err()
    );
    // The HTTP listener speaks TLS too (HTTP/1.1 by ALPN), and so does metrics'.
    let http = server.http_addr();
    let status = https_status(http, &ca.pem, "/catalogs/catalog-a/api/v1/all").await;
    assert_eq!(status, 200);
    let metrics = server.metrics.expect("the metrics listener runs");
    assert_eq!(https_status(metrics, &ca.pem, "/metrics").await, 200);
    assert!(
        plain_get(metrics, "/metrics").await.is_none(),
        "plain text must fail on the metrics port"
    );
    // The probe, with the CA.
    let ca_file = write(dir.path(), "ca.crt", &ca.pem);
    let addr = format!("-addr=localhost:{}", server.addr.port());
    // Off the runtime: the server answers on this test's runtime meanwhile.
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(BIN)
            .args(["probe", &addr, "-tls"])
            .arg(format!("-tls-ca-cert={}", ca_file.display()))
            .output()
            .expect("probe")
    })
    .await
    .expect("probe thread");
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned()
        ),
        (Some(0), "status: SERVING\n".to_string())
    );
    // -tls-no-verify accepts the certificate unchecked; a CA that did not sign
    // it is a connection failure.
    let port = server.addr.port();
    let stranger_file = write(dir.path(), "stranger.crt", &stranger.pem);
    let (unverified, wrong_ca) = tokio::task::spawn_blocking(move || {
        let run = |extra: &[String]| {
            std::process::Command::new(BIN)
                .args(["probe", &format!("-addr=localhost:{port}"), "-tls"])
                .args(extra)
                .output()
                .expect("probe")
                .status
                .code()
        };
        (
            run(&["-tls-no-verify".to_string()]),
            run(&[format!("-tls-ca-cert={}", stranger_file.display())]),
        )
    })
    .await
    .expect("probe thread");
    assert_eq!((unverified, wrong_ca), (Some(0), Some(2)));
}

/// One HTTPS GET over a rustls client trusting `ca`; the status code.
async fn https_status(addr: std::net::SocketAddr, ca: &str, path: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_rustls::rustls::{self, pki_types::pem::PemObject};
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(ca.as_bytes()) {
        roots.add(cert.expect("pem")).expect("root");
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let mut stream = connector.connect(name, tcp).await.expect("handshake");
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    crate::http_client::parse(&raw, false).status
}

#[tokio::test]
async fn mutual_tls_admits_only_clients_the_ca_signed() {
    let dir = tempfile::tempdir().expect("tmp");
    let ca = Ca::new("test CA");
    let server = tls_server(server_files(dir.path(), &ca, true)).await;
    assert!(
        health(server.addr, Some(trusting(&ca))).await.is_err(),
        "no client certificate"
    );
    let (client_cert, client_key) = ca.leaf("client");
    let with_identity = trusting(&ca).identity(Identity::from_pem(&client_cert, &client_key));
    assert_eq!(health(server.addr, Some(with_identity)).await, Ok(1));
    let stranger = Ca::new("another CA");
    let (other_cert, other_key) = stranger.leaf("intruder");
    let intruder = trusting(&ca).identity(Identity::from_pem(&other_cert, &other_key));
    assert!(health(server.addr, Some(intruder)).await.is_err());
}

#[tokio::test]
async fn certificates_rotate_and_a_bad_pair_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let old_ca = Ca::new("old CA");
    let (cert, key) = old_ca.leaf("server");
    let cert_path = write(dir.path(), "tls.crt", &cert);
    let key_path = write(dir.path(), "tls.key", &key);
    let files = TlsFiles {
        cert: cert_path.clone(),
        key: key_path.clone(),
        client_ca: None,
    };
    // A key that is not the certificate's: refused at start, naming both files.
    let (_, stray_key) = old_ca.leaf("stray");
    let stray = write(dir.path(), "stray.key", &stray_key);
    let mut config = http_config(&fixture("catalog-a"), "catalog-a");
    config.tls = Some(TlsFiles {
        key: stray.clone(),
        ..files.clone()
    });
    let refused = fbc_registry::app::start(config)
        .await
        .expect_err("a bad pair");
    let message = refused.to_string();
    assert!(
        message.contains("tls.crt") && message.contains("stray.key"),
        "{message}"
    );

    let server = tls_server(files).await;
    assert_eq!(health(server.addr, Some(trusting(&old_ca))).await, Ok(1));
    // cert-manager renews: a new CA and pair, written in place.
    let new_ca = Ca::new("new CA");
    let (cert, key) = new_ca.leaf("server");
    std::fs::write(&key_path, key).expect("key");
    std::fs::write(&cert_path, cert).expect("cert");
    crate::harness::eventually(Duration::from_secs(10), "the new certificate", || async {
        health(server.addr, Some(trusting(&new_ca))).await == Ok(1)
    })
    .await;
    // A broken rewrite keeps the last good pair.
    std::fs::write(&cert_path, "not a certificate").expect("cert");
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(health(server.addr, Some(trusting(&new_ca))).await, Ok(1));
}
