//! Go's `sort.Slice` (pattern-defeating quicksort, Go 1.19 and later), step for step.
//!
//! In: a slice and Go's `less`. Out: the slice in the order `sort.Slice` leaves it.
//! `sort.Slice` is not stable: elements that compare equal (two related images with
//! the same image and different names) end up in an order that depends on the
//! algorithm's every swap. opm sorts with it, so matching opm's bytes means running the
//! same algorithm; no crate reproduces Go's, hence this port of `zsortfunc.go`.

/// Sorts `v` as Go's `sort.Slice(v, less)` does.
pub fn slice<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let length = v.len();
    let limit = usize::BITS - length.leading_zeros();
    let mut s = Sorter { v, less };
    s.pdqsort(0, length, limit);
}

struct Sorter<'a, T, F> {
    v: &'a mut [T],
    less: F,
}

#[derive(PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

impl<T, F: Fn(&T, &T) -> bool> Sorter<'_, T, F> {
    fn less(&self, i: usize, j: usize) -> bool {
        (self.less)(&self.v[i], &self.v[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.v.swap(i, j);
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let first = a;
        let hi = b - a;
        for i in (0..=(hi.saturating_sub(1)) / 2).rev() {
            if hi > 0 {
                self.sift_down(i, hi, first);
            }
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: u32) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == Hint::Increasing
                && self.partial_insertion_sort(a, b)
            {
                return;
            }
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already) = self.partition(a, b, pivot);
            was_partitioned = already;
            let (left, right) = (mid - a, b - mid);
            let threshold = length / 8;
            if left < right {
                was_balanced = left >= threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        // Go's i and j are ints: j may reach a (never below), so usize is safe.
        let (mut i, mut j) = (a + 1, b - 1);
        while i <= j && self.less(i, a) {
            i += 1;
        }
        while i <= j && !self.less(j, a) {
            j -= 1;
        }
        if i > j {
            self.swap(j, a);
            return (j, true);
        }
        self.swap(i, j);
        i += 1;
        j -= 1;
        loop {
            while i <= j && self.less(i, a) {
                i += 1;
            }
            while i <= j && !self.less(j, a) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        self.swap(j, a);
        (j, false)
    }

    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        loop {
            while i <= j && !self.less(a, i) {
                i += 1;
            }
            while i <= j && self.less(a, j) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        i
    }

    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            if b - i >= 2 {
                for j in i + 1..b {
                    if !self.less(j, j - 1) {
                        break;
                    }
                    self.swap(j, j - 1);
                }
            }
        }
        false
    }

    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length >= 8 {
            let mut random = length as u64;
            let modulus = 1usize << (usize::BITS - length.leading_zeros());
            let first = a + (length / 4) * 2 - 1;
            for idx in first..=first + 2 {
                random ^= random << 13;
                random ^= random >> 17;
                random ^= random << 5;
                let mut other = (random as usize) & (modulus - 1);
                if other >= length {
                    other -= length;
                }
                self.swap(idx, a + other);
            }
        }
    }

    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let (mut i, mut j, mut k) = (a + l / 4, a + l / 4 * 2, a + l / 4 * 3);
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        match swaps {
            0 => (j, Hint::Increasing),
            MAX_SWAPS => (j, Hint::Decreasing),
            _ => (j, Hint::Unknown),
        }
    }

    fn order2(&self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    fn median(&self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, c) = self.order2(b, c, swaps);
        let _ = c;
        let (_, b) = self.order2(a, b, swaps);
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::slice;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the order of equal elements, the result is sorted and a permutation.
        #[test]
        fn sorts(mut v in proptest::collection::vec((0u8..6, any::<u16>()), 0..300)) {
            let mut want = v.clone();
            slice(&mut v, |a, b| a.0 < b.0);
            prop_assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
            want.sort();
            let mut got = v.clone();
            got.sort();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn equal_elements_move_as_in_go() {
        // Go 1.19, `sort.Slice` over (i*7 % 3, i) by the first field: the tags in the order it
        // leaves them (recorded with /usr/lib/go-1.19/bin/go). Twenty elements take
        // pdqsort's partition path, sixty its pattern-breaking one too.
        let go: [(usize, &[usize]); 2] = [
            (
                20,
                &[
                    9, 18, 15, 3, 12, 0, 6, 10, 7, 4, 13, 16, 1, 19, 8, 5, 11, 14, 2, 17,
                ],
            ),
            (
                60,
                &[
                    21, 57, 54, 3, 51, 48, 6, 45, 42, 9, 39, 36, 12, 33, 0, 15, 30, 27, 18, 24, 31,
                    10, 22, 58, 19, 25, 1, 55, 28, 52, 16, 4, 49, 13, 34, 46, 7, 37, 43, 40, 50,
                    26, 8, 38, 44, 11, 35, 20, 59, 41, 47, 14, 29, 53, 2, 17, 56, 32, 23, 5,
                ],
            ),
        ];
        for (n, want) in go {
            let mut v: Vec<(usize, usize)> = (0..n).map(|i| ((i * 7) % 3, i)).collect();
            slice(&mut v, |a, b| a.0 < b.0);
            let tags: Vec<usize> = v.iter().map(|p| p.1).collect();
            assert_eq!(tags, want, "{n} elements");
        }
    }
}
