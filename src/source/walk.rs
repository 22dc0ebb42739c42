//! The directory walk: a catalog root → its catalog files in walk order.
//!
//! In: a root directory. Out: (relative path, absolute path) of every catalog file,
//! after `.indexignore` rules, or every error found while walking.

use super::{LoadError, ignore_rules, io_error};
use std::path::{Path, PathBuf};

/// Lists the catalog files below `root` in walk order: (relative path, absolute path).
pub fn list_catalog_files(root: &Path) -> Result<Vec<(String, PathBuf)>, Vec<LoadError>> {
    let meta = std::fs::metadata(root).map_err(|e| {
        vec![LoadError::Io {
            path: root.display().to_string(),
            message: e.to_string(),
        }]
    })?;
    if !meta.is_dir() {
        return Err(vec![LoadError::Io {
            path: root.display().to_string(),
            message: "not a directory".into(),
        }]);
    }
    let mut walker = Walker {
        root: root.to_path_buf(),
        files: Vec::new(),
        ignore_files: Vec::new(),
        errors: Vec::new(),
        seen_dirs: Vec::new(),
    };
    walker.walk_dir(root, "");
    if !walker.errors.is_empty() {
        return Err(walker.errors);
    }
    // Parents before children, whatever the names: `-sub/` sorts before `.indexignore`.
    walker
        .ignore_files
        .sort_by_key(|(rel, _)| rel.matches('/').count());
    let rules = ignore_rules::IgnoreRules::from_files(&walker.ignore_files).map_err(|e| vec![e])?;
    Ok(walker
        .files
        .into_iter()
        .filter(|(rel, _)| !rules.is_ignored(rel))
        .collect())
}

struct Walker {
    root: PathBuf,
    files: Vec<(String, PathBuf)>,
    ignore_files: Vec<(String, PathBuf)>,
    errors: Vec<LoadError>,
    seen_dirs: Vec<PathBuf>,
}

impl Walker {
    fn walk_dir(&mut self, dir: &Path, rel: &str) {
        if let Ok(canonical) = dir.canonicalize() {
            if self.seen_dirs.contains(&canonical) {
                return;
            }
            self.seen_dirs.push(canonical);
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(rd) => rd,
            Err(e) => {
                self.errors.push(io_error(rel_or_root(rel, &self.root), &e));
                return;
            }
        };
        let mut names: Vec<(Vec<u8>, std::ffi::OsString)> = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => {
                    let name = entry.file_name();
                    names.push((name.as_encoded_bytes().to_vec(), name));
                }
                Err(e) => self.errors.push(io_error(rel_or_root(rel, &self.root), &e)),
            }
        }
        names.sort();
        for (_, name) in names {
            let name_str = name.to_string_lossy();
            let child_rel = if rel.is_empty() {
                name_str.to_string()
            } else {
                format!("{rel}/{name_str}")
            };
            let path = dir.join(&name);
            // follows symlinks
            // An entry that cannot be inspected (a dangling symlink) is listed as a
            // file: reading it reports the error, unless `.indexignore` excludes it.
            let is_dir = std::fs::metadata(&path)
                .map(|m| m.is_dir())
                .unwrap_or(false);
            if is_dir {
                if name_str.starts_with("..") {
                    continue;
                }
                self.walk_dir(&path, &child_rel);
            } else if name_str == ".indexignore" {
                self.ignore_files.push((child_rel, path));
            } else {
                self.files.push((child_rel, path));
            }
        }
    }
}

fn rel_or_root(rel: &str, root: &Path) -> String {
    if rel.is_empty() {
        root.display().to_string()
    } else {
        rel.to_string()
    }
}
