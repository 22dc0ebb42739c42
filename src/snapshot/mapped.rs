//! Files mapped read-only into memory, as [`Bytes`].
//!
//! In: an open file that nobody modifies while it is mapped (the caller's promise,
//! see [`map`]). Out: its bytes, mapped (`MAP_SHARED`, read-only): they live in the
//! page cache, pages are faulted in as they are read, and the kernel can drop clean
//! ones under memory pressure and read them again.
//!
//! [`forget_touched`] hands back the pages a one-time walk (decoding an index)
//! mapped in, so that what stays resident is what replies actually read.

use bytes::Bytes;
use std::fs::File;

/// `file`'s bytes, mapped read-only (empty for an empty file).
///
/// # Safety
///
/// Nothing may modify or truncate `file` while the mapping lives (a truncated
/// mapped file raises SIGBUS on access; a modified one changes bytes under readers).
#[allow(unsafe_code)]
pub(crate) unsafe fn map(file: &File) -> std::io::Result<Bytes> {
    if file.metadata()?.len() == 0 {
        return Ok(Bytes::new());
    }
    // SAFETY: the caller promises the file is not modified while mapped.
    let map = unsafe { memmap2::Mmap::map(file)? };
    Ok(Bytes::from_owner(map))
}

/// Unmaps every page of `mapped` from this process without giving up the mapping:
/// the pages stay in the page cache, and a later read maps them in again. After a
/// warm or spilled index is decoded, this leaves resident only the pages replies
/// read, not every page the decoder (and the kernel's read-around) touched once.
/// `mapped` must be a whole mapping made by [`map`]; anything else is left alone.
#[allow(unsafe_code)]
pub(crate) fn forget_touched(mapped: &Bytes) {
    let page = 4096;
    let start = mapped.as_ptr() as usize;
    if mapped.is_empty() || !start.is_multiple_of(page) {
        return;
    }
    // SAFETY: the range is exactly a read-only MAP_SHARED file mapping this process
    // made (see `map`): MADV_DONTNEED only drops its page-table entries, and the
    // next access faults the same file bytes back in. No memory is freed.
    unsafe {
        libc::madvise(
            start as *mut libc::c_void,
            mapped.len(),
            libc::MADV_DONTNEED,
        );
    }
}
