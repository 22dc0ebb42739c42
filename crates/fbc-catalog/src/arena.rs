//! Dense storage for the large byte strings an index keeps (manifests, CSVs).
//!
//! In: byte strings produced while a catalog loads. Out: [`Bytes`] handles that
//! share a few large blocks instead of one allocation each.
//!
//! Why: a load allocates its kept manifests among short-lived temporaries (parsed
//! JSON trees, base64 text). Allocated one by one, the kept ones end up scattered
//! over pages the temporaries also used, and those pages cannot go back to the OS.
//! Written into blocks, they occupy whole pages of their own, so the index needs
//! no copying afterwards to be compact. One arena per worker thread; no locking.
//!
//! A block lives as long as any handle into it: the index owns its blocks through
//! its chunks and frees them when it is dropped.

use bytes::{Bytes, BytesMut};

/// Size of a block.
const BLOCK: usize = 1 << 20;
/// Strings at least this large get an allocation of their own: they fill their
/// pages anyway, and would waste a block's tail.
const OWN_ALLOCATION: usize = BLOCK / 4;

/// A bump allocator of immutable byte strings.
#[derive(Debug, Default)]
pub struct Arena {
    block: BytesMut,
}

impl Arena {
    /// A new, empty arena (allocates nothing until used).
    pub fn new() -> Arena {
        Arena::default()
    }

    /// Copies `data` into the arena.
    pub fn copy(&mut self, data: &[u8]) -> Bytes {
        self.write(data.len(), |buf| buf.copy_from_slice(data))
    }

    /// Lets `write` fill exactly `len` bytes in place.
    pub fn write(&mut self, len: usize, write: impl FnOnce(&mut [u8])) -> Bytes {
        let filled = self.fill(len, |buf| {
            write(buf);
            Ok::<usize, std::convert::Infallible>(len)
        });
        match filled {
            Ok(b) => b,
            Err(never) => match never {},
        }
    }

    /// Lets `write` fill up to `max_len` zeroed bytes in place and keeps the first
    /// `n` of them, where `n` is what `write` returns (clamped to `max_len`).
    pub fn fill<E>(
        &mut self,
        max_len: usize,
        write: impl FnOnce(&mut [u8]) -> Result<usize, E>,
    ) -> Result<Bytes, E> {
        let mut own;
        let buf = if max_len >= OWN_ALLOCATION {
            own = BytesMut::zeroed(max_len);
            &mut own
        } else {
            if self.block.capacity() - self.block.len() < max_len {
                self.block = BytesMut::with_capacity(BLOCK.max(max_len));
            }
            self.block.resize(max_len, 0);
            &mut self.block
        };
        let written = match write(&mut buf[..]) {
            Ok(n) => n.min(max_len),
            Err(e) => {
                buf.clear();
                return Err(e);
            }
        };
        buf.truncate(written);
        Ok(buf.split().freeze())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_strings_share_a_block_and_keep_their_bytes() {
        let mut arena = Arena::new();
        let a = arena.copy(b"hello");
        let b = arena.copy(b"world!");
        assert_eq!(&a[..], b"hello");
        assert_eq!(&b[..], b"world!");
        // adjacent in one block
        assert_eq!(a.as_ptr().wrapping_add(a.len()), b.as_ptr());
    }

    #[test]
    fn a_full_block_is_replaced_and_large_strings_get_their_own() {
        let mut arena = Arena::new();
        let first = arena.copy(&[1u8; 1000]);
        let filler = vec![2u8; OWN_ALLOCATION - 1];
        let mut kept = vec![first.clone()];
        for _ in 0..8 {
            kept.push(arena.copy(&filler));
        }
        let big = arena.copy(&vec![3u8; OWN_ALLOCATION]);
        assert!(big.iter().all(|b| *b == 3));
        assert_eq!(big.len(), OWN_ALLOCATION);
        assert!(kept[1..].iter().all(|k| k.len() == filler.len()));
        let adjacent = |a: &Bytes, b: &Bytes| a.as_ptr().wrapping_add(a.len()) == b.as_ptr();
        assert!(
            adjacent(&kept[1], &kept[2]),
            "filler shares the first block"
        );
        assert!(
            !adjacent(&kept[3], &kept[4]),
            "the fourth filler starts a block"
        );
        assert!(
            !kept.iter().any(|k| adjacent(k, &big)),
            "a large string is alone"
        );
        assert!(
            first.iter().all(|b| *b == 1),
            "earlier chunks are untouched"
        );
    }

    #[test]
    fn fill_keeps_only_what_was_written_and_drops_it_on_error() {
        let mut arena = Arena::new();
        let kept = arena
            .fill(10, |buf| {
                buf[..3].copy_from_slice(b"abc");
                Ok::<_, ()>(3)
            })
            .unwrap();
        assert_eq!(&kept[..], b"abc");
        assert!(arena.fill(10, |_| Err::<usize, _>("bad")).is_err());
        let next = arena.copy(b"z");
        assert_eq!(kept.as_ptr().wrapping_add(3), next.as_ptr());
    }
}
