//! [`RegistryOptions`] and a registry → an `oci_client` client.
//!
//! In: the flags (`--auth-file`, `--insecure-registry`, `--registry-ca`, timeouts, retries) and
//! the registry a reference names. Out: a client speaking HTTPS through rustls on the ring
//! provider (installed as the process default: the server's one crypto stack), with the
//! system's roots (read once per process with rustls-native-certs, which honours
//! `SSL_CERT_FILE`; reqwest's platform verifier would read them again for every client, ~6 ms
//! each) plus any `--registry-ca`, and the credentials for the reference. Plain HTTP is
//! used only for a loopback registry (`localhost`, `127.0.0.0/8`, `::1`) or one named with
//! `--insecure-registry` — and for those HTTPS is tried first, as containers/image does, so a
//! loopback registry with TLS works too; any other registry is HTTPS with verified certificates.

use crate::credentials::{AuthLookup, Credentials};
use crate::error::PullErrorKind;
use oci_client::client::{Certificate, CertificateEncoding, ClientConfig, ClientProtocol};
use oci_client::secrets::RegistryAuth;
use std::io::Read;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The largest `--registry-ca` file read.
const MAX_CA_BYTES: u64 = 1 << 20;

/// How registries are reached.
#[derive(Debug, Clone)]
pub struct RegistryOptions {
    /// Where credentials are looked up.
    pub auth: AuthLookup,
    /// Registries (`host[:port]`) spoken to over plain HTTP besides loopback ones.
    pub insecure: Vec<String>,
    /// PEM files of extra certificate authorities.
    pub ca_files: Vec<PathBuf>,
    /// How long a connection may take to open.
    pub connect_timeout: Duration,
    /// How long a read may wait for the next bytes.
    pub read_timeout: Duration,
    /// How long one manifest request may take in all.
    pub request_timeout: Duration,
    /// Attempts per request (1: no retry).
    pub attempts: u32,
    /// The first wait between attempts; each further one doubles, up to 8 times this.
    pub backoff: Duration,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        RegistryOptions {
            auth: AuthLookup::default(),
            insecure: Vec::new(),
            ca_files: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            attempts: 4,
            backoff: Duration::from_millis(500),
        }
    }
}

/// Whether `registry` (`host[:port]`) is spoken to over plain HTTP.
pub fn plain_http(registry: &str, insecure: &[String]) -> bool {
    if insecure.iter().any(|r| r.eq_ignore_ascii_case(registry)) {
        return true;
    }
    let host = match registry.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(rest),
        None => registry.rsplit_once(':').map_or(registry, |(h, _)| h),
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The clients for one registry and the credentials to give it.
pub(crate) struct Clients {
    /// Over HTTPS.
    pub https: oci_client::Client,
    /// Over plain HTTP, for a registry allowed it.
    pub plain: Option<oci_client::Client>,
}

/// What the clients of one registry are made from, read (and checked) up front; the clients
/// themselves are made on first use ([`Prepared::clients`]), so a start that needs no request
/// (a digest already stored) never reads the system's roots.
#[derive(Debug)]
pub(crate) struct Prepared {
    registry: String,
    extra_roots: Vec<Certificate>,
    plain: bool,
    options: RegistryOptions,
    /// The credentials.
    pub auth: RegistryAuth,
}

/// Reads the credentials and `--registry-ca` files for `registry`.
pub(crate) fn prepare(
    options: &RegistryOptions,
    registry: &str,
    repository: &str,
) -> Result<Prepared, PullErrorKind> {
    let mut extra_roots = Vec::new();
    for path in &options.ca_files {
        extra_roots.push(read_ca(path)?);
    }
    let auth = match options.auth.credentials(registry, repository)? {
        Some(Credentials { username, password }) => RegistryAuth::Basic(username, password),
        None => RegistryAuth::Anonymous,
    };
    Ok(Prepared {
        registry: registry.to_owned(),
        extra_roots,
        plain: plain_http(registry, &options.insecure),
        options: options.clone(),
        auth,
    })
}

impl Prepared {
    /// The clients.
    pub(crate) fn clients(&self) -> Clients {
        clients(self)
    }
}

fn clients(prepared: &Prepared) -> Clients {
    // rustls needs a process-wide provider; a second install (the server's own) is a no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let options = &prepared.options;
    let registry = &prepared.registry;
    let mut roots = system_roots().clone();
    roots.extend(prepared.extra_roots.iter().cloned());
    let config = |protocol| ClientConfig {
        protocol,
        tls_certs_only: roots.clone(),
        connect_timeout: Some(options.connect_timeout),
        read_timeout: Some(options.read_timeout),
        // Layers are fetched one at a time into files.
        max_concurrent_download: 1,
        user_agent: concat!("fbc-registry/", env!("CARGO_PKG_VERSION")),
        ..ClientConfig::default()
    };
    let plain = prepared.plain.then(|| {
        oci_client::Client::new(config(ClientProtocol::HttpsExcept(vec![
            registry.to_owned(),
        ])))
    });
    Clients {
        https: oci_client::Client::new(config(ClientProtocol::Https)),
        plain,
    }
}

/// The system's trusted roots, read once.
fn system_roots() -> &'static Vec<Certificate> {
    static ROOTS: OnceLock<Vec<Certificate>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            tracing::warn!(%error, "reading the system's certificate authorities");
        }
        found
            .certs
            .into_iter()
            .map(|der| Certificate {
                encoding: CertificateEncoding::Der,
                data: der.to_vec(),
            })
            .collect()
    })
}

fn read_ca(path: &PathBuf) -> Result<Certificate, PullErrorKind> {
    let fail = |reason: String| PullErrorKind::Ca {
        path: path.display().to_string(),
        reason,
    };
    let mut data = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CA_BYTES + 1).read_to_end(&mut data))
        .map_err(|e| fail(e.to_string()))?;
    if data.len() as u64 > MAX_CA_BYTES {
        return Err(fail(format!("larger than {MAX_CA_BYTES} bytes")));
    }
    if !data
        .windows(b"-----BEGIN CERTIFICATE-----".len())
        .any(|w| w == b"-----BEGIN CERTIFICATE-----")
    {
        return Err(fail("no PEM certificate in it".to_owned()));
    }
    Ok(Certificate {
        encoding: CertificateEncoding::Pem,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_and_named_registries_are_plain_http() {
        for loopback in [
            "localhost:5000",
            "127.0.0.1:5000",
            "127.9.9.9",
            "[::1]:5000",
            "LOCALHOST",
        ] {
            assert!(plain_http(loopback, &[]), "{loopback}");
        }
        for remote in [
            "quay.io",
            "10.0.0.1:5000",
            "localhost.evil.com",
            "[fe80::1]:5000",
        ] {
            assert!(!plain_http(remote, &[]), "{remote}");
        }
        assert!(plain_http(
            "mirror.lan:5000",
            &["mirror.lan:5000".to_owned()]
        ));
        assert!(!plain_http(
            "mirror.lan:5001",
            &["mirror.lan:5000".to_owned()]
        ));
    }

    #[test]
    fn a_ca_file_that_is_not_pem_is_refused_by_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "nothing").expect("write");
        let options = RegistryOptions {
            ca_files: vec![path],
            ..RegistryOptions::default()
        };
        let e = prepare(&options, "quay.io", "x")
            .expect_err("refused")
            .to_string();
        assert!(e.contains("--registry-ca") && e.contains("ca.pem"), "{e}");
    }
}
