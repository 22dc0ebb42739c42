//! One channel's upgrade edges, indexed for "what upgrades from X?".
//!
//! In: a channel and its chain (OLM v0 order, from the tables). Out: a
//! [`ChannelIndex`] answering, for an installed name and version, every entry with
//! a direct edge from it (`replaces`, `skips`, a covering `skipRange`) in the
//! time the answer takes, not the channel's length: reverse maps by name, and the
//! entries with a skipRange parsed once. Each graph question builds the index of
//! the channels it reads (linear in the channel), so a walk along a 10,000-entry
//! chain costs the chain once, not once per hop.

use super::EdgeKind;
use crate::model::{Channel, Entry};
use crate::version_range::blang;
use std::collections::HashMap;

/// A direct edge into entry `entry` (an index into the channel's entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeInto {
    /// The entry the edge leads to.
    pub entry: u32,
    /// How.
    pub kind: EdgeKind,
}

/// A skipRange that does not parse (blang), as the walk ignores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRange {
    /// The entry declaring it.
    pub entry: u32,
    /// The parser's complaint.
    pub error: String,
}

/// The index (see the module docs).
#[derive(Debug)]
pub struct ChannelIndex<'a> {
    /// The channel.
    pub channel: &'a Channel,
    /// Per entry: its position in the chain, or `None` when OLM v0 hides it.
    position: Vec<Option<u32>>,
    by_name: HashMap<&'a str, u32>,
    replaced_by: HashMap<&'a str, Vec<u32>>,
    skipped_by: HashMap<&'a str, Vec<u32>>,
    ranges: Vec<(u32, blang::Range)>,
    /// The skipRanges that do not parse, in entry order (none in a validated
    /// catalog: validation rejects them as opm does).
    pub bad_ranges: Vec<BadRange>,
}

impl<'a> ChannelIndex<'a> {
    /// The index of `channel`, whose chain (entry indices, head first) is `chain`.
    pub fn new(channel: &'a Channel, chain: &[u32]) -> ChannelIndex<'a> {
        let mut position = vec![None; channel.entries.len()];
        for (at, &entry) in chain.iter().enumerate() {
            if let Some(slot) = position.get_mut(entry as usize) {
                *slot = Some(at as u32);
            }
        }
        let mut index = ChannelIndex {
            channel,
            position,
            by_name: HashMap::with_capacity(channel.entries.len()),
            replaced_by: HashMap::new(),
            skipped_by: HashMap::new(),
            ranges: Vec::new(),
            bad_ranges: Vec::new(),
        };
        for (i, e) in channel.entries.iter().enumerate() {
            index.add(i as u32, e);
        }
        index
    }

    fn add(&mut self, i: u32, e: &'a Entry) {
        self.by_name.insert(&e.name, i);
        if !e.replaces.is_empty() {
            self.replaced_by.entry(&e.replaces).or_default().push(i);
        }
        for s in e.skips.iter().filter(|s| !s.is_empty()) {
            self.skipped_by.entry(s).or_default().push(i);
        }
        if e.skip_range.is_empty() {
            return;
        }
        match blang::parse(&e.skip_range) {
            Ok(range) => self.ranges.push((i, range)),
            Err(err) => self.bad_ranges.push(BadRange {
                entry: i,
                error: err.to_string(),
            }),
        }
    }

    /// The entry at index `i`.
    pub fn entry(&self, i: u32) -> &'a Entry {
        &self.channel.entries[i as usize]
    }

    /// The index of the entry named `name`.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    /// Entry `i`'s position in the chain (0 = head), or `None` when OLM v0 hides it.
    pub fn chain_position(&self, i: u32) -> Option<u32> {
        self.position.get(i as usize).copied().flatten()
    }

    /// Every direct edge from the bundle `name` (at `version`, when known) into
    /// an entry other than `name` itself, by entry index then kind (`replaces`,
    /// `skips`, `skipRange`). An unknown version matches no skipRange.
    pub fn edges_from(&self, name: &str, version: Option<&semver::Version>) -> Vec<EdgeInto> {
        let mut out: Vec<EdgeInto> = Vec::new();
        let named = |map: &HashMap<&'a str, Vec<u32>>, kind| -> Vec<EdgeInto> {
            map.get(name)
                .map(|entries| {
                    entries
                        .iter()
                        .map(|&entry| EdgeInto { entry, kind })
                        .collect()
                })
                .unwrap_or_default()
        };
        out.extend(named(&self.replaced_by, EdgeKind::Replaces));
        out.extend(named(&self.skipped_by, EdgeKind::Skips));
        if let Some(v) = version {
            out.extend(
                self.ranges
                    .iter()
                    .filter(|(_, range)| range.matches(v))
                    .map(|&(entry, _)| EdgeInto {
                        entry,
                        kind: EdgeKind::SkipRange,
                    }),
            );
        }
        out.retain(|e| self.entry(e.entry).name != name);
        out.sort_by_key(|e| (e.entry, e.kind));
        out
    }

    /// The entries with a parsable skipRange, and the range, in entry order.
    pub fn ranges(&self) -> impl Iterator<Item = (u32, &blang::Range)> {
        self.ranges.iter().map(|(i, r)| (*i, r))
    }

    /// Whether some entry lists `name` in its `skips`.
    pub fn is_skipped(&self, name: &str) -> bool {
        self.skipped_by.contains_key(name)
    }

    /// The entries whose `replaces` is `name`.
    pub fn replaced_by(&self, name: &str) -> &[u32] {
        self.replaced_by.get(name).map_or(&[], Vec::as_slice)
    }
}
