//! One channel's kept set, made valid: one head, no stranded entry, and an OLM v0
//! upgrade path to the head from every kept bundle that had one.
//!
//! In: a channel of the input with its edge index, the bundles selected in it
//! and the head the output channel must have ([`Target`]). Out: the kept entries,
//! each with why ([`Keep`]), and the selected entries that had to go, each with
//! why — the smallest additions this greedy repair finds, not a global minimum.
//!
//! The rules are opm's (`validate`'s chain check, today's rule) and OLM v0's:
//! 1. *One head*: every kept entry but the head is replaced or skipped by a kept
//!    entry. A second head gets the shortest upward path (replaces, skips) to the
//!    target added; with none, it is dropped.
//! 2. *Nothing stranded*: every kept entry is on the head's `replaces` chain
//!    (which stops at a skipped name) or skipped by a kept entry. A stranded entry
//!    gets the chain between the head and itself added, else a kept skipper,
//!    else it is dropped.
//! 3. *OLM v0 reaches the head*: from each kept entry whose input walk reached
//!    the input head, the walk (candidates are chain entries that replace, skip or
//!    skipRange-cover the current one; nearest the head wins) reaches the output
//!    head. Where it sticks, the input walk's next entry and the chain down to it
//!    are added; where that cannot help, the entry keeps a note.
//!
//! Only additions and drops of entries: `replaces`, `skips` and `skipRange` are
//! never rewritten, so every edge of the output is an edge of the input and OLM
//! v1's successors of a kept bundle are its input successors that were kept.

use super::{Dropped, Keep};
use crate::model::{Channel, Entry};
use crate::tables::Tables;
use crate::tables::edges::ChannelEdges;
use semver::Version;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

/// A channel being filtered.
#[derive(Clone)]
pub(crate) struct ChannelWork<'a> {
    channel: &'a Channel,
    edges: &'a ChannelEdges,
    /// Each entry's bundle version (`None`: the package lacks the bundle).
    versions: Vec<Option<&'a Version>>,
    /// The head the output channel has (an entry index).
    pub target: u32,
    /// Kept entries and why.
    pub kept: BTreeMap<u32, Keep>,
    /// Entries removed by the repair, and why.
    pub dropped: BTreeMap<u32, Dropped>,
    /// Kept entries the rules could not fully serve, with what is wrong.
    pub notes: BTreeMap<u32, String>,
}

/// Most repair rounds: each adds or drops an entry, so a channel of `n` entries
/// settles within `2n + 2`; the bound guards against a bug looping forever.
fn max_rounds(n: usize) -> usize {
    2 * n + 4
}

impl<'a> ChannelWork<'a> {
    /// Channel `channel` of package `package` (indices into `tables`), with
    /// nothing kept yet and `target` (an entry index) as its head to be.
    pub fn of(tables: &'a Tables, package: u32, channel: usize, target: u32) -> ChannelWork<'a> {
        let p = &tables.packages()[package as usize];
        let c = &p.channels[channel];
        ChannelWork {
            channel: c,
            edges: &tables.channel_edges(package)[channel],
            versions: c
                .entries
                .iter()
                .map(|e| p.bundle(&e.name).map(|b| &b.version))
                .collect(),
            target,
            kept: BTreeMap::new(),
            dropped: BTreeMap::new(),
            notes: BTreeMap::new(),
        }
    }

    /// The channel.
    pub fn channel(&self) -> &'a Channel {
        self.channel
    }

    fn entry(&self, i: u32) -> &'a Entry {
        &self.channel.entries[i as usize]
    }

    /// Keeps entry `i` for `why`, or for a stronger reason it already has.
    pub fn keep(&mut self, i: u32, why: Keep) {
        self.dropped.remove(&i);
        let slot = self.kept.entry(i).or_insert(why);
        *slot = (*slot).min(why);
    }

    /// Applies the three rules until nothing changes (see the module docs).
    pub fn settle(&mut self) {
        self.keep(self.target, Keep::Head);
        let reached_before = self.input_reaches_head();
        for _ in 0..max_rounds(self.channel.entries.len()) {
            if self.fix_one_head() || self.fix_one_stranded() || self.fix_one_walk(&reached_before)
            {
                continue;
            }
            return;
        }
        self.notes.insert(
            self.target,
            "the repair did not settle; the output check reports what is left".into(),
        );
    }

    /// The names some kept entry replaces or skips.
    fn incoming(&self) -> HashSet<&'a str> {
        let mut names = HashSet::new();
        for &k in self.kept.keys() {
            let e = self.entry(k);
            if !e.replaces.is_empty() {
                names.insert(e.replaces.as_str());
            }
            names.extend(e.skips.iter().map(String::as_str));
        }
        names
    }

    /// Rule 1 for one extra head; false when the target is the only head.
    fn fix_one_head(&mut self) -> bool {
        let incoming = self.incoming();
        let Some(extra) = self
            .kept
            .keys()
            .copied()
            .find(|&k| k != self.target && !incoming.contains(self.entry(k).name.as_str()))
        else {
            return false;
        };
        match self.up_path(extra) {
            Some(path) => path.into_iter().for_each(|i| self.keep(i, Keep::Path)),
            None => self.drop(extra, Dropped::NoPathToHead),
        }
        true
    }

    /// Removes a kept entry.
    fn drop(&mut self, i: u32, why: Dropped) {
        self.kept.remove(&i);
        self.notes.remove(&i);
        self.dropped.insert(i, why);
    }

    /// The entries above `from` on a shortest path of `replaces`/`skips` edges to
    /// the target (the target included, `from` not), or `None`.
    fn up_path(&self, from: u32) -> Option<Vec<u32>> {
        let mut came_from: BTreeMap<u32, u32> = BTreeMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(cur) = queue.pop_front() {
            if cur == self.target {
                let mut path = Vec::new();
                let mut at = cur;
                while at != from {
                    path.push(at);
                    at = came_from[&at];
                }
                return Some(path);
            }
            let name = self.entry(cur).name.as_str();
            let up = self.edges.replaced_by(name).iter();
            for &next in up.chain(self.edges.skipped_by(name)) {
                if next != from
                    && !self.dropped.contains_key(&next)
                    && !came_from.contains_key(&next)
                {
                    came_from.insert(next, cur);
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// The kept names some kept entry skips, and the head's `replaces` chain.
    fn chain(&self) -> (BTreeSet<&'a str>, BTreeSet<u32>) {
        let skipped: BTreeSet<&str> = self
            .kept
            .keys()
            .flat_map(|&k| self.entry(k).skips.iter().map(String::as_str))
            .collect();
        let mut chain = BTreeSet::new();
        let mut cur = Some(self.target);
        while let Some(i) = cur {
            if !chain.insert(i) {
                break;
            }
            let replaces = self.entry(i).replaces.as_str();
            cur = match self.edges.find(replaces) {
                Some(next) if self.kept.contains_key(&next) && !skipped.contains(replaces) => {
                    Some(next)
                }
                _ => None,
            };
        }
        (skipped, chain)
    }

    /// Rule 2 for one stranded entry; false when none is.
    fn fix_one_stranded(&mut self) -> bool {
        let (skipped, chain) = self.chain();
        let Some(stranded) = self
            .kept
            .keys()
            .copied()
            .find(|k| !chain.contains(k) && !skipped.contains(self.entry(*k).name.as_str()))
        else {
            return false;
        };
        if let Some(segment) = self.chain_down_to(stranded).filter(|s| !s.is_empty()) {
            segment.into_iter().for_each(|i| self.keep(i, Keep::Path));
        } else if let Some(skipper) = self.skipper(stranded) {
            self.keep(skipper, Keep::Path);
        } else {
            self.drop(stranded, Dropped::Stranded);
        }
        true
    }

    /// The entries not yet kept on the input's `replaces` chain from the
    /// target down to `to` (exclusive), or `None` when `to` is not below it.
    fn chain_down_to(&self, to: u32) -> Option<Vec<u32>> {
        let mut missing = Vec::new();
        let mut seen = BTreeSet::new();
        let mut cur = self.target;
        loop {
            if cur == to {
                return Some(missing);
            }
            if !seen.insert(cur) {
                return None;
            }
            if !self.kept.contains_key(&cur) {
                missing.push(cur);
            }
            cur = self.edges.find(&self.entry(cur).replaces)?;
            if self.dropped.contains_key(&cur) && cur != to {
                return None;
            }
        }
    }

    /// A not-yet-kept entry that skips `i` and has a path up to the target; of
    /// several, the one of highest version (then the first listed).
    fn skipper(&self, i: u32) -> Option<u32> {
        let name = self.entry(i).name.as_str();
        self.edges
            .skipped_by(name)
            .iter()
            .copied()
            .filter(|s| !self.kept.contains_key(s) && !self.dropped.contains_key(s))
            .filter(|&s| s == self.target || self.up_path(s).is_some())
            .max_by(|a, b| {
                let va = self.versions[*a as usize];
                let vb = self.versions[*b as usize];
                va.cmp(&vb).then(b.cmp(a))
            })
    }

    /// The entries from which OLM v0's walk over the whole input channel reaches
    /// its head.
    fn input_reaches_head(&self) -> BTreeSet<u32> {
        let all: BTreeSet<u32> = (0..self.channel.entries.len() as u32).collect();
        let input = Walk::new(self, &all, self.channel.head as u32);
        input
            .outcomes(all.iter().copied())
            .into_iter()
            .filter(|(_, end)| end.is_ok())
            .map(|(i, _)| i)
            .collect()
    }

    /// Rule 3 for one kept entry whose walk sticks; false when none does (or
    /// none can be helped).
    fn fix_one_walk(&mut self, reached_before: &BTreeSet<u32>) -> bool {
        let stuck = self.stuck_walks(reached_before);
        for (k, at, next) in stuck {
            let segment = next.and_then(|n| self.chain_down_to(n).map(|s| (n, s)));
            match segment {
                Some((n, mut s)) if !self.kept.contains_key(&n) || !s.is_empty() => {
                    s.push(n);
                    s.into_iter().for_each(|i| self.keep(i, Keep::Path));
                    return true;
                }
                _ => {
                    let head = &self.entry(self.target).name;
                    let note = format!(
                        "no OLM v0 upgrade path to {head} inside the kept set (it sticks at {})",
                        self.entry(at).name
                    );
                    self.notes.insert(k, note);
                }
            }
        }
        false
    }

    /// The kept entries (not yet noted) whose input walk reached the head but
    /// whose output walk sticks: each with where it sticks and the input walk's
    /// next entry from there.
    fn stuck_walks(&self, reached_before: &BTreeSet<u32>) -> Vec<(u32, u32, Option<u32>)> {
        let kept: BTreeSet<u32> = self.kept.keys().copied().collect();
        let output = Walk::new(self, &kept, self.target);
        let all: BTreeSet<u32> = (0..self.channel.entries.len() as u32).collect();
        let input = Walk::new(self, &all, self.channel.head as u32);
        let ends = output.outcomes(
            kept.iter()
                .copied()
                .filter(|k| reached_before.contains(k) && !self.notes.contains_key(k)),
        );
        ends.into_iter()
            .filter_map(|(k, end)| end.err().map(|at| (k, at, input.step(at))))
            .collect()
    }
}

/// OLM v0's walk over some of a channel's entries.
struct Walk<'w, 'a> {
    work: &'w ChannelWork<'a>,
    /// The entries the walk may use.
    members: &'w BTreeSet<u32>,
    head: u32,
    /// Chain position of each member OLM v0 shows (head first, skipped hidden).
    position: BTreeMap<u32, usize>,
}

impl<'w, 'a> Walk<'w, 'a> {
    fn new(work: &'w ChannelWork<'a>, members: &'w BTreeSet<u32>, head: u32) -> Walk<'w, 'a> {
        let skipped: BTreeSet<&str> = members
            .iter()
            .flat_map(|&k| work.entry(k).skips.iter().map(String::as_str))
            .collect();
        let mut position = BTreeMap::new();
        let mut seen = BTreeSet::new();
        let mut cur = Some(head);
        while let Some(i) = cur {
            if !seen.insert(i) {
                break;
            }
            if !skipped.contains(work.entry(i).name.as_str()) {
                position.insert(i, position.len());
            }
            cur = work
                .edges
                .find(&work.entry(i).replaces)
                .filter(|n| members.contains(n));
        }
        Walk {
            work,
            members,
            head,
            position,
        }
    }

    /// The candidate OLM v0 installs next from `cur`, if any.
    fn step(&self, cur: u32) -> Option<u32> {
        let e = self.work.entry(cur);
        let mut from: Vec<u32> = Vec::new();
        from.extend_from_slice(self.work.edges.replaced_by(&e.name));
        from.extend_from_slice(self.work.edges.skipped_by(&e.name));
        if let Some(v) = self.work.versions[cur as usize] {
            from.extend(self.work.edges.ranges_containing(v));
        }
        from.into_iter()
            .filter(|c| *c != cur && self.members.contains(c))
            .filter_map(|c| self.position.get(&c).map(|p| (*p, c)))
            .min()
            .map(|(_, c)| c)
    }

    /// Where the walk from each of `starts` ends: `Ok(())` at the head,
    /// `Err(entry)` where it sticks (or revisits). Each entry is walked once:
    /// a walk stops where an earlier one passed, so a channel costs linear time.
    fn outcomes(&self, starts: impl Iterator<Item = u32>) -> BTreeMap<u32, Result<(), u32>> {
        let mut memo: HashMap<u32, Result<(), u32>> = HashMap::new();
        let mut out = BTreeMap::new();
        for start in starts {
            let mut path: Vec<u32> = Vec::new();
            let mut on_path: HashSet<u32> = HashSet::new();
            let mut cur = start;
            let end = loop {
                if let Some(end) = memo.get(&cur) {
                    break *end;
                }
                if cur == self.head {
                    break Ok(());
                }
                if !on_path.insert(cur) {
                    break Err(cur);
                }
                path.push(cur);
                match self.step(cur) {
                    Some(next) => cur = next,
                    None => break Err(cur),
                }
            };
            for p in path {
                memo.insert(p, end);
            }
            out.insert(start, end);
        }
        out
    }
}
