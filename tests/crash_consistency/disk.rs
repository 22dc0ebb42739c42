//! A cache directory that cannot take the write: a full disk and a read-only directory.
//!
//! **Full disk**: the cache directory is on a 64 MiB tmpfs mounted for the test and filled
//! with a file until `ENOSPC`, then 256 KiB freed, so the index write starts and fails
//! part-way. A start must serve the catalog from its files, log the failure, and leave no
//! partial file; with the space back the next start writes the cache, and the one after
//! reads it. Then the disk fills under a running server and the catalog changes: the
//! reload serves the new catalog, logs that the cache was not rewritten, leaves no partial
//! file and no digest vouching for the old index; the next start with space serves the
//! catalog on disk.
//!
//! **Read-only**: the cache directory made read-only (a read-only bind mount as root, where
//! permissions do not bind; mode 0555 otherwise): empty, a start serves, logs and creates
//! nothing; holding a valid cache of the catalog whose files were touched since (so the
//! start hashes them and would refresh the fingerprint), it is read and left byte for byte
//! as it was; holding a stale cache, the catalog on disk is served and the directory is left
//! as it was.

use crate::common::*;
use libtest_mimic::Failed;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A file system mounted for a test, unmounted when dropped.
pub struct Mount {
    path: PathBuf,
}

impl Mount {
    /// A tmpfs of `size` (`mount -o size=`) at `path` (made if missing).
    pub fn tmpfs(path: &Path, size: &str) -> Result<Mount, String> {
        std::fs::create_dir_all(path).map_err(|e| e.to_string())?;
        mount(&[
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size},mode=0755"),
            "crash-consistency",
            s(path),
        ])?;
        Ok(Mount {
            path: path.to_owned(),
        })
    }

    /// `path` bound onto itself, read-only.
    pub fn read_only(path: &Path) -> Result<Mount, String> {
        mount(&["--bind", s(path), s(path)])?;
        let mounted = Mount {
            path: path.to_owned(),
        };
        mount(&["-o", "remount,bind,ro", s(path)])?;
        Ok(mounted)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let done = Command::new("umount")
            .arg(&self.path)
            .status()
            .is_ok_and(|s| s.success());
        if !done {
            // still busy (a server being reaped): detach it now, the kernel frees it after
            let _ = Command::new("umount").arg("-l").arg(&self.path).status();
        }
    }
}

fn mount(args: &[&str]) -> Result<(), String> {
    let out = Command::new("mount")
        .args(args)
        .output()
        .map_err(|e| format!("mount: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "mount {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Whether this process is root (whose writes file modes do not stop).
fn root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Whether a tmpfs can be mounted here (the full-disk test needs one), or why not.
pub fn can_mount() -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    Mount::tmpfs(&dir.path().join("probe"), "64k").map(drop)
}

/// Whether a read-only directory can be made here, or why not.
pub fn can_make_read_only() -> Result<(), String> {
    if root() { can_mount() } else { Ok(()) }
}

/// `dir` read-only until dropped.
enum ReadOnly {
    Mounted(#[allow(dead_code, reason = "held for its Drop: the unmount")] Mount),
    Mode(PathBuf),
}

impl ReadOnly {
    fn new(dir: &Path) -> ReadOnly {
        if root() {
            ReadOnly::Mounted(Mount::read_only(dir).expect("a read-only bind mount"))
        } else {
            set_mode(dir, 0o555);
            ReadOnly::Mode(dir.to_owned())
        }
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if let ReadOnly::Mode(dir) = self {
            set_mode(dir, 0o755);
        }
    }
}

/// Sets the mode of `dir` and every directory below it.
fn set_mode(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        if entry.path().is_dir() {
            set_mode(&entry.path(), mode);
        }
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Fills the file system of `filler` with it until `ENOSPC`, then frees `free` bytes.
fn fill(filler: &Path, free: u64) {
    let mut file = std::fs::File::create(filler).expect("create the filler");
    let chunk = vec![0x5a_u8; 1 << 20];
    loop {
        match file.write(&chunk) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
            Err(e) => panic!("filling {}: {e}", filler.display()),
        }
    }
    let len = file.metadata().expect("filler metadata").len();
    file.set_len(len.saturating_sub(free))
        .expect("free some of the filler");
}

/// Every file under `dir` by relative path, with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.insert(
                    format!("{}/", path.strip_prefix(dir).expect("under").display()),
                    Vec::new(),
                );
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).expect("under").display().to_string();
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

/// The log of a start must say the cache could not be written, and why.
fn logged_write_failure(log: &str, why: &[&str]) -> Result<(), Failed> {
    if log.contains("cannot write the index cache; keeping the index in memory")
        && why.iter().any(|w| log.contains(w))
    {
        Ok(())
    } else {
        Err(format!(
            "the start did not log that the cache could not be written ({why:?}):\n{}",
            tail(log, 15)
        )
        .into())
    }
}

/// `got` must be `expected`.
fn same(step: &str, got: &Answers, expected: &Answers) -> Result<(), Failed> {
    match got.differs_from(expected) {
        Some(why) => Err(format!("{step}: it serves another catalog: {why}").into()),
        None => Ok(()),
    }
}

/// `cache` must hold nothing but a complete cache (or less).
fn clean(step: &str, cache: &Path) -> Result<(), Failed> {
    let left = leftovers(cache);
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!("{step}: left in the cache directory: {left:?}").into())
    }
}

pub fn full_disk(_seed: u64) -> Result<(), Failed> {
    let work = tempfile::tempdir().expect("tempdir");
    let (catalog, _) = base_catalog(work.path());
    let rt = runtime();
    let scratch = work.path().join("server");
    let without = reference(&rt, s(&catalog), &scratch);
    set_extra(&catalog, true);
    let with = reference(&rt, s(&catalog), &scratch);
    set_extra(&catalog, false);
    let mounted = Mount::tmpfs(&work.path().join("disk"), "64m").map_err(Failed::from)?;
    let cache = mounted.path.join("cache");
    let filler = mounted.path.join("filler");
    let args = [
        "--cache-dir",
        s(&cache),
        "--reload-debounce=20ms",
        s(&catalog),
    ];
    let no_space = ["No space left on device"];

    // 1. A full disk at start.
    fill(&filler, 256 << 10);
    let server = restart(&args, &scratch);
    let log = server.stderr();
    logged_write_failure(&log, &no_space)?;
    same(
        "a start on a full disk",
        &answers(&rt, &server, true),
        &without,
    )?;
    let files = names(&cache.join(SUBDIR));
    if !files.is_empty() {
        return Err(format!("a start on a full disk left {files:?} in the cache").into());
    }
    clean("a start on a full disk", &cache)?;
    drop(server);

    // 2. Space again: the next start writes the cache, the one after reads it.
    std::fs::remove_file(&filler).expect("remove the filler");
    let server = restart(&args, &scratch);
    ensure(
        server.stderr().contains("index built and cached") && cache_complete(&cache),
        "with space again, the start did not write the cache",
        &server.stderr(),
    )?;
    same(
        "the start with space",
        &answers(&rt, &server, false),
        &without,
    )?;
    drop(server);
    let server = restart(&args, &scratch);
    ensure(
        cache_use(&server.stderr()) == CacheUse::Warm,
        "the cache written with space again was not read",
        &server.stderr(),
    )?;
    same("the warm start", &answers(&rt, &server, true), &without)?;

    // 3. The disk fills under the running server; then the catalog changes.
    let watching = wait_for(Duration::from_secs(10), || {
        server.stderr().contains("watching the catalog")
    });
    assert!(watching, "the server does not watch its catalog");
    fill(&filler, 256 << 10);
    set_extra(&catalog, true);
    let reloaded = wait_for(Duration::from_secs(60), || {
        let log = server.stderr();
        log.contains("catalog reloaded") && log.contains("cannot rewrite the index cache")
    });
    ensure(
        reloaded,
        "the reload on a full disk did not serve the change and log the failed rewrite",
        &server.stderr(),
    )?;
    ensure(
        server.stderr().contains("No space left on device"),
        "the failed rewrite does not say why",
        &server.stderr(),
    )?;
    same(
        "the reload on a full disk",
        &answers(&rt, &server, true),
        &with,
    )?;
    clean("the reload on a full disk", &cache)?;
    if cache.join(SUBDIR).join("digest").exists() {
        return Err("after a failed rewrite, the old digest still vouches for the cache".into());
    }
    let killed = kill(server);

    // 4. Space again: the next start serves the catalog on disk and writes its cache.
    std::fs::remove_file(&filler).expect("remove the filler");
    let server = restart(&args, &scratch);
    let log = server.stderr();
    if cache_use(&log) != CacheUse::Rebuilt || !cache_complete(&cache) {
        return Err(format!(
            "after the failed rewrite, the start did not rebuild the cache:\n{}\n--- before:\n{}",
            tail(&log, 10),
            tail(&killed, 10)
        )
        .into());
    }
    same(
        "the start after the full disk",
        &answers(&rt, &server, true),
        &with,
    )?;
    clean("the start after the full disk", &cache)?;
    drop(server);
    let tmp = names(&scratch.join("tmp"));
    if !tmp.is_empty() {
        return Err(format!("left in the servers' TMPDIR: {tmp:?}").into());
    }
    drop(mounted);
    Ok(())
}

pub fn read_only(_seed: u64) -> Result<(), Failed> {
    let work = tempfile::tempdir().expect("tempdir");
    let (catalog, _) = base_catalog(work.path());
    let rt = runtime();
    let scratch = work.path().join("server");
    let without = reference(&rt, s(&catalog), &scratch);
    set_extra(&catalog, true);
    let with = reference(&rt, s(&catalog), &scratch);
    set_extra(&catalog, false);
    let refused = ["Read-only file system", "Permission denied"];

    // An empty read-only cache directory.
    let empty = work.path().join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let guard = ReadOnly::new(&empty);
    let server = restart(&["--cache-dir", s(&empty), s(&catalog)], &scratch);
    logged_write_failure(&server.stderr(), &refused)?;
    same(
        "an empty read-only cache directory",
        &answers(&rt, &server, true),
        &without,
    )?;
    drop(server);
    drop(guard);
    if !names(&empty).is_empty() {
        return Err(format!(
            "a start wrote into a read-only cache directory: {:?}",
            names(&empty)
        )
        .into());
    }

    // A read-only cache directory holding this catalog's cache; the files were touched since.
    let cache = work.path().join("cache");
    drop(restart(&["--cache-dir", s(&cache), s(&catalog)], &scratch));
    assert!(cache_complete(&cache), "no cache was written");
    for (rel, _) in contents(&catalog) {
        if !rel.ends_with('/') {
            std::fs::File::options()
                .write(true)
                .open(catalog.join(&rel))
                .and_then(|f| f.set_modified(std::time::SystemTime::now()))
                .expect("touch a catalog file");
        }
    }
    let before = contents(&cache);
    let guard = ReadOnly::new(&cache);
    let args = ["--cache-dir", s(&cache), s(&catalog)];
    let server = restart(&args, &scratch);
    ensure(
        cache_use(&server.stderr()) == CacheUse::Warm,
        "a valid cache in a read-only directory was not read",
        &server.stderr(),
    )?;
    same(
        "a valid read-only cache",
        &answers(&rt, &server, true),
        &without,
    )?;
    drop(server);

    // The same directory once the catalog changed: stale, and not rewritable.
    set_extra(&catalog, true);
    let server = restart(&args, &scratch);
    let log = server.stderr();
    if !log.contains("cache requires rebuild") {
        return Err(format!("the stale cache was not reported:\n{}", tail(&log, 10)).into());
    }
    logged_write_failure(&log, &refused)?;
    same(
        "a stale read-only cache",
        &answers(&rt, &server, true),
        &with,
    )?;
    drop(server);
    drop(guard);
    if contents(&cache) != before {
        return Err(format!(
            "a read-only cache directory changed: {:?} became {:?}",
            before.keys().collect::<Vec<_>>(),
            contents(&cache).keys().collect::<Vec<_>>()
        )
        .into());
    }
    let tmp = names(&scratch.join("tmp"));
    if !tmp.is_empty() {
        return Err(format!("left in the servers' TMPDIR: {tmp:?}").into());
    }
    Ok(())
}
