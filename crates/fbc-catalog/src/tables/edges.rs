//! Per-channel upgrade-edge indexes: who replaces, skips or skipRange-covers whom.
//!
//! In: a channel and its chain (entry indices in OLM v0 order). Out:
//! [`ChannelEdges`]: each entry's chain position (or hidden), entries by name,
//! the entries whose `replaces` or `skips` name a bundle (names the catalog lacks
//! included), and the parsed skipRanges. The graph questions read these instead
//! of scanning the channel, so an answer costs what it lists, not the channel's
//! length. [`super::Tables`] builds a package's indexes the first time a question
//! needs them (a catalog that is only served pays nothing), from the tables
//! alone, so they work the same after a warm start.

use crate::model::Channel;
use crate::version_range::blang;
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
#[derive(Debug, Default)]
pub struct ChannelEdges {
    position: Vec<Option<u32>>,
    by_name: HashMap<String, u32>,
    replaced_by: HashMap<String, Vec<u32>>,
    skipped_by: HashMap<String, Vec<u32>>,
    ranges: Vec<(u32, blang::Range)>,
    bad_ranges: Vec<BadRange>,
}

impl ChannelEdges {
    /// The index of `channel`, whose chain (entry indices, head first) is `chain`.
    pub fn new(channel: &Channel, chain: &[u32]) -> ChannelEdges {
        let mut edges = ChannelEdges {
            position: vec![None; channel.entries.len()],
            by_name: HashMap::with_capacity(channel.entries.len()),
            ..ChannelEdges::default()
        };
        for (at, &entry) in chain.iter().enumerate() {
            if let Some(slot) = edges.position.get_mut(entry as usize) {
                *slot = Some(at as u32);
            }
        }
        for (i, e) in channel.entries.iter().enumerate() {
            let i = i as u32;
            edges.by_name.insert(e.name.clone(), i);
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
                Ok(range) => edges.ranges.push((i, range)),
                Err(err) => edges.bad_ranges.push(BadRange {
                    entry: i,
                    error: err.to_string(),
                }),
            }
        }
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
        self.ranges.iter().map(|(i, r)| (*i, r))
    }

    /// The skipRanges that do not parse, in entry order.
    pub fn bad_ranges(&self) -> &[BadRange] {
        &self.bad_ranges
    }
}
