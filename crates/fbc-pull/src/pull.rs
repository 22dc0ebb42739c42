//! A registry reference → its digest, or its labels and layer files.
//!
//! In: a [`RegistryRef`], [`RegistryOptions`], [`ImageLimits`] and the wanted [`Platform`].
//! Out: [`Puller::resolve`], the digest the reference names now (no request for a digest
//! reference; one `HEAD` for a tag); [`Puller::fetch`], a [`PulledImage`]: that digest, the
//! image config's labels and the layers as files in a directory the caller owns.
//!
//! Every document is held to the 4 MiB document limit and checked against the digest it was
//! asked for by; a multi-platform index is resolved with `fbc_image`'s platform rules (the same
//! as an OCI layout's); the config is read into memory within that limit; each layer is
//! streamed to its file (never held in memory), refused past its descriptor's size, and its
//! digest checked by `oci_client` as it streams. A failed layer leaves a file the caller's
//! directory removes.
//!
//! `oci_client` reads a manifest's body whole before this code sees its size: a registry that
//! sends an endless manifest is bounded only by the request timeout, not by the document limit
//! (noted in docs/security.md).

mod capped;

use crate::connect::{self, RegistryOptions};
use crate::error::{PullError, PullErrorKind};
use crate::retry::retrying;
use capped::Capped;
use fbc_image::ImageLimits;
use fbc_image::digest::Digest;
use fbc_image::manifest::{self, Blob, Document, Platform, PlatformChoice, select_platform};
use fbc_image::reference::RegistryRef;
use fbc_image::spec::ACCEPTED_MANIFEST_TYPES;
use fbc_image::unpack::LayerFile;
use oci_client::Reference;
use oci_client::manifest::OciDescriptor;
use oci_client::secrets::RegistryAuth;
use std::collections::BTreeMap;
use std::path::Path;

/// One image's labels and layer files.
#[derive(Debug, Clone)]
pub struct PulledImage {
    /// What the reference resolved to (an index's digest for a multi-platform image).
    pub digest: Digest,
    /// The image config's labels.
    pub labels: BTreeMap<String, String>,
    /// The layers, in manifest order.
    pub layers: Vec<LayerFile>,
    /// Bytes downloaded: documents and layers.
    pub bytes: u64,
}

/// What a reference names now: its digest, and for a tag the manifest already fetched.
#[derive(Debug, Clone)]
pub struct TopManifest {
    /// The digest.
    pub digest: Digest,
    /// The manifest's bytes, when they were fetched to learn the digest.
    body: Option<Vec<u8>>,
}

/// Pulls one reference.
pub struct Puller {
    /// What the clients are made from, and the credentials.
    prepared: connect::Prepared,
    /// HTTPS, and for a loopback or `--insecure-registry` registry plain HTTP (used when HTTPS
    /// fails); made on first use.
    clients: std::sync::Arc<std::sync::OnceLock<connect::Clients>>,
    /// Whether plain HTTP was found to be the way, once a request has succeeded.
    use_plain: std::sync::Arc<std::sync::OnceLock<bool>>,
    auth: RegistryAuth,
    target: RegistryRef,
    reference: Reference,
    shown: String,
    options: RegistryOptions,
    limits: ImageLimits,
    platform: Platform,
}

impl std::fmt::Debug for Puller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Puller")
            .field("image", &self.shown)
            .finish_non_exhaustive()
    }
}

impl Puller {
    /// A puller for `target`; reads the credentials file and the CA files now.
    pub fn new(
        target: &RegistryRef,
        options: &RegistryOptions,
        limits: ImageLimits,
        platform: Platform,
    ) -> Result<Puller, PullError> {
        let shown = target.to_string();
        let prepared =
            connect::prepare(options, &target.registry, &target.repository).map_err(|kind| {
                PullError {
                    image: shown.clone(),
                    kind,
                }
            })?;
        Ok(Puller {
            auth: prepared.auth.clone(),
            prepared,
            clients: std::sync::Arc::default(),
            use_plain: std::sync::Arc::default(),
            reference: oci_reference(target),
            target: target.clone(),
            shown,
            options: options.clone(),
            limits,
            platform,
        })
    }

    /// A puller for another reference on the same registry that shares this one's
    /// clients (connections, TLS set-up, bearer tokens) and what was learnt of the scheme:
    /// many images of one registry cost one client, and one HTTPS probe. Credentials are
    /// looked up for `target`'s repository. `None` when `target` is on another registry.
    pub fn sibling(&self, target: &RegistryRef) -> Option<Result<Puller, PullError>> {
        if !target.registry.eq_ignore_ascii_case(&self.target.registry) {
            return None;
        }
        let shown = target.to_string();
        let prepared = match connect::prepare(&self.options, &target.registry, &target.repository) {
            Ok(prepared) => prepared,
            Err(kind) => return Some(Err(PullError { image: shown, kind })),
        };
        Some(Ok(Puller {
            auth: prepared.auth.clone(),
            prepared,
            clients: self.clients.clone(),
            use_plain: self.use_plain.clone(),
            reference: oci_reference(target),
            target: target.clone(),
            shown,
            options: self.options.clone(),
            limits: self.limits,
            platform: self.platform.clone(),
        }))
    }

    /// The reference as given.
    pub fn image(&self) -> &str {
        &self.shown
    }

    /// The digest the reference names now: a digest reference's own (no request), a tag's
    /// from one `HEAD` of its manifest.
    pub async fn resolve(&self) -> Result<Digest, PullError> {
        if let Some(digest) = &self.target.digest {
            return Ok(digest.clone());
        }
        self.head().await
    }

    /// Whether the registry has the reference's manifest, and its digest: one `HEAD`, also
    /// for a digest reference (what `check-images` asks; no layer is fetched).
    pub async fn head(&self) -> Result<Digest, PullError> {
        let what = match &self.target.digest {
            Some(digest) => format!("manifest {digest}"),
            None => format!("manifest {}", self.tag()),
        };
        let text = self
            .request(&what, |client| async move {
                client
                    .fetch_manifest_digest(&self.reference, &self.auth)
                    .await
            })
            .await?;
        text.parse()
            .map_err(|source| self.fail(PullErrorKind::Digest { what, source }))
    }

    /// Pulls the image into `dir` (layer files named by digest); `digest` is what
    /// [`resolve`](Self::resolve) returned, so a tag moved since is still this image.
    pub async fn fetch(&self, digest: &Digest, dir: &Path) -> Result<PulledImage, PullError> {
        self.fetch_from(digest, None, dir).await
    }

    /// [`resolve`](Self::resolve) and [`fetch`](Self::fetch) in one request fewer: a tag's
    /// manifest is fetched once, its digest computed from its bytes. For a one-off pull
    /// (`render`), where nothing is kept by digest that could spare the download.
    pub async fn pull(&self, dir: &Path) -> Result<PulledImage, PullError> {
        let top = self.top_manifest().await?;
        self.fetch_top(top, dir).await
    }

    /// The first step of [`pull`](Self::pull): the digest the reference names and, for a
    /// tag, the manifest's bytes (one request; none for a digest reference). A caller that
    /// keeps images by digest looks there before [`fetch_top`](Self::fetch_top).
    pub async fn top_manifest(&self) -> Result<TopManifest, PullError> {
        if let Some(digest) = &self.target.digest {
            return Ok(TopManifest {
                digest: digest.clone(),
                body: None,
            });
        }
        let what = format!("manifest {}", self.tag());
        let (body, _) = self
            .request(&what, |client| async move {
                client
                    .pull_manifest_raw(&self.reference, &self.auth, ACCEPTED_MANIFEST_TYPES)
                    .await
            })
            .await?;
        let limit = self.limits.max_document_bytes;
        if body.len() as u64 > limit {
            return Err(self.fail(PullErrorKind::Size {
                what,
                expected: limit,
                actual: body.len() as u64,
            }));
        }
        Ok(TopManifest {
            digest: Digest::of(&body),
            body: Some(body.to_vec()),
        })
    }

    /// The rest of [`pull`](Self::pull): the image `top` names, into `dir`.
    pub async fn fetch_top(&self, top: TopManifest, dir: &Path) -> Result<PulledImage, PullError> {
        self.fetch_from(&top.digest, top.body, dir).await
    }

    async fn fetch_from(
        &self,
        digest: &Digest,
        fetched: Option<Vec<u8>>,
        dir: &Path,
    ) -> Result<PulledImage, PullError> {
        let mut bytes = 0u64;
        let top = Blob {
            digest: digest.clone(),
            size: self.limits.max_document_bytes,
        };
        let image = self.image_manifest(&top, fetched, 0, &mut bytes).await?;
        let (config, layers) = manifest::blobs(&image, &self.limits).map_err(|source| {
            self.fail(PullErrorKind::Manifest {
                what: format!("manifest {digest}"),
                source: Box::new(source),
            })
        })?;
        let config_bytes = self.config(&config).await?;
        bytes += config.size;
        let labels = manifest::labels(&config_bytes, &self.limits).map_err(|source| {
            self.fail(PullErrorKind::Manifest {
                what: format!("config {}", config.digest),
                source: Box::new(source),
            })
        })?;
        let mut files = Vec::with_capacity(layers.len());
        for (i, layer) in layers.iter().enumerate() {
            let path = dir.join(layer.digest.hex());
            self.layer(i, layer, &path).await?;
            bytes += layer.size;
            files.push(LayerFile {
                digest: layer.digest.clone(),
                path,
            });
        }
        Ok(PulledImage {
            digest: digest.clone(),
            labels,
            layers: files,
            bytes,
        })
    }

    /// The image manifest `blob` is, or leads to through an index for the platform.
    async fn image_manifest(
        &self,
        blob: &Blob,
        fetched: Option<Vec<u8>>,
        depth: usize,
        bytes: &mut u64,
    ) -> Result<oci_spec::image::ImageManifest, PullError> {
        let what = format!("manifest {}", blob.digest);
        let body = match fetched {
            Some(body) => body,
            None => self.document(blob).await?,
        };
        *bytes += body.len() as u64;
        let manifest_err = |source| {
            self.fail(PullErrorKind::Manifest {
                what: what.clone(),
                source: Box::new(source),
            })
        };
        let index = match manifest::parse_document(&body, &self.limits).map_err(manifest_err)? {
            Document::Image(image) => return Ok(*image),
            Document::Index(index) => index,
        };
        if depth >= 1 {
            return Err(self.fail(PullErrorKind::TooDeep(blob.digest.to_string())));
        }
        match select_platform(&index, &self.platform).map_err(manifest_err)? {
            PlatformChoice::Match(entry) => {
                let blob = Blob {
                    digest: entry.digest,
                    size: entry.size,
                };
                Box::pin(self.image_manifest(&blob, None, depth + 1, bytes)).await
            }
            PlatformChoice::Candidates(candidates) => {
                let mut images = Vec::with_capacity(candidates.len());
                for entry in &candidates {
                    let blob = Blob {
                        digest: entry.digest.clone(),
                        size: entry.size,
                    };
                    images
                        .push(Box::pin(self.image_manifest(&blob, None, depth + 1, bytes)).await?);
                }
                manifest::any_platform(images, &self.platform, &candidates).map_err(manifest_err)
            }
        }
    }

    /// A manifest or index by digest, at most `blob.size` bytes and the document limit.
    async fn document(&self, blob: &Blob) -> Result<Vec<u8>, PullError> {
        let what = format!("manifest {}", blob.digest);
        let at = self.reference.clone_with_digest(blob.digest.to_string());
        let (body, _) = self
            .request(&what, |client| {
                let at = &at;
                async move {
                    client
                        .pull_manifest_raw(at, &self.auth, ACCEPTED_MANIFEST_TYPES)
                        .await
                }
            })
            .await?;
        let limit = blob.size.min(self.limits.max_document_bytes);
        if body.len() as u64 > limit {
            return Err(self.fail(PullErrorKind::Size {
                what,
                expected: limit,
                actual: body.len() as u64,
            }));
        }
        // oci_client checked the digest; a document is checked again here, where it is used.
        blob.digest
            .check(&body)
            .map_err(|source| self.fail(PullErrorKind::Digest { what, source }))?;
        Ok(body.to_vec())
    }

    /// The image config, into memory within the document limit.
    async fn config(&self, blob: &Blob) -> Result<Vec<u8>, PullError> {
        let what = format!("config {}", blob.digest);
        let written = self
            .request(&what, |client| async move {
                let mut sink = Capped::new(Vec::new(), blob.size);
                let pulled = client
                    .pull_blob(&self.reference, &descriptor(blob), &mut sink)
                    .await;
                pulled.map(|()| sink)
            })
            .await?;
        self.check_size(&what, blob, written.written())?;
        Ok(written.into_inner())
    }

    /// Layer `index`, streamed to `path`.
    async fn layer(&self, index: usize, blob: &Blob, path: &Path) -> Result<(), PullError> {
        let what = format!("layer {index} {}", blob.digest);
        let written = self
            .request(&what, |client| async move {
                // Each attempt starts the file again; written in 1 MiB pieces, not per
                // network chunk (each write of a tokio file is a trip to a blocking thread).
                let file = tokio::fs::File::create(path).await?;
                let buffered = tokio::io::BufWriter::with_capacity(1 << 20, file);
                let mut sink = Capped::new(buffered, blob.size);
                client
                    .pull_blob(&self.reference, &descriptor(blob), &mut sink)
                    .await?;
                Ok(sink.written())
            })
            .await?;
        // A scratch file, read back at once and removed: no fsync.
        self.check_size(&what, blob, written)
    }

    fn check_size(&self, what: &str, blob: &Blob, written: u64) -> Result<(), PullError> {
        if written != blob.size {
            return Err(self.fail(PullErrorKind::Size {
                what: what.to_owned(),
                expected: blob.size,
                actual: written,
            }));
        }
        Ok(())
    }

    /// Runs one registry request with the retry policy, classifying its error.
    async fn request<'a, T, F, Fut>(&'a self, what: &str, attempt: F) -> Result<T, PullError>
    where
        F: Fn(&'a oci_client::Client) -> Fut,
        Fut: Future<Output = Result<T, oci_client::errors::OciDistributionError>>,
    {
        let registry = &self.target.registry;
        let timeout = self.options.request_timeout;
        let clients = self.clients.get_or_init(|| self.prepared.clients());
        let mut https_error = None;
        let plain = match (self.use_plain.get(), &clients.plain) {
            (Some(known), _) => *known,
            (None, None) => false,
            (None, Some(_)) => match self.https_answers(&clients.https).await {
                Ok(()) => false,
                Err(why) => {
                    https_error = Some(why);
                    true
                }
            },
        };
        let client = match (&clients.plain, plain) {
            (Some(client), true) => client,
            _ => &clients.https,
        };
        let result = retrying(self.options.attempts, self.options.backoff, || async {
            match tokio::time::timeout(timeout, attempt(client)).await {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(e)) => Err(PullErrorKind::from_oci(what, registry, e)),
                Err(_) => Err(PullErrorKind::Transient {
                    what: what.to_owned(),
                    reason: format!("no answer within {}s", timeout.as_secs()),
                }),
            }
        })
        .await;
        if result.is_ok() {
            let _ = self.use_plain.set(plain);
        }
        result.map_err(|kind| match https_error {
            Some(https) => self.fail(PullErrorKind::BothSchemes {
                plain: Box::new(kind),
                https,
            }),
            None => self.fail(kind),
        })
    }

    /// Whether the registry answers HTTPS at all (any HTTP answer, even a refusal), or why
    /// not: how a registry allowed plain HTTP is first tried, as containers/image does.
    async fn https_answers(&self, https: &oci_client::Client) -> Result<(), String> {
        let probe = https.fetch_manifest_digest(&self.reference, &self.auth);
        let answered = match tokio::time::timeout(self.options.connect_timeout, probe).await {
            Ok(Err(oci_client::errors::OciDistributionError::RequestError(e))) => {
                Err(crate::error::chain(&e))
            }
            Ok(_) => Ok(()),
            Err(_) => Err(format!(
                "no answer within {}s",
                self.options.connect_timeout.as_secs()
            )),
        };
        match &answered {
            Ok(()) => {
                let _ = self.use_plain.set(false);
            }
            Err(why) => {
                tracing::debug!(image = %self.shown, error = %why, "no HTTPS; trying plain HTTP");
            }
        }
        answered
    }

    fn tag(&self) -> &str {
        self.target.tag.as_deref().unwrap_or("latest")
    }

    fn fail(&self, kind: PullErrorKind) -> PullError {
        PullError {
            image: self.shown.clone(),
            kind,
        }
    }
}

fn descriptor(blob: &Blob) -> OciDescriptor {
    OciDescriptor {
        digest: blob.digest.to_string(),
        size: i64::try_from(blob.size).unwrap_or(i64::MAX),
        ..OciDescriptor::default()
    }
}

/// `oci_client`'s form of the reference.
fn oci_reference(target: &RegistryRef) -> Reference {
    let registry = target.registry.clone();
    let repository = target.repository.clone();
    match (&target.tag, &target.digest) {
        (Some(tag), Some(digest)) => {
            Reference::with_tag_and_digest(registry, repository, tag.clone(), digest.to_string())
        }
        (None, Some(digest)) => Reference::with_digest(registry, repository, digest.to_string()),
        (Some(tag), None) => Reference::with_tag(registry, repository, tag.clone()),
        (None, None) => Reference::with_tag(registry, repository, "latest".to_owned()),
    }
}
