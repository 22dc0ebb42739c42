//! Crash consistency (issue #33): the real binary SIGKILLed at random points, 100 times
//! each, during an index-cache write, a hot reload, and an image pull and unpack; and the
//! cache directory on a full disk and read-only. After every one, the next start serves
//! the catalog on disk — the reply digest of a server started on it without a cache — never
//! a torn cache, and leaves no temporary file behind (see `crash_consistency/common.rs` for
//! what the reply digest and the temporary names are).
//!
//! The random delays come from one seed, printed at the start; `CRASH_CONSISTENCY_SEED=N`
//! replays a run. The cache-write and disk tests serve the shared catalog `rhoai-3.5-v4.22`
//! when `FBC_SHARED_CATALOGS` is set, else a generated one of the same size, which the
//! reload and image tests always serve (it loads in a fraction of the time).
//!
//! A custom harness (see `support`): the image test needs Debian's `docker-registry`, the
//! full-disk and read-only tests a tmpfs or a bind mount (root); without them those tests
//! are reported ignored, by name, with the reason, and under CI they fail.

#[path = "crash_consistency/cache_write.rs"]
mod cache_write;
#[path = "crash_consistency/catalogs.rs"]
mod catalogs;
#[path = "crash_consistency/common.rs"]
mod common;
#[path = "crash_consistency/disk.rs"]
mod disk;
#[path = "registry/distribution.rs"]
#[allow(dead_code)]
mod distribution;
#[path = "integration/http_client.rs"]
#[allow(dead_code)]
mod http_client;
#[path = "crash_consistency/image_pull.rs"]
mod image_pull;
#[path = "integration/harness/process.rs"]
#[allow(dead_code)]
mod process;
#[path = "crash_consistency/reload.rs"]
mod reload;
mod support;

use libtest_mimic::Arguments;
use support::Requirement;

fn main() {
    let args = Arguments::from_args();
    let seed = common::seed();
    eprintln!("crash_consistency: seed {seed} (CRASH_CONSISTENCY_SEED={seed} replays it)");
    let always = Requirement::Present(seed);
    let mut trials = support::trials(
        &always,
        vec![
            (
                "an_index_cache_write_killed_anywhere_leaves_a_cache_the_next_start_serves_right",
                cache_write::run,
            ),
            (
                "a_reload_killed_anywhere_leaves_the_next_start_serving_the_catalog_on_disk",
                reload::run,
            ),
        ],
    );
    let registry = match support::program_on_path(
        "docker-registry",
        "Debian's docker-registry, the registry the image test pulls from",
    ) {
        Requirement::Present(path) => Requirement::Present((path, seed)),
        Requirement::Absent(why) => Requirement::Absent(why),
    };
    trials.extend(support::trials(
        &registry,
        vec![(
            "an_image_pull_and_unpack_killed_anywhere_leaves_no_tmp_and_the_next_start_serves_right",
            image_pull::run,
        )],
    ));
    let with_reason = |probe: Result<(), String>, what: &str| match probe {
        Ok(()) => Requirement::Present(seed),
        Err(e) => Requirement::Absent(format!("{what}: {e}")),
    };
    trials.extend(support::trials(
        &with_reason(
            disk::can_mount(),
            "cannot mount a tmpfs for the full disk (needs root or CAP_SYS_ADMIN)",
        ),
        vec![(
            "a_full_cache_disk_serves_from_the_catalog_logs_and_leaves_no_partial_file",
            disk::full_disk,
        )],
    ));
    trials.extend(support::trials(
        &with_reason(
            disk::can_make_read_only(),
            "cannot make a read-only directory (root needs a bind mount)",
        ),
        vec![(
            "a_read_only_cache_directory_serves_logs_and_is_left_as_it_was",
            disk::read_only,
        )],
    ));
    libtest_mimic::run(&args, trials).exit();
}
