//! A catalog loaded into memory → the same catalog served from a mapped file.
//!
//! In: a [`LoadedCatalog`] built by a cold load, and where to spill ([`Spill`]). Out: the
//! same catalog whose tables and `api.Registry` view are read from an unlinked file,
//! mapped read-only — the index cache's image (see [`crate::views::registry::write_cache`]),
//! written in one pass — or, when that cannot be done, the catalog as it was.
//!
//! Why: after a cold load, every manifest and CSV a catalog carries sits in the process's
//! anonymous memory: it counts against the pod's limit for the server's lifetime and the
//! kernel cannot take it back under pressure. Written out once and mapped, the bytes
//! live in the page cache: only the pages a reply touches are mapped into the process,
//! and under memory pressure the kernel drops clean pages and reads them again instead
//! of killing the pod. A cold start then rests where a warm start (`--cache-dir`) does.
//! Replies are the warm start's, byte for byte (`examples/reply-digest` checks both).
//!
//! The file has no name (created and unlinked at once, `O_TMPFILE` where the file
//! system has it): no other process can open, truncate or change it, and it disappears
//! with the last snapshot mapping it. A directory on `tmpfs` or `ramfs` gains nothing
//! (its pages are memory that cannot be dropped) and is skipped unless named
//! explicitly.

use crate::snapshot::load::{LoadedCatalog, release_memory};
use fbc_catalog::source::ParseLimits;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where a loaded catalog's bytes are kept (`--spill-dir`, `--no-spill`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Spill {
    /// In the process's memory (`--no-spill`).
    Off,
    /// In an unlinked file in the system's temporary directory (`$TMPDIR`, else
    /// `/tmp`), unless it is memory-backed.
    #[default]
    Auto,
    /// In an unlinked file in this directory (`--spill-dir`), even memory-backed.
    Dir(PathBuf),
}

impl Spill {
    /// The directory to spill into, or why not (for the log).
    fn dir(&self) -> Result<PathBuf, String> {
        match self {
            Spill::Off => Err("spilling is off (--no-spill)".into()),
            Spill::Dir(dir) => Ok(dir.clone()),
            Spill::Auto => {
                let dir = std::env::temp_dir();
                if memory_backed(&dir) {
                    Err(format!(
                        "{} is memory-backed (tmpfs): a file there would hold the same memory; --spill-dir names a directory on a disk",
                        dir.display()
                    ))
                } else {
                    Ok(dir)
                }
            }
        }
    }
}

/// What spilling did, for the load's log line and metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spilled {
    /// The catalog's bytes are in a mapped file of this many bytes.
    Mapped {
        /// Bytes written.
        bytes: u64,
    },
    /// The catalog stays in memory: spilling is off, or the directory is memory-backed.
    InMemory,
    /// Spilling failed (the reason); the catalog stays in memory.
    Failed(String),
}

/// `catalog`, served from a mapped file in the directory `how` names (see the module
/// docs); `root` and `limits` are what the tables need to read metas again. Never fails:
/// a catalog that cannot be spilled is returned as it was, with the reason. The time it
/// took is added to the report.
#[allow(unsafe_code)]
pub fn spill(
    catalog: LoadedCatalog,
    how: &Spill,
    root: &Path,
    limits: ParseLimits,
) -> (LoadedCatalog, Spilled) {
    let bytes = catalog.report.mapped_bytes;
    if bytes > 0 {
        // already served from a file (a warm start, or the index cache just written)
        return (catalog, Spilled::Mapped { bytes });
    }
    let started = Instant::now();
    let _loading = crate::snapshot::load::Loading::start();
    let dir = match how.dir() {
        Ok(dir) => dir,
        Err(why) => {
            tracing::debug!("catalog kept in memory: {why}");
            return (catalog, Spilled::InMemory);
        }
    };
    let written = write_nameless(&catalog, &dir);
    let root = catalog.files_root(root).to_path_buf();
    // SAFETY: the file has no name; this process wrote it whole and never writes it again.
    let served = written.and_then(|file| unsafe { served_from(&file, &root, limits) });
    match served {
        Ok(views) => swap(catalog, views, started),
        Err(why) => {
            let why = format!("cannot spill the catalog to {}: {why}", dir.display());
            (catalog, Spilled::Failed(why))
        }
    }
}

/// `catalog`, served from `file`, which holds its image as
/// [`crate::views::registry::write_cache`] wrote it (the index cache's own file, just
/// written). A catalog whose file cannot be mapped or decoded is returned as it was,
/// with the reason.
///
/// # Safety
///
/// As [`crate::snapshot::mapped::map`]: nothing modifies `file` while it is mapped.
#[allow(unsafe_code)]
pub(crate) unsafe fn serve_from_file(
    catalog: LoadedCatalog,
    file: &std::fs::File,
    root: &Path,
    limits: ParseLimits,
) -> (LoadedCatalog, Spilled) {
    let started = Instant::now();
    // SAFETY: the caller's promise.
    match unsafe { served_from(file, root, limits) } {
        Ok(views) => swap(catalog, views, started),
        Err(why) => (catalog, Spilled::Failed(why)),
    }
}

/// The mapped, decoded image in `file` and its length.
///
/// # Safety
///
/// As [`crate::snapshot::mapped::map`]: nothing modifies `file` while it is mapped.
#[allow(unsafe_code)]
unsafe fn served_from(
    file: &std::fs::File,
    root: &Path,
    limits: ParseLimits,
) -> Result<(crate::views::registry::CachedViews, u64), String> {
    // SAFETY: the caller's promise.
    let image = unsafe { crate::snapshot::mapped::map(file) }.map_err(|e| e.to_string())?;
    let views = crate::views::registry::read_cache(image.clone(), root, limits)
        .map_err(|e| format!("the written image does not decode: {e}"))?;
    crate::snapshot::mapped::forget_touched(&image);
    Ok((views, image.len() as u64))
}

/// `catalog`'s report with the mapped `views` in place of what it built, which is freed.
fn swap(
    catalog: LoadedCatalog,
    (views, bytes): (crate::views::registry::CachedViews, u64),
    started: Instant,
) -> (LoadedCatalog, Spilled) {
    let LoadedCatalog {
        tables,
        registry,
        mut report,
        filter,
    } = catalog;
    // freed before the allocator is asked to hand the pages back
    drop((tables, registry));
    release_memory();
    report.spill = started.elapsed();
    report.mapped_bytes = bytes;
    let catalog = LoadedCatalog {
        tables: views.tables,
        registry: views.index,
        report,
        filter,
    };
    (catalog, Spilled::Mapped { bytes })
}

/// [`spill`], logging why a catalog stays in memory when spilling failed.
pub fn spill_logged(
    catalog: LoadedCatalog,
    how: &Spill,
    root: &Path,
    limits: ParseLimits,
) -> LoadedCatalog {
    let (catalog, spilled) = spill(catalog, how, root, limits);
    if let Spilled::Failed(why) = spilled {
        tracing::warn!("{why}; the catalog stays in memory");
    }
    catalog
}

/// Writes `catalog`'s image to a file without a name in `dir`.
fn write_nameless(catalog: &LoadedCatalog, dir: &Path) -> Result<std::fs::File, String> {
    let tables = catalog.tables.get().map_err(|e| e.to_string())?;
    let file = tempfile::tempfile_in(dir).map_err(|e| e.to_string())?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    crate::views::registry::write_cache(&mut out, tables, &catalog.registry)
        .and_then(|()| out.flush())
        .map_err(|e| e.to_string())?;
    out.into_inner().map_err(|e| e.error().to_string())
}

/// Whether `dir` is on `tmpfs` or `ramfs`, whose pages are memory.
#[allow(unsafe_code)]
fn memory_backed(dir: &Path) -> bool {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    let mut stat = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stat` points to writable memory
    // of the size statfs fills; the result is read only when the call succeeded.
    let kind = unsafe {
        if libc::statfs(path.as_ptr(), stat.as_mut_ptr()) != 0 {
            return false;
        }
        stat.assume_init().f_type
    };
    #[allow(
        clippy::unnecessary_cast,
        reason = "f_type's width differs by platform"
    )]
    let kind = kind as i64;
    kind == TMPFS_MAGIC || kind == RAMFS_MAGIC
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
    }

    #[test]
    fn a_spilled_catalog_answers_as_the_built_one() {
        let root = example();
        let built = crate::snapshot::load::load(&root, &Default::default()).unwrap();
        let expected = built.registry.to_bytes();
        let dir = tempfile::tempdir().unwrap();
        let (spilled, how) = spill(
            built,
            &Spill::Dir(dir.path().into()),
            &root,
            Default::default(),
        );
        assert!(
            matches!(how, Spilled::Mapped { bytes } if bytes > 0),
            "{how:?}"
        );
        assert_eq!(spilled.registry.to_bytes(), expected);
        assert!(spilled.tables.get().unwrap().packages().len() > 1);
        // nameless: nothing is left in the directory
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_catalog_that_cannot_be_spilled_stays_in_memory() {
        let root = example();
        let built = crate::snapshot::load::load(&root, &Default::default()).unwrap();
        let missing = Spill::Dir(root.join("no such directory"));
        let (kept, how) = spill(built, &missing, &root, Default::default());
        assert!(
            matches!(how, Spilled::Failed(ref why) if why.contains("no such directory")),
            "{how:?}"
        );
        assert!(kept.registry.stats().bundles > 0);
        let (_, off) = spill(kept, &Spill::Off, &root, Default::default());
        assert_eq!(off, Spilled::InMemory);
    }

    #[test]
    fn tmpfs_is_memory_backed() {
        if Path::new("/dev/shm").is_dir() {
            assert!(memory_backed(Path::new("/dev/shm")));
        }
        assert!(!memory_backed(Path::new("/proc/self/no-such-dir")));
    }
}
