//! SIGKILL during a start that writes the index cache, [`RUNS`] times.
//!
//! Each run starts `serve --cache-dir` on the catalog with a fresh cache directory and
//! kills it after a random delay: half the runs anywhere in the start (spawn to serving,
//! plus a tenth), half inside the cache write itself (from the moment its first temporary
//! file appears, up to 1.3 × the write's calibrated length). Then the same command starts
//! again on the same directory and must serve the reply digest of an uncached server, read
//! the cache when (and only when) the killed start had completed it and rebuild it
//! otherwise, and leave the directory holding exactly a complete cache: no temporary file.
//!
//! Before the runs, two planted caches show the checks can fail: an `index.pb` cut in half
//! under a valid digest is refused and rebuilt, and a whole `index.pb` of another catalog
//! under this catalog's digest — the torn cache the digest-last order rules out — is read
//! and served, and the answers check says so.

use crate::common::*;
use libtest_mimic::Failed;
use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 100;

/// How long a cold start with a cache write takes here.
struct Timing {
    /// Spawn to serving.
    ready: Duration,
    /// The cache write: first temporary file to the digest in place.
    write: Duration,
}

pub fn run(seed: u64) -> Result<(), Failed> {
    let began = Instant::now();
    let mut rng = Rng::new(seed, "cache_write");
    let work = tempfile::tempdir().expect("tempdir");
    let (catalog, what) = base_catalog(work.path());
    let rt = runtime();
    let expected = reference(&rt, s(&catalog), &work.path().join("reference"));
    the_checks_catch_a_torn_cache(&rt, work.path(), &catalog, &expected)?;
    let timing = calibrate(work.path(), &catalog);
    let mut left = Tally::default();
    let mut restarts = Tally::default();
    for run in 0..RUNS {
        let dir = work.path().join(format!("run-{run}"));
        let cache = dir.join("cache");
        let args = ["--cache-dir", s(&cache), s(&catalog)];
        let in_write = run % 2 == 1;
        let mut victim = Victim::spawn(&args, &dir);
        if in_write {
            wait_for(Duration::from_secs(30), || {
                cache_temps(&cache) > 0 || victim.ready() || victim.exited()
            });
            std::thread::sleep(rng.upto(timing.write * 13 / 10));
        } else {
            let at = victim.started + rng.upto(timing.ready * 11 / 10);
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
        }
        let killed_at = victim.started.elapsed();
        let killed_log = victim.kill();
        let context = || {
            format!(
                "seed {seed}, run {run} ({}, killed {killed_at:.1?} after spawn)",
                if in_write { "in the write" } else { "anywhere" }
            )
        };
        let had_digest = cache.join(SUBDIR).join("digest").is_file();
        left.add(if had_digest {
            "a complete cache"
        } else if cache_temps(&cache) > 0 {
            "a temporary file (killed mid-write)"
        } else if cache.join(SUBDIR).is_dir() {
            "a cache without its digest"
        } else {
            "no cache yet"
        });

        let server = restart(&args, &dir);
        let log = server.stderr();
        let used = cache_use(&log);
        restarts.add(match used {
            CacheUse::Warm => "warm",
            CacheUse::Rebuilt => "rebuilt",
            CacheUse::Unknown => "unknown",
        });
        let got = answers(
            &rt,
            &server,
            used == CacheUse::Warm || run.is_multiple_of(10),
        );
        let mut problems = Vec::new();
        if let Some(why) = got.differs_from(&expected) {
            problems.push(format!("it serves another catalog: {why}"));
        }
        let expected_use = if had_digest {
            CacheUse::Warm
        } else {
            CacheUse::Rebuilt
        };
        if used != expected_use {
            problems.push(format!(
                "the killed start left {} cache, and the restart's use of it is {used:?}, not {expected_use:?}",
                if had_digest { "a complete" } else { "no complete" }
            ));
        }
        let leftovers = leftovers(&cache);
        if !leftovers.is_empty() {
            problems.push(format!("left in the cache directory: {leftovers:?}"));
        }
        if !cache_complete(&cache) {
            problems.push(format!(
                "no complete cache after the restart: {:?}",
                names(&cache.join(SUBDIR))
            ));
        }
        drop(server);
        let scratch = names(&dir.join("tmp"));
        if !scratch.is_empty() {
            problems.push(format!("left in the server's TMPDIR: {scratch:?}"));
        }
        if !problems.is_empty() {
            return Err(format!(
                "{}: {}\n--- killed start:\n{}\n--- restart:\n{}",
                context(),
                problems.join("\n"),
                tail(&killed_log, 15),
                tail(&log, 15)
            )
            .into());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!(
        "cache_write: {RUNS} kills on {what} (seed {seed}, ready in {:.0?}, cache write {:.1?}) in {:.1?}; the kills left {left}; restarts {restarts}",
        timing.ready,
        timing.write,
        began.elapsed()
    );
    Ok(left.require(
        "a temporary file (killed mid-write)",
        RUNS,
        "landed inside a cache write",
    )?)
}

/// Three cold starts, each watched from spawn to serving.
fn calibrate(work: &Path, catalog: &Path) -> Timing {
    let mut ready = Duration::ZERO;
    let mut write = Duration::from_millis(1);
    for i in 0..3 {
        let dir = work.join(format!("calibrate-{i}"));
        let cache = dir.join("cache");
        let mut victim = Victim::spawn(&["--cache-dir", s(&cache), s(catalog)], &dir);
        let (mut first_temp, mut digest) = (None, None);
        let served = wait_for(Duration::from_secs(60), || {
            let now = victim.started.elapsed();
            if first_temp.is_none() && cache_temps(&cache) > 0 {
                first_temp = Some(now);
            }
            if digest.is_none() && cache.join(SUBDIR).join("digest").is_file() {
                digest = Some(now);
            }
            victim.ready() || victim.exited()
        });
        let at = victim.started.elapsed();
        let log = victim.kill();
        assert!(
            served && log.contains("index built and cached"),
            "calibration: the start did not serve and write its cache:\n{log}"
        );
        ready = ready.max(at);
        if let (Some(first), Some(done)) = (first_temp, digest) {
            write = write.max(done.saturating_sub(first));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    Timing { ready, write }
}

/// Planted caches: one cut in half is refused; one whose `index.pb` is another catalog's
/// is served, and [`Answers::differs_from`] catches it.
fn the_checks_catch_a_torn_cache(
    rt: &tokio::runtime::Runtime,
    work: &Path,
    catalog: &Path,
    expected: &Answers,
) -> Result<(), Failed> {
    let dir = work.join("planted");
    let cache = dir.join("cache");
    let args = ["--cache-dir", s(&cache), s(catalog)];
    drop(restart(&args, &dir));
    assert!(cache_complete(&cache), "the first start wrote no cache");
    let index = cache.join(SUBDIR).join("index.pb");

    let whole = std::fs::read(&index).expect("read index.pb");
    std::fs::write(&index, &whole[..whole.len() / 2]).expect("cut index.pb");
    let server = restart(&args, &dir);
    let log = server.stderr();
    if !log.contains("does not decode") || cache_use(&log) != CacheUse::Rebuilt {
        return Err(format!(
            "an index.pb cut in half was not refused:\n{}",
            tail(&log, 10)
        )
        .into());
    }
    if let Some(why) = answers(rt, &server, true).differs_from(expected) {
        return Err(format!("after refusing a cut index.pb: {why}").into());
    }
    drop(server);

    // Another catalog's whole index under this one's digest and fingerprint.
    let other = dir.join("other");
    copy_tree(catalog, &other);
    set_extra(&other, true);
    let other_cache = dir.join("other-cache");
    drop(restart(&["--cache-dir", s(&other_cache), s(&other)], &dir));
    std::fs::copy(other_cache.join(SUBDIR).join("index.pb"), &index).expect("plant index.pb");
    let server = restart(&args, &dir);
    let log = server.stderr();
    if cache_use(&log) != CacheUse::Warm {
        return Err(format!(
            "the planted index.pb was not read (the control proves nothing):\n{}",
            tail(&log, 10)
        )
        .into());
    }
    // (no /all: its metas name the other catalog's files, which are not there)
    let got = answers(rt, &server, false);
    if got.differs_from(expected).is_none() {
        return Err("a server reading another catalog's index.pb passed the answers check: the check is blind".into());
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
