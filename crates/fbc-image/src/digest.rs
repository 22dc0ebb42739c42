//! `sha256:` digests: parsed, computed and checked.
//!
//! In: digest strings from references, manifests and registries; bytes and files. Out: a
//! [`Digest`] (only sha256: the algorithm every registry and OCI layout uses for catalogs), or a
//! [`DigestError`] saying what did not match.

use sha2::{Digest as _, Sha256};
use std::fmt;
use std::io::{self, Read};
use std::path::Path;
use std::str::FromStr;

/// A `sha256:<64 lowercase hex>` content digest.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest {
    hex: String,
}

/// Why a digest was refused or did not match.
#[derive(Debug, thiserror::Error)]
pub enum DigestError {
    /// Not `sha256:` followed by 64 lowercase hex digits.
    #[error("invalid digest {0:?}: expected sha256: and 64 lowercase hex digits")]
    Invalid(String),
    /// Content whose digest is not the one it was fetched by.
    #[error("digest mismatch: expected {expected}, got {actual}")]
    Mismatch {
        /// The digest the content was named by.
        expected: Digest,
        /// The digest of what arrived.
        actual: Digest,
    },
    /// Content whose size is not the one its descriptor gives.
    #[error("size mismatch for {digest}: the descriptor says {expected} bytes, got {actual}")]
    Size {
        /// The content's digest.
        digest: Digest,
        /// The descriptor's size.
        expected: u64,
        /// The bytes read.
        actual: u64,
    },
}

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest::from_hasher(Sha256::new_with_prefix(bytes))
    }

    fn from_hasher(hasher: Sha256) -> Digest {
        let out = hasher.finalize();
        let mut hex = String::with_capacity(64);
        for b in out.iter() {
            hex.push(char::from(HEX[usize::from(b >> 4)]));
            hex.push(char::from(HEX[usize::from(b & 15)]));
        }
        Digest { hex }
    }

    /// The 64 hex digits, for file names (`blobs/sha256/<hex>`).
    pub fn hex(&self) -> &str {
        &self.hex
    }

    /// Fails unless `bytes` have this digest.
    pub fn check(&self, bytes: &[u8]) -> Result<(), DigestError> {
        let actual = Digest::of(bytes);
        if actual == *self {
            Ok(())
        } else {
            Err(DigestError::Mismatch {
                expected: self.clone(),
                actual,
            })
        }
    }

    /// Reads the file at `path` through, failing unless it is `size` bytes with this digest.
    pub fn check_file(&self, path: &Path, size: u64) -> Result<(), FileCheckError> {
        let file = std::fs::File::open(path).map_err(FileCheckError::Io)?;
        let mut hasher = Sha256::new();
        // One more byte than the descriptor allows tells a longer file apart without reading it all.
        let mut limited = file.take(size.saturating_add(1));
        let mut buf = vec![0u8; 64 * 1024];
        let mut read = 0u64;
        loop {
            let n = match limited.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(FileCheckError::Io(e)),
            };
            hasher.update(&buf[..n]);
            read += n as u64;
        }
        if read != size {
            return Err(FileCheckError::Digest(DigestError::Size {
                digest: self.clone(),
                expected: size,
                actual: read,
            }));
        }
        let actual = Digest::from_hasher(hasher);
        if actual != *self {
            return Err(FileCheckError::Digest(DigestError::Mismatch {
                expected: self.clone(),
                actual,
            }));
        }
        Ok(())
    }
}

/// Why a file failed its check.
#[derive(Debug, thiserror::Error)]
pub enum FileCheckError {
    /// The file could not be read.
    #[error("{0}")]
    Io(io::Error),
    /// The file is not what its descriptor says.
    #[error("{0}")]
    Digest(DigestError),
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl FromStr for Digest {
    type Err = DigestError;

    fn from_str(s: &str) -> Result<Digest, DigestError> {
        match s.strip_prefix("sha256:") {
            Some(hex)
                if hex.len() == 64
                    && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) =>
            {
                Ok(Digest {
                    hex: hex.to_owned(),
                })
            }
            _ => Err(DigestError::Invalid(s.chars().take(100).collect())),
        }
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", self.hex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_of_empty_is_the_known_one() {
        assert_eq!(
            Digest::of(b"").to_string(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn parse_refuses_other_algorithms_case_and_lengths() {
        let good = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert!(good.parse::<Digest>().is_ok());
        for bad in [
            "sha512:e3b0",
            "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
            "sha256:e3b0",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:../../../../etc/passwd0000000000000000000000000000000000000000",
        ] {
            assert!(bad.parse::<Digest>().is_err(), "{bad}");
        }
    }

    #[test]
    fn check_file_tells_size_and_content_apart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("blob");
        std::fs::write(&path, b"hello").expect("write");
        let d = Digest::of(b"hello");
        assert!(d.check_file(&path, 5).is_ok());
        assert!(matches!(
            d.check_file(&path, 4),
            Err(FileCheckError::Digest(DigestError::Size { actual: 5, .. }))
        ));
        std::fs::write(&path, b"hellO").expect("write");
        assert!(matches!(
            d.check_file(&path, 5),
            Err(FileCheckError::Digest(DigestError::Mismatch { .. }))
        ));
    }
}
