//! Debian's `docker-registry` (distribution 2.8.2) as a child process on loopback, with its own
//! config and storage: plain, htpasswd basic auth (the registry provisions the file and logs
//! the password), a bearer challenge (`auth.silly` with a token endpoint in this process), and
//! TLS from a test CA. Images are pushed with oci-client, so the bytes in the registry are
//! exactly those the tests built.

use bytes::Bytes;
use fbc_image::Digest;
use oci_client::client::{Certificate, CertificateEncoding, ClientConfig, ClientProtocol};
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference, RegistryOperation};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// How the registry asks for credentials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// Not at all.
    None,
    /// HTTP basic, from an htpasswd file the registry provisions.
    Htpasswd,
    /// A bearer challenge whose token endpoint is in this process.
    Bearer,
}

/// TLS files for the registry: certificate and key PEM, and the CA that signed them.
pub struct Tls {
    pub cert: String,
    pub key: String,
    pub ca: String,
}

/// A running registry, stopped when dropped.
pub struct Registry {
    pub dir: tempfile::TempDir,
    pub addr: SocketAddr,
    /// The provisioned basic-auth user and password.
    pub user: Option<(String, String)>,
    /// Authorization headers the token endpoint received.
    pub token_requests: Arc<Mutex<Vec<String>>>,
    child: Option<Child>,
    log: Arc<Mutex<String>>,
    ca: Option<String>,
}

impl Registry {
    /// Starts a registry on a port of its choosing.
    pub fn start(auth: Auth, tls: Option<&Tls>) -> Registry {
        let dir = tempfile::tempdir().expect("tempdir");
        let token_requests = Arc::new(Mutex::new(Vec::new()));
        let auth_yaml = match auth {
            Auth::None => String::new(),
            Auth::Htpasswd => format!(
                "auth:\n  htpasswd:\n    realm: test\n    path: {}\n",
                dir.path().join("htpasswd").display()
            ),
            Auth::Bearer => {
                let token = token_endpoint(token_requests.clone());
                format!(
                    "auth:\n  silly:\n    realm: http://{token}/token\n    service: test-registry\n"
                )
            }
        };
        let tls_yaml = match tls {
            Some(tls) => {
                std::fs::write(dir.path().join("cert.pem"), &tls.cert).expect("cert");
                std::fs::write(dir.path().join("key.pem"), &tls.key).expect("key");
                format!(
                    "  tls:\n    certificate: {}\n    key: {}\n",
                    dir.path().join("cert.pem").display(),
                    dir.path().join("key.pem").display()
                )
            }
            None => String::new(),
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:0\n  secret: test-secret\n{tls_yaml}{auth_yaml}",
            dir.path().join("storage").display()
        );
        std::fs::write(dir.path().join("config.yml"), config).expect("config");
        let mut registry = Registry {
            dir,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            user: None,
            token_requests,
            child: None,
            log: Arc::new(Mutex::new(String::new())),
            ca: tls.map(|t| t.ca.clone()),
        };
        registry.run();
        registry
    }

    /// Starts the process on the config's address; waits until it listens.
    fn run(&mut self) {
        let mut child = Command::new("docker-registry")
            .arg("serve")
            .arg(self.dir.path().join("config.yml"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start docker-registry");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        let log = self.log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(pw) = field(&line, "password=") {
                    let _ = tx.send(Event::Password(pw));
                }
                if let Some(addr) = line.split("listening on ").nth(1) {
                    let addr = addr.split(['"', ' ', ',']).next().unwrap_or_default();
                    if let Ok(addr) = addr.parse() {
                        let _ = tx.send(Event::Listening(addr));
                    }
                }
                if let Ok(mut text) = log.lock() {
                    text.push_str(&line);
                    text.push('\n');
                }
            }
        });
        self.child = Some(child);
        loop {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(Event::Password(pw)) => self.user = Some(("docker".to_owned(), pw)),
                Ok(Event::Listening(addr)) => {
                    self.addr = addr;
                    break;
                }
                Err(_) => panic!("docker-registry did not start:\n{}", self.log()),
            }
        }
        // From now on the same port: a restart must come back where clients look.
        let config = self.dir.path().join("config.yml");
        let text = std::fs::read_to_string(&config).expect("config");
        let text = text.replace("addr: 127.0.0.1:0\n", &format!("addr: {}\n", self.addr));
        std::fs::write(&config, text).expect("config");
    }

    /// `127.0.0.1:PORT`.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    /// The registry's log so far.
    pub fn log(&self) -> String {
        self.log.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Stops the process (the storage stays).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port.
    pub fn restart(&mut self) {
        self.stop();
        self.run();
    }

    /// Where the registry keeps blob `digest`.
    pub fn blob_path(&self, digest: &Digest) -> PathBuf {
        let hex = digest.hex();
        self.dir
            .path()
            .join("storage/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// A client that pushes to this registry.
    fn client(&self) -> (Client, RegistryAuth) {
        let _ = tokio_rustls::rustls::crypto::ring::default_provider().install_default();
        let config = ClientConfig {
            protocol: if self.ca.is_some() {
                ClientProtocol::Https
            } else {
                ClientProtocol::Http
            },
            extra_root_certificates: self
                .ca
                .iter()
                .map(|pem| Certificate {
                    encoding: CertificateEncoding::Pem,
                    data: pem.clone().into_bytes(),
                })
                .collect(),
            ..ClientConfig::default()
        };
        let auth = match &self.user {
            Some((u, p)) => RegistryAuth::Basic(u.clone(), p.clone()),
            None => RegistryAuth::Anonymous,
        };
        (Client::new(config), auth)
    }

    fn reference(&self, repo: &str, tag: &str) -> Reference {
        let host = if self.ca.is_some() {
            format!("localhost:{}", self.addr.port())
        } else {
            self.host()
        };
        Reference::with_tag(host, repo.to_owned(), tag.to_owned())
    }

    /// Pushes `blobs` and then `manifests` (each with its media type, tagged `tag` when
    /// given, else by digest), in order. Returns the digest of the last manifest.
    pub async fn push(
        &self,
        repo: &str,
        blobs: &[&[u8]],
        manifests: &[(&[u8], &str, Option<&str>)],
    ) -> Digest {
        let (client, auth) = self.client();
        let base = self.reference(repo, "x");
        client
            .auth(&base, &auth, RegistryOperation::Push)
            .await
            .expect("auth for push");
        for blob in blobs {
            let digest = Digest::of(blob).to_string();
            client
                .push_blob(&base, Bytes::copy_from_slice(blob), &digest)
                .await
                .expect("push blob");
        }
        let mut last = None;
        for (body, media_type, tag) in manifests {
            let digest = Digest::of(body);
            let reference = match tag {
                Some(tag) => self.reference(repo, tag),
                None => base.clone_with_digest(digest.to_string()),
            };
            client
                .push_manifest_raw(
                    &reference,
                    Bytes::copy_from_slice(body),
                    media_type.parse().expect("media type"),
                )
                .await
                .expect("push manifest");
            last = Some(digest);
        }
        last.expect("a manifest")
    }

    /// Pushes a one-image catalog: `labels` on the config, `layers` as given (compressed or
    /// not), tagged `tag`. Returns the manifest digest.
    pub async fn push_image(
        &self,
        repo: &str,
        tag: &str,
        labels: &[(&str, &str)],
        layers: &[Vec<u8>],
    ) -> Digest {
        let config = fbc_image::testing::config(labels);
        let manifest = fbc_image::testing::manifest(&config, layers);
        let mut blobs: Vec<&[u8]> = vec![&config];
        blobs.extend(layers.iter().map(Vec::as_slice));
        self.push(repo, &blobs, &[(&manifest, OCI_MANIFEST, Some(tag))])
            .await
    }
}

pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";

enum Event {
    Password(String),
    Listening(SocketAddr),
}

fn field(line: &str, name: &str) -> Option<String> {
    let value = line.split(name).nth(1)?;
    let value = value.strip_prefix('"').unwrap_or(value);
    Some(value.split(['"', ' ']).next()?.to_owned())
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A token endpoint answering every request with a token, recording its Authorization header.
fn token_endpoint(seen: Arc<Mutex<Vec<String>>>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let text = String::from_utf8_lossy(&head);
            let authorization = text
                .lines()
                .find_map(|l| {
                    l.strip_prefix("authorization: ")
                        .or_else(|| l.strip_prefix("Authorization: "))
                })
                .unwrap_or("")
                .to_owned();
            if let Ok(mut seen) = seen.lock() {
                seen.push(authorization);
            }
            let body = r#"{"token":"test-token","expires_in":300}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    addr
}

/// A layer (gzip) holding every file of `dir` under `configs/`, in name order.
pub fn catalog_layer(dir: &Path) -> Vec<u8> {
    fbc_image::testing::gzip(&fbc_image::testing::configs_tar(dir))
}

/// Copies the tree `from` into `to` (made if missing).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}
