//! The directory walk: a catalog root → its catalog files in walk order.
//!
//! In: a root directory and the parse limits (for `.indexignore` files). Out:
//! (relative path, absolute path) of every catalog file, after `.indexignore`
//! rules, or every error found while walking.
//!
//! Rules:
//! 1. Depth first, names in byte order, so every machine lists the same order.
//! 2. Symlinks are followed (ConfigMap volumes are made of them); a directory
//!    reached twice (by a second link, or a link cycle) is read once, recognised by
//!    its device and inode, so the walk costs one `stat` per entry and is linear in
//!    the number of entries.
//! 3. Directories named `..*` are skipped (a ConfigMap volume's private copies).
//! 4. An entry that is neither a regular file nor a directory (a FIFO, socket or
//!    device, directly or through a symlink) is an error naming it, unless
//!    `.indexignore` excludes it; it is never opened. A dangling symlink is listed
//!    as a file, so reading it reports the error (or `.indexignore` hides it).
//! 5. The walk uses an explicit stack: no recursion on the tree's depth.

use super::limits::ParseLimits;
use super::{LoadError, ignore_rules, io_error};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Lists the catalog files below `root` in walk order: (relative path, absolute path).
pub fn list_catalog_files(
    root: &Path,
    limits: &ParseLimits,
) -> Result<Vec<(String, PathBuf)>, Vec<LoadError>> {
    let root_error = |message: String| {
        vec![LoadError::Io {
            path: root.display().to_string(),
            message,
        }]
    };
    let meta = std::fs::metadata(root).map_err(|e| root_error(e.to_string()))?;
    if !meta.is_dir() {
        return Err(root_error("not a directory".into()));
    }
    let found = walk(root, &meta);
    if !found.errors.is_empty() {
        return Err(found.errors);
    }
    let mut ignore_files = found.ignore_files;
    // Parents before children, whatever the names: `-sub/` sorts before `.indexignore`.
    ignore_files.sort_by_key(|(rel, _)| rel.matches('/').count());
    let rules =
        ignore_rules::IgnoreRules::from_files(&ignore_files, limits).map_err(|e| vec![e])?;
    let special: Vec<LoadError> = found
        .special
        .into_iter()
        .filter(|(rel, _)| !rules.is_ignored(rel))
        .map(|(path, found)| LoadError::NotRegular { path, found })
        .collect();
    if !special.is_empty() {
        return Err(special);
    }
    Ok(found
        .files
        .into_iter()
        .filter(|(rel, _)| !rules.is_ignored(rel))
        .collect())
}

/// Everything a walk found, before `.indexignore` is applied.
#[derive(Default)]
struct Found {
    files: Vec<(String, PathBuf)>,
    ignore_files: Vec<(String, PathBuf)>,
    /// Entries that are neither files nor directories: (relative path, what they are).
    special: Vec<(String, &'static str)>,
    errors: Vec<LoadError>,
}

/// What the walk does with one entry.
enum Entry {
    Directory,
    /// A regular file, or a name that cannot be inspected (a dangling symlink).
    File,
    Special(&'static str),
}

fn classify(path: &Path) -> (Entry, Option<std::fs::Metadata>) {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => (Entry::Directory, Some(m)),
        Ok(m) if m.is_file() => (Entry::File, Some(m)),
        Ok(m) => (
            Entry::Special(super::read::describe(&m.file_type())),
            Some(m),
        ),
        Err(_) => (Entry::File, None),
    }
}

/// A directory's identity, so a directory reached twice is read once.
fn dir_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

fn walk(root: &Path, root_meta: &std::fs::Metadata) -> Found {
    let mut found = Found::default();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    seen.extend(dir_id(root_meta));
    // (absolute path, relative path), popped in walk order: children are pushed in
    // reverse name order.
    let mut stack: Vec<(PathBuf, String)> = Vec::new();
    push_children(root, "", root, &mut stack, &mut found);
    while let Some((path, rel)) = stack.pop() {
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        match classify(&path) {
            (Entry::Directory, meta) => {
                if name.starts_with("..") {
                    continue;
                }
                if let Some(id) = meta.as_ref().and_then(dir_id)
                    && !seen.insert(id)
                {
                    continue;
                }
                push_children(&path, &rel, root, &mut stack, &mut found);
            }
            (Entry::File, _) if name == ".indexignore" => found.ignore_files.push((rel, path)),
            (Entry::File, _) => found.files.push((rel, path)),
            (Entry::Special(what), _) => found.special.push((rel, what)),
        }
    }
    found
}

/// Lists `dir` and pushes its entries onto `stack` so they pop in byte order.
fn push_children(
    dir: &Path,
    rel: &str,
    root: &Path,
    stack: &mut Vec<(PathBuf, String)>,
    found: &mut Found,
) {
    let where_ = || {
        if rel.is_empty() {
            root.display().to_string()
        } else {
            rel.to_string()
        }
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            found.errors.push(io_error(where_(), &e));
            return;
        }
    };
    let mut names: Vec<std::ffi::OsString> = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => names.push(entry.file_name()),
            Err(e) => found.errors.push(io_error(where_(), &e)),
        }
    }
    names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    for name in names.into_iter().rev() {
        let name_str = name.to_string_lossy();
        let child_rel = if rel.is_empty() {
            name_str.into_owned()
        } else {
            format!("{rel}/{name_str}")
        };
        stack.push((dir.join(&name), child_rel));
    }
}
