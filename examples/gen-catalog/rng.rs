//! Pseudo-random numbers: splitmix64 streams derived from the seed, a stream id
//! and an index, so output never depends on thread scheduling.

use std::fmt::Write as _;

pub(crate) struct Rng(u64);

impl Rng {
    /// A stream derived from several words (seed, stream id, index…).
    pub(crate) fn mix(parts: &[u64]) -> Rng {
        let mut r = Rng(0x243F_6A88_85A3_08D3);
        for p in parts {
            r.0 ^= *p;
            r.0 = r.next_u64();
        }
        r
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub(crate) fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// `n` lowercase hex digits.
    pub(crate) fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n + 16);
        while s.len() < n {
            let _ = write!(s, "{:016x}", self.next_u64());
        }
        s.truncate(n);
        s
    }
}

// Stream ids for `Rng::mix`.
pub(crate) const S_PACKAGE: u64 = 1;
pub(crate) const S_KINDS: u64 = 2;
pub(crate) const S_FORMAT: u64 = 3;
pub(crate) const S_CORPUS: u64 = 4;
