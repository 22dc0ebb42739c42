//! SIGKILL during a hot reload, [`RUNS`] times.
//!
//! One server at a time serves a catalog with `--cache-dir` (a reload rewrites the cache,
//! rule 8 of `snapshot::reload`). Each run changes the catalog (a package added or removed,
//! renamed in or deleted: the catalog on disk is always whole) and kills the server after a
//! random delay: half the runs anywhere from the change to the reload's end (its cache
//! rewritten, plus a fifth), half inside the reload's cache write (from its first temporary
//! file, up to 1.3 × the write's calibrated length). The next start, on the same cache
//! directory, must serve the reply digest of the catalog now on disk and leave exactly a
//! complete cache; it is the server the next run changes the catalog under.

use crate::common::*;
use crate::process::Served;
use libtest_mimic::Failed;
use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 100;
const REWRITTEN: &str = "index cache rewritten";

pub fn run(seed: u64) -> Result<(), Failed> {
    let began = Instant::now();
    let mut rng = Rng::new(seed, "reload");
    let work = tempfile::tempdir().expect("tempdir");
    let (catalog, what) = generated_catalog(work.path());
    let rt = runtime();
    // the answers of the two states the catalog takes, from servers without a cache
    let without = reference(&rt, s(&catalog), &work.path().join("reference"));
    set_extra(&catalog, true);
    let with = reference(&rt, s(&catalog), &work.path().join("reference"));
    assert_ne!(
        with.registry, without.registry,
        "the change must alter the answers"
    );
    let cache = work.path().join("cache");
    let scratch = work.path().join("server");
    let args = [
        "--cache-dir",
        s(&cache),
        "--reload-debounce=20ms",
        s(&catalog),
    ];
    let start = || {
        let server = restart(&args, &scratch);
        let watching = wait_for(Duration::from_secs(10), || {
            server.stderr().contains("watching the catalog for changes")
        });
        assert!(
            watching,
            "the server does not watch its catalog:\n{}",
            server.stderr()
        );
        server
    };
    let mut extra = true;
    let mut server = start();
    // calibration: two reloads watched to their end
    let (mut reload, mut write) = (Duration::ZERO, Duration::from_millis(1));
    for _ in 0..2 {
        let before = server.stderr().matches(REWRITTEN).count();
        extra = !extra;
        set_extra(&catalog, extra);
        let changed = Instant::now();
        let mut first_temp = None;
        let done = wait_for(Duration::from_secs(60), || {
            if first_temp.is_none() && cache_temps(&cache) > 0 {
                first_temp = Some(changed.elapsed());
            }
            server.stderr().matches(REWRITTEN).count() > before
        });
        assert!(
            done,
            "calibration: the reload did not rewrite the cache:\n{}",
            server.stderr()
        );
        reload = reload.max(changed.elapsed());
        if let Some(first) = first_temp {
            write = write.max(changed.elapsed().saturating_sub(first));
        }
    }
    let mut left = Tally::default();
    let mut restarts = Tally::default();
    for run in 0..RUNS {
        extra = !extra;
        set_extra(&catalog, extra);
        let changed = Instant::now();
        let in_write = run % 2 == 1;
        if in_write {
            let before = server.stderr().matches(REWRITTEN).count();
            wait_for(Duration::from_secs(30), || {
                cache_temps(&cache) > 0 || server.stderr().matches(REWRITTEN).count() > before
            });
            std::thread::sleep(rng.upto(write * 13 / 10));
        } else {
            let at = changed + rng.upto(reload * 6 / 5);
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
        }
        let killed_at = changed.elapsed();
        let killed_log = kill(server);
        let context = format!(
            "seed {seed}, run {run} ({}, killed {killed_at:.1?} after the change, {} on disk)",
            if in_write { "in the write" } else { "anywhere" },
            if extra {
                "with the extra package"
            } else {
                "without it"
            }
        );
        left.add(if cache_temps(&cache) > 0 {
            "a temporary file (killed mid-write)"
        } else if !cache.join(SUBDIR).join("digest").is_file() {
            "a cache without its digest"
        } else {
            "a complete cache"
        });
        server = start();
        let log = server.stderr();
        let used = cache_use(&log);
        restarts.add(match used {
            CacheUse::Warm => "warm",
            CacheUse::Rebuilt => "rebuilt",
            CacheUse::Unknown => "unknown",
        });
        let expected = if extra { &with } else { &without };
        let problems = check(&rt, &server, &cache, expected, used, run);
        if !problems.is_empty() {
            return Err(format!(
                "{context}: {}\n--- killed server:\n{}\n--- restart:\n{}",
                problems.join("\n"),
                tail(&killed_log, 15),
                tail(&log, 15)
            )
            .into());
        }
    }
    drop(server);
    let tmp = names(&scratch.join("tmp"));
    if !tmp.is_empty() {
        return Err(format!("left in the servers' TMPDIR: {tmp:?}").into());
    }
    eprintln!(
        "reload: {RUNS} kills on {what} (seed {seed}, reload {reload:.0?}, cache write {write:.1?}) in {:.1?}; the kills left {left}; restarts {restarts}",
        began.elapsed()
    );
    Ok(left.require(
        "a temporary file (killed mid-write)",
        RUNS,
        "landed inside the reload's cache write",
    )?)
}

/// What is wrong with a restarted server and its cache directory.
fn check(
    rt: &tokio::runtime::Runtime,
    server: &Served,
    cache: &Path,
    expected: &Answers,
    used: CacheUse,
    run: usize,
) -> Vec<String> {
    let mut problems = Vec::new();
    if used == CacheUse::Unknown {
        problems.push("the restart logged neither a warm start nor a rebuild".to_owned());
    }
    let got = answers(rt, server, used == CacheUse::Warm || run.is_multiple_of(10));
    if let Some(why) = got.differs_from(expected) {
        problems.push(format!("it does not serve the catalog on disk: {why}"));
    }
    let leftovers = leftovers(cache);
    if !leftovers.is_empty() {
        problems.push(format!("left in the cache directory: {leftovers:?}"));
    }
    if !cache_complete(cache) {
        problems.push(format!(
            "no complete cache after the restart: {:?}",
            names(&cache.join(SUBDIR))
        ));
    }
    problems
}
