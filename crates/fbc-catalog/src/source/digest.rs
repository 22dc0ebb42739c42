//! The catalog digest: one hash of exactly what a load read.
//!
//! In: the catalog files `.indexignore` keeps (relative path, length, xxh3-128 of
//! the bytes), in walk order. Out: a [`CatalogDigest`], equal for two catalogs
//! exactly when the same files hold the same bytes.
//!
//! A load hashes each file's bytes while they are in its read buffer, so the digest
//! of a loaded catalog describes the very bytes it was built from (a file changed
//! during the load cannot make the two disagree). [`digest_dir`] computes the same
//! value without parsing, for a warm start to compare with its cache.

use super::limits::ParseLimits;
use super::parse::read_error;
use super::read::{ReadError, open_regular};
use super::{LoadError, list_catalog_files};
use std::fmt;
use std::path::Path;

/// One catalog file as read: its path, length and content hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDigest {
    /// Path relative to the root, `/`-separated.
    pub rel: String,
    /// Length in bytes.
    pub size: u64,
    /// xxh3-128 of the bytes.
    pub hash: u128,
    /// Modification time when read (nanoseconds since the epoch), if known; not
    /// part of the digest (see [`fingerprint`]).
    pub modified: Option<i128>,
}

/// The digest of a whole catalog; shown as 32 hex digits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CatalogDigest(pub u128);

impl fmt::Display for CatalogDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl CatalogDigest {
    /// Combines the files of a catalog, in walk order.
    pub fn of(files: &[FileDigest]) -> CatalogDigest {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(b"fbc catalog digest v1");
        for file in files {
            hasher.update(&(file.rel.len() as u64).to_le_bytes());
            hasher.update(file.rel.as_bytes());
            hasher.update(&file.size.to_le_bytes());
            hasher.update(&file.hash.to_le_bytes());
        }
        CatalogDigest(hasher.digest128())
    }
}

/// What [`digest_dir`] found.
#[derive(Clone, Debug)]
pub struct DirDigest {
    /// The catalog digest.
    pub digest: CatalogDigest,
    /// Catalog files covered.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
    /// Their fingerprint as they were hashed (see [`fingerprint`]).
    pub fingerprint: Option<u128>,
}

/// The digest of the catalog at `root` without parsing it: every file is read and
/// hashed, on every core, through one reused buffer per worker.
pub fn digest_dir(root: &Path, limits: &ParseLimits) -> Result<DirDigest, Vec<LoadError>> {
    let files = list_catalog_files(root, limits)?;
    let hashes = crate::parallel::parallel_map_with(&files, |buffer: &mut Vec<u8>, (rel, path)| {
        hash_file(path, limits.max_file_bytes, buffer).map_err(|e| read_error(rel, e))
    });
    let mut digests = Vec::with_capacity(files.len());
    for ((rel, _), hashed) in files.iter().zip(hashes) {
        let (hash, size, modified) = match hashed {
            Some(Ok(v)) => v,
            Some(Err(e)) => return Err(vec![e]),
            None => {
                return Err(vec![LoadError::Io {
                    path: rel.clone(),
                    message: "internal error: the worker hashing this file failed".into(),
                }]);
            }
        };
        digests.push(FileDigest {
            rel: rel.clone(),
            size,
            hash,
            modified,
        });
    }
    Ok(DirDigest {
        digest: CatalogDigest::of(&digests),
        files: digests.len(),
        bytes: digests.iter().map(|f| f.size).sum(),
        fingerprint: fingerprint(digests.iter().map(|f| (f.rel.as_str(), f.size, f.modified))),
    })
}

/// The xxh3-128 and length of a regular file of at most `limit` bytes, read in
/// chunks through `buffer`.
pub fn hash_file(
    path: &Path,
    limit: u64,
    buffer: &mut Vec<u8>,
) -> Result<(u128, u64, Option<i128>), ReadError> {
    use std::io::Read;
    const CHUNK: usize = 1 << 20;
    buffer.resize(CHUNK, 0);
    let mut file = open_regular(path)?;
    let modified = super::read::modified_ns(&file.metadata()?);
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut len = 0u64;
    loop {
        match file.read(buffer) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buffer[..n]);
                len += n as u64;
                if len > limit {
                    return Err(ReadError::TooLarge { limit });
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok((hasher.digest128(), len, modified))
}

/// A cheap stand-in for the digest: one hash of every catalog file's path, size
/// and modification time, as a load read them. `None` when a time is unknown.
///
/// A cache records it beside the digest; a start whose files have exactly the
/// recorded paths, sizes and times trusts the recorded digest instead of reading
/// and hashing every byte. Editing a file changes its time (and usually its
/// size); copying a tree, extracting an image layer or a ConfigMap update keep
/// or renew times consistently. Any difference falls back to hashing.
pub fn fingerprint<'a>(
    files: impl IntoIterator<Item = (&'a str, u64, Option<i128>)>,
) -> Option<u128> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(b"fbc catalog fingerprint v1");
    for (rel, size, modified) in files {
        hasher.update(&(rel.len() as u64).to_le_bytes());
        hasher.update(rel.as_bytes());
        hasher.update(&size.to_le_bytes());
        hasher.update(&modified?.to_le_bytes());
    }
    Some(hasher.digest128())
}

/// What [`fingerprint_dir`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirFingerprint {
    /// The fingerprint, when every file has a modification time.
    pub fingerprint: Option<u128>,
    /// Catalog files.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
}

/// The fingerprint of the catalog at `root` as it is now: its files listed and
/// each one `stat`ed, none read.
pub fn fingerprint_dir(
    root: &Path,
    limits: &ParseLimits,
) -> Result<DirFingerprint, Vec<LoadError>> {
    let files = list_catalog_files(root, limits)?;
    let mut stats = Vec::with_capacity(files.len());
    for (rel, path) in &files {
        let meta = std::fs::metadata(path).map_err(|e| vec![read_error(rel, ReadError::Io(e))])?;
        stats.push((rel.as_str(), meta.len(), super::read::modified_ns(&meta)));
    }
    Ok(DirFingerprint {
        files: stats.len(),
        bytes: stats.iter().map(|s| s.1).sum(),
        fingerprint: fingerprint(stats),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_hashed_in_chunks_has_the_one_shot_hash() {
        let dir = tempfile::tempdir().expect("tmp");
        for len in [0, 1, 100, (1 << 20) - 1, 1 << 20, (3 << 20) + 17] {
            let data: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let path = dir.path().join(format!("f{len}"));
            std::fs::write(&path, &data).expect("write");
            let (hash, size, _) = hash_file(&path, u64::MAX, &mut Vec::new()).expect("hash");
            assert_eq!(
                (hash, size),
                (xxhash_rust::xxh3::xxh3_128(&data), len as u64),
                "{len}"
            );
        }
    }

    #[test]
    fn the_digest_of_a_directory_equals_the_digest_of_its_load() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg")).expect("mkdir");
        std::fs::write(root.join("pkg/catalog.yaml"), "schema: a\nname: x\n").expect("write");
        std::fs::write(root.join("b.json"), "{\"schema\": \"b\"}").expect("write");
        std::fs::write(root.join(".indexignore"), "ignored.txt\n").expect("write");
        std::fs::write(root.join("ignored.txt"), "not a catalog file").expect("write");
        let limits = ParseLimits::default();
        let loaded = super::super::load_dir(root);
        let from_dir = digest_dir(root, &limits).expect("digest");
        assert_eq!(from_dir.files, 2);
        assert_eq!(CatalogDigest::of(&loaded.files), from_dir.digest);
        assert_eq!(from_dir.files, loaded.files.len());
    }

    #[test]
    fn any_change_of_path_length_or_bytes_changes_the_digest() {
        let file = |rel: &str, size, hash| FileDigest {
            rel: rel.into(),
            size,
            hash,
            modified: None,
        };
        let base = CatalogDigest::of(&[file("a", 1, 7), file("b", 2, 8)]);
        assert_ne!(base, CatalogDigest::of(&[file("a", 1, 7)]));
        assert_ne!(base, CatalogDigest::of(&[file("a", 1, 7), file("c", 2, 8)]));
        assert_ne!(base, CatalogDigest::of(&[file("a", 1, 7), file("b", 3, 8)]));
        assert_ne!(base, CatalogDigest::of(&[file("a", 1, 7), file("b", 2, 9)]));
        assert_ne!(base, CatalogDigest::of(&[file("b", 2, 8), file("a", 1, 7)]));
    }
}
