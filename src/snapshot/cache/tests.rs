//! The index cache's rules, each on a fixture catalog copied to a temp dir:
//! cold then warm starts, stale, corrupt and Go `opm` caches, enforced
//! integrity, unwritable directories, and the fingerprint of untouched files.

use super::*;

fn catalog(tmp: &Path) -> PathBuf {
    let root = tmp.join("catalog");
    std::fs::create_dir_all(&root).expect("mkdir");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalog-b");
    for e in std::fs::read_dir(src).expect("fixture") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), root.join(e.file_name())).expect("copy");
    }
    root
}

fn load(root: &Path, cfg: &CacheConfig) -> Result<CachedLoad, CacheError> {
    super::load(root, cfg, &LoadOptions::default())
}

fn cfg(dir: &Path, enforce: bool) -> CacheConfig {
    CacheConfig {
        dir: dir.to_path_buf(),
        enforce_integrity: enforce,
        must_write: false,
    }
}

#[test]
fn a_fresh_cache_is_written_then_read_warm_with_the_same_answers() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    let built = load(&root, &cfg(&dir, false)).expect("cold");
    assert_eq!(built.outcome, Outcome::BuiltAndWritten);
    assert!(built.notes.stale.is_none() && built.notes.foreign.is_none());
    let warm = load(&root, &cfg(&dir, true)).expect("warm");
    assert_eq!(warm.outcome, Outcome::Warm);
    assert_eq!(
        warm.catalog.registry.to_bytes(),
        built.catalog.registry.to_bytes()
    );
    assert_eq!(warm.catalog.report.stats.bundles, 3);
    assert_eq!(warm.catalog.report.digest, built.catalog.report.digest);
    // the tables come back whole, metas' JSON included
    use fbc_catalog::tables::summary::summary;
    assert_eq!(
        summary(warm.catalog.tables.get().expect("warm tables")),
        summary(built.catalog.tables.get().expect("cold tables"))
    );
    assert_eq!(
        warm.catalog
            .tables
            .get()
            .expect("warm")
            .metas()
            .json()
            .expect("warm metas"),
        built
            .catalog
            .tables
            .get()
            .expect("cold")
            .metas()
            .json()
            .expect("cold metas")
    );
}

#[test]
fn a_changed_catalog_makes_the_cache_stale_and_it_is_rebuilt() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    load(&root, &cfg(&dir, false)).expect("cold");
    std::fs::write(root.join("extra.yaml"), "schema: custom.thing\nname: x\n").expect("write");
    let rebuilt = load(&root, &cfg(&dir, false)).expect("rebuild");
    assert_eq!(rebuilt.outcome, Outcome::BuiltAndWritten);
    let notes = &rebuilt.notes;
    assert!(
        notes.stale.as_deref().is_some_and(|s| s.contains("digest")),
        "{notes:?}"
    );
    assert_eq!(rebuilt.catalog.registry.stats().custom_blobs, 1);
    assert_eq!(
        load(&root, &cfg(&dir, true)).expect("warm").outcome,
        Outcome::Warm
    );
}

#[test]
fn enforced_integrity_fails_on_a_stale_or_missing_cache() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    let missing = load(&root, &cfg(&dir, true))
        .expect_err("missing")
        .to_string();
    assert!(
        missing.contains("integrity check failed: no index cache"),
        "{missing:?}"
    );
    load(&root, &cfg(&dir, false)).expect("cold");
    std::fs::write(root.join("extra.yaml"), "schema: custom.thing\nname: x\n").expect("write");
    let stale = load(&root, &cfg(&dir, true))
        .expect_err("stale")
        .to_string();
    assert!(
        stale.contains("cache requires rebuild") && stale.contains("--cache-only"),
        "{stale:?}"
    );
}

#[test]
fn a_go_opm_cache_is_left_alone_and_ours_built_beside_it_even_when_enforced() {
    for layout in ["pogreb", "json"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = catalog(tmp.path());
        let dir = tmp.path().join("cache");
        if layout == "pogreb" {
            std::fs::create_dir_all(dir.join("pogreb.v1/db")).expect("mkdir");
            std::fs::write(dir.join("pogreb.v1/digest"), "485a767449dd66d4").expect("write");
        } else {
            std::fs::create_dir_all(dir.join("cache")).expect("mkdir");
            std::fs::write(dir.join("digest"), "9adad9ff6cf54e4f").expect("write");
        }
        let built = load(&root, &cfg(&dir, true)).expect("builds beside");
        assert_eq!(built.outcome, Outcome::BuiltAndWritten);
        assert!(built.notes.foreign.is_some());
        assert!(dir.join(SUBDIR).join(INDEX_FILE).is_file());
        if layout == "pogreb" {
            assert_eq!(
                std::fs::read_to_string(dir.join("pogreb.v1/digest")).expect("kept"),
                "485a767449dd66d4"
            );
        }
        assert_eq!(
            load(&root, &cfg(&dir, true)).expect("warm").outcome,
            Outcome::Warm
        );
    }
}

#[test]
fn an_unwritable_cache_directory_keeps_the_index_in_memory() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    // a file where the directory should be: nothing can be created below it
    let dir = tmp.path().join("not-a-dir");
    std::fs::write(&dir, "x").expect("write");
    let served = load(&root, &cfg(&dir, false)).expect("serves");
    let outcome = &served.outcome;
    assert!(matches!(outcome, Outcome::BuiltInMemory(_)), "{outcome:?}");
    assert_eq!(served.catalog.registry.stats().packages, 1);
    let strict = CacheConfig {
        must_write: true,
        ..cfg(&dir, false)
    };
    assert!(
        load(&root, &strict).is_err(),
        "--cache-only must fail when it cannot write"
    );
}

#[test]
fn a_corrupt_index_file_with_a_matching_digest_is_rebuilt_not_trusted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    load(&root, &cfg(&dir, false)).expect("cold");
    std::fs::write(dir.join(SUBDIR).join(INDEX_FILE), b"\xff\xff garbage").expect("corrupt");
    let rebuilt = load(&root, &cfg(&dir, false)).expect("rebuilt");
    assert_eq!(rebuilt.outcome, Outcome::BuiltAndWritten);
    assert!(
        rebuilt
            .notes
            .stale
            .as_deref()
            .is_some_and(|s| s.contains("does not decode")),
        "{:?}",
        rebuilt.notes
    );
    assert!(load(&root, &cfg(&dir, true)).is_ok());
}

fn set_mtime(path: &Path, t: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(t))
        .expect("set mtime");
}

#[test]
fn an_untouched_catalog_is_recognised_by_its_fingerprint_without_reading_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    load(&root, &cfg(&dir, false)).expect("cold");
    assert!(dir.join(SUBDIR).join(FINGERPRINT_FILE).is_file());
    // Rewrite a file with other bytes of the same length and put its time back:
    // the fingerprint cannot tell (the documented limit), so the cache is
    // trusted without a single file being hashed.
    let file = root.join("deprecations.yaml");
    let before = std::fs::metadata(&file)
        .and_then(|m| m.modified())
        .expect("mtime");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("end of life", "END OF LIFE")).expect("write");
    set_mtime(&file, before);
    let warm = load(&root, &cfg(&dir, true)).expect("warm");
    assert_eq!(warm.outcome, Outcome::Warm);
}

#[test]
fn a_touched_file_is_hashed_again_and_the_fingerprint_refreshed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    load(&root, &cfg(&dir, false)).expect("cold");
    let recorded =
        || std::fs::read_to_string(dir.join(SUBDIR).join(FINGERPRINT_FILE)).expect("fingerprint");
    let first = recorded();
    set_mtime(
        &root.join("deprecations.yaml"),
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000),
    );
    // same bytes, new time: hashed, still warm, and the new time recorded
    assert_eq!(
        load(&root, &cfg(&dir, true)).expect("warm").outcome,
        Outcome::Warm
    );
    let second = recorded();
    assert_ne!(first, second);
    assert_eq!(
        first.split(' ').nth(1),
        second.split(' ').nth(1),
        "same digest"
    );
}

/// A cold start writes the cache once and is served from that file: the index is not
/// also spilled, and its answers are the in-memory build's.
#[test]
fn a_cold_start_is_served_from_the_cache_it_wrote() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    let built = load(&root, &cfg(&dir, false)).expect("cold");
    assert_eq!(built.outcome, Outcome::BuiltAndWritten);
    let written = std::fs::metadata(dir.join(SUBDIR).join(INDEX_FILE)).expect("index.pb");
    assert_eq!(built.catalog.report.mapped_bytes, written.len());
    let in_memory = crate::snapshot::load::load(&root, &LoadOptions::default()).expect("load");
    assert_eq!(
        built.catalog.registry.to_bytes(),
        in_memory.registry.to_bytes()
    );
    // spilling it again is a no-op: nothing is written twice
    let (again, how) = crate::snapshot::spill::spill(
        built.catalog,
        &crate::snapshot::spill::Spill::Dir(tmp.path().join("no such dir")),
        &root,
        Default::default(),
    );
    assert_eq!(
        how,
        crate::snapshot::spill::Spilled::Mapped {
            bytes: written.len()
        }
    );
    assert_eq!(again.report.stats.bundles, 3);
}

/// A writer killed before its rename leaves `.{file}.{pid}.{nanos}.tmp` (rule 6): the next
/// start removes those of processes that are gone and of an earlier process with this one's
/// id, and leaves a running writer's (and anything not ours) alone.
#[test]
fn a_start_removes_the_temporary_files_of_killed_writers_only() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = catalog(tmp.path());
    let dir = tmp.path().join("cache");
    load(&root, &cfg(&dir, false)).expect("cold");
    let ours = dir.join(SUBDIR);
    let me = std::process::id();
    let fresh = crate::snapshot::scratch::process_epoch() + 1;
    let dead = [
        format!(".{INDEX_FILE}.{}.1.tmp", u32::MAX - 1),
        format!(".{DIGEST_FILE}.{}.2.tmp", u32::MAX - 1),
        // an earlier process that had this one's id
        format!(".{FINGERPRINT_FILE}.{me}.3.tmp"),
    ];
    let kept = [
        // pid 1 runs, and a write of this process is in progress
        format!(".{INDEX_FILE}.1.4.tmp"),
        format!(".{INDEX_FILE}.{me}.{fresh}.tmp"),
        // not a name of ours
        format!(".other.{}.5.tmp", u32::MAX - 1),
        "notes.txt".to_owned(),
    ];
    for name in dead.iter().chain(&kept) {
        std::fs::write(ours.join(name), b"half").expect("plant");
    }
    let warm = load(&root, &cfg(&dir, true)).expect("warm");
    assert_eq!(warm.outcome, Outcome::Warm);
    for name in &dead {
        assert!(!ours.join(name).exists(), "{name} was left");
    }
    for name in &kept {
        assert!(ours.join(name).exists(), "{name} was removed");
    }
}

#[test]
fn only_our_temporary_names_are_read_as_a_writer_and_a_stamp() {
    assert_eq!(
        temp_owner(".index.pb.42.1700.tmp"),
        Some(crate::snapshot::scratch::Owner {
            pid: 42,
            stamp: 1700
        })
    );
    assert_eq!(
        temp_owner(".digest.7.8.tmp"),
        Some(crate::snapshot::scratch::Owner { pid: 7, stamp: 8 })
    );
    for other in [
        "index.pb",
        ".index.pb.42.1700",
        "index.pb.42.1700.tmp",
        ".index.pb.x.1700.tmp",
        ".other.42.1700.tmp",
        ".index.pb.1700.tmp",
    ] {
        assert_eq!(temp_owner(other), None, "{other}");
    }
}
