//! One channel's upgrade edges, for "what upgrades from X?".
//!
//! In: the tables, a package and a channel. Out: a [`ChannelIndex`]: the channel
//! and its edge index from the tables ([`crate::tables::edges`]), answering, for
//! an installed name and version, every entry with a direct edge from it
//! (`replaces`, `skips`, a covering `skipRange`) in the time the answer takes, not
//! the channel's length.

use super::EdgeKind;
use crate::model::{Channel, Entry};
use crate::tables::Tables;
use crate::tables::edges::ChannelEdges;

/// A direct edge into entry `entry` (an index into the channel's entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeInto {
    /// The entry the edge leads to.
    pub entry: u32,
    /// How.
    pub kind: EdgeKind,
}

/// A channel with its edge index (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct ChannelIndex<'a> {
    /// The channel.
    pub channel: &'a Channel,
    /// Its edge index.
    pub edges: &'a ChannelEdges,
}

impl<'a> ChannelIndex<'a> {
    /// Channel `channel` of package `package` (indices into the tables), or
    /// `None` if there is no such channel.
    pub fn of(tables: &'a Tables, package: u32, channel: usize) -> Option<ChannelIndex<'a>> {
        let p = tables.packages().get(package as usize)?;
        Some(ChannelIndex {
            channel: p.channels.get(channel)?,
            edges: tables.channel_edges(package).get(channel)?,
        })
    }

    /// The entry at index `i`.
    pub fn entry(&self, i: u32) -> &'a Entry {
        &self.channel.entries[i as usize]
    }

    /// The index of the entry named `name`.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.edges.find(name)
    }

    /// Entry `i`'s position in the chain (0 = head), or `None` when OLM v0 hides it.
    pub fn chain_position(&self, i: u32) -> Option<u32> {
        self.edges.chain_position(i)
    }

    /// Every direct edge from the bundle `name` (at `version`, when known) into
    /// an entry other than `name` itself, by entry index then kind (`replaces`,
    /// `skips`, `skipRange`). An unknown version matches no skipRange.
    pub fn edges_from(&self, name: &str, version: Option<&semver::Version>) -> Vec<EdgeInto> {
        let into = |kind| move |&entry: &u32| EdgeInto { entry, kind };
        let mut out: Vec<EdgeInto> = self
            .edges
            .replaced_by(name)
            .iter()
            .map(into(EdgeKind::Replaces))
            .chain(
                self.edges
                    .skipped_by(name)
                    .iter()
                    .map(into(EdgeKind::Skips)),
            )
            .collect();
        if let Some(v) = version {
            out.extend(
                self.edges
                    .ranges_containing(v)
                    .iter()
                    .map(into(EdgeKind::SkipRange)),
            );
        }
        out.retain(|e| self.entry(e.entry).name != name);
        out.sort_by_key(|e| (e.entry, e.kind));
        out
    }

    /// Whether some entry lists `name` in its `skips`.
    pub fn is_skipped(&self, name: &str) -> bool {
        !self.edges.skipped_by(name).is_empty()
    }

    /// The entries whose `replaces` is `name`.
    pub fn replaced_by(&self, name: &str) -> &'a [u32] {
        self.edges.replaced_by(name)
    }
}
