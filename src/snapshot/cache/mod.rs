//! The on-disk index cache: `--cache-dir`, `--cache-only`, `--cache-enforce-integrity`.
//!
//! In: the catalog root and a cache directory. Out: the index, read from the cache
//! when it matches the catalog (a warm start skips parsing and validation), else
//! built and written back.
//!
//! # Layout and rules
//!
//! 1. Our cache lives in `<cache-dir>/fbc-registry.v1/`: `index.pb` (the typed
//!    tables and the `api.Registry` view as one protobuf buffer, see
//!    [`crate::views::registry`]), `fingerprint` and `digest`.
//! 2. The cache is keyed by xxh3-128 over the cache format version, this program's
//!    version and the catalog digest (see [`fbc_catalog::source::digest`]: every catalog
//!    file `.indexignore` keeps, by relative path, length and the xxh3-128 of its
//!    bytes). Any edit, added or removed file changes it. A load computes the digest
//!    of the very bytes it parsed, so a cache written after a load (at start or
//!    after a hot reload, see [`store`]) describes exactly the catalog it holds.
//!    Beside it, `fingerprint` records every file's path, size and modification
//!    time as that load read them: a start whose files match it exactly trusts
//!    the recorded digest and reads no catalog file; any difference falls back to
//!    hashing every file (and, when the digest still matches, refreshes the
//!    fingerprint). Bytes rewritten with the same size and an old modification
//!    time put back on purpose are the one change this does not see.
//! 3. A cache whose digest differs, or that does not decode, is stale; one that
//!    is not there is missing. Either is rebuilt (the caller logs a warning and
//!    counts it), or, only when `--cache-enforce-integrity` is given, the start
//!    fails (as `opm serve`'s does whenever `--cache-dir` is set), naming both
//!    digests and the command that rebuilds it.
//! 4. A cache written by Go `opm` (`pogreb.v1/`, or `cache/` with `digest`) is not
//!    ours to read: it is reported and left untouched, and ours is built beside it —
//!    even when integrity is enforced, so images built by `opm generate dockerfile`
//!    start instead of crash-looping.
//! 5. A cache directory that cannot be written (read-only image layer) is not an
//!    error when serving: the index is kept in memory. With `--cache-only` it is.
//! 6. Files are written to a temporary name of the writing process's own
//!    (`.{file}.{pid}.{nanos}.tmp`), synced, and renamed, digest last, so a crash never
//!    leaves a cache that looks valid and servers sharing a directory never write the
//!    same file. A writer killed before its rename leaves its temporary file: every
//!    start, and every write, removes those of processes that are gone (and those of an
//!    earlier process that had this one's id, as a restarted container's PID 1 does);
//!    a running writer's are left to it.
//! 7. A warm start maps `index.pb` into memory instead of reading it: replies are
//!    served from the page cache, only the pages a load touches are faulted in, and
//!    under memory pressure the kernel can drop and re-read them instead of
//!    counting them against the process. The file must therefore not be modified
//!    in place while a server runs (truncating it would crash the server); this
//!    program only ever replaces it by rename, which leaves a mapped file intact.

use crate::snapshot::load::{self, LoadOptions, LoadReport, LoadedCatalog};
use crate::snapshot::scratch::Owner;
use crate::views::registry::RegistryView;
use bytes::Bytes;
use fbc_catalog::diagnostic::Diagnostic;
use fbc_catalog::source::CatalogDigest;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Part of the cache key: bump it whenever the cached index's content changes for
/// the same catalog (v3: GetChannelEntriesThatReplace answers `csvName: ""`, and
/// the key covers the catalog digest of `source::digest`; v4: the typed tables).
const FORMAT: &str = "fbc-registry index cache v4";
/// Our subdirectory of the cache directory.
pub const SUBDIR: &str = "fbc-registry.v1";
const INDEX_FILE: &str = "index.pb";
const DIGEST_FILE: &str = "digest";
/// `<fingerprint> <catalog digest>`: see [`fbc_catalog::source::digest::fingerprint`].
const FINGERPRINT_FILE: &str = "fingerprint";

/// How the cache is used.
#[derive(Clone, Debug)]
pub struct CacheConfig {
    /// The cache directory.
    pub dir: PathBuf,
    /// Fail on a missing or stale cache instead of rebuilding it.
    pub enforce_integrity: bool,
    /// Building the cache is the goal (`--cache-only`): failing to write it is an error.
    pub must_write: bool,
}

/// Where the served index came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Read from a cache that matched the catalog.
    Warm,
    /// Built from the catalog and written to the cache.
    BuiltAndWritten,
    /// Built from the catalog; the cache could not be written (the reason).
    BuiltInMemory(String),
}

/// Facts worth a log line.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    /// A Go opm cache found in the directory (its layout name).
    pub foreign: Option<&'static str>,
    /// Why an existing cache of ours was not used.
    pub stale: Option<String>,
}

/// A catalog loaded through the cache.
#[derive(Debug)]
pub struct CachedLoad {
    /// The index and its load report.
    pub catalog: LoadedCatalog,
    /// Where the index came from.
    pub outcome: Outcome,
    /// What is worth logging.
    pub notes: Notes,
}

/// Why a start through the cache failed.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The catalog itself is invalid or unreadable.
    #[error("{} problem(s) in the catalog", .0.len())]
    Catalog(Vec<Diagnostic>),
    /// `--cache-enforce-integrity` and the cache does not match.
    #[error("integrity check failed: {0}")]
    Integrity(String),
    /// `--cache-only` and the cache could not be written.
    #[error("cannot write the index cache in {dir}: {message}")]
    Write {
        /// Our cache subdirectory.
        dir: String,
        /// Why.
        message: String,
    },
}

impl CacheError {
    /// Every problem as a diagnostic, for printing and the termination log.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            CacheError::Catalog(d) => d.clone(),
            other => vec![Diagnostic::new(
                fbc_catalog::diagnostic::Kind::Io,
                fbc_catalog::diagnostic::Location::default(),
                other.to_string(),
            )],
        }
    }
}

/// The key a cache is stored under: the catalog digest, the cache format and this
/// program's version, as 32 hex digits.
pub fn cache_key(digest: CatalogDigest) -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(FORMAT.as_bytes());
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(&digest.0.to_le_bytes());
    format!("{:032x}", hasher.digest128())
}

/// The contents of `path`, mapped read-only (see rule 7 of the module docs).
#[allow(unsafe_code)]
fn map_file(path: &Path) -> std::io::Result<Bytes> {
    let file = std::fs::File::open(path)?;
    // SAFETY: the file lives in our own cache subdirectory, into which this program
    // only ever renames complete, synced files written under a name no other process
    // uses (rule 6), so no instance of this program modifies or truncates a mapped
    // file. Changes from outside it (a user truncating the file while a server runs)
    // are not covered: rule 7 says so.
    unsafe { crate::snapshot::mapped::map(&file) }
}

/// A Go opm cache in `dir`, by layout name.
pub fn foreign_layout(dir: &Path) -> Option<&'static str> {
    if dir.join("pogreb.v1").is_dir() {
        Some("pogreb.v1")
    } else if dir.join("cache").is_dir() && dir.join("digest").exists() {
        Some("json")
    } else {
        None
    }
}

/// Loads the catalog through the cache (see the module docs for the rules).
pub fn load(
    root: &Path,
    cfg: &CacheConfig,
    options: &LoadOptions,
) -> Result<CachedLoad, CacheError> {
    // a warm start is a load too: its end is when start-only memory is handed back
    let _loading = load::Loading::start();
    remove_leftovers(&cfg.dir.join(SUBDIR));
    let mut notes = Notes {
        foreign: foreign_layout(&cfg.dir),
        stale: None,
    };
    if let Some(catalog) = read_warm(root, cfg, options, &mut notes)? {
        return Ok(CachedLoad {
            catalog,
            outcome: Outcome::Warm,
            notes,
        });
    }
    check_integrity(root, cfg, &notes)?;
    let catalog = load::load(root, options).map_err(CacheError::Catalog)?;
    let (catalog, stored) = store_and_serve(&cfg.dir, catalog, root, options.limits);
    let outcome = match stored {
        Ok(()) => Outcome::BuiltAndWritten,
        Err(message) if cfg.must_write => {
            return Err(CacheError::Write {
                dir: cfg.dir.join(SUBDIR).display().to_string(),
                message,
            });
        }
        Err(e) => Outcome::BuiltInMemory(e),
    };
    Ok(CachedLoad {
        catalog,
        outcome,
        notes,
    })
}

/// The catalog read back from our cache when it matches; `None` (with the
/// reason in `notes`) when there is none or it is stale or does not decode.
fn read_warm(
    root: &Path,
    cfg: &CacheConfig,
    options: &LoadOptions,
    notes: &mut Notes,
) -> Result<Option<LoadedCatalog>, CacheError> {
    let ours = cfg.dir.join(SUBDIR);
    let t0 = Instant::now();
    let current = current_digest(root, &ours, options)?;
    let key = cache_key(current.digest);
    let digest_time = t0.elapsed();
    let stored = std::fs::read_to_string(ours.join(DIGEST_FILE))
        .ok()
        .map(|s| s.trim().to_string());
    match stored {
        Some(stored) if stored == key => {}
        Some(stored) => {
            notes.stale = Some(format!(
                "the cache reports digest {stored}, but the catalog's digest is {key}"
            ));
            return Ok(None);
        }
        None => return Ok(None),
    }
    let t1 = Instant::now();
    let views = map_file(&ours.join(INDEX_FILE))
        .map_err(|e| e.to_string())
        .and_then(|buf| {
            let views = crate::views::registry::read_cache(buf.clone(), root, options.limits)
                .map_err(|e| e.to_string())?;
            crate::snapshot::mapped::forget_touched(&buf);
            Ok((views, buf.len() as u64))
        });
    let (crate::views::registry::CachedViews { tables, index }, mapped_bytes) = match views {
        Ok(views) => views,
        Err(e) => {
            notes.stale = Some(format!(
                "{} does not decode: {e}",
                ours.join(INDEX_FILE).display()
            ));
            return Ok(None);
        }
    };
    load::release_memory();
    let report = LoadReport {
        stats: index.stats().clone(),
        files: current.files,
        bytes: current.bytes,
        digest: current.digest,
        parse: digest_time,
        index: t1.elapsed(),
        warnings: load::oversize_warnings(&index),
        mapped_bytes,
        ..LoadReport::default()
    };
    Ok(Some(LoadedCatalog {
        tables,
        registry: index,
        report,
        filter: None,
    }))
}

/// The catalog's digest now: the one recorded beside the cache when every file
/// has the path, size and modification time recorded with it (no file is read),
/// else computed by hashing every file — and then the fingerprint is refreshed
/// (best effort: a read-only cache directory keeps the old one).
fn current_digest(
    root: &Path,
    ours: &Path,
    options: &LoadOptions,
) -> Result<CurrentDigest, CacheError> {
    use fbc_catalog::source::digest::{digest_dir, fingerprint_dir};
    let catalog_error = |errors: Vec<fbc_catalog::source::LoadError>| {
        CacheError::Catalog(errors.iter().map(Diagnostic::from).collect())
    };
    let recorded = std::fs::read_to_string(ours.join(FINGERPRINT_FILE))
        .ok()
        .and_then(|text| {
            let (fingerprint, digest) = text.trim().split_once(' ')?;
            Some((
                u128::from_str_radix(fingerprint, 16).ok()?,
                u128::from_str_radix(digest, 16).ok()?,
            ))
        });
    if let Some((fingerprint, digest)) = recorded {
        let now = fingerprint_dir(root, &options.limits).map_err(catalog_error)?;
        if now.fingerprint == Some(fingerprint) {
            return Ok(CurrentDigest {
                digest: CatalogDigest(digest),
                files: now.files,
                bytes: now.bytes,
            });
        }
    }
    let hashed = digest_dir(root, &options.limits).map_err(catalog_error)?;
    let stored_key = std::fs::read_to_string(ours.join(DIGEST_FILE)).unwrap_or_default();
    if let Some(fingerprint) = hashed.fingerprint
        && stored_key.trim() == cache_key(hashed.digest)
    {
        let line = format!("{fingerprint:032x} {}", hashed.digest);
        let _ = replace_file(ours, FINGERPRINT_FILE, &|out| {
            out.write_all(line.as_bytes())
        });
    }
    Ok(CurrentDigest {
        digest: hashed.digest,
        files: hashed.files,
        bytes: hashed.bytes,
    })
}

/// The catalog's digest and size now.
struct CurrentDigest {
    digest: CatalogDigest,
    files: usize,
    bytes: u64,
}

/// With `--cache-enforce-integrity`, a missing or stale cache is an error (a Go
/// opm cache alone is not: ours is built beside it, rule 4).
fn check_integrity(root: &Path, cfg: &CacheConfig, notes: &Notes) -> Result<(), CacheError> {
    if !cfg.enforce_integrity {
        return Ok(());
    }
    let why = match (&notes.stale, notes.foreign) {
        (Some(stale), _) => format!("cache requires rebuild: {stale}"),
        (None, Some(_)) => return Ok(()),
        (None, None) => format!("no index cache in {}", cfg.dir.display()),
    };
    Err(CacheError::Integrity(format!(
        "{why}; rebuild it with `fbc-registry serve {} --cache-dir={} --cache-only`, or pass --cache-enforce-integrity=false",
        root.display(),
        cfg.dir.display()
    )))
}

/// `catalog`, freshly built, written as the cache in `cache_dir` ([`store`]) and then
/// served from that very file, mapped (as a spill would, without writing the catalog
/// a second time; see [`crate::snapshot::spill`]). A reload calls this so that a
/// restart finds the catalog it was serving. The catalog comes back in memory, with the
/// reason, when the cache cannot be written; one written but not mapped stays in memory
/// (logged).
#[allow(unsafe_code)]
pub fn store_and_serve(
    cache_dir: &Path,
    catalog: LoadedCatalog,
    root: &Path,
    limits: fbc_catalog::source::ParseLimits,
) -> (LoadedCatalog, Result<(), String>) {
    if catalog.filter.is_some() {
        // the cache is keyed by the catalog's files; a filtered catalog is not them
        return (catalog, Err("a filtered catalog is not cached".to_owned()));
    }
    let digest = catalog.report.digest;
    let started = Instant::now();
    let _loading = crate::snapshot::load::Loading::start();
    let written = store(cache_dir, &catalog.tables, &catalog.registry, digest);
    match written {
        Ok(file) => {
            // SAFETY: `store` wrote the file whole under a name of this process's own
            // and renamed it into place; this program only ever replaces it by rename
            // (rules 6 and 7), so the open file never changes.
            let (catalog, served) =
                unsafe { crate::snapshot::spill::serve_from_file(catalog, &file, root, limits) };
            if let crate::snapshot::spill::Spilled::Failed(why) = served {
                tracing::warn!("the index cache was written but cannot be served from: {why}");
            }
            let mut catalog = catalog;
            // the report's spill time is writing and mapping, here as in a spill
            catalog.report.spill = started.elapsed();
            (catalog, Ok(()))
        }
        Err(why) => (catalog, Err(why)),
    }
}

/// Writes `index`, built from a catalog with `digest`, as the cache in `cache_dir`
/// (rules 6 and 7: temporary files, synced, renamed, digest last); the index file,
/// open (the same file whatever later replaces its name).
fn store(
    cache_dir: &Path,
    tables: &crate::views::registry::SnapshotTables,
    index: &RegistryView,
    digest: CatalogDigest,
) -> Result<std::fs::File, String> {
    let tables = tables.get().map_err(|e| e.to_string())?;
    let files = tables
        .metas()
        .files()
        .map(|f| f.files.as_slice())
        .unwrap_or_default();
    let fingerprint = fbc_catalog::source::digest::fingerprint(
        files.iter().map(|f| (f.rel.as_str(), f.size, f.modified)),
    )
    .map(|fp| format!("{fp:032x} {digest}"));
    write(
        &cache_dir.join(SUBDIR),
        tables,
        index,
        &cache_key(digest),
        fingerprint.as_deref(),
    )
}

fn write(
    dir: &Path,
    tables: &fbc_catalog::tables::Tables,
    index: &RegistryView,
    digest: &str,
    fingerprint: Option<&str>,
) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    remove_leftovers(dir);
    // An old digest must not vouch for a half-written index.
    match std::fs::remove_file(dir.join(DIGEST_FILE)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.to_string()),
    }
    let put = |name: &str, write: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>| {
        replace_file(dir, name, write)
    };
    // The fingerprint goes with the index it describes: an old one must not vouch
    // for a new index either.
    match std::fs::remove_file(dir.join(FINGERPRINT_FILE)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.to_string()),
    }
    let index_file = put(INDEX_FILE, &|out| {
        crate::views::registry::write_cache(out, tables, index)
    })?;
    if let Some(fingerprint) = fingerprint {
        put(FINGERPRINT_FILE, &|out| {
            out.write_all(fingerprint.as_bytes())
        })?;
    }
    put(DIGEST_FILE, &|out| out.write_all(digest.as_bytes()))?;
    Ok(index_file)
}

/// Writes file `name` in `dir` under a temporary name of this process's own,
/// created fresh, synced, then renamed into place: two servers sharing a cache
/// directory never write the same file, and a file is complete and on disk
/// before it is renamed, so a mapped index never changes under us. Returns the file,
/// open for reading.
fn replace_file(
    dir: &Path,
    name: &str,
    write: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<std::fs::File, String> {
    let owner = Owner::now();
    let tmp = dir.join(format!(".{name}.{}.{}.tmp", owner.pid, owner.stamp));
    let created = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&tmp);
    let written = created.and_then(|file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(file)
    });
    let file = match written {
        Ok(file) => file,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e.to_string());
        }
    };
    match std::fs::rename(&tmp, dir.join(name)) {
        Ok(()) => Ok(file),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e.to_string())
        }
    }
}

/// Removes from our subdirectory `dir` the temporary files (rule 6) that writers killed
/// before their rename left: those whose process is gone, or was an earlier process with
/// this one's id.
fn remove_leftovers(dir: &Path) {
    crate::snapshot::scratch::sweep(dir, temp_owner, "a temporary file of an index cache writer");
}

/// The process id and time stamp in `name`, when it is the temporary name
/// `.{file}.{pid}.{nanos}.tmp` of one of our files (see [`replace_file`]).
fn temp_owner(name: &str) -> Option<Owner> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    let stamp = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    [INDEX_FILE, DIGEST_FILE, FINGERPRINT_FILE]
        .contains(&file)
        .then_some(Owner { pid, stamp })
}

#[cfg(test)]
mod tests;
