//! The clients' random choices: SplitMix64, one generator per client.

use std::time::Duration;

// Random choices: SplitMix64, one generator per client.

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// 0 ≤ x < n (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponentially distributed with this mean (capped at 20× it).
    pub(crate) fn exp(&mut self, mean: Duration) -> Duration {
        let u = 1.0 - self.unit();
        mean.mul_f64((-u.ln()).min(20.0))
    }

    /// Uniform in 0.8–1.2× `d`.
    pub(crate) fn jitter(&mut self, d: Duration) -> Duration {
        d.mul_f64(0.8 + 0.4 * self.unit())
    }
}
