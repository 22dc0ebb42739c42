//! Per-channel upgrade-edge indexes: who replaces, skips or skipRange-covers whom.
//!
//! In: a channel and its chain (entry indices in OLM v0 order). Out:
//! [`ChannelEdges`]: each entry's chain position (or hidden), entries by name,
//! the entries whose `replaces` or `skips` name a bundle (names the catalog lacks
//! included), the parsed skipRanges with an interval tree of what they cover, and
//! the entries by version. The graph questions read these instead of scanning
//! the channel, so an answer costs what it lists (and a logarithm), not the
//! channel's length: a 10,000-entry channel is walked in linear time, not
//! quadratic. [`super::Tables`] builds a package's indexes the first time a question
//! needs them (a catalog that is only served pays nothing), from the tables
//! alone, so they work the same after a warm start.

use crate::model::Channel;
use crate::version_range::blang;
use crate::version_range::intervals::{self, Point, Span};
use intervaltree::IntervalTree;
use semver::Version;
use std::collections::HashMap;

/// A skipRange that does not parse (blang), by entry index. Validation rejects
/// these, as opm does, so a validated catalog has none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRange {
    /// The entry declaring it.
    pub entry: u32,
    /// The parser's complaint.
    pub error: String,
}

/// One channel's edge index (see the module docs).
#[derive(Debug)]
pub struct ChannelEdges {
    position: Vec<Option<u32>>,
    by_name: HashMap<String, u32>,
    replaced_by: HashMap<String, Vec<u32>>,
    skipped_by: HashMap<String, Vec<u32>>,
    /// Parsable skipRanges by entry index, with their spans.
    ranges: Vec<(u32, blang::Range, Vec<Span>)>,
    bad_ranges: Vec<BadRange>,
    /// Every span of every skipRange, valued with its entry.
    covering: IntervalTree<Point, u32>,
    /// The entries whose bundle has a version, by that version.
    by_version: Vec<(Point, u32)>,
}

impl ChannelEdges {
    /// The index of `channel`, whose chain (entry indices, head first) is
    /// `chain`; `version` gives an entry's bundle version (`None` when the
    /// package lacks the bundle).
    pub fn new<'v>(
        channel: &Channel,
        chain: &[u32],
        version: impl Fn(&str) -> Option<&'v Version>,
    ) -> ChannelEdges {
        let mut edges = ChannelEdges {
            position: vec![None; channel.entries.len()],
            by_name: HashMap::with_capacity(channel.entries.len()),
            replaced_by: HashMap::new(),
            skipped_by: HashMap::new(),
            ranges: Vec::new(),
            bad_ranges: Vec::new(),
            covering: IntervalTree::from_iter(std::iter::empty::<(Span, u32)>()),
            by_version: Vec::new(),
        };
        for (at, &entry) in chain.iter().enumerate() {
            if let Some(slot) = edges.position.get_mut(entry as usize) {
                *slot = Some(at as u32);
            }
        }
        for (i, e) in channel.entries.iter().enumerate() {
            let i = i as u32;
            edges.by_name.insert(e.name.clone(), i);
            if let Some(v) = version(&e.name) {
                edges.by_version.push((Point::of(v), i));
            }
            if !e.replaces.is_empty() {
                edges
                    .replaced_by
                    .entry(e.replaces.clone())
                    .or_default()
                    .push(i);
            }
            for s in e.skips.iter().filter(|s| !s.is_empty()) {
                edges.skipped_by.entry(s.clone()).or_default().push(i);
            }
            if e.skip_range.is_empty() {
                continue;
            }
            match blang::parse(&e.skip_range) {
                Ok(range) => {
                    let spans = intervals::spans(&range);
                    edges.ranges.push((i, range, spans));
                }
                Err(err) => edges.bad_ranges.push(BadRange {
                    entry: i,
                    error: err.to_string(),
                }),
            }
        }
        edges.by_version.sort();
        edges.covering = edges
            .ranges
            .iter()
            .flat_map(|(i, _, spans)| spans.iter().map(move |s| (s.clone(), *i)))
            .collect();
        edges
    }

    /// The index of the entry named `name`.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    /// Entry `i`'s position in the chain (0 = head), or `None` when OLM v0 hides it.
    pub fn chain_position(&self, i: u32) -> Option<u32> {
        self.position.get(i as usize).copied().flatten()
    }

    /// The entries whose `replaces` is `name`, in entry order.
    pub fn replaced_by(&self, name: &str) -> &[u32] {
        self.replaced_by.get(name).map_or(&[], Vec::as_slice)
    }

    /// The entries whose `skips` list `name`, in entry order.
    pub fn skipped_by(&self, name: &str) -> &[u32] {
        self.skipped_by.get(name).map_or(&[], Vec::as_slice)
    }

    /// The entries with a parsable skipRange, and the range, in entry order.
    pub fn ranges(&self) -> impl Iterator<Item = (u32, &blang::Range)> {
        self.ranges.iter().map(|(i, r, _)| (*i, r))
    }

    /// Entry `i`'s parsable skipRange, if it has one.
    pub fn range_of(&self, i: u32) -> Option<&blang::Range> {
        let at = self.ranges.binary_search_by_key(&i, |(e, _, _)| *e).ok()?;
        Some(&self.ranges[at].1)
    }

    /// The entries whose skipRange contains `v`, in entry order.
    pub fn ranges_containing(&self, v: &Version) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .covering
            .query_point(Point::of(v))
            .map(|e| e.value)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How many entries entry `i`'s skipRange contains, counted in logarithmic
    /// time: itself included, and an entry in two of its spans twice, so never
    /// fewer than [`Self::covered_by_range_of`] lists.
    pub fn covered_count(&self, i: u32) -> usize {
        let Ok(at) = self.ranges.binary_search_by_key(&i, |(e, _, _)| *e) else {
            return 0;
        };
        self.ranges[at]
            .2
            .iter()
            .map(|span| self.entries_in(span).len())
            .sum()
    }

    /// The entries (other than `i`) whose version entry `i`'s skipRange
    /// contains, in entry order; empty when `i` has no parsable skipRange.
    pub fn covered_by_range_of(&self, i: u32) -> Vec<u32> {
        let Ok(at) = self.ranges.binary_search_by_key(&i, |(e, _, _)| *e) else {
            return Vec::new();
        };
        let mut out: Vec<u32> = Vec::new();
        for span in &self.ranges[at].2 {
            out.extend(self.entries_in(span).iter().map(|(_, e)| *e));
        }
        out.retain(|&e| e != i);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The entries (by version) whose version lies in `span`, found by two
    /// binary searches.
    fn entries_in(&self, span: &Span) -> &[(Point, u32)] {
        let from = self.by_version.partition_point(|(p, _)| *p < span.start);
        let to = self.by_version.partition_point(|(p, _)| *p < span.end);
        &self.by_version[from..to.max(from)]
    }

    /// The skipRanges that do not parse, in entry order.
    pub fn bad_ranges(&self) -> &[BadRange] {
        &self.bad_ranges
    }
}
