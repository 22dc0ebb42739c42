//! SIGKILL during an image pull and unpack, [`RUNS`] times, against Debian's
//! `docker-registry` on loopback.
//!
//! The catalog is pushed as an image of three gzip layers (image A). The image store of
//! every run starts as a copy of one holding another image, B, of 150 package directories,
//! and the server keeps one image (`--image-cache-keep=1`), so a start pulls A into a
//! `.tmp-` directory, unpacks it into another, renames it into place, removes B (marker
//! first, then its files), loads A and writes its index cache. Each run starts
//! `serve HOST/crash/a:v1 --cache-dir` and kills it after a random delay: a third anywhere in
//! the start (plus a tenth), a third from the moment a `.tmp-` directory appears (up to 1.3 ×
//! the calibrated pull and unpack), a third from the moment B starts being removed (up to
//! twice the calibrated removal). The next start, the registry still up, must serve the reply
//! digest of an uncached server on the catalog's directory and leave in the cache directory
//! only complete image entries and a complete index cache: no `.tmp-` directory (a killed
//! start's are removed by the next one, which is counted) and no half-removed entry.

use crate::common::*;
use crate::distribution::{Auth, Registry};
use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const RUNS: usize = 100;
const LABEL: (&str, &str) = (
    "operators.operatorframework.io.index.configs.v1",
    "/configs",
);

/// How long the steps of a start take here, from spawn.
#[derive(Default)]
struct Timing {
    ready: Duration,
    /// First `.tmp-` directory to A's entry complete.
    pull_and_unpack: Duration,
    /// B's marker gone to B's directory gone.
    removal: Duration,
}

pub fn run((_registry_program, seed): (PathBuf, u64)) -> Result<(), Failed> {
    let began = Instant::now();
    let mut rng = Rng::new(seed, "image_pull");
    let work = tempfile::tempdir().expect("tempdir");
    let (catalog, what) = generated_catalog(work.path());
    let rt = runtime();
    let expected = reference(&rt, s(&catalog), &work.path().join("reference"));

    let registry = Registry::start(Auth::None, None);
    let a = format!("{}/crash/a:v1", registry.host());
    let b = format!("{}/crash/b:v1", registry.host());
    let many = work.path().join("many");
    generate(&many, 150, 1, 100);
    let pushed_a = layers(&catalog, 3);
    let pushed_b = layers(&many, 1);
    let (digest_a, digest_b) = block_on(async {
        (
            registry
                .push_image("crash/a", "v1", &[LABEL], &pushed_a)
                .await,
            registry
                .push_image("crash/b", "v1", &[LABEL], &pushed_b)
                .await,
        )
    });
    let entry_a = format!("sha256-{}", digest_a.hex());
    let entry_b = format!("sha256-{}", digest_b.hex());

    // The store every run starts from: B unpacked (and its index cache).
    let template = work.path().join("template");
    let out = std::process::Command::new(crate::process::BIN)
        .args(["serve", "--cache-only", "--cache-dir", s(&template), &b])
        .env("HOME", "/nonexistent")
        .output()
        .expect("run serve --cache-only");
    assert!(
        out.status.success() && template.join("images").join(&entry_b).is_dir(),
        "could not store image B: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let args = |cache: &Path| -> Vec<String> {
        vec![
            "--cache-dir".into(),
            s(cache).into(),
            "--image-cache-keep=1".into(),
            a.clone(),
        ]
    };
    let images = |cache: &Path| cache.join("images");
    let tmp_dirs = |cache: &Path| {
        names(&images(cache))
            .iter()
            .filter(|n| n.starts_with(".tmp-"))
            .count()
    };
    let complete =
        |cache: &Path, entry: &str| images(cache).join(entry).join("image.json").is_file();

    // Calibration: three starts watched from spawn to serving.
    let mut timing = Timing::default();
    for i in 0..3 {
        let dir = work.path().join(format!("calibrate-{i}"));
        let cache = dir.join("cache");
        copy_tree(&template, &cache);
        let args = args(&cache);
        let mut victim = Victim::spawn(&refs(&args), &dir);
        let (mut tmp, mut unpacked, mut b_marker, mut b_gone) = (None, None, None, None);
        let served = wait_for(Duration::from_secs(60), || {
            let now = victim.started.elapsed();
            if tmp.is_none() && tmp_dirs(&cache) > 0 {
                tmp = Some(now);
            }
            if unpacked.is_none() && complete(&cache, &entry_a) {
                unpacked = Some(now);
            }
            if b_marker.is_none() && !complete(&cache, &entry_b) {
                b_marker = Some(now);
            }
            if b_gone.is_none() && !images(&cache).join(&entry_b).exists() {
                b_gone = Some(now);
            }
            victim.ready() || victim.exited()
        });
        let at = victim.started.elapsed();
        let log = victim.kill();
        assert!(
            served && log.contains("catalog image pulled") && b_gone.is_some(),
            "calibration: the start did not pull A, remove B and serve:\n{log}"
        );
        timing.ready = timing.ready.max(at);
        if let (Some(tmp), Some(unpacked)) = (tmp, unpacked) {
            timing.pull_and_unpack = timing.pull_and_unpack.max(unpacked.saturating_sub(tmp));
        }
        if let (Some(marker), Some(gone)) = (b_marker, b_gone) {
            timing.removal = timing.removal.max(gone.saturating_sub(marker));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    timing.pull_and_unpack = timing.pull_and_unpack.max(Duration::from_millis(1));
    timing.removal = timing.removal.max(Duration::from_micros(500));

    let mut left = Tally::default();
    let mut restarts = Tally::default();
    for run in 0..RUNS {
        let dir = work.path().join(format!("run-{run}"));
        let cache = dir.join("cache");
        copy_tree(&template, &cache);
        let args = args(&cache);
        let mode = run % 3;
        let mut victim = Victim::spawn(&refs(&args), &dir);
        match mode {
            0 => {
                let at = victim.started + rng.upto(timing.ready * 11 / 10);
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
            }
            1 => {
                wait_for(Duration::from_secs(30), || {
                    tmp_dirs(&cache) > 0 || victim.ready() || victim.exited()
                });
                std::thread::sleep(rng.upto(timing.pull_and_unpack * 13 / 10));
            }
            _ => {
                wait_for(Duration::from_secs(30), || {
                    !complete(&cache, &entry_b) || victim.ready() || victim.exited()
                });
                std::thread::sleep(rng.upto(timing.removal * 2));
            }
        }
        let killed_at = victim.started.elapsed();
        let killed_log = victim.kill();
        let context = format!(
            "seed {seed}, run {run} ({}, killed {killed_at:.1?} after spawn)",
            ["anywhere", "in the pull and unpack", "in the removal of B"][mode]
        );
        let tmp_before = tmp_dirs(&cache);
        let b_torn = images(&cache).join(&entry_b).is_dir() && !complete(&cache, &entry_b);
        left.add(if b_torn {
            "B half-removed"
        } else if tmp_before > 0 {
            "a .tmp- directory"
        } else if complete(&cache, &entry_a) {
            "A unpacked"
        } else {
            "nothing of A"
        });

        let server = restart(&refs(&args), &dir);
        let log = server.stderr();
        restarts.add(if log.contains("catalog image pulled") {
            "pulled"
        } else if log.contains("found in the image store") {
            "from the store"
        } else {
            "other"
        });
        let mut problems = Vec::new();
        let with_all = cache_use(&log) == CacheUse::Warm || run.is_multiple_of(10);
        if let Some(why) = answers(&rt, &server, with_all).differs_from(&expected) {
            problems.push(format!("it serves another catalog: {why}"));
        }
        let leftovers = leftovers(&cache);
        if !leftovers.is_empty() {
            problems.push(format!("left in the cache directory: {leftovers:?}"));
        } else if tmp_before > 0 {
            left.add("… whose .tmp- the next start removed");
        }
        if !complete(&cache, &entry_a) || !cache_complete(&cache) {
            problems.push(format!(
                "no complete entry of A and index cache after the restart: {:?} {:?}",
                names(&images(&cache)),
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
                "{context}: {}\n--- killed start:\n{}\n--- restart:\n{}",
                problems.join("\n"),
                tail(&killed_log, 15),
                tail(&log, 15)
            )
            .into());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!(
        "image_pull: {RUNS} kills on {what} as a 3-layer image (seed {seed}, ready in {:.0?}, pull and unpack {:.1?}, removal of B {:.1?}) in {:.1?}; the kills left {left}; restarts {restarts}",
        timing.ready,
        timing.pull_and_unpack,
        timing.removal,
        began.elapsed()
    );
    Ok(left.require(
        "… whose .tmp- the next start removed",
        RUNS,
        "left a .tmp- directory for the next start to remove",
    )?)
}

/// `&str`s of `args`.
fn refs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The catalog at `dir` as `n` gzip layers under `configs/`, its files dealt out in turn.
fn layers(dir: &Path, n: usize) -> Vec<Vec<u8>> {
    fbc_image::testing::configs_tars(dir, n)
        .iter()
        .map(|tar| fbc_image::testing::gzip(tar))
        .collect()
}

/// The value of an async block, on a runtime of its own.
fn block_on<T: Send + 'static>(f: impl std::future::Future<Output = T>) -> T {
    let mut out = None;
    crate::support::block_on(async { out = Some(f.await) }).expect("a runtime");
    out.expect("finished")
}
