//! Prepared bytes in sealed memory files, which a socket can send without a copy.
//!
//! In: bytes prepared once per snapshot (the HTTP view's JSON Lines and gzip).
//! Out: [`seal`], which moves them into a sealed `memfd` mapped read-only and
//! hands them back as ordinary [`Bytes`] (slices of the mapping), and
//! [`plan_write`], which tells a connection about to write some slices whether
//! the first of them lies in such a file, and where: the connection then calls
//! `sendfile(2)` from the file instead of copying the bytes from memory into the
//! socket — what nginx does for files on disk, and the copy that kept `/metas`
//! below nginx's throughput.
//!
//! Why this is sound: a file is sealed against writes, growth and shrinking
//! before it is mapped, so the pages a socket still references after the write
//! returns never change; and a mapping is unregistered before it is unmapped
//! (the owner's `Drop` runs before its fields'), so an address found in the
//! registry always belongs to a live mapping of that file — a slice of freed
//! memory reused by the allocator can never be taken for file contents. Where
//! `memfd` is unavailable (not Linux, or a seccomp filter refuses it), [`seal`]
//! returns the bytes as they were and every write is a plain copy.
//!
//! Written by hand: no crate maps an `IoSlice` back to the file it came from.

use arc_swap::ArcSwap;
use bytes::Bytes;
use std::fs::File;
use std::io::IoSlice;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

/// Buffers smaller than this stay on the heap: a file and a mapping per small
/// buffer cost more than their copies.
pub const MIN_SEALED_BYTES: usize = 64 * 1024;

/// Slices smaller than this are copied even when sealed: one `sendfile` call
/// per small slice costs more than copying it with its neighbours in one `writev`.
pub const MIN_SENDFILE_BYTES: usize = 16 * 1024;

/// A sealed, mapped file's address range.
struct Region {
    start: usize,
    len: usize,
    file: Arc<File>,
}

/// Every live mapping. Writers read it on each write, so it is an `ArcSwap`
/// (a load is two atomics) and [`LIVE`] lets connections skip even that while
/// nothing is sealed.
static REGIONS: LazyLock<ArcSwap<Vec<Arc<Region>>>> = LazyLock::new(ArcSwap::default);
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The bytes of every live sealed file.
static SEALED_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The bytes held in sealed files now. They are shared memory: the container's
/// memory cgroup counts them, the process's RSS only once they are read through
/// the mapping (a `sendfile` does not), so the metrics report them beside RSS.
pub fn sealed_bytes() -> usize {
    SEALED_BYTES.load(Ordering::Relaxed)
}

/// What a connection should do with the slices it was asked to write.
pub enum WritePlan {
    /// Write the first `n` slices as they are (`writev`): none of them is a
    /// large sealed slice (or the first one that is comes after them).
    Copy(usize),
    /// Send the first slice from `file` at `offset` (`sendfile`).
    Send {
        /// The sealed file.
        file: Arc<File>,
        /// Where the slice starts in it.
        offset: u64,
        /// The slice's length.
        len: usize,
    },
}

/// How to write `bufs` (see [`WritePlan`]).
pub fn plan_write(bufs: &[IoSlice<'_>]) -> WritePlan {
    if LIVE.load(Ordering::Acquire) == 0 {
        return WritePlan::Copy(bufs.len());
    }
    let regions = REGIONS.load();
    for (i, buf) in bufs.iter().enumerate() {
        if buf.len() < MIN_SENDFILE_BYTES {
            continue;
        }
        let Some((region, offset)) = locate(&regions, buf) else {
            continue;
        };
        if i > 0 {
            return WritePlan::Copy(i);
        }
        return WritePlan::Send {
            file: region.file.clone(),
            offset,
            len: buf.len(),
        };
    }
    WritePlan::Copy(bufs.len())
}

/// The region holding all of `buf`, and `buf`'s offset in it.
fn locate<'r>(regions: &'r [Arc<Region>], buf: &[u8]) -> Option<(&'r Region, u64)> {
    let start = buf.as_ptr() as usize;
    regions.iter().find_map(|region| {
        let offset = start.checked_sub(region.start)?;
        (offset + buf.len() <= region.len).then_some((region.as_ref(), offset as u64))
    })
}

/// `data` moved into a sealed memory file (see the module docs); `data` as it
/// was when it is small or the file cannot be made.
pub fn seal(data: Vec<u8>) -> Bytes {
    if data.len() < MIN_SEALED_BYTES {
        return Bytes::from(data);
    }
    match sealed_mapping(&data) {
        Ok(mapping) => Bytes::from_owner(mapping),
        Err(error) => {
            tracing::debug!(%error, "no sealed memory file; serving prepared bytes from the heap");
            Bytes::from(data)
        }
    }
}

/// A registered, read-only mapping of a sealed file.
struct SealedMapping {
    map: memmap2::Mmap,
    start: usize,
    len: usize,
}

impl AsRef<[u8]> for SealedMapping {
    fn as_ref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for SealedMapping {
    fn drop(&mut self) {
        // Before `map` is unmapped (fields drop after this).
        let start = self.start;
        REGIONS.rcu(|regions| {
            let mut kept: Vec<Arc<Region>> = regions.to_vec();
            kept.retain(|r| r.start != start);
            kept
        });
        LIVE.fetch_sub(1, Ordering::AcqRel);
        SEALED_BYTES.fetch_sub(self.len, Ordering::Relaxed);
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn sealed_mapping(data: &[u8]) -> std::io::Result<SealedMapping> {
    use rustix::fs::{MemfdFlags, SealFlags};
    use std::io::Write;
    let fd = rustix::fs::memfd_create(
        "fbc-registry-prepared",
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    )?;
    let mut file = File::from(fd);
    file.write_all(data)?;
    let seals = SealFlags::WRITE | SealFlags::GROW | SealFlags::SHRINK | SealFlags::SEAL;
    rustix::fs::fcntl_add_seals(&file, seals)?;
    // SAFETY: the file is ours alone (an anonymous memfd) and sealed above
    // against writes and size changes, so its contents cannot change under
    // the read-only mapping.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let region = Arc::new(Region {
        start: map.as_ptr() as usize,
        len: map.len(),
        file: Arc::new(file),
    });
    let (start, len) = (region.start, region.len);
    LIVE.fetch_add(1, Ordering::AcqRel);
    SEALED_BYTES.fetch_add(len, Ordering::Relaxed);
    REGIONS.rcu(|regions| {
        let mut grown: Vec<Arc<Region>> = regions.to_vec();
        grown.push(region.clone());
        grown
    });
    Ok(SealedMapping { map, start, len })
}

#[cfg(not(target_os = "linux"))]
fn sealed_mapping(_: &[u8]) -> std::io::Result<SealedMapping> {
    Err(std::io::Error::other("sealed memory files need Linux"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn small_buffers_stay_on_the_heap() {
        let bytes = seal(sample(100));
        assert!(matches!(
            plan_write(&[IoSlice::new(&bytes)]),
            WritePlan::Copy(1)
        ));
    }

    #[test]
    fn a_sealed_slice_is_found_with_its_offset() {
        let data = sample(MIN_SEALED_BYTES * 2);
        let bytes = seal(data.clone());
        assert_eq!(bytes, data, "sealing keeps the bytes");
        assert!(
            sealed_bytes() >= data.len(),
            "live sealed bytes are counted"
        );
        let slice = bytes.slice(1000..1000 + MIN_SENDFILE_BYTES);
        match plan_write(&[IoSlice::new(&slice)]) {
            WritePlan::Send { offset, len, file } => {
                assert_eq!((offset, len), (1000, MIN_SENDFILE_BYTES));
                assert_eq!(
                    file.metadata().map(|m| m.len()).ok(),
                    Some(data.len() as u64)
                );
            }
            WritePlan::Copy(_) => panic!("a large sealed slice is sent from its file"),
        }
    }

    #[test]
    fn slices_before_a_sealed_one_are_copied_first_and_small_ones_always() {
        let bytes = seal(sample(MIN_SEALED_BYTES));
        let head = b"HTTP/1.1 200 OK\r\n\r\n".to_vec();
        let small = bytes.slice(..10);
        let large = bytes.slice(10..);
        let plan = plan_write(&[
            IoSlice::new(&head),
            IoSlice::new(&small),
            IoSlice::new(&large),
        ]);
        assert!(matches!(plan, WritePlan::Copy(2)));
    }

    #[test]
    fn a_dropped_mapping_is_forgotten() {
        let bytes = seal(sample(MIN_SEALED_BYTES));
        let file = match plan_write(&[IoSlice::new(&bytes)]) {
            WritePlan::Send { file, .. } => Arc::downgrade(&file),
            WritePlan::Copy(_) => panic!("a sealed buffer is sent from its file"),
        };
        drop(bytes);
        assert!(file.upgrade().is_none(), "the registry let go of the file");
    }
}
