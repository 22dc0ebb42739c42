//! TLS for the gRPC, HTTP and metrics listeners, with certificates that rotate.
//!
//! In: a certificate chain and key (PEM files, `--tls-cert`/`--tls-key`) and
//! optionally a client CA bundle (`--tls-client-ca`: mutual TLS). Out: a [`Tls`]
//! whose acceptors use the files' current contents. A watcher reloads them when
//! any of them changes (cert-manager rewrites a Secret's files by swapping a
//! symlink, so the directories are watched): each new connection then uses the
//! new pair, connections already open keep theirs, and a pair that does not load
//! (unreadable, no certificate, a key that does not match) is logged and the last
//! good one kept. Only changes count: the watcher also sees files being opened
//! and read, its own reloads among them, and a reload that woke itself would
//! run every 200 ms for ever. rustls on ring: no OpenSSL.

use arc_swap::ArcSwap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{RootCertStore, ServerConfig};

/// The files TLS is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// PEM certificate chain, leaf first.
    pub cert: PathBuf,
    /// PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// PEM CA bundle that client certificates must chain to; `None`: no client certificates.
    pub client_ca: Option<PathBuf>,
}

/// Why the TLS files cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read or holds no PEM of the kind wanted.
    #[error("{what} {path}: {reason}")]
    File {
        /// What the file is for.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The key does not belong to the certificate, or rustls refuses the pair.
    #[error("certificate {cert} and key {key} do not make a usable pair: {reason}")]
    Pair {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Which listener an acceptor is for (its ALPN protocols differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// gRPC: HTTP/2 (`h2`).
    Grpc,
    /// The HTTP API: HTTP/1.1.
    Http,
}

/// The server configurations made from one load of the files.
#[derive(Debug)]
struct Loaded {
    grpc: Arc<ServerConfig>,
    http: Arc<ServerConfig>,
}

/// TLS for the listeners; see the module docs.
#[derive(Debug)]
pub struct Tls {
    files: TlsFiles,
    current: ArcSwap<Loaded>,
    reloads: AtomicU64,
}

impl Tls {
    /// Loads the files; the error says which file and why.
    pub fn load(files: TlsFiles) -> Result<Arc<Tls>, TlsError> {
        let loaded = build(&files)?;
        Ok(Arc::new(Tls {
            files,
            current: ArcSwap::from_pointee(loaded),
            reloads: AtomicU64::new(0),
        }))
    }

    /// An acceptor with the current certificates.
    pub fn acceptor(&self, protocol: Protocol) -> TlsAcceptor {
        let loaded = self.current.load();
        TlsAcceptor::from(match protocol {
            Protocol::Grpc => loaded.grpc.clone(),
            Protocol::Http => loaded.http.clone(),
        })
    }

    /// Reads the files again; on success new connections use them.
    pub fn reload(&self) -> Result<(), TlsError> {
        self.reloads.fetch_add(1, Ordering::Relaxed);
        let loaded = build(&self.files)?;
        self.current.store(Arc::new(loaded));
        Ok(())
    }

    /// How many times the files have been read again since [`Tls::load`].
    pub fn reloads(&self) -> u64 {
        self.reloads.load(Ordering::Relaxed)
    }

    /// Reloads whenever a file (or its directory entry) changes, until the
    /// returned watcher is dropped.
    pub fn watch(self: &Arc<Self>) -> Option<notify::RecommendedWatcher> {
        use notify::Watcher;
        // One slot: a change seen while a reload is pending is that reload's.
        let (tx, mut rx) = tokio::sync::mpsc::channel(1);
        let mut watcher = notify::recommended_watcher(move |event| match event {
            Ok(notify::Event {
                kind: notify::EventKind::Access(_),
                ..
            }) => {}
            Ok(_) => {
                let _ = tx.try_send(());
            }
            Err(error) => tracing::warn!(%error, "TLS file watch error"),
        })
        .map_err(|e| tracing::warn!(error = %e, "TLS files are not watched; they will not rotate"))
        .ok()?;
        for dir in self.directories() {
            if let Err(e) = watcher.watch(&dir, notify::RecursiveMode::NonRecursive) {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot watch a TLS directory");
            }
        }
        let tls = self.clone();
        tokio::spawn(async move {
            while rx.recv().await.is_some() {
                // Let a writer finish the set of files (cert, then key) first.
                tokio::time::sleep(Duration::from_millis(200)).await;
                while rx.try_recv().is_ok() {}
                match tls.reload() {
                    Ok(()) => {
                        tracing::info!(cert = %tls.files.cert.display(), "TLS certificates reloaded")
                    }
                    Err(error) => {
                        tracing::error!(%error, "TLS certificates not reloaded; keeping the previous ones")
                    }
                }
            }
        });
        Some(watcher)
    }

    fn directories(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = [
            Some(&self.files.cert),
            Some(&self.files.key),
            self.files.client_ca.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(|p| {
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        })
        .collect();
        dirs.sort();
        dirs.dedup();
        dirs
    }
}

fn build(files: &TlsFiles) -> Result<Loaded, TlsError> {
    let certs = CertificateDer::pem_file_iter(&files.cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| file_error("certificate", &files.cert, e.to_string()))?;
    if certs.is_empty() {
        return Err(file_error(
            "certificate",
            &files.cert,
            "no PEM certificate in it".into(),
        ));
    }
    let key = PrivateKeyDer::from_pem_file(&files.key)
        .map_err(|e| file_error("private key", &files.key, e.to_string()))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    // Read once, shared by both listeners' configurations.
    let verifier = match &files.client_ca {
        None => None,
        Some(path) => Some(
            WebPkiClientVerifier::builder_with_provider(
                Arc::new(client_roots(path)?),
                provider.clone(),
            )
            .build()
            .map_err(|e| file_error("client CA", path, e.to_string()))?,
        ),
    };
    let config = |alpn: &[u8]| -> Result<Arc<ServerConfig>, TlsError> {
        let pair_error = |reason: String| TlsError::Pair {
            cert: files.cert.clone(),
            key: files.key.clone(),
            reason,
        };
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| pair_error(e.to_string()))?;
        let builder = match &verifier {
            None => builder.with_no_client_auth(),
            Some(verifier) => builder.with_client_cert_verifier(verifier.clone()),
        };
        let mut config = builder
            .with_single_cert(certs.clone(), key.clone_key())
            .map_err(|e| pair_error(e.to_string()))?;
        config.alpn_protocols = vec![alpn.to_vec()];
        Ok(Arc::new(config))
    };
    Ok(Loaded {
        grpc: config(b"h2")?,
        http: config(b"http/1.1")?,
    })
}

fn client_roots(path: &Path) -> Result<RootCertStore, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| file_error("client CA", path, e.to_string()))?;
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(file_error(
            "client CA",
            path,
            "no usable CA certificate in it".into(),
        ));
    }
    Ok(roots)
}

fn file_error(what: &'static str, path: &Path, reason: String) -> TlsError {
    TlsError::File {
        what,
        path: path.to_path_buf(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn self_signed(dir: &Path) -> TlsFiles {
        let cert =
            rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).expect("certificate");
        let files = TlsFiles {
            cert: dir.join("tls.crt"),
            key: dir.join("tls.key"),
            client_ca: None,
        };
        std::fs::write(&files.cert, cert.cert.pem()).expect("write cert");
        std::fs::write(&files.key, cert.signing_key.serialize_pem()).expect("write key");
        files
    }

    /// A change reloads, and then the watcher rests: reading the files again
    /// must not count as a change (it did, and the watcher reloaded every
    /// 200 ms for ever). A slow machine may deliver one write's events on
    /// both sides of the 200 ms settle, so one change may reload twice.
    #[tokio::test]
    async fn a_change_reloads_and_reading_the_files_wakes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = self_signed(dir.path());
        let tls = Tls::load(files.clone()).expect("load");
        let _watcher = tls.watch().expect("watcher");
        tokio::time::sleep(Duration::from_millis(100)).await;
        let text = std::fs::read(&files.cert).expect("read cert");
        std::fs::write(&files.cert, text).expect("rewrite cert");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let after_change = tls.reloads();
        assert!(
            (1..=2).contains(&after_change),
            "one change: {after_change} reloads"
        );
        let _ = std::fs::read(&files.key).expect("read key");
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert_eq!(
            tls.reloads(),
            after_change,
            "reading a file is not a change"
        );
    }
}
