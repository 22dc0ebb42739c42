//! Unpacked catalogs by image digest, kept across restarts.
//!
//! In: a directory (`--cache-dir`'s `images/`), image digests, and a function that fills a fresh
//! directory. Out: the catalog directory of a digest, made at most once, appearing whole or not
//! at all. Layout:
//!
//! ```text
//! images/sha256-<hex>/catalog/     the configs directory's contents, as unpacked
//! images/sha256-<hex>/index/       room for the index cache of that catalog
//! images/sha256-<hex>/image.json   written last: the entry is complete (reference, digest, time)
//! images/.tmp-<pid>-<n>/           an unpack in progress; renamed into place when done
//! ```
//!
//! A failed or interrupted unpack leaves only a `.tmp-` directory, removed by the next [`Store::open`]
//! once its process is gone; the entry of a digest is never replaced once complete (content by
//! digest cannot change). [`Store::collect`] keeps the N most recently used entries, removing an
//! entry's marker first: one whose removal was interrupted is never taken for complete, and is
//! removed by the next [`Store::open`] (or replaced by the next [`Store::insert`] of its digest).

use crate::digest::Digest;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// The file whose presence marks a complete entry.
const MARKER: &str = "image.json";
const TMP_PREFIX: &str = ".tmp-";
/// The start of an entry's directory name, before the digest's hex.
const ENTRY_PREFIX: &str = "sha256-";

/// A store of unpacked catalogs.
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    next: AtomicU64,
}

/// A complete entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The image digest.
    pub digest: Digest,
    /// The catalog directory.
    pub catalog: PathBuf,
    /// The directory for the index cache of this catalog.
    pub index: PathBuf,
}

/// A directory under the store for a download in progress (layer files before they are
/// unpacked), removed when dropped, or by the next [`Store::open`] once its process is gone.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// What [`Store::insert`] records about an entry.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Record {
    reference: String,
    digest: String,
    unpacked_at_unix: u64,
}

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
#[error("image store {path}: {source}")]
pub struct StoreError {
    /// The path involved.
    pub path: String,
    /// The error.
    pub source: io::Error,
}

fn err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError {
        path: path.display().to_string(),
        source,
    }
}

impl Store {
    /// Opens (creating) the store at `root`, removing what interrupted unpacks and removals
    /// left: `.tmp-` directories of processes that are gone, entries without their marker.
    pub fn open(root: &Path) -> Result<Store, StoreError> {
        fs::create_dir_all(root).map_err(err(root))?;
        for entry in fs::read_dir(root).map_err(err(root))? {
            let entry = entry.map_err(err(root))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if let Some(rest) = name.strip_prefix(TMP_PREFIX) {
                let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
                if pid.is_none_or(|pid| !process_alive(pid)) {
                    let _ = fs::remove_dir_all(entry.path());
                }
            } else if name.starts_with(ENTRY_PREFIX) && !entry.path().join(MARKER).is_file() {
                // a removal by `collect` (marker first) that did not finish
                let _ = fs::remove_dir_all(entry.path());
            }
        }
        Ok(Store {
            root: root.to_owned(),
            next: AtomicU64::new(0),
        })
    }

    fn entry_at(&self, digest: &Digest) -> Entry {
        let dir = self.root.join(format!("{ENTRY_PREFIX}{}", digest.hex()));
        Entry {
            digest: digest.clone(),
            catalog: dir.join("catalog"),
            index: dir.join("index"),
        }
    }

    /// The complete entry of `digest`, marked as used now.
    pub fn get(&self, digest: &Digest) -> Option<Entry> {
        let entry = self.entry_at(digest);
        let marker = entry.catalog.with_file_name(MARKER);
        if !marker.is_file() {
            return None;
        }
        // Used now: collect() keeps the most recently used.
        if let Ok(file) = fs::File::options().append(true).open(&marker) {
            let _ = file.set_modified(SystemTime::now());
        }
        Some(entry)
    }

    /// A fresh scratch directory under the store.
    pub fn scratch(&self) -> Result<Scratch, StoreError> {
        let path = self.tmp_path();
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).map_err(err(&path))?;
        Ok(Scratch { path })
    }

    fn tmp_path(&self) -> PathBuf {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.root
            .join(format!("{TMP_PREFIX}{}-{n}", std::process::id()))
    }

    /// The entry of `digest`, made by `fill` (given an empty catalog directory) when missing.
    /// `fill`'s error leaves nothing behind.
    pub fn insert<E: From<StoreError>>(
        &self,
        digest: &Digest,
        reference: &str,
        fill: impl FnOnce(&Path) -> Result<(), E>,
    ) -> Result<Entry, E> {
        if let Some(entry) = self.get(digest) {
            return Ok(entry);
        }
        let tmp = self.tmp_path();
        let _ = fs::remove_dir_all(&tmp);
        let catalog = tmp.join("catalog");
        fs::create_dir_all(&catalog).map_err(err(&catalog))?;
        fs::create_dir(tmp.join("index")).map_err(err(&tmp))?;
        let result = fill(&catalog).and_then(|()| {
            let record = Record {
                reference: reference.to_owned(),
                digest: digest.to_string(),
                unpacked_at_unix: SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
            };
            let json = serde_json::to_vec_pretty(&record).map_err(io::Error::other);
            let marker = tmp.join(MARKER);
            json.and_then(|j| fs::write(&marker, j))
                .map_err(err(&marker))?;
            let dir = self.entry_at(digest).catalog.with_file_name("");
            let renamed = fs::rename(&tmp, &dir).or_else(|e| {
                if dir.is_dir() && !dir.join(MARKER).is_file() {
                    // An entry left half-removed (see `collect`): never complete, replaced.
                    let _ = fs::remove_dir_all(&dir);
                    fs::rename(&tmp, &dir)
                } else {
                    Err(e)
                }
            });
            match renamed {
                Ok(()) => Ok(()),
                // Another process completed the same digest first: its entry is as good.
                Err(_) if dir.join(MARKER).is_file() => Ok(()),
                Err(e) => Err(err(&dir)(e).into()),
            }
        });
        if result.is_err() || tmp.exists() {
            let _ = fs::remove_dir_all(&tmp);
        }
        result.map(|()| self.entry_at(digest))
    }

    /// Every complete entry, most recently used first (ties by digest).
    pub fn entries(&self) -> Result<Vec<Entry>, StoreError> {
        let mut found = Vec::new();
        for item in fs::read_dir(&self.root).map_err(err(&self.root))? {
            let item = item.map_err(err(&self.root))?;
            let name = item.file_name();
            let Some(hex) = name.to_str().and_then(|n| n.strip_prefix(ENTRY_PREFIX)) else {
                continue;
            };
            let Ok(digest) = format!("sha256:{hex}").parse::<Digest>() else {
                continue;
            };
            let marker = item.path().join(MARKER);
            if let Ok(used) = fs::metadata(&marker).and_then(|m| m.modified()) {
                found.push((used, digest));
            }
        }
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        Ok(found.into_iter().map(|(_, d)| self.entry_at(&d)).collect())
    }

    /// The most recently used entry unpacked from `reference` (as given), if any: what a
    /// restart serves when the registry cannot be reached to resolve a tag.
    pub fn latest_for(&self, reference: &str) -> Result<Option<Entry>, StoreError> {
        for entry in self.entries()? {
            let marker = entry.catalog.with_file_name(MARKER);
            let Ok(bytes) = fs::read(&marker) else {
                continue;
            };
            if serde_json::from_slice::<Record>(&bytes).is_ok_and(|r| r.reference == reference) {
                return Ok(Some(entry));
            }
        }
        Ok(None)
    }

    /// Removes all but the `keep` most recently used entries, never one of `protect`.
    pub fn collect(&self, keep: usize, protect: &[Digest]) -> Result<Vec<Digest>, StoreError> {
        let mut removed = Vec::new();
        for entry in self.entries()?.into_iter().skip(keep) {
            if protect.contains(&entry.digest) {
                continue;
            }
            let dir = entry.catalog.with_file_name("");
            // The marker goes first, so a half-removed entry is never taken for complete.
            let _ = fs::remove_file(dir.join(MARKER));
            fs::remove_dir_all(&dir).map_err(err(&dir))?;
            removed.push(entry.digest);
        }
        Ok(removed)
    }
}

/// True when a process with this id exists (on Linux; elsewhere always, so nothing is removed
/// that might be in use).
fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return false; // a previous run of ours with the same pid: ours now are all new
    }
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(n: u8) -> Digest {
        Digest::of(&[n])
    }

    #[test]
    fn an_entry_appears_whole_or_not_at_all() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let failed: Result<Entry, StoreError> = store.insert(&digest(1), "r", |catalog| {
            fs::write(catalog.join("half.json"), b"{").map_err(err(catalog))?;
            Err(err(catalog)(io::Error::other("unpack failed")))
        });
        assert!(failed.is_err());
        assert!(store.get(&digest(1)).is_none());
        assert_eq!(
            fs::read_dir(dir.path()).expect("read_dir").count(),
            0,
            "nothing left behind"
        );
        let entry: Entry = store
            .insert(&digest(1), "r", |catalog| {
                fs::write(catalog.join("a.json"), b"{}").map_err(err(catalog))
            })
            .expect("insert");
        assert_eq!(fs::read(entry.catalog.join("a.json")).expect("read"), b"{}");
        // A second insert of the same digest does not run its fill.
        let again: Entry = store
            .insert(&digest(1), "r", |_| -> Result<(), StoreError> {
                panic!("filled twice")
            })
            .expect("insert");
        assert_eq!(again, entry);
        assert_eq!(store.latest_for("r").expect("read"), Some(entry));
        assert_eq!(store.latest_for("other").expect("read"), None);
    }

    #[test]
    fn a_scratch_directory_goes_with_its_guard() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let scratch = store.scratch().expect("scratch");
        fs::write(scratch.path().join("layer"), b"x").expect("write");
        let path = scratch.path().to_owned();
        assert!(path.starts_with(dir.path()));
        drop(scratch);
        assert!(!path.exists());
    }

    #[test]
    fn open_removes_leftovers_of_dead_processes_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dead = dir.path().join(format!("{TMP_PREFIX}{}-0", u32::MAX - 1));
        let ours = dir
            .path()
            .join(format!("{TMP_PREFIX}{}-0", std::process::id()));
        let alive = dir.path().join(format!("{TMP_PREFIX}1-0"));
        for d in [&dead, &ours, &alive] {
            fs::create_dir(d).expect("mkdir");
        }
        Store::open(dir.path()).expect("open");
        assert!(!dead.exists() && !ours.exists());
        assert!(alive.exists(), "pid 1 is running");
    }

    /// `collect` removes an entry's marker, then its files: killed in between, it leaves a
    /// directory that is not an entry. The next open removes it; an insert of its digest
    /// before that replaces it.
    #[test]
    fn an_entry_left_half_removed_is_removed_by_open_and_replaced_by_insert() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let fill = |catalog: &Path| -> Result<(), StoreError> {
            fs::write(catalog.join("a.json"), b"{}").map_err(err(catalog))
        };
        let half_remove = |store: &Store, n: u8| {
            let entry = store.insert(&digest(n), "r", fill).expect("insert");
            let root = entry.catalog.with_file_name("");
            fs::remove_file(root.join(MARKER)).expect("remove the marker");
            root
        };
        let left = half_remove(&store, 1);
        assert!(store.get(&digest(1)).is_none(), "taken for complete");
        Store::open(dir.path()).expect("open again");
        assert!(!left.exists(), "open left a half-removed entry");

        let left = half_remove(&store, 2);
        let mut filled = false;
        let entry = store
            .insert(&digest(2), "r", |catalog| {
                filled = true;
                fill(catalog)
            })
            .expect("insert over a half-removed entry");
        assert!(filled, "the half-removed entry was not unpacked again");
        assert_eq!(entry.catalog.with_file_name(""), left);
        assert!(store.get(&digest(2)).is_some());
        assert_eq!(fs::read(entry.catalog.join("a.json")).expect("read"), b"{}");
    }

    #[test]
    fn collect_keeps_the_most_recently_used_and_the_protected() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let fill = |_: &Path| -> Result<(), StoreError> { Ok(()) };
        for n in 1..=4 {
            store.insert(&digest(n), "r", fill).expect("insert");
            let marker = store.entry_at(&digest(n)).catalog.with_file_name(MARKER);
            let when =
                SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 * u64::from(n));
            fs::File::options()
                .append(true)
                .open(marker)
                .expect("marker")
                .set_modified(when)
                .expect("mtime");
        }
        let removed = store.collect(2, &[digest(1)]).expect("collect");
        assert_eq!(removed, vec![digest(2)]);
        let left: Vec<Digest> = store
            .entries()
            .expect("entries")
            .into_iter()
            .map(|e| e.digest)
            .collect();
        assert_eq!(left, vec![digest(4), digest(3), digest(1)]);
    }
}
