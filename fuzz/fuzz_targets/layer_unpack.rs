//! A layer blob, unpacked as `fbc-image` unpacks a pulled or OCI-layout image:
//! the bytes after a two-byte header are a tar stream, written as one layer or
//! split in two at a 512-byte block (the second header byte: 0 is one layer, n
//! puts n blocks in the first), each layer plain, gzip, zstd or the bytes as
//! given (the first byte's low two bits; the unpack tells the compression by the
//! bytes), under one of four configs labels (the next two bits), into a fresh
//! directory with small limits (`fbc_fuzz::IMAGE_LIMITS`). Holds: no panic;
//! nothing appears beside the target or in the directories above it (the target
//! sits three levels down a scratch directory, so a `../` that got through would
//! land in one of them); whether the unpack succeeds or fails, the target holds
//! only directories, regular files (at most one byte over the per-file limit: the
//! file it stopped at), hard links among its own files (every link count is made
//! up inside it), and relative symlinks with no `..` after a name that resolve
//! inside it; after a successful unpack no file is over the per-file limit, the
//! counts are within the limits, the files hold at most the bytes reported
//! written, and those are at most the bytes reported read.
#![no_main]
use fbc_image::Digest;
use fbc_image::unpack::{self, LayerFile};
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

const LABELS: [&str; 4] = ["/configs", "configs/", "/", "/a/b"];

fuzz_target!(|data: &[u8]| {
    let [mode, split, tar @ ..] = data else {
        return;
    };
    let limits = fbc_fuzz::IMAGE_LIMITS;
    let label = LABELS[usize::from(mode >> 2) % LABELS.len()];
    let layers: Vec<&[u8]> = match usize::from(*split) * 512 {
        0 => vec![tar],
        at => {
            let (a, b) = tar.split_at(at.min(tar.len()));
            vec![a, b]
        }
    };
    let blobs: Vec<Vec<u8>> = layers
        .iter()
        .map(|layer| match mode & 3 {
            1 => fbc_image::testing::gzip(layer),
            2 => fbc_image::testing::zstd(layer),
            // 0 and 3: as given (3 keeps inputs whose bytes are already compressed)
            _ => layer.to_vec(),
        })
        .collect();

    let scratch = scratch();
    let target = scratch.path().join("up").join("one").join("target");
    let layer_dir = scratch.path().join("layers");
    for dir in [&target, &layer_dir] {
        if let Err(e) = fs::create_dir_all(dir) {
            panic!("making {}: {e}", dir.display());
        }
    }
    let files: Vec<LayerFile> = blobs
        .iter()
        .enumerate()
        .map(|(i, blob)| {
            let path = layer_dir.join(i.to_string());
            if let Err(e) = fs::write(&path, blob) {
                panic!("writing {}: {e}", path.display());
            }
            LayerFile {
                digest: Digest::of(blob),
                path,
            }
        })
        .collect();

    let result = unpack::unpack("fuzz", label, &files, &target, &limits);

    // Nothing beside the target, or above it.
    assert_eq!(names(scratch.path()), ["layers", "up"], "scratch directory");
    assert_eq!(
        names(&scratch.path().join("up")),
        ["one"],
        "above the target"
    );
    assert_eq!(
        names(&scratch.path().join("up").join("one")),
        ["target"],
        "beside the target"
    );
    let layer_names: Vec<String> = (0..files.len()).map(|i| i.to_string()).collect();
    assert_eq!(names(&layer_dir), layer_names, "the layer directory");
    let (sizes, largest) = check_tree(&target, &limits);
    if let Ok(report) = result {
        assert!(
            largest <= limits.max_file_bytes,
            "a file of {largest} bytes"
        );
        assert!(report.entries <= limits.max_entries, "{report:?}");
        assert!(report.bytes_read <= limits.max_unpack_bytes, "{report:?}");
        assert!(report.bytes_written <= report.bytes_read, "{report:?}");
        assert!(
            sizes <= report.bytes_written,
            "{sizes} bytes on disk: {report:?}"
        );
    }
});

/// A fresh scratch directory: in `TMPDIR` when set, else in `/dev/shm` (a tmpfs,
/// so tens of thousands of unpacks a minute cost no disk), else the temp dir.
fn scratch() -> tempfile::TempDir {
    let base = match std::env::var_os("TMPDIR") {
        Some(dir) => PathBuf::from(dir),
        None if Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
        None => std::env::temp_dir(),
    };
    match tempfile::Builder::new()
        .prefix("fbc-fuzz-unpack.")
        .tempdir_in(&base)
    {
        Ok(dir) => dir,
        Err(e) => panic!("a scratch directory in {}: {e}", base.display()),
    }
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => panic!("reading {}: {e}", dir.display()),
    };
    let mut out: Vec<String> = entries
        .map(|e| match e {
            Ok(e) => e.file_name().to_string_lossy().into_owned(),
            Err(e) => panic!("reading {}: {e}", dir.display()),
        })
        .collect();
    out.sort();
    out
}

/// Checks every entry below `root` (never following a symlink) and returns the
/// bytes its regular files hold, each inode counted once, and the largest file.
fn check_tree(root: &Path, limits: &fbc_image::ImageLimits) -> (u64, u64) {
    let mut links: HashMap<(u64, u64), (u64, u64)> = HashMap::new(); // inode → (nlink, seen)
    let mut bytes = 0;
    let mut largest = 0;
    let mut stack: Vec<Vec<OsString>> = vec![Vec::new()];
    while let Some(dir) = stack.pop() {
        let full = join(root, &dir);
        let entries = match fs::read_dir(&full) {
            Ok(entries) => entries,
            Err(e) => panic!("reading {}: {e}", full.display()),
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => panic!("reading {}: {e}", full.display()),
            };
            let mut inside = dir.clone();
            inside.push(entry.file_name());
            let path = join(root, &inside);
            let meta = match fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(e) => panic!("lstat {}: {e}", path.display()),
            };
            let kind = meta.file_type();
            if kind.is_dir() {
                stack.push(inside);
            } else if kind.is_file() {
                assert!(
                    meta.len() <= limits.max_file_bytes.saturating_add(1),
                    "{} holds {} bytes",
                    path.display(),
                    meta.len()
                );
                let seen = links
                    .entry((meta.dev(), meta.ino()))
                    .or_insert((meta.nlink(), 0));
                if seen.1 == 0 {
                    bytes += meta.len();
                }
                largest = largest.max(meta.len());
                seen.1 += 1;
            } else if kind.is_symlink() {
                check_symlink(root, &inside, &path);
            } else {
                panic!(
                    "{} is neither a file, a directory nor a symlink",
                    path.display()
                );
            }
        }
    }
    for ((_, ino), (nlink, seen)) in links {
        assert_eq!(
            nlink, seen,
            "inode {ino} has {nlink} names, {seen} of them in the target"
        );
    }
    (bytes, largest)
}

/// A symlink at `inside` (below `root`): relative, `..` only before its first
/// name, and where it leads by its text is below `root` (so no chain of links
/// inside the target can lead out of it).
fn check_symlink(root: &Path, inside: &[OsString], path: &Path) {
    let text = match fs::read_link(path) {
        Ok(text) => text,
        Err(e) => panic!("readlink {}: {e}", path.display()),
    };
    let mut depth = inside.len() - 1; // the link's directory, in components below root
    let mut seen_name = false;
    for component in text.components() {
        match component {
            Component::Normal(_) => {
                seen_name = true;
                depth += 1;
            }
            Component::CurDir => {}
            Component::ParentDir => {
                assert!(
                    !seen_name,
                    "{} -> {}: `..` after a name",
                    path.display(),
                    text.display()
                );
                assert!(
                    depth > 0,
                    "{} -> {} climbs out of the target",
                    path.display(),
                    text.display()
                );
                depth -= 1;
            }
            Component::RootDir | Component::Prefix(_) => {
                panic!("{} -> {} is absolute", path.display(), text.display())
            }
        }
    }
    if let (Ok(resolved), Ok(root)) = (fs::canonicalize(path), fs::canonicalize(root)) {
        assert!(
            resolved.starts_with(&root),
            "{} resolves to {}",
            path.display(),
            resolved.display()
        );
    }
}

fn join(root: &Path, inside: &[OsString]) -> PathBuf {
    let mut path = root.to_path_buf();
    path.extend(inside);
    path
}
