//! Bundle images kept by digest between runs, so a template or render that names the same
//! images again pulls none of them (one manifest request per tag, none per digest).
//!
//! In: a directory (`--cache-dir`, default `$XDG_CACHE_HOME/fbc-registry/bundles` or
//! `~/.cache/fbc-registry/bundles`) and image digests. Out: per digest, the image's labels
//! and its unpacked files (`<dir>/<hex>/labels.json`, `<dir>/<hex>/root/`). An entry is
//! written into a scratch directory beside the others and renamed into place, so a crash
//! leaves no half entry; an entry that cannot be read is ignored and replaced. At most
//! [`MAX_ENTRIES`] are kept, the least recently used going first. Only bundle images are
//! kept (they are small); catalog images are not.

use fbc_image::Digest;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most images kept.
pub const MAX_ENTRIES: usize = 4096;

/// The cache.
#[derive(Debug, Clone)]
pub struct BundleCache {
    dir: PathBuf,
}

/// One kept image.
#[derive(Debug, Clone)]
pub struct Cached {
    /// Its config's labels.
    pub labels: BTreeMap<String, String>,
    /// Its unpacked files.
    pub root: PathBuf,
}

impl BundleCache {
    /// The default directory, when the environment names one.
    pub fn default_dir() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".cache"))
            })?;
        Some(base.join("fbc-registry").join("bundles"))
    }

    /// Opens (making it) the cache at `dir`.
    pub fn open(dir: &Path) -> Result<BundleCache, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("the bundle cache {}: {e}", dir.display()))?;
        Ok(BundleCache {
            dir: dir.to_owned(),
        })
    }

    /// The entry for `digest`, if one is kept and readable; its use is recorded.
    pub fn get(&self, digest: &Digest) -> Option<Cached> {
        let entry = self.dir.join(digest.hex());
        let text = std::fs::read(entry.join("labels.json")).ok()?;
        let labels = serde_json::from_slice(&text).ok()?;
        let root = entry.join("root");
        if !root.is_dir() {
            return None;
        }
        let _ =
            std::fs::File::open(&entry).and_then(|f| f.set_modified(std::time::SystemTime::now()));
        Some(Cached { labels, root })
    }

    /// Keeps `digest`: `fill` writes the image's files into the directory it is given.
    pub fn insert(
        &self,
        digest: &Digest,
        labels: &BTreeMap<String, String>,
        fill: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<Cached, String> {
        let scratch = tempfile::Builder::new()
            .prefix(".incoming-")
            .tempdir_in(&self.dir)
            .map_err(|e| format!("the bundle cache {}: {e}", self.dir.display()))?;
        let root = scratch.path().join("root");
        std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
        fill(&root)?;
        let text = serde_json::to_vec(labels).map_err(|e| e.to_string())?;
        std::fs::write(scratch.path().join("labels.json"), text).map_err(|e| e.to_string())?;
        let entry = self.dir.join(digest.hex());
        let kept = scratch.keep();
        if std::fs::rename(&kept, &entry).is_err() {
            // Another run kept it meanwhile: use that one.
            let _ = std::fs::remove_dir_all(&kept);
        }
        Ok(Cached {
            labels: labels.clone(),
            root: entry.join("root"),
        })
    }

    /// Removes the least recently used entries past [`MAX_ENTRIES`], and scratch
    /// directories a crashed run left (older than an hour).
    pub fn prune(&self) {
        let Ok(read) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut entries = Vec::new();
        for entry in read.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let modified = entry.metadata().and_then(|m| m.modified()).ok();
            if name.starts_with(".incoming-") {
                let stale = modified
                    .and_then(|m| m.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 3600);
                if stale {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            } else if name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
                entries.push((modified, entry.path()));
            }
        }
        if entries.len() <= MAX_ENTRIES {
            return;
        }
        entries.sort();
        let excess = entries.len() - MAX_ENTRIES;
        for (_, path) in entries.into_iter().take(excess) {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}
