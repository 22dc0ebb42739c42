//! Tar entry names and link targets → paths inside the image, refused when they would leave it.
//!
//! In: the raw name of a tar entry, the configs label, a symlink's or hard link's target. Out: an
//! [`ImagePath`] (normal components only, relative to the image root) or the [`PathProblem`].
//! Pure functions over bytes: the filesystem is [`super::tree`]'s job.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// Longest entry name accepted, in bytes (Linux's PATH_MAX).
pub const MAX_PATH_BYTES: usize = 4096;

/// A path inside the image: normal components only, from the image root.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ImagePath(Vec<OsString>);

/// Why a name or target was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathProblem {
    /// It starts at `/` (entry names must be relative to the image root).
    Absolute,
    /// A `..` would climb above the image root (or, in a link target, follows a name).
    ParentDir,
    /// Longer than [`MAX_PATH_BYTES`].
    TooLong,
}

impl std::fmt::Display for PathProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PathProblem::Absolute => "the path is absolute",
            PathProblem::ParentDir => "the path climbs out with ..",
            PathProblem::TooLong => "the path is longer than 4096 bytes",
        })
    }
}

impl ImagePath {
    /// The components.
    pub fn components(&self) -> &[OsString] {
        &self.0
    }

    /// `self` under `root`: the components after `root`'s, or `None` when `self` is not at or
    /// below `root`.
    pub fn strip(&self, root: &ImagePath) -> Option<&[OsString]> {
        self.0.strip_prefix(root.0.as_slice())
    }

    /// True when `self` is `other` or one of its ancestors.
    pub fn contains(&self, other: &ImagePath) -> bool {
        other.0.starts_with(&self.0)
    }

    /// The parent (the root's parent is the root).
    pub fn parent(&self) -> ImagePath {
        let mut parent = self.0.clone();
        parent.pop();
        ImagePath(parent)
    }

    /// The last component, when there is one.
    pub fn file_name(&self) -> Option<&OsStr> {
        self.0.last().map(OsString::as_os_str)
    }

    /// `self` with `name` appended.
    pub fn join(&self, name: &OsStr) -> ImagePath {
        let mut joined = self.0.clone();
        joined.push(name.to_owned());
        ImagePath(joined)
    }

    /// The path as text, for messages.
    pub fn display(&self) -> String {
        self.0
            .iter()
            .map(|c| c.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// The path of a tar entry named `raw`: `./` and `.` dropped, `/` and `..` refused.
pub fn entry_path(raw: &Path) -> Result<ImagePath, PathProblem> {
    if raw.as_os_str().len() > MAX_PATH_BYTES {
        return Err(PathProblem::TooLong);
    }
    let mut out = Vec::new();
    for component in raw.components() {
        match component {
            Component::Normal(c) => out.push(c.to_owned()),
            Component::CurDir => {}
            Component::ParentDir => return Err(PathProblem::ParentDir),
            Component::RootDir | Component::Prefix(_) => return Err(PathProblem::Absolute),
        }
    }
    Ok(ImagePath(out))
}

/// The directory the configs label names: an absolute or relative path in the image, whose
/// `..` are refused.
pub fn configs_root(label: &str) -> Result<ImagePath, PathProblem> {
    let trimmed = label.trim_start_matches('/');
    entry_path(Path::new(trimmed))
}

/// Where a symlink at `entry` pointing at `target` leads, in image coordinates: an absolute
/// target from the image root, a relative one from the entry's directory. `..` is accepted only
/// before the target's first name: after a name it would climb out of whatever that name is,
/// and the name may itself be a symlink, so where it lands could not be told from the text.
pub fn link_target(entry: &ImagePath, target: &Path) -> Result<ImagePath, PathProblem> {
    if target.as_os_str().len() > MAX_PATH_BYTES {
        return Err(PathProblem::TooLong);
    }
    let mut at = entry.parent().0;
    let mut seen_name = false;
    for component in target.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => at.clear(),
            Component::CurDir => {}
            Component::ParentDir => {
                if seen_name || at.pop().is_none() {
                    return Err(PathProblem::ParentDir);
                }
            }
            Component::Normal(c) => {
                seen_name = true;
                at.push(c.to_owned());
            }
        }
    }
    Ok(ImagePath(at))
}

/// The relative symlink text that leads from a link at `entry` to `target` (both below the
/// same root): `../` for each directory above the link, then the target's components.
pub fn relative_link(entry: &[OsString], target: &[OsString]) -> PathBuf {
    let depth = entry.len().saturating_sub(1);
    let common = entry[..depth]
        .iter()
        .zip(target)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in common..depth {
        out.push("..");
    }
    for c in &target[common..] {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests;
