//! Why a pull failed, naming the image and what was being read.
//!
//! In: `oci_client`'s errors and this crate's own checks. Out: [`PullError`], whose message
//! names the image and the manifest or blob, and which says whether trying again later may help
//! ([`PullError::is_transient`]: what a status reports as `Retrying` rather than `Blocked`).
//! No message carries a credential: `oci_client` puts none in its errors, and registry error
//! bodies are cut short.

use crate::credentials::CredentialsError;
use fbc_image::digest::DigestError;
use fbc_image::manifest::ManifestError;
use oci_client::errors::{OciDistributionError, OciErrorCode};

/// The most of a registry's error body shown.
const BODY_SHOWN: usize = 200;

/// A failed pull.
#[derive(Debug, thiserror::Error)]
#[error("image {image}: {kind}")]
pub struct PullError {
    /// The image reference as given.
    pub image: String,
    /// What went wrong.
    pub kind: PullErrorKind,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum PullErrorKind {
    /// The credentials file could not be read.
    #[error("{0}")]
    Credentials(#[from] CredentialsError),
    /// A `--registry-ca` file could not be read.
    #[error("--registry-ca {path}: {reason}")]
    Ca {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The registry refused the credentials (or asked for some).
    #[error(
        "{what}: not authorized by {registry} ({reason}); check the credentials for it (--auth-file, REGISTRY_AUTH_FILE, DOCKER_CONFIG)"
    )]
    Unauthorized {
        /// What was being read.
        what: String,
        /// The registry.
        registry: String,
        /// The registry's words.
        reason: String,
    },
    /// The registry has no such manifest or blob.
    #[error("{what}: not found ({reason})")]
    NotFound {
        /// What was being read.
        what: String,
        /// The registry's words.
        reason: String,
    },
    /// The content does not have the digest it was asked for by.
    #[error("{what}: digest mismatch: expected {expected}, the content is {actual}")]
    DigestMismatch {
        /// What was being read.
        what: String,
        /// The digest asked for.
        expected: String,
        /// The content's.
        actual: String,
    },
    /// The content is not the size its descriptor says.
    #[error("{what}: the registry sent {actual} bytes, the descriptor says {expected}")]
    Size {
        /// What was being read.
        what: String,
        /// The descriptor's size.
        expected: u64,
        /// What came (at least).
        actual: u64,
    },
    /// A manifest, index or config was refused.
    #[error("{what}: {source}")]
    Manifest {
        /// Which document.
        what: String,
        /// Why.
        source: Box<ManifestError>,
    },
    /// A digest in the registry's answer is not a sha256 digest.
    #[error("{what}: {source}")]
    Digest {
        /// Where.
        what: String,
        /// Why.
        source: DigestError,
    },
    /// An index inside an index inside an index.
    #[error("manifest {0} nests indexes more than two deep")]
    TooDeep(String),
    /// The connection or the registry failed; trying again may help.
    #[error("{what}: {reason}")]
    Transient {
        /// What was being read.
        what: String,
        /// Why.
        reason: String,
    },
    /// The registry answered something this client cannot use.
    #[error("{what}: {reason}")]
    Registry {
        /// What was being read.
        what: String,
        /// Why.
        reason: String,
    },
    /// A registry allowed plain HTTP failed over both: the plain HTTP error, and why HTTPS,
    /// tried first, did not answer (a certificate not trusted, say).
    #[error("{plain}; HTTPS, tried first: {https}")]
    BothSchemes {
        /// The error over plain HTTP.
        plain: Box<PullErrorKind>,
        /// Why HTTPS did not answer.
        https: String,
    },
    /// A local file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

impl PullError {
    /// Whether a later attempt may succeed without anyone changing anything: connection
    /// failures, timeouts, 5xx and 429 answers.
    pub fn is_transient(&self) -> bool {
        self.kind.is_transient()
    }
}

impl PullErrorKind {
    /// See [`PullError::is_transient`].
    pub fn is_transient(&self) -> bool {
        match self {
            PullErrorKind::Transient { .. } => true,
            PullErrorKind::BothSchemes { plain, .. } => plain.is_transient(),
            _ => false,
        }
    }

    /// `error` from reading `what` at `registry`, classified.
    pub(crate) fn from_oci(what: &str, registry: &str, error: OciDistributionError) -> Self {
        let what = what.to_owned();
        match error {
            OciDistributionError::UnauthorizedError { .. } => PullErrorKind::Unauthorized {
                what,
                registry: registry.to_owned(),
                reason: "401 Unauthorized".to_owned(),
            },
            OciDistributionError::AuthenticationFailure(reason) => PullErrorKind::Unauthorized {
                what,
                registry: registry.to_owned(),
                reason: format!("the token service refused: {}", cut(&reason)),
            },
            OciDistributionError::DigestError(
                oci_client::errors::DigestError::VerificationError { expected, actual },
            ) => PullErrorKind::DigestMismatch {
                what,
                expected,
                actual,
            },
            OciDistributionError::RegistryError { envelope, .. } => {
                let reason = envelope
                    .errors
                    .iter()
                    .map(|e| format!("{}: {}", code_name(&e.code), cut(&e.message)))
                    .collect::<Vec<_>>()
                    .join("; ");
                let code = |c: &OciErrorCode| envelope.errors.iter().any(|e| &e.code == c);
                if code(&OciErrorCode::Unauthorized) || code(&OciErrorCode::Denied) {
                    PullErrorKind::Unauthorized {
                        what,
                        registry: registry.to_owned(),
                        reason,
                    }
                } else if code(&OciErrorCode::Toomanyrequests) {
                    PullErrorKind::Transient { what, reason }
                } else if [
                    OciErrorCode::ManifestUnknown,
                    OciErrorCode::BlobUnknown,
                    OciErrorCode::NameUnknown,
                    OciErrorCode::NotFound,
                ]
                .iter()
                .any(code)
                {
                    PullErrorKind::NotFound { what, reason }
                } else {
                    PullErrorKind::Registry { what, reason }
                }
            }
            OciDistributionError::ServerError { code, message, .. } => {
                let reason = format!("HTTP {code}: {}", cut(&message));
                match code {
                    404 => PullErrorKind::NotFound { what, reason },
                    401 | 403 => PullErrorKind::Unauthorized {
                        what,
                        registry: registry.to_owned(),
                        reason,
                    },
                    429 | 500.. => PullErrorKind::Transient { what, reason },
                    _ => PullErrorKind::Registry { what, reason },
                }
            }
            OciDistributionError::RequestError(e) => PullErrorKind::Transient {
                what,
                reason: chain(&e),
            },
            OciDistributionError::IoError(e) => PullErrorKind::Transient {
                what,
                reason: chain(&e),
            },
            other => PullErrorKind::Registry {
                what,
                reason: cut(&other.to_string()),
            },
        }
    }
}

/// An error and its causes, one line (reqwest's own message leaves out the cause).
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

/// The code as the registry spelled it (`MANIFEST_UNKNOWN`).
fn code_name(code: &OciErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{code:?}"))
}

/// `text` cut to [`BODY_SHOWN`] characters: registry bodies are the registry's to choose.
fn cut(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(BODY_SHOWN) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_errors_are_classified_by_status_and_bodies_cut() {
        let server = |code| OciDistributionError::ServerError {
            code,
            url: "http://r/v2/".into(),
            message: "x".repeat(1000),
        };
        let transient = PullErrorKind::from_oci("manifest v1", "r", server(503));
        assert!(matches!(transient, PullErrorKind::Transient { .. }));
        assert!(transient.to_string().len() < 300, "{transient}");
        assert!(matches!(
            PullErrorKind::from_oci("manifest v1", "r", server(429)),
            PullErrorKind::Transient { .. }
        ));
        assert!(matches!(
            PullErrorKind::from_oci("manifest v1", "r", server(404)),
            PullErrorKind::NotFound { .. }
        ));
        assert!(matches!(
            PullErrorKind::from_oci("manifest v1", "r", server(400)),
            PullErrorKind::Registry { .. }
        ));
    }
}
