//! Layer blobs → the catalog directory, with only what serves and nothing hostile.
//!
//! In: an image's name (for messages), its configs label, its layer blobs as files (already
//! checked against their digests), an empty target directory, [`ImageLimits`]. Out: the
//! target holding the configs directory's contents (the label's path is stripped, so the target
//! is the catalog root), and an [`UnpackReport`]; or the first [`UnpackError`], naming the image,
//! layer and entry, after which the caller deletes the target.
//!
//! Rules, layer by layer in manifest order:
//! 1. A layer's compression is told by its bytes ([`decompress`]).
//! 2. Entry names are relative to the image root; `./` is dropped; an absolute name, a `..`
//!    or a name over 4096 bytes is refused in any layer, inside the configs directory or not.
//! 3. OCI whiteouts: `.wh.NAME` removes NAME from lower layers, `.wh..wh..opq` empties its
//!    directory of lower layers' entries. A whiteout of the configs directory or an ancestor
//!    empties the target of lower layers' entries.
//! 4. Entries outside the configs directory are read past (and counted against the limits).
//! 5. Inside it: regular files, directories, symlinks whose target stays inside it (written as
//!    relative links, see [`entry_path::link_target`]) and hard links to files unpacked before.
//!    Anything else (devices, FIFOs, sockets, sparse files…) is refused. Nothing is written
//!    through a symlink ([`tree`]). Modes, owners, times and extended attributes are not kept.
//! 6. Limits: layers, entries, uncompressed bytes read, bytes per file; each names its flag.
//!    The uncompressed bytes are counted twice: by each entry's size (PAX `size` records
//!    included), so an entry over the limit is refused before it is read, and as the tar
//!    streams themselves ([`meter`]), headers and padding included, so no header trick
//!    reads past the limit unseen. The headers before one entry (long names, PAX records,
//!    which the tar reader holds in memory) are at most 1 MiB.

pub mod decompress;
pub mod entry_path;
mod meter;
pub mod tree;

use crate::digest::Digest;
use crate::limits::{ImageLimits, Limit};
use entry_path::{ImagePath, PathProblem, configs_root, entry_path, link_target, relative_link};
use meter::{Meter, Trip};
use std::ffi::OsStr;
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use tar::EntryType;
use tree::{Tree, TreeError};

/// A layer blob on disk.
#[derive(Debug, Clone)]
pub struct LayerFile {
    /// The layer's digest (for messages).
    pub digest: Digest,
    /// The blob as stored (compressed or not).
    pub path: PathBuf,
}

/// What an unpack read and wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UnpackReport {
    /// Tar entries read over all layers.
    pub entries: u64,
    /// Uncompressed bytes of entry contents read over all layers.
    pub bytes_read: u64,
    /// Regular files written (hard links included).
    pub files: u64,
    /// Bytes written.
    pub bytes_written: u64,
}

/// Where an unpack failed.
#[derive(Debug)]
pub struct UnpackError {
    /// The image, as the user named it.
    pub image: String,
    /// The layer's position in the manifest and digest, when a layer was being read.
    pub layer: Option<(usize, Digest)>,
    /// The entry's name as the tar gives it, when an entry was being unpacked.
    pub entry: Option<String>,
    /// What went wrong.
    pub kind: UnpackErrorKind,
}

/// What went wrong in an unpack.
#[derive(Debug, thiserror::Error)]
pub enum UnpackErrorKind {
    /// The configs label's path is not a path inside the image.
    #[error("the label {label}={value:?} is not a directory inside the image: {problem}")]
    Label {
        /// The label's name.
        label: &'static str,
        /// Its value.
        value: String,
        /// Why.
        problem: PathProblem,
    },
    /// An entry's name is refused.
    #[error("{0}")]
    Path(PathProblem),
    /// A symlink or hard link points outside the configs directory.
    #[error("it is a {kind} to {target:?}, outside the catalog directory{detail}")]
    LinkEscapes {
        /// "symlink" or "hard link".
        kind: &'static str,
        /// The link's target as written.
        target: String,
        /// Why, when the target text itself is refused.
        detail: String,
    },
    /// The configs directory itself given as a file or link.
    #[error("it is the catalog directory itself, as something other than a directory")]
    RootNotDir,
    /// Not a file, directory or link.
    #[error("it is a {0}; only regular files, directories and links are unpacked")]
    Unsupported(&'static str),
    /// A limit was reached.
    #[error("{what} is over the limit of {limit_value} ({limit})")]
    Limit {
        /// What was counted.
        what: &'static str,
        /// The limit's value.
        limit_value: u64,
        /// The limit.
        limit: Limit,
    },
    /// The layer is not a readable tar (or its compression is broken).
    #[error("reading the layer: {0}")]
    Read(io::Error),
    /// Writing the entry failed or was refused.
    #[error("{0}")]
    Tree(TreeError),
}

impl fmt::Display for UnpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "image {}", self.image)?;
        if let Some((i, digest)) = &self.layer {
            write!(f, ", layer {i} ({digest})")?;
        }
        if let Some(entry) = &self.entry {
            write!(f, ", entry {entry:?}")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for UnpackError {}

/// Unpacks the configs directory named by `configs_label` from `layers` into `target`.
pub fn unpack(
    image: &str,
    configs_label: &str,
    layers: &[LayerFile],
    target: &Path,
    limits: &ImageLimits,
) -> Result<UnpackReport, Box<UnpackError>> {
    let fail = |layer: Option<(usize, Digest)>, entry: Option<String>, kind| {
        Box::new(UnpackError {
            image: image.to_owned(),
            layer,
            entry,
            kind,
        })
    };
    let root = configs_root(configs_label).map_err(|problem| {
        fail(
            None,
            None,
            UnpackErrorKind::Label {
                label: crate::manifest::CONFIGS_LABEL,
                value: configs_label.to_owned(),
                problem,
            },
        )
    })?;
    if layers.len() > limits.max_layers {
        return Err(fail(
            None,
            None,
            over(
                "the number of layers",
                limits.max_layers as u64,
                Limit::Layers,
            ),
        ));
    }
    let mut run = Run {
        root,
        tree: Tree::new(target.to_owned()),
        limits,
        report: UnpackReport::default(),
        meter: Meter::new(limits.max_unpack_bytes),
    };
    for (i, layer) in layers.iter().enumerate() {
        run.tree.next_layer();
        run.layer(layer)
            .map_err(|(entry, kind)| fail(Some((i, layer.digest.clone())), entry, kind))?;
    }
    Ok(run.report)
}

fn over(what: &'static str, limit_value: u64, limit: Limit) -> UnpackErrorKind {
    UnpackErrorKind::Limit {
        what,
        limit_value,
        limit,
    }
}

/// One unpack in progress.
struct Run<'a> {
    root: ImagePath,
    tree: Tree,
    limits: &'a ImageLimits,
    report: UnpackReport,
    /// Every layer's uncompressed stream, counted against the unpack-size limit.
    meter: Rc<Meter>,
}

/// A failure inside a layer: the entry's name when there is one, and what.
type LayerFailure = (Option<String>, UnpackErrorKind);

const WHITEOUT: &str = ".wh.";
const OPAQUE: &str = ".wh..wh..opq";

impl Run<'_> {
    fn layer(&mut self, layer: &LayerFile) -> Result<(), LayerFailure> {
        let read = |e| (None, UnpackErrorKind::Read(e));
        let file = std::fs::File::open(&layer.path).map_err(read)?;
        let (_, stream) = decompress::decompress(file).map_err(read)?;
        let mut archive = tar::Archive::new(self.meter.wrap(stream));
        let mut entries = archive.entries().map_err(read)?;
        // Where the next entry's headers start: the reader skips what is left of the last
        // entry's data, then reads headers, within the fence, until it has an entry.
        let mut headers_from = 0u64;
        loop {
            self.meter.fence(headers_from);
            let Some(entry) = entries.next() else {
                return Ok(());
            };
            self.meter.unfence();
            let mut entry = entry.map_err(|e| (None, self.stopped(UnpackErrorKind::Read(e))))?;
            headers_from = entry
                .raw_file_position()
                .saturating_add(entry.size().div_ceil(512).saturating_mul(512));
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            self.entry(&mut entry)
                .map_err(|kind| (Some(name.chars().take(300).collect()), self.stopped(kind)))?;
        }
    }

    /// `kind`, or the limit the stream meter stopped at when it did: then that is why
    /// reading (or writing what was read) failed.
    fn stopped(&self, kind: UnpackErrorKind) -> UnpackErrorKind {
        match self.meter.tripped() {
            Some(Trip::UnpackSize) => over(
                "the uncompressed size of the layers",
                self.limits.max_unpack_bytes,
                Limit::UnpackSize,
            ),
            Some(Trip::Headers) => UnpackErrorKind::Read(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the headers before an entry (GNU long names, PAX records) are over {} bytes",
                    meter::MAX_HEADER_BYTES
                ),
            )),
            None => kind,
        }
    }

    fn entry(
        &mut self,
        entry: &mut tar::Entry<'_, Box<dyn Read + '_>>,
    ) -> Result<(), UnpackErrorKind> {
        self.report.entries += 1;
        if self.report.entries > self.limits.max_entries {
            return Err(over(
                "the number of entries",
                self.limits.max_entries,
                Limit::Entries,
            ));
        }
        // The size the reader goes by: a PAX `size` record overrides the header's. (For a GNU
        // sparse file the reader's size is the expanded one; what it reads is the header's.)
        let size = if entry.header().entry_type() == EntryType::GNUSparse {
            entry.header().entry_size().map_err(UnpackErrorKind::Read)?
        } else {
            entry.size()
        };
        self.report.bytes_read = self.report.bytes_read.saturating_add(size);
        if self.report.bytes_read > self.limits.max_unpack_bytes {
            return Err(over(
                "the uncompressed size of the layers",
                self.limits.max_unpack_bytes,
                Limit::UnpackSize,
            ));
        }
        if entry.header().entry_type() == EntryType::XGlobalHeader {
            return Ok(()); // archive-wide PAX defaults (git archive writes one); nothing to unpack
        }
        let raw = entry.path().map_err(UnpackErrorKind::Read)?.into_owned();
        let path = entry_path(&raw).map_err(UnpackErrorKind::Path)?;
        if let Some(name) = path.file_name().and_then(OsStr::to_str) {
            if name == OPAQUE {
                return self.whiteout(&path.parent(), true);
            }
            if let Some(hidden) = name.strip_prefix(WHITEOUT) {
                return self.whiteout(&path.parent().join(OsStr::new(hidden)), false);
            }
        }
        let Some(inside) = path.strip(&self.root).map(<[_]>::to_vec) else {
            return Ok(());
        };
        let kind = entry.header().entry_type();
        if inside.is_empty() && kind != EntryType::Directory {
            return Err(UnpackErrorKind::RootNotDir);
        }
        match kind {
            EntryType::Regular | EntryType::Continuous => {
                if size > self.limits.max_file_bytes {
                    return Err(over(
                        "the file's size",
                        self.limits.max_file_bytes,
                        Limit::FileSize,
                    ));
                }
                let written = self
                    .tree
                    .file(&inside, entry, self.limits.max_file_bytes)
                    .map_err(|e| match e {
                        TreeError::TooLong(_) => over(
                            "the file's size",
                            self.limits.max_file_bytes,
                            Limit::FileSize,
                        ),
                        other => UnpackErrorKind::Tree(other),
                    })?;
                self.report.files += 1;
                self.report.bytes_written += written;
                Ok(())
            }
            EntryType::Directory => self.tree.dir(&inside).map_err(UnpackErrorKind::Tree),
            EntryType::Symlink => self.symlink(entry, &path, &inside),
            EntryType::Link => self.hard_link(entry, &inside),
            other => Err(UnpackErrorKind::Unsupported(type_name(other))),
        }
    }

    fn symlink(
        &mut self,
        entry: &tar::Entry<'_, Box<dyn Read + '_>>,
        path: &ImagePath,
        inside: &[std::ffi::OsString],
    ) -> Result<(), UnpackErrorKind> {
        let target = link_name(entry)?;
        let escapes = |detail: String| UnpackErrorKind::LinkEscapes {
            kind: "symlink",
            target: target.display().to_string(),
            detail,
        };
        let resolved = link_target(path, &target).map_err(|p| escapes(format!(" ({p})")))?;
        let Some(to) = resolved.strip(&self.root) else {
            return Err(escapes(String::new()));
        };
        let text = relative_link(inside, to);
        self.tree
            .symlink(inside, &text)
            .map_err(UnpackErrorKind::Tree)
    }

    fn hard_link(
        &mut self,
        entry: &tar::Entry<'_, Box<dyn Read + '_>>,
        inside: &[std::ffi::OsString],
    ) -> Result<(), UnpackErrorKind> {
        let target = link_name(entry)?;
        let escapes = |detail: String| UnpackErrorKind::LinkEscapes {
            kind: "hard link",
            target: target.display().to_string(),
            detail,
        };
        let source = entry_path(&target).map_err(|p| escapes(format!(" ({p})")))?;
        let Some(from) = source.strip(&self.root) else {
            return Err(escapes(String::new()));
        };
        self.tree
            .hard_link(inside, from)
            .map_err(UnpackErrorKind::Tree)?;
        self.report.files += 1;
        Ok(())
    }

    /// A whiteout of `hidden` (an opaque one: of its children).
    fn whiteout(&mut self, hidden: &ImagePath, opaque: bool) -> Result<(), UnpackErrorKind> {
        let result = match hidden.strip(&self.root) {
            Some([]) => self.tree.clear_children(&[]),
            Some(inside) if opaque => self.tree.clear_children(inside),
            Some(inside) => self.tree.remove(inside),
            // The configs directory's ancestor is whited out, or emptied by an opaque
            // whiteout: the lower layers' catalog goes with it.
            None if hidden.contains(&self.root) => self.tree.clear_children(&[]),
            None => Ok(()),
        };
        result.map_err(UnpackErrorKind::Tree)
    }
}

fn link_name(entry: &tar::Entry<'_, Box<dyn Read + '_>>) -> Result<PathBuf, UnpackErrorKind> {
    match entry.link_name() {
        Ok(Some(name)) => Ok(name.into_owned()),
        Ok(None) => Err(UnpackErrorKind::Read(io::Error::new(
            io::ErrorKind::InvalidData,
            "a link entry without a target",
        ))),
        Err(e) => Err(UnpackErrorKind::Read(e)),
    }
}

fn type_name(kind: EntryType) -> &'static str {
    match kind {
        EntryType::Char => "character device",
        EntryType::Block => "block device",
        EntryType::Fifo => "FIFO",
        EntryType::GNUSparse => "sparse file",
        EntryType::GNULongName | EntryType::GNULongLink => "stray GNU long-name header",
        EntryType::XGlobalHeader | EntryType::XHeader => "stray PAX header",
        _ => "entry of an unknown type",
    }
}

#[cfg(test)]
mod tests;
