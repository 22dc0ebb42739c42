//! The latency [`Histogram`]: log-linear buckets, merged across workers, read
//! back as quantiles.

/// Log-linear histogram of u64 values (nanoseconds): values below 2^(SUB_BITS+1)
/// are exact; above, each power of two is cut into 2^SUB_BITS equal buckets, so a
/// bucket's midpoint is within 1/2^(SUB_BITS+1) (0.4 %) of any value in it.
pub(crate) struct Histogram {
    counts: Vec<u64>,
    pub(crate) total: u64,
    sum: u64,
    min: u64,
    pub(crate) max: u64,
}

const SUB_BITS: u32 = 7;
const SUB: usize = 1 << SUB_BITS;
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB;

impl Histogram {
    pub(crate) fn new() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            total: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    fn index(v: u64) -> usize {
        if v < (2 * SUB) as u64 {
            v as usize
        } else {
            let shift = 63 - v.leading_zeros() - SUB_BITS;
            ((shift as usize) << SUB_BITS) + (v >> shift) as usize
        }
    }

    /// Lowest and highest value of bucket `i`.
    fn bounds(i: usize) -> (u64, u64) {
        if i < SUB {
            return (i as u64, i as u64);
        }
        let shift = (i >> SUB_BITS) - 1;
        let top = ((i & (SUB - 1)) | SUB) as u64;
        let lo = top << shift;
        (lo, lo + ((1u64 << shift) - 1))
    }

    pub(crate) fn record(&mut self, v: u64) {
        self.counts[Self::index(v)] += 1;
        self.total += 1;
        self.sum = self.sum.saturating_add(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub(crate) fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.sum = self.sum.saturating_add(other.sum);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The mean of the values recorded (0 when none).
    pub(crate) fn mean(&self) -> u64 {
        self.sum.checked_div(self.total).unwrap_or(0)
    }

    /// The value at quantile `q` (0..=1): the midpoint of its bucket, within [min,
    /// max]; the maximum itself for the last rank.
    pub(crate) fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        if rank == self.total {
            return self.max;
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = Self::bounds(i);
                return (lo + (hi - lo) / 2).clamp(self.min, self.max);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_contiguous_and_tight() {
        let mut prev_hi = None;
        for i in 0..BUCKETS {
            let (lo, hi) = Histogram::bounds(i);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1, "bucket {i}");
            }
            assert_eq!(Histogram::index(lo), i);
            assert_eq!(Histogram::index(hi), i);
            assert!((hi - lo) as f64 <= lo as f64 / 127.0, "bucket {i}");
            prev_hi = Some(hi);
        }
        assert_eq!(prev_hi, Some(u64::MAX));
    }

    #[test]
    fn quantiles_within_one_percent() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for (q, want) in [
            (0.5, 50_000_000.0),
            (0.99, 99_000_000.0),
            (0.999, 99_900_000.0),
        ] {
            let got = h.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.01, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(1.0), 100_000_000);
    }
}
