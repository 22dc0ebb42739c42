use super::*;
use crate::testing::{Tar, gzip, zstd};
use std::fs;

const IMAGE: &str = "example.com/catalog:test";

/// Writes `layers` as blobs and unpacks them with the label `/configs`.
fn run(
    layers: &[Vec<u8>],
    limits: &ImageLimits,
) -> (tempfile::TempDir, Result<UnpackReport, Box<UnpackError>>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("out");
    fs::create_dir(&target).expect("target");
    let files: Vec<LayerFile> = layers
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let path = dir.path().join(format!("layer{i}"));
            fs::write(&path, bytes).expect("layer");
            LayerFile {
                digest: Digest::of(bytes),
                path,
            }
        })
        .collect();
    let result = unpack(IMAGE, "/configs", &files, &target, limits);
    (dir, result)
}

fn listing(dir: &tempfile::TempDir) -> Vec<String> {
    let root = dir.path().join("out");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read_dir") {
            let e = e.expect("entry");
            let p = e.path();
            let rel = p
                .strip_prefix(&root)
                .expect("under root")
                .display()
                .to_string();
            let m = fs::symlink_metadata(&p).expect("lstat");
            if m.file_type().is_symlink() {
                out.push(format!(
                    "{rel} -> {}",
                    fs::read_link(&p).expect("link").display()
                ));
            } else if m.is_dir() {
                out.push(format!("{rel}/"));
                stack.push(p);
            } else {
                out.push(format!(
                    "{rel} = {}",
                    fs::read_to_string(&p).unwrap_or_default()
                ));
            }
        }
    }
    out.sort();
    out
}

fn error_of(layers: &[Vec<u8>], limits: &ImageLimits) -> String {
    let (dir, result) = run(layers, limits);
    match result {
        Ok(_) => panic!("unpacked: {:?}", listing(&dir)),
        Err(e) => e.to_string(),
    }
}

#[test]
fn only_the_configs_directory_is_unpacked_and_its_prefix_dropped() {
    let layer = Tar::new()
        .dir("./")
        .file("./bin/opm", b"binary")
        .dir("./configs/")
        .file("./configs/pkg/catalog.json", b"{}")
        .file("configs/other.yaml", b"a: 1")
        .file("etc/passwd", b"root")
        .finish();
    let (dir, result) = run(&[gzip(&layer)], &ImageLimits::default());
    let report = result.expect("unpack");
    assert_eq!(
        listing(&dir),
        ["other.yaml = a: 1", "pkg/", "pkg/catalog.json = {}"]
    );
    assert_eq!(report.files, 2);
    assert_eq!(report.entries, 6);
}

#[test]
fn gzip_zstd_and_plain_layers_stack_in_order() {
    let l0 = Tar::new()
        .file("configs/a.json", b"0")
        .file("configs/b.json", b"0")
        .finish();
    let l1 = Tar::new().file("configs/b.json", b"1").finish();
    let l2 = Tar::new().file("configs/c.json", b"2").finish();
    let (dir, result) = run(&[gzip(&l0), zstd(&l1), l2], &ImageLimits::default());
    result.expect("unpack");
    assert_eq!(listing(&dir), ["a.json = 0", "b.json = 1", "c.json = 2"]);
}

#[test]
fn whiteouts_remove_lower_entries_and_opaque_empties_a_directory() {
    let l0 = Tar::new()
        .file("configs/a/keep.json", b"0")
        .file("configs/a/gone.json", b"0")
        .file("configs/b/old.json", b"0")
        .file("configs/c.json", b"0")
        .finish();
    let l1 = Tar::new()
        .file("configs/a/.wh.gone.json", b"")
        .file("configs/b/new.json", b"1")
        .file("configs/b/.wh..wh..opq", b"")
        .file("configs/.wh.c.json", b"")
        .finish();
    let (dir, result) = run(&[gzip(&l0), gzip(&l1)], &ImageLimits::default());
    result.expect("unpack");
    assert_eq!(
        listing(&dir),
        ["a/", "a/keep.json = 0", "b/", "b/new.json = 1"]
    );
}

#[test]
fn a_whiteout_of_the_configs_directory_drops_the_lower_catalog() {
    let l0 = Tar::new().file("configs/old.json", b"0").finish();
    let l1 = Tar::new()
        .file(".wh.configs", b"")
        .file("configs/new.json", b"1")
        .finish();
    let (dir, result) = run(&[gzip(&l0), gzip(&l1)], &ImageLimits::default());
    result.expect("unpack");
    assert_eq!(listing(&dir), ["new.json = 1"]);
}

#[test]
fn in_tree_symlinks_are_kept_as_relative_links_and_hard_links_made() {
    let layer = Tar::new()
        .file("configs/pkg/catalog.json", b"{}")
        .symlink("configs/alias.json", "pkg/catalog.json")
        .symlink("configs/pkg/abs.json", "/configs/pkg/catalog.json")
        .hard_link("configs/copy.json", "configs/pkg/catalog.json")
        .finish();
    let (dir, result) = run(&[gzip(&layer)], &ImageLimits::default());
    result.expect("unpack");
    assert_eq!(
        listing(&dir),
        [
            "alias.json -> pkg/catalog.json",
            "copy.json = {}",
            "pkg/",
            "pkg/abs.json -> catalog.json",
            "pkg/catalog.json = {}",
        ]
    );
}

#[test]
fn hostile_entries_are_refused_naming_the_image_layer_and_entry() {
    let cases: Vec<(&str, Tar, &str)> = vec![
        (
            "dot-dot",
            Tar::new().file("configs/../../etc/x", b"x"),
            "the path climbs out with ..",
        ),
        (
            "absolute",
            Tar::new().file("/configs/x.json", b"x"),
            "the path is absolute",
        ),
        (
            "symlink out",
            Tar::new().symlink("configs/evil", "../../../etc"),
            "outside the catalog directory",
        ),
        (
            "absolute symlink out",
            Tar::new().symlink("configs/evil", "/etc/passwd"),
            "outside the catalog directory",
        ),
        (
            "symlink climbing after a name",
            Tar::new().dir("configs/d").symlink("configs/s", "d/../.."),
            "climbs out",
        ),
        (
            "hard link out",
            Tar::new().hard_link("configs/evil", "etc/passwd"),
            "hard link",
        ),
        (
            "hard link to nothing",
            Tar::new().hard_link("configs/evil", "configs/missing"),
            "not a regular file unpacked before it",
        ),
        (
            "fifo",
            Tar::new().special("configs/pipe", tar::EntryType::Fifo),
            "it is a FIFO",
        ),
        (
            "char device",
            Tar::new().special("configs/zero", tar::EntryType::Char),
            "character device",
        ),
        (
            "block device",
            Tar::new().special("configs/sda", tar::EntryType::Block),
            "block device",
        ),
        (
            "write through a symlink",
            Tar::new()
                .dir("configs/d")
                .symlink("configs/link", "d")
                .file("configs/link/x.json", b"x"),
            "is a symlink, and entries are never written through symlinks",
        ),
    ];
    for (name, tar, expected) in cases {
        let layer = gzip(&tar.finish());
        let digest = Digest::of(&layer);
        let message = error_of(
            &[
                gzip(&Tar::new().file("configs/ok.json", b"{}").finish()),
                layer,
            ],
            &ImageLimits::default(),
        );
        assert!(message.contains(expected), "{name}: {message}");
        assert!(
            message.starts_with(&format!("image {IMAGE}, layer 1 ({digest}), entry ")),
            "{name}: {message}"
        );
    }
}

#[test]
fn a_symlink_swapped_under_a_later_entry_writes_nothing_outside() {
    let outside = tempfile::tempdir().expect("tempdir");
    let target = outside.path().display().to_string();
    // A directory in one layer, replaced by a symlink out in the next, then written through.
    let l0 = Tar::new().dir("configs/d").finish();
    let l1 = Tar::new()
        .symlink("configs/d", &target)
        .file("configs/d/x.json", b"x")
        .finish();
    let message = error_of(&[gzip(&l0), gzip(&l1)], &ImageLimits::default());
    assert!(
        message.contains("outside the catalog directory"),
        "{message}"
    );
    assert_eq!(fs::read_dir(outside.path()).expect("read_dir").count(), 0);
}

#[test]
fn each_limit_stops_the_unpack_and_names_its_flag() {
    let small = |f: fn(&mut ImageLimits)| {
        let mut limits = ImageLimits::default();
        f(&mut limits);
        limits
    };
    let layer = gzip(
        &Tar::new()
            .file("configs/a.json", b"0123456789")
            .file("configs/b.json", b"x")
            .finish(),
    );
    let cases: Vec<(ImageLimits, &str)> = vec![
        (small(|l| l.max_file_bytes = 5), "--max-file-size"),
        (small(|l| l.max_entries = 1), "--max-unpack-entries"),
        (small(|l| l.max_unpack_bytes = 10), "--max-unpack-size"),
        (small(|l| l.max_layers = 1), "--max-layers"),
    ];
    for (limits, flag) in cases {
        let message = error_of(&[layer.clone(), layer.clone()], &limits);
        assert!(message.contains(flag), "{flag}: {message}");
    }
}

#[test]
fn a_tar_bomb_outside_the_configs_directory_still_counts() {
    // 64 MiB of zeros compress to ~64 KiB; the limit stops the read, not the disk.
    let bomb = gzip(&Tar::new().sized_file("huge", 64 << 20).finish());
    assert!(bomb.len() < 1 << 20);
    let limits = ImageLimits {
        max_unpack_bytes: 1 << 20,
        ..ImageLimits::default()
    };
    let message = error_of(&[bomb], &limits);
    assert!(message.contains("--max-unpack-size"), "{message}");
}

/// One tar entry as raw bytes: a header whose size field says `size_field`, then `data`,
/// padded to a block (so the two may disagree, as a hostile layer's do).
fn raw_entry(kind: tar::EntryType, name: &str, size_field: u64, data: &[u8]) -> Vec<u8> {
    let mut header = tar::Header::new_ustar();
    header.set_entry_type(kind);
    header.set_path(name).expect("a short name");
    header.set_size(size_field);
    header.set_mode(0o644);
    header.set_cksum();
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// A PAX header entry holding one `key=value` record.
fn pax_entry(key: &str, value: &[u8]) -> Vec<u8> {
    let body = [b" ", key.as_bytes(), b"=", value, b"\n"].concat();
    // The record's length counts its own digits.
    let mut len = body.len() + 1;
    while len.to_string().len() + body.len() != len {
        len += 1;
    }
    let record = [len.to_string().as_bytes(), &body].concat();
    raw_entry(
        tar::EntryType::XHeader,
        "PaxHeaders/x",
        record.len() as u64,
        &record,
    )
}

const END: [u8; 1024] = [0; 1024];

/// fuzz/corpus/layer_unpack/crash-ef0ff9be: a PAX `size` record larger than the header's
/// size field. The tar reader goes by the PAX size, the unpack counted the header's (0): the
/// file's 600 bytes were written uncounted, and outside the configs directory any number of
/// bytes was read past without reaching `--max-unpack-size`.
#[test]
fn fuzz_crash_ef0ff9be_a_pax_size_record_is_counted_against_the_unpack_size() {
    let layer = [
        pax_entry("size", b"600"),
        raw_entry(tar::EntryType::Regular, "configs/a.json", 0, &[b'a'; 600]),
        END.to_vec(),
    ]
    .concat();
    let (dir, result) = run(&[layer], &ImageLimits::default());
    let report = result.expect("unpack");
    assert_eq!((report.bytes_read, report.bytes_written), (600, 600));
    assert_eq!(
        fs::metadata(dir.path().join("out/a.json"))
            .expect("a.json")
            .len(),
        600
    );

    let bomb = [
        pax_entry("size", (8u64 << 20).to_string().as_bytes()),
        raw_entry(
            tar::EntryType::Regular,
            "elsewhere/big",
            0,
            &vec![0; 8 << 20],
        ),
        END.to_vec(),
    ]
    .concat();
    let limits = ImageLimits {
        max_unpack_bytes: 1 << 20,
        ..ImageLimits::default()
    };
    let message = error_of(&[gzip(&bomb)], &limits);
    assert!(message.contains("--max-unpack-size"), "{message}");
}

/// fuzz/corpus/layer_unpack/crash-f9047430: a GNU long-name header of 1.5 GiB (a 50 KB zstd
/// layer). The tar reader holds a long name, a long link name or a PAX record set in memory
/// before it returns the entry they describe, so the unpack went past the fuzzer's 1 GiB
/// memory limit; now the headers before an entry stop at 1 MiB. Ordinary long names pass.
#[test]
fn fuzz_crash_f9047430_a_huge_long_name_is_refused_not_held_in_memory() {
    let huge = vec![b'n'; 2 << 20];
    for (kind, what) in [
        (tar::EntryType::GNULongName, "a long name"),
        (tar::EntryType::GNULongLink, "a long link name"),
        (tar::EntryType::XHeader, "a PAX record set"),
    ] {
        let layer = [
            raw_entry(kind, "././@LongLink", huge.len() as u64, &huge),
            raw_entry(tar::EntryType::Regular, "configs/x.json", 0, b""),
            END.to_vec(),
        ]
        .concat();
        let message = error_of(&[gzip(&layer)], &ImageLimits::default());
        assert!(
            message.contains("the headers before an entry"),
            "{what}: {message}"
        );
    }

    let long_dir = "d".repeat(200); // with the rest, over the 100 bytes a header holds
    let name = format!("configs/{long_dir}/catalog.json");
    let layer = [
        raw_entry(
            tar::EntryType::GNULongName,
            "././@LongLink",
            name.len() as u64 + 1,
            format!("{name}\0").as_bytes(),
        ),
        raw_entry(tar::EntryType::Regular, "configs/ignored", 2, b"{}"),
        pax_entry("path", b"configs/pax-named.json"),
        raw_entry(tar::EntryType::Regular, "configs/ignored-too", 2, b"[]"),
        END.to_vec(),
    ]
    .concat();
    let (dir, result) = run(&[zstd(&layer)], &ImageLimits::default());
    result.expect("long names unpack");
    assert_eq!(
        listing(&dir),
        [
            format!("{long_dir}/"),
            format!("{long_dir}/catalog.json = {{}}"),
            "pax-named.json = []".to_owned(),
        ]
    );
}

/// `--max-unpack-size` counts the tar streams, headers included: a layer of empty files
/// reads past it without a byte of content.
#[test]
fn a_layer_of_headers_alone_counts_against_the_unpack_size() {
    let layer = (0..3000)
        .fold(Tar::new(), |t, i| t.file(&format!("elsewhere/{i}"), b""))
        .finish();
    let limits = ImageLimits {
        max_unpack_bytes: 1 << 20,
        ..ImageLimits::default()
    };
    let message = error_of(&[gzip(&layer)], &limits);
    assert!(message.contains("--max-unpack-size"), "{message}");
    let (_dir, result) = run(&[gzip(&layer)], &ImageLimits::default());
    assert_eq!(result.expect("unpack").entries, 3000);
}

#[test]
fn garbage_and_truncated_layers_are_errors() {
    let layer = gzip(&Tar::new().file("configs/a.json", b"{}").finish());
    for bad in [
        layer[..layer.len() / 2].to_vec(),
        vec![0x1f, 0x8b, 0, 1, 2, 3],
        vec![7u8; 1000],
    ] {
        let (_dir, result) = run(&[bad], &ImageLimits::default());
        assert!(result.is_err(), "accepted");
    }
}

#[test]
fn a_label_that_climbs_out_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = unpack(
        IMAGE,
        "/configs/../..",
        &[],
        dir.path(),
        &ImageLimits::default(),
    )
    .expect_err("refused");
    assert!(
        err.to_string()
            .contains("is not a directory inside the image"),
        "{err}"
    );
}

mod mutated {
    use super::*;
    use proptest::prelude::*;

    fn base_layer() -> Vec<u8> {
        Tar::new()
            .dir("configs/")
            .file("configs/pkg/catalog.json", b"{\"schema\":\"olm.package\"}")
            .symlink("configs/alias.json", "pkg/catalog.json")
            .hard_link("configs/copy.json", "configs/pkg/catalog.json")
            .file("configs/.wh.gone", b"")
            .finish()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Bytes flipped anywhere in a layer (headers, names, sizes, link targets, checksums)
        /// never panic, and whatever is written stays inside the target.
        #[test]
        fn a_mutated_layer_never_panics_or_writes_outside(
            flips in prop::collection::vec((0usize..4096, any::<u8>()), 1..12),
            cut in prop::option::of(0usize..4096),
            compress in any::<bool>(),
        ) {
            let mut layer = base_layer();
            for (at, byte) in flips {
                let i = at % layer.len();
                layer[i] = byte;
            }
            if let Some(cut) = cut {
                layer.truncate(cut % layer.len());
            }
            let blob = if compress { gzip(&layer) } else { layer };
            let dir = tempfile::tempdir().expect("tempdir");
            let target = dir.path().join("out");
            fs::create_dir(&target).expect("target");
            let path = dir.path().join("layer");
            fs::write(&path, &blob).expect("layer");
            let files = [LayerFile { digest: Digest::of(&blob), path }];
            let _ = unpack(IMAGE, "/configs", &files, &target, &ImageLimits::default());
            let mut names: Vec<_> = fs::read_dir(dir.path()).expect("read_dir").map(|e| e.expect("entry").file_name()).collect();
            names.sort();
            prop_assert_eq!(names, vec![std::ffi::OsString::from("layer"), std::ffi::OsString::from("out")]);
        }
    }
}
