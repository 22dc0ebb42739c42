//! [`RegistryOptions`] and a registry → an `oci_client` client.
//!
//! In: the flags (`--auth-file`, `--insecure-registry`, `--registry-ca`, timeouts, retries) and
//! the registry a reference names. Out: a client speaking HTTPS through rustls on the ring
//! provider (installed as the process default: the server's one crypto stack), with the
//! system's roots plus any `--registry-ca`, and the credentials for the reference. Plain HTTP is
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
    /// The credentials.
    pub auth: RegistryAuth,
}

/// The clients for `registry` and the credentials to give it.
pub(crate) fn clients(
    options: &RegistryOptions,
    registry: &str,
    repository: &str,
) -> Result<Clients, PullErrorKind> {
    // rustls needs a process-wide provider; a second install (the server's own) is a no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut extra_root_certificates = Vec::new();
    for path in &options.ca_files {
        extra_root_certificates.push(read_ca(path)?);
    }
    let config = |protocol| ClientConfig {
        protocol,
        extra_root_certificates: extra_root_certificates.clone(),
        connect_timeout: Some(options.connect_timeout),
        read_timeout: Some(options.read_timeout),
        // Layers are fetched one at a time into files.
        max_concurrent_download: 1,
        user_agent: concat!("fbc-registry/", env!("CARGO_PKG_VERSION")),
        ..ClientConfig::default()
    };
    let auth = match options.auth.credentials(registry, repository)? {
        Some(Credentials { username, password }) => RegistryAuth::Basic(username, password),
        None => RegistryAuth::Anonymous,
    };
    let plain = plain_http(registry, &options.insecure).then(|| {
        oci_client::Client::new(config(ClientProtocol::HttpsExcept(vec![
            registry.to_owned(),
        ])))
    });
    Ok(Clients {
        https: oci_client::Client::new(config(ClientProtocol::Https)),
        plain,
        auth,
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
        let e = clients(&options, "quay.io", "x")
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("--registry-ca") && e.contains("ca.pem"), "{e}");
    }
}
