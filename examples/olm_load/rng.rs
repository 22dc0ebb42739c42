//! The clients' random choices: gen-catalog's SplitMix64 streams (one per client,
//! derived from the seed and the client's number), with the draws OLM's timing
//! needs on top.

use std::time::Duration;

// Shared with gen-catalog, whose stream ids and other draws olm_load does not use.
#[allow(dead_code)]
#[path = "../gen-catalog/rng.rs"]
mod splitmix;

pub(crate) use splitmix::Rng;

/// Draws for think times and sync intervals.
pub(crate) trait Timing {
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64;
    /// Exponentially distributed with this mean (capped at 20× it).
    fn exp(&mut self, mean: Duration) -> Duration;
    /// Uniform in 0.8–1.2× `d`.
    fn jitter(&mut self, d: Duration) -> Duration;
}

impl Timing for Rng {
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn exp(&mut self, mean: Duration) -> Duration {
        let u = 1.0 - self.unit();
        mean.mul_f64((-u.ln()).min(20.0))
    }

    fn jitter(&mut self, d: Duration) -> Duration {
        d.mul_f64(0.8 + 0.4 * self.unit())
    }
}
