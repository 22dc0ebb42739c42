//! Files mapped read-only into memory, as [`Bytes`].
//!
//! In: an open file that nobody modifies while it is mapped (the caller's promise,
//! see [`map`]). Out: its bytes, mapped (`MAP_SHARED`, read-only): they live in the
//! page cache, pages are faulted in as they are read, and the kernel can drop clean
//! ones under memory pressure and read them again.
//!
//! [`forget_touched`] hands back the pages a one-time walk (decoding an index)
//! mapped in, so that what stays resident is what replies actually read.
//! [`forget_code_pages`] does the same for the program's own code and read-only
//! data once a load is over: the code only a start runs (argument parsing, the
//! loaders, the YAML parser, the spill) stops counting as the process's memory.

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

/// Unmaps this process's pages of the program's read-only segments (code and
/// read-only data of the executable and its shared libraries; not the vDSO)
/// without unmapping the segments: the pages stay in the page cache and the next instruction or read
/// that needs one maps it in again with a minor fault. Called when a load ends, so
/// that what stays resident is the code serving runs — on community-v4.16, 10.7
/// MiB of code was resident after a warm start, most of it run once (see
/// docs/performance.md, "Memory", round 4). The kernel keeps mapped executable
/// pages on its active list, so without this they would stay resident for good.
///
/// Only whole pages inside `PT_LOAD` segments without write permission are
/// touched: those pages are never written (the RELRO data the loader writes lies in
/// a writable segment), so dropping them loses nothing.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn forget_code_pages() {
    // SAFETY: dl_iterate_phdr calls `segments` with a valid `dl_phdr_info` per loaded
    // object; `data` is unused.
    unsafe {
        libc::dl_iterate_phdr(Some(segments), std::ptr::null_mut());
    }
}

/// Not Linux: nothing to do.
#[cfg(not(target_os = "linux"))]
pub fn forget_code_pages() {}

/// `dl_iterate_phdr`'s callback: drops the read-only segments of one loaded object.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
unsafe extern "C" fn segments(
    info: *mut libc::dl_phdr_info,
    _size: libc::size_t,
    _data: *mut libc::c_void,
) -> libc::c_int {
    const NEXT: libc::c_int = 0;
    let page = 4096usize;
    // SAFETY: the loader passes a valid pointer for the duration of the call.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return NEXT;
    };
    // SAFETY: a non-null `dlpi_name` is a NUL-terminated string owned by the loader.
    let name = (!info.dlpi_name.is_null())
        .then(|| unsafe { std::ffi::CStr::from_ptr(info.dlpi_name) }.to_bytes());
    // the vDSO is the kernel's own mapping, not a file's: left alone
    if info.dlpi_phdr.is_null() || name.is_some_and(|n| n.starts_with(b"linux-vdso")) {
        return NEXT;
    }
    // SAFETY: `dlpi_phdr` points at `dlpi_phnum` program headers of this object.
    let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum.into()) };
    for h in headers {
        if h.p_type != libc::PT_LOAD || h.p_flags & libc::PF_W != 0 {
            continue;
        }
        let start = (info.dlpi_addr as usize).saturating_add(h.p_vaddr as usize);
        let end = start.saturating_add(h.p_memsz as usize);
        // whole pages only: a page shared with a neighbouring segment is left alone
        let (first, last) = (start.next_multiple_of(page), end / page * page);
        if first < last {
            // SAFETY: [first, last) lies inside a read-only segment mapped from a
            // loaded object's file (private, never written): MADV_DONTNEED drops the page-table
            // entries and the next access maps the file's bytes in again.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_DONTNEED,
                );
            }
        }
    }
    NEXT
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::forget_code_pages;

    /// KiB of this test program's code resident now (its `r-xp` mappings).
    fn resident_code_kib() -> u64 {
        let exe = std::env::current_exe().expect("the test's own path");
        let exe = exe.to_string_lossy().into_owned();
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let (mut ours, mut total) = (false, 0);
        for line in smaps.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, perms, _, _, _, path, ..] if line.contains('-') && perms.len() == 4 => {
                    ours = *perms == "r-xp" && *path == exe;
                }
                ["Rss:", kib, ..] if ours => total += kib.parse::<u64>().unwrap_or(0),
                _ => {}
            }
        }
        total
    }

    #[test]
    fn the_programs_code_leaves_memory_and_comes_back_when_run() {
        // run a good deal of code first, so that much of it is resident
        let text: String = (0..2000).map(|i| format!("{i:x}")).collect();
        let parsed: serde_json::Value =
            serde_json::from_str(&format!("{{\"a\":\"{text}\"}}")).expect("parses");
        let before = resident_code_kib();
        forget_code_pages();
        let after = resident_code_kib();
        assert!(before > 256, "{before} KiB of code resident before");
        assert!(after < before / 2, "{before} KiB before, {after} KiB after");
        // the code that was dropped still runs (it faults back in)
        let again: serde_json::Value =
            serde_json::from_str(&format!("{{\"a\":\"{text}\"}}")).expect("parses");
        assert_eq!(parsed, again);
    }
}
