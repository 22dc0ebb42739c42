//! `-tls-no-verify`: TLS that accepts whatever certificate the server shows.
//!
//! In: the address. Out: a connector for tonic that dials TCP and runs a TLS
//! handshake (ALPN `h2`) whose verifier accepts any certificate but still
//! checks the handshake's signatures, as Go's `InsecureSkipVerify` does. For
//! probing a server whose CA the probe cannot read; the connection is encrypted
//! but not authenticated.

use hyper_util::rt::TokioIo;
use std::sync::Arc;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::crypto::{
    CryptoProvider, verify_tls12_signature, verify_tls13_signature,
};
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_rustls::rustls::{ClientConfig, DigitallySignedStruct, Error, SignatureScheme};

#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Connects `endpoint` (an `http://HOST:PORT` endpoint) over unverified TLS.
pub async fn connect(
    endpoint: tonic::transport::Endpoint,
    addr: String,
) -> Result<tonic::transport::Channel, tonic::transport::Error> {
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map(|builder| {
            let mut config = builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
                .with_no_client_auth();
            config.alpn_protocols = vec![b"h2".to_vec()];
            Arc::new(config)
        });
    let connector = tower::service_fn(move |_: http::Uri| {
        let (config, addr) = (config.clone(), addr.clone());
        async move {
            let config = config.map_err(std::io::Error::other)?;
            let tcp = tokio::net::TcpStream::connect(&addr).await?;
            let host = addr.rsplit_once(':').map_or(addr.as_str(), |(h, _)| h);
            let name = ServerName::try_from(host.trim_matches(['[', ']']).to_string())
                .map_err(std::io::Error::other)?;
            let tls = tokio_rustls::TlsConnector::from(config)
                .connect(name, tcp)
                .await?;
            Ok::<_, std::io::Error>(TokioIo::new(tls))
        }
    });
    endpoint.connect_with_connector(connector).await
}
