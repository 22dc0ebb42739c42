//! Channels: contiguous runs of a package's bundles forming a valid upgrade graph
//! (the patterns are listed in the crate docs), and a check of the server's
//! channel rules on each one built.

use crate::rng::Rng;
use std::collections::{HashMap, HashSet};

pub(crate) struct Entry {
    pub(crate) bundle: usize,
    pub(crate) replaces: Option<String>,
    pub(crate) skips: Vec<String>,
    pub(crate) skip_range: Option<String>,
}

pub(crate) struct Channel {
    pub(crate) name: &'static str,
    pub(crate) entries: Vec<Entry>,
}

/// Builds a channel over bundles `start..end` (see the crate docs for the patterns).
pub(crate) fn make_channel(
    rng: &mut Rng,
    name: &'static str,
    start: usize,
    end: usize,
    bnames: &[String],
    versions: &[(u64, u64, u64)],
) -> Channel {
    let mut entries = Vec::with_capacity(end - start);
    let mut prev_pulled = false;
    for b in start..end {
        let li = b - start;
        let mut e = Entry {
            bundle: b,
            replaces: None,
            skips: Vec::new(),
            skip_range: None,
        };
        let mut pulled = false;
        if li == 0 {
            // The tail may replace (and skip) bundles that are not in this channel.
            if b > 0 && rng.chance(60) {
                e.replaces = Some(bnames[b - 1].clone());
                if b > 1 && rng.chance(25) {
                    e.skips.push(bnames[b - 2].clone());
                }
            }
        } else if li >= 2 && !prev_pulled && rng.chance(8) {
            // Bundle b-1 was pulled: b replaces b-2 and skips b-1.
            e.replaces = Some(bnames[b - 2].clone());
            e.skips.push(bnames[b - 1].clone());
            pulled = true;
        } else {
            e.replaces = Some(bnames[b - 1].clone());
            // Skipping the previous-previous entry keeps the chain valid only when it is
            // the first entry (nothing below it can be stranded).
            if li == 2 && rng.chance(20) {
                e.skips.push(bnames[b - 2].clone());
            }
        }
        prev_pulled = pulled;
        if rng.chance(25) {
            let (x, y, z) = versions[b];
            if z > 0 {
                e.skip_range = Some(format!(">={x}.{y}.0 <{x}.{y}.{z}"));
            } else if b > 0 {
                let (px, py, pz) = versions[b - 1];
                e.skip_range = Some(format!(">={px}.{py}.{pz} <{x}.{y}.{z}"));
            }
        }
        entries.push(e);
    }
    Channel { name, entries }
}

/// The server's channel rules: one head, the replaces chain from it (stopping at a
/// skipped or absent bundle, no cycles), every entry on the chain or skipped.
pub(crate) fn check_channel(ch: &Channel, bnames: &[String]) -> Result<(), String> {
    let name = |e: &Entry| bnames[e.bundle].as_str();
    let mut incoming: HashSet<&str> = HashSet::new();
    let mut skipped: HashSet<&str> = HashSet::new();
    for e in &ch.entries {
        if let Some(r) = &e.replaces {
            incoming.insert(r);
        }
        for s in &e.skips {
            incoming.insert(s);
            skipped.insert(s);
        }
    }
    let heads: Vec<&Entry> = ch
        .entries
        .iter()
        .filter(|e| !incoming.contains(name(e)))
        .collect();
    let [head] = heads.as_slice() else {
        return Err(format!("{} channel heads", heads.len()));
    };
    let index: HashMap<&str, &Entry> = ch.entries.iter().map(|e| (name(e), e)).collect();
    let mut on_chain: HashSet<&str> = HashSet::new();
    let mut cur = Some(*head);
    while let Some(e) = cur {
        if !on_chain.insert(name(e)) {
            return Err("cycle".into());
        }
        cur = match &e.replaces {
            Some(r) if !skipped.contains(r.as_str()) => index.get(r.as_str()).copied(),
            _ => None,
        };
    }
    let stranded: Vec<&str> = ch
        .entries
        .iter()
        .map(name)
        .filter(|n| !on_chain.contains(n) && !skipped.contains(n))
        .collect();
    if stranded.is_empty() {
        Ok(())
    } else {
        Err(format!("stranded: {}", stranded.join(", ")))
    }
}
