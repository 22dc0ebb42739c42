//! The unpack directory: entries written without ever following a symlink.
//!
//! In: paths below the unpack root (components already checked by [`super::entry_path`](mod@super::entry_path)) and
//! what to put there. Out: files, directories, symlinks and hard links under the root, or the
//! [`TreeError`]. Every parent is looked at with `lstat` before use: a symlink where a
//! directory should be is refused, so no later entry can be written through an earlier link,
//! and whatever is already at an entry's own path (from a lower layer) is removed first, never
//! opened. The directory is private to one unpack, so nothing else changes it meanwhile.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why an entry could not be written.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// A parent of the entry is a symlink.
    #[error("its parent {0} is a symlink, and entries are never written through symlinks")]
    ThroughSymlink(String),
    /// A parent of the entry is a file.
    #[error("its parent {0} is not a directory")]
    ParentNotDir(String),
    /// A hard link's source is missing or not a regular file.
    #[error("it is a hard link to {0}, which is not a regular file unpacked before it")]
    LinkSource(String),
    /// The filesystem said no.
    #[error("writing {path}: {source}")]
    Io {
        /// The path below the root.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// A file is longer than the limit (or than its header said).
    #[error("it holds more than {0} bytes")]
    TooLong(u64),
}

/// The unpack root and the paths this layer has created (which its whiteouts do not remove).
pub struct Tree {
    root: PathBuf,
    this_layer: HashSet<Vec<OsString>>,
}

fn shown(inside: &[OsString]) -> String {
    inside
        .iter()
        .map(|c| c.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn io_err(inside: &[OsString]) -> impl FnOnce(io::Error) -> TreeError + '_ {
    move |source| TreeError::Io {
        path: shown(inside),
        source,
    }
}

impl Tree {
    /// A tree rooted at `root`, an existing directory.
    pub fn new(root: PathBuf) -> Tree {
        Tree {
            root,
            this_layer: HashSet::new(),
        }
    }

    /// Starts the next layer: its whiteouts may remove anything written so far.
    pub fn next_layer(&mut self) {
        self.this_layer.clear();
    }

    /// Records that this layer wrote `inside`, and so holds each of its parents.
    fn mark(&mut self, inside: &[OsString]) {
        for end in 1..=inside.len() {
            self.this_layer.insert(inside[..end].to_vec());
        }
    }

    fn full(&self, inside: &[OsString]) -> PathBuf {
        let mut p = self.root.clone();
        p.extend(inside);
        p
    }

    /// Creates the missing parents of `inside` and returns its full path.
    fn parents(&mut self, inside: &[OsString]) -> Result<PathBuf, TreeError> {
        let mut p = self.root.clone();
        for (i, c) in inside.iter().enumerate() {
            p.push(c);
            if i + 1 == inside.len() {
                break;
            }
            match fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {}
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(TreeError::ThroughSymlink(shown(&inside[..=i])));
                }
                Ok(_) => return Err(TreeError::ParentNotDir(shown(&inside[..=i]))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::create_dir(&p).map_err(io_err(&inside[..=i]))?;
                }
                Err(e) => return Err(io_err(&inside[..=i])(e)),
            }
        }
        Ok(p)
    }

    /// Removes whatever is at `path` (a directory with its contents; a symlink itself).
    fn clear(path: &Path) -> io::Result<()> {
        match fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => fs::remove_dir_all(path),
            Ok(_) => fs::remove_file(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Writes a regular file of `size` bytes from `content`, at most `max` bytes.
    pub fn file(
        &mut self,
        inside: &[OsString],
        content: &mut dyn Read,
        max: u64,
    ) -> Result<u64, TreeError> {
        let path = self.parents(inside)?;
        Tree::clear(&path).map_err(io_err(inside))?;
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io_err(inside))?;
        let written = io::copy(&mut content.take(max.saturating_add(1)), &mut file)
            .map_err(io_err(inside))?;
        if written > max {
            return Err(TreeError::TooLong(max));
        }
        self.mark(inside);
        Ok(written)
    }

    /// Makes a directory (keeping one that is already there, with its contents).
    pub fn dir(&mut self, inside: &[OsString]) -> Result<(), TreeError> {
        if inside.is_empty() {
            return Ok(());
        }
        let path = self.parents(inside)?;
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                Tree::clear(&path).map_err(io_err(inside))?;
                fs::create_dir(&path).map_err(io_err(inside))?;
            }
            Err(_) => fs::create_dir(&path).map_err(io_err(inside))?,
        }
        self.mark(inside);
        Ok(())
    }

    /// Makes a symlink whose (already checked, relative) text is `target`.
    pub fn symlink(&mut self, inside: &[OsString], target: &Path) -> Result<(), TreeError> {
        let path = self.parents(inside)?;
        Tree::clear(&path).map_err(io_err(inside))?;
        std::os::unix::fs::symlink(target, &path).map_err(io_err(inside))?;
        self.mark(inside);
        Ok(())
    }

    /// Makes `inside` another name of the regular file at `source` (both below the root).
    pub fn hard_link(&mut self, inside: &[OsString], source: &[OsString]) -> Result<(), TreeError> {
        let refused = || TreeError::LinkSource(shown(source));
        let mut p = self.root.clone();
        for (i, c) in source.iter().enumerate() {
            p.push(c);
            let m = fs::symlink_metadata(&p).map_err(|_| refused())?;
            let last = i + 1 == source.len();
            if (last && !m.is_file()) || (!last && !m.is_dir()) {
                return Err(refused());
            }
        }
        if source.is_empty() {
            return Err(refused());
        }
        let path = self.parents(inside)?;
        if path == p {
            return Ok(());
        }
        Tree::clear(&path).map_err(io_err(inside))?;
        fs::hard_link(&p, &path).map_err(io_err(inside))?;
        self.mark(inside);
        Ok(())
    }

    /// A whiteout: removes `inside` unless this layer wrote it. Never passes a symlink: a
    /// whiteout below one removes nothing.
    pub fn remove(&mut self, inside: &[OsString]) -> Result<(), TreeError> {
        if self.this_layer.contains(inside) || !self.plain_parents(inside) {
            return Ok(());
        }
        Tree::clear(&self.full(inside)).map_err(io_err(inside))
    }

    /// An opaque whiteout: removes the children of `inside` that this layer did not write.
    pub fn clear_children(&mut self, inside: &[OsString]) -> Result<(), TreeError> {
        if !self.plain_parents(inside) {
            return Ok(());
        }
        let dir = self.full(inside);
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            _ => return Ok(()),
        }
        let mut children: Vec<OsString> = fs::read_dir(&dir)
            .map_err(io_err(inside))?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .map_err(io_err(inside))?;
        children.sort();
        for name in children {
            let mut child = inside.to_vec();
            child.push(name);
            if !self.this_layer.contains(&child) {
                Tree::clear(&self.full(&child)).map_err(io_err(&child))?;
            }
        }
        Ok(())
    }

    /// True when every parent of `inside` is a real directory (or missing).
    fn plain_parents(&self, inside: &[OsString]) -> bool {
        let mut p = self.root.clone();
        for c in inside.iter().take(inside.len().saturating_sub(1)) {
            p.push(c);
            match fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {}
                _ => return false,
            }
        }
        true
    }
}
