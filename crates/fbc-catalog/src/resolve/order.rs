//! OLM v0's order of one channel's candidates (`sortChannel` in the
//! resolver), with its three errors word for word.
//!
//! In: the entries of one (catalog, package, channel) that a question left in
//! play — a filtered set, not always the whole channel. Out: their indices in
//! preference order, head first along `replaces`, or an [`OrderError`].
//!
//! OLM's rules, which differ from the catalog's own chain (`tables::chain`):
//! an entry is replaced when another entry *of the set* names it in `replaces`
//! or `skips`; the heads are the entries nothing replaces; from each head the
//! walk follows `replaces` and leaves out every entry some entry skips; more
//! than one head is an error, and so is a walk that comes back on itself.
//! Entries the single walk never reaches are left out (OLM's own code says
//! "do we care if the channel doesn't include every bundle in the input?").

use super::gofmt::quote;
use std::collections::{HashMap, HashSet};

/// One entry, as the order reads it.
#[derive(Clone, Copy, Debug)]
pub struct ChainEntry<'a> {
    /// The bundle's name.
    pub name: &'a str,
    /// What it replaces; empty for nothing.
    pub replaces: &'a str,
    /// What it skips.
    pub skips: &'a [String],
}

/// Why a set of entries has no order; the texts are OLM's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    /// Every entry is replaced by another.
    #[error(
        "no channel heads (entries not replaced by another entry) found in channel {} of package {}",
        quote(.channel),
        quote(.package)
    )]
    NoHeads {
        /// The package.
        package: String,
        /// The channel.
        channel: String,
    },
    /// The `replaces` walk from `head` comes back on itself.
    #[error(
        "a cycle exists in the chain of replacement beginning with {} in channel {} of package {}",
        quote(.head),
        quote(.channel),
        quote(.package)
    )]
    Cycle {
        /// The head the walk started from.
        head: String,
        /// The package.
        package: String,
        /// The channel.
        channel: String,
    },
    /// Several heads: the chains, each as `first...last` (or its one name).
    #[error(
        "a unique replacement chain within a channel is required to determine the relative order between channel entries, but {} replacement chains were found in channel {} of package {}: {}",
        .chains.len(),
        quote(.channel),
        quote(.package),
        .chains.join(", ")
    )]
    SeveralChains {
        /// The package.
        package: String,
        /// The channel.
        channel: String,
        /// Each chain, summarised.
        chains: Vec<String>,
    },
}

/// The entries of `entries` in OLM v0's preference order (see the module docs),
/// as indices into `entries`.
pub fn sort_channel(
    entries: &[ChainEntry],
    package: &str,
    channel: &str,
) -> Result<Vec<usize>, OrderError> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    // A later entry of the same name wins, as Go's map assignment does.
    let by_name: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name, i))
        .collect();
    let mut replaced = vec![false; entries.len()];
    let mut replaces: HashMap<usize, usize> = HashMap::new();
    let mut skipped: HashSet<&str> = HashSet::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(&r) = by_name.get(e.replaces).filter(|_| !e.replaces.is_empty()) {
            replaced[r] = true;
            replaces.insert(i, r);
        }
        for skip in e.skips {
            if let Some(&r) = by_name.get(skip.as_str()) {
                replaced[r] = true;
                skipped.insert(skip.as_str());
            }
        }
    }
    let heads: Vec<usize> = (0..entries.len()).filter(|&i| !replaced[i]).collect();
    if heads.is_empty() {
        return Err(OrderError::NoHeads {
            package: package.to_owned(),
            channel: channel.to_owned(),
        });
    }
    let mut chains = Vec::with_capacity(heads.len());
    for &head in &heads {
        chains.push(
            walk(entries, head, &replaces, &skipped).ok_or_else(|| OrderError::Cycle {
                head: entries[head].name.to_owned(),
                package: package.to_owned(),
                channel: channel.to_owned(),
            })?,
        );
    }
    if chains.len() > 1 {
        return Err(OrderError::SeveralChains {
            package: package.to_owned(),
            channel: channel.to_owned(),
            chains: chains.iter().map(|c| summary(entries, c)).collect(),
        });
    }
    Ok(chains.swap_remove(0))
}

/// The walk from `head` along `replaces`, skipped entries left out; `None` on a cycle.
fn walk(
    entries: &[ChainEntry],
    head: usize,
    replaces: &HashMap<usize, usize>,
    skipped: &HashSet<&str>,
) -> Option<Vec<usize>> {
    let mut chain = Vec::new();
    let mut visited = vec![false; entries.len()];
    let mut current = head;
    loop {
        visited[current] = true;
        if !skipped.contains(entries[current].name) {
            chain.push(current);
        }
        match replaces.get(&current) {
            None => return Some(chain),
            Some(&next) if visited[next] => return None,
            Some(&next) => current = next,
        }
    }
}

/// `first...last`, the one name, or `[]` (a chain of skipped entries only), as OLM writes it.
fn summary(entries: &[ChainEntry], chain: &[usize]) -> String {
    match chain {
        [] => "[]".to_owned(),
        [one] => entries[*one].name.to_owned(),
        [first, .., last] => format!("{}...{}", entries[*first].name, entries[*last].name),
    }
}

#[cfg(test)]
mod tests;
