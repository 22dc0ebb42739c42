//! Reading one catalog file, safely.
//!
//! In: a path found by the walk and a size limit. Out: the file's bytes in a
//! caller's buffer, or a [`ReadError`] saying why not.
//!
//! A catalog tree is half-trusted input: a name in it can be a FIFO (opening it for
//! reading blocks until a writer appears), a character device (`/dev/zero` never
//! ends), or a symlink to either. Only regular files are read: the file is opened
//! without blocking (`O_NONBLOCK`, which regular files ignore), checked with
//! `fstat` on the open descriptor (so a name swapped after the walk looked at it
//! cannot slip through), and read to at most the limit plus one byte, whatever size
//! it claims (`/proc` files claim 0).

use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Opening or reading failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The path names something other than a regular file.
    #[error("not a regular file or directory ({0}); only regular files are read")]
    NotRegular(&'static str),
    /// The file is larger than the limit.
    #[error("the file is larger than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
}

/// Opens `path` for reading if it is a regular file (following symlinks), never
/// blocking on a FIFO or device.
pub fn open_regular(path: &Path) -> Result<std::fs::File, ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let file_type = file.metadata()?.file_type();
    if !file_type.is_file() {
        return Err(ReadError::NotRegular(describe(&file_type)));
    }
    Ok(file)
}

/// What reading a file found besides its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRead {
    /// Bytes read.
    pub size: u64,
    /// Its modification time (nanoseconds since the epoch), when the system has one.
    pub modified: Option<i128>,
}

/// The modification time of `meta` in nanoseconds since the epoch.
pub fn modified_ns(meta: &std::fs::Metadata) -> Option<i128> {
    let t = meta.modified().ok()?;
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => Some(d.as_nanos() as i128),
        Err(e) => Some(-(e.duration().as_nanos() as i128)),
    }
}

/// Reads the regular file at `path` into `buffer` (cleared first); at most `limit`
/// bytes.
pub fn read_regular(path: &Path, limit: u64, buffer: &mut Vec<u8>) -> Result<FileRead, ReadError> {
    buffer.clear();
    let file = open_regular(path)?;
    let meta = file.metadata()?;
    let claimed = meta.len();
    let modified = modified_ns(&meta);
    if claimed > limit {
        return Err(ReadError::TooLarge { limit });
    }
    // usize::MAX would not fit a u64 on no platform this runs on; saturate anyway.
    let reserve = usize::try_from(claimed).unwrap_or(usize::MAX);
    buffer.reserve(reserve);
    let read = file.take(limit.saturating_add(1)).read_to_end(buffer)? as u64;
    if read > limit {
        buffer.clear();
        return Err(ReadError::TooLarge { limit });
    }
    Ok(FileRead {
        size: read,
        modified,
    })
}

/// A short description of a file type, for messages.
pub fn describe(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_whole_within_the_limit() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("f");
        std::fs::write(&path, b"hello").expect("write");
        let mut buffer = b"old".to_vec();
        assert_eq!(read_regular(&path, 5, &mut buffer).expect("read").size, 5);
        assert_eq!(buffer, b"hello");
        assert!(matches!(
            read_regular(&path, 4, &mut buffer),
            Err(ReadError::TooLarge { limit: 4 })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("pipe");
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: mkfifo reads a NUL-terminated path and creates a FIFO.
        #[allow(unsafe_code)]
        let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
        assert_eq!(rc, 0);
        let err = read_regular(&path, 100, &mut Vec::new()).expect_err("fifo");
        assert!(matches!(err, ReadError::NotRegular("a FIFO")), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_a_device_is_refused() {
        let dir = tempfile::tempdir().expect("tmp");
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).expect("symlink");
        let err = read_regular(&link, 100, &mut Vec::new()).expect_err("device");
        assert!(
            matches!(err, ReadError::NotRegular("a character device")),
            "{err}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_that_claims_no_size_is_still_cut_at_the_limit() {
        // /proc files report a length of 0 but have content
        let err = read_regular(Path::new("/proc/self/maps"), 8, &mut Vec::new());
        assert!(
            matches!(err, Err(ReadError::TooLarge { limit: 8 })),
            "{err:?}"
        );
    }
}
