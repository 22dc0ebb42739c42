//! Per-package checks that need the whole package: default channel, channel heads,
//! replaces chains, stranded bundles, channel membership and duplicate versions.
//!
//! The upgrade-graph rules, as the reference applies them:
//!
//! 1. **Head**: count an incoming edge for every non-empty `replaces` and every
//!    `skips` name (targets need not exist). Entries with none are heads; there
//!    must be exactly one. `skipRange` plays no part.
//! 2. **Chain**: from the head, follow `replaces` while the target is an entry of the
//!    channel that no entry skips. Reaching an entry twice is a cycle.
//! 3. **Stranded**: every entry must be on the chain or skipped by some entry.
//!
//! Rule 2's stop at a skipped entry came with opm v1.58.0. opm before it
//! (v1.32, which OLM's own pods run, included) follows `replaces` through
//! skipped entries, so entries below a skipped one are on its chain; OLM's
//! resolver orders such a channel the same way. [`ChainRule::Legacy`] accepts
//! those channels, reporting them as warnings instead of errors.

use super::builder::PackageDraft;
use super::{ChainRule, Channel, Diagnostic, Kind, Package};
use crate::version_range::blang;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What checking a package found: errors, and (under [`ChainRule::Legacy`])
/// problems accepted with a warning.
pub(super) struct Findings<'a> {
    /// Problems that make the catalog invalid.
    pub(super) errors: &'a mut Vec<Diagnostic>,
    /// Problems the rule in force accepts.
    pub(super) warnings: &'a mut Vec<Diagnostic>,
    /// The replaces-chain rule in force.
    pub(super) rule: ChainRule,
}

pub(super) fn finish_package(
    name: &str,
    draft: PackageDraft,
    found: &mut Findings,
) -> Option<Package> {
    let diags = &mut *found.errors;
    let PackageDraft {
        package,
        channels,
        mut bundles,
        broken_bundles,
        bundle_deprecations,
        channel_deprecations,
        ..
    } = draft;
    let mut package = package?;
    check_default_channel(name, &package, &channels, diags);
    let known = |entry: &str| bundles.contains_key(entry) || broken_bundles.contains(entry);
    let mut in_some_channel: BTreeSet<String> = BTreeSet::new();
    let mut finished = Vec::with_capacity(channels.len());
    for (channel_name, mut channel) in channels {
        if !check_channel(name, &channel, &known, diags) {
            continue;
        }
        in_some_channel.extend(channel.entries.iter().map(|e| e.name.clone()));
        match graph_problem(&channel.entries) {
            Ok(head) => channel.head = head,
            Err(message) => {
                let problem = channel_error(name, &channel, message).kind(Kind::Graph);
                match (found.rule, legacy_head(&channel.entries)) {
                    (ChainRule::Legacy, Some(head)) => {
                        channel.head = head;
                        found.warnings.push(problem.hint(Some(LEGACY_NOTE.into())));
                    }
                    (ChainRule::Current, Some(_)) => {
                        diags.push(problem.hint(Some(LEGACY_NOTE.into())));
                    }
                    (_, None) => diags.push(problem.hint(head_hint(&channel.entries))),
                }
            }
        }
        channel.deprecation = channel_deprecations.get(&channel_name).cloned();
        finished.push(channel);
    }
    for bundle in bundles.values_mut() {
        if !in_some_channel.contains(&bundle.name) {
            diags.push(
                Diagnostic::at(
                    Kind::Reference,
                    Some(&bundle.origin),
                    format!(
                        "package {name:?}, bundle {:?} not found in any channel entries",
                        bundle.name
                    ),
                )
                .package(name)
                .bundle(&bundle.name),
            );
        }
        bundle.deprecation = bundle_deprecations.get(&bundle.name).cloned();
    }
    check_duplicate_versions(name, &package, &bundles, diags);
    package.channels = finished;
    package.bundles = bundles.into_values().collect();
    Some(package)
}

fn package_error(name: &str, package: &Package, message: String) -> Diagnostic {
    Diagnostic::at(Kind::Invalid, Some(&package.origin), message).package(name)
}

fn channel_error(package: &str, channel: &Channel, message: String) -> Diagnostic {
    Diagnostic::at(Kind::Invalid, Some(&channel.origin), message)
        .package(package)
        .channel(&channel.name)
}

fn check_default_channel(
    name: &str,
    package: &Package,
    channels: &BTreeMap<String, Channel>,
    diags: &mut Vec<Diagnostic>,
) {
    if package.default_channel.is_empty() {
        diags.push(
            package_error(name, package, "default channel must be set".into())
                .field("defaultChannel"),
        );
    } else if !channels.contains_key(&package.default_channel) {
        diags.push(
            package_error(
                name,
                package,
                format!(
                    "default channel {:?} not found in channels list (channels: {})",
                    package.default_channel,
                    channels.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )
            .kind(Kind::Reference)
            .field("defaultChannel"),
        );
    }
    if channels.is_empty() {
        diags.push(package_error(
            name,
            package,
            "package must contain at least one channel".into(),
        ));
    }
}

/// Checks a channel's entries (blobs exist, skips, skipRanges); false when the
/// channel is empty and takes no further part.
fn check_channel(
    package: &str,
    channel: &Channel,
    known: &dyn Fn(&str) -> bool,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let err = |m: String| channel_error(package, channel, m);
    let missing: Vec<&str> = channel
        .entries
        .iter()
        .filter(|e| !known(&e.name))
        .map(|e| e.name.as_str())
        .collect();
    if !missing.is_empty() {
        diags.push(
            err(format!(
                "no olm.bundle blobs found in package {package:?} for olm.channel entries [{}]",
                missing.join(" ")
            ))
            .kind(Kind::Reference)
            .field("entries"),
        );
    }
    if channel.entries.is_empty() {
        diags.push(err("channel must contain at least one bundle".into()).field("entries"));
        return false;
    }
    for entry in &channel.entries {
        let e_err = |m: String| err(m).bundle(&entry.name);
        for (i, skip) in entry.skips.iter().enumerate() {
            if skip.is_empty() {
                diags.push(e_err(format!("skip[{i}] is empty")).field(format!("skips[{i}]")));
            }
        }
        if !entry.skip_range.is_empty()
            && let Err(e) = blang::parse(&entry.skip_range)
        {
            diags.push(
                e_err(format!("invalid skipRange {:?}: {e}", entry.skip_range)).field("skipRange"),
            );
        }
    }
    true
}

/// Two bundles of a package may not share a version (with its release).
fn check_duplicate_versions(
    name: &str,
    package: &Package,
    bundles: &BTreeMap<String, super::Bundle>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut by_version: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for bundle in bundles.values() {
        let mut v = bundle.version.to_string();
        if let Some(r) = &bundle.release {
            v.push('-');
            v.push_str(r);
        }
        by_version.entry(v).or_default().push(&bundle.name);
    }
    let dups: Vec<String> = by_version
        .iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(v, names)| format!("{{{v}: [{}]}}", names.join(", ")))
        .collect();
    if !dups.is_empty() {
        diags.push(
            package_error(
                name,
                package,
                format!("duplicate versions found in bundles: [{}]", dups.join(" ")),
            )
            .kind(Kind::Duplicate),
        );
    }
}

/// What a warning under [`ChainRule::Legacy`] adds to opm's message.
pub const LEGACY_NOTE: &str = "opm before v1.58.0 (v1.32 included) accepts this channel: its replaces chain runs on through skipped entries, and OLM resolves it that way; opm validate since v1.58.0 refuses it";

/// Checks one channel's upgrade graph under today's rule; returns the index of
/// the head entry.
pub(crate) fn graph_problem(entries: &[super::Entry]) -> Result<usize, String> {
    chain_check(entries, false)
}

/// The head of a channel opm before v1.58.0 accepts (its chain walk goes on
/// through skipped entries); `None` when that opm refuses it too.
pub(crate) fn legacy_head(entries: &[super::Entry]) -> Option<usize> {
    chain_check(entries, true).ok()
}

/// The chain rules, with the walk stopping at a skipped entry (today) or going
/// on through it (`through_skipped`, opm before v1.58.0).
fn chain_check(entries: &[super::Entry], through_skipped: bool) -> Result<usize, String> {
    let mut incoming: HashMap<&str, usize> = HashMap::new();
    let mut skipped: BTreeSet<&str> = BTreeSet::new();
    for e in entries {
        if !e.replaces.is_empty() {
            *incoming.entry(&e.replaces).or_default() += 1;
        }
        for s in &e.skips {
            *incoming.entry(s).or_default() += 1;
            skipped.insert(s);
        }
    }
    let heads: Vec<usize> = (0..entries.len())
        .filter(|i| !incoming.contains_key(entries[*i].name.as_str()))
        .collect();
    let head = match heads.as_slice() {
        [] => return Err("no channel head found in graph".into()),
        [h] => *h,
        many => {
            let mut names: Vec<&str> = many.iter().map(|i| entries[*i].name.as_str()).collect();
            names.sort_unstable();
            return Err(format!(
                "multiple channel heads found in graph: {}",
                names.join(", ")
            ));
        }
    };
    let index: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    let mut on_chain: BTreeSet<&str> = BTreeSet::new();
    let mut path: Vec<&str> = Vec::new();
    let mut cur = Some(head);
    while let Some(i) = cur {
        let e = &entries[i];
        path.push(&e.name);
        if !on_chain.insert(&e.name) {
            return Err(format!(
                "detected cycle in replaces chain of upgrade graph: {}",
                path.join(" -> ")
            ));
        }
        let stops = !through_skipped && skipped.contains(e.replaces.as_str());
        cur = if e.replaces.is_empty() || stops {
            None
        } else {
            index.get(e.replaces.as_str()).copied()
        };
    }
    let mut stranded: Vec<&str> = entries
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| !on_chain.contains(n) && !skipped.contains(n))
        .collect();
    if !stranded.is_empty() {
        stranded.sort_unstable();
        return Err(format!(
            "channel contains one or more stranded bundles: {}",
            stranded.join(", ")
        ));
    }
    Ok(head)
}

/// Which entries make a channel have several heads or none, in plain words
/// (`None` when it has exactly one).
pub(crate) fn head_hint(entries: &[super::Entry]) -> Option<String> {
    // Who upgrades from each name: (the newer entry, how).
    let mut upgraded_by: HashMap<&str, (&str, &str)> = HashMap::new();
    for e in entries {
        if !e.replaces.is_empty() {
            upgraded_by
                .entry(&e.replaces)
                .or_insert((&e.name, "replaced"));
        }
        for s in &e.skips {
            upgraded_by.entry(s).or_insert((&e.name, "skipped"));
        }
    }
    let mut heads: Vec<&str> = entries
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| !upgraded_by.contains_key(n))
        .collect();
    heads.sort_unstable();
    match heads.len() {
        1 => None,
        0 => {
            let start = entries.first()?.name.as_str();
            let mut seen: Vec<&str> = vec![start];
            let mut steps = Vec::new();
            let mut current = start;
            while let Some(&(by, how)) = upgraded_by.get(current) {
                steps.push(format!("{current} is {how} by {by}"));
                if seen.contains(&by) {
                    break;
                }
                seen.push(by);
                current = by;
            }
            Some(format!(
                "every entry is replaced or skipped by another, so none can be the head: {}; break the cycle",
                steps.join(", ")
            ))
        }
        _ => Some(format!(
            "nothing replaces or skips any of {}, so each is a head; make the newest entry replace or skip the others (or their chains' heads)",
            heads.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Entry;
    use super::graph_problem;
    use proptest::prelude::*;

    fn e(name: &str, replaces: &str, skips: &[&str]) -> Entry {
        Entry {
            name: name.into(),
            replaces: replaces.into(),
            skips: skips.iter().map(|s| s.to_string()).collect(),
            skip_range: String::new(),
        }
    }

    #[test]
    fn linear_chain_has_its_newest_entry_as_head() {
        let entries = [e("a", "", &[]), e("b", "a", &[]), e("c", "b", &[])];
        assert_eq!(graph_problem(&entries), Ok(2));
    }

    #[test]
    fn tail_may_replace_an_absent_bundle() {
        assert_eq!(graph_problem(&[e("b", "a", &[])]), Ok(0));
    }

    #[test]
    fn two_heads_are_named_sorted() {
        let r = graph_problem(&[e("z", "", &[]), e("a", "", &[])]);
        assert_eq!(r, Err("multiple channel heads found in graph: a, z".into()));
    }

    #[test]
    fn a_cycle_has_no_head() {
        let entries = [e("a", "b", &[]), e("b", "a", &[])];
        assert_eq!(
            graph_problem(&entries),
            Err("no channel head found in graph".into())
        );
        assert_eq!(
            super::head_hint(&entries).as_deref(),
            Some(
                "every entry is replaced or skipped by another, so none can be the head: a is replaced by b, b is replaced by a; break the cycle"
            )
        );
    }

    #[test]
    fn several_heads_are_named_in_the_hint() {
        let entries = [e("z", "", &[]), e("a", "", &[]), e("b", "a", &[])];
        let hint = super::head_hint(&entries).expect("hint");
        assert!(
            hint.starts_with("nothing replaces or skips any of b, z, so each is a head"),
            "{hint}"
        );
        assert_eq!(super::head_hint(&[e("b", "a", &[]), e("a", "", &[])]), None);
    }

    #[test]
    fn a_cycle_below_the_head_is_reported_with_its_path() {
        let r = graph_problem(&[e("h", "a", &[]), e("a", "b", &[]), e("b", "a", &[])]);
        assert_eq!(
            r,
            Err("detected cycle in replaces chain of upgrade graph: h -> a -> b -> a".into())
        );
    }

    #[test]
    fn skipped_entries_are_not_stranded() {
        let entries = [e("a", "", &[]), e("b", "", &["a"])];
        assert_eq!(graph_problem(&entries), Ok(1));
    }

    #[test]
    fn unreachable_entries_are_stranded() {
        let entries = [
            e("a", "", &[]),
            e("x", "", &["q"]),
            e("c", "a", &["x"]),
            e("d", "", &["c"]),
        ];
        // d is head, skips c; the chain stops at d; a is neither on the chain nor skipped.
        assert_eq!(
            graph_problem(&entries),
            Err("channel contains one or more stranded bundles: a".into())
        );
    }

    proptest! {
        /// Any linear replaces chain, given in any order, is valid and headed by its last link.
        #[test]
        fn shuffled_linear_chains_are_valid(n in 1usize..30, seed in any::<u64>()) {
            let mut entries: Vec<Entry> = (0..n)
                .map(|i| e(&format!("b{i}"), &if i == 0 { String::new() } else { format!("b{}", i - 1) }, &[]))
                .collect();
            // deterministic shuffle
            let mut s = seed;
            for i in (1..entries.len()).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                entries.swap(i, (s >> 33) as usize % (i + 1));
            }
            let head = graph_problem(&entries).expect("valid chain");
            prop_assert_eq!(&entries[head].name, &format!("b{}", n - 1));
        }

        /// Closing a chain into a loop is always rejected.
        #[test]
        fn loops_are_always_rejected(n in 1usize..20) {
            let entries: Vec<Entry> = (0..n)
                .map(|i| e(&format!("b{i}"), &format!("b{}", (i + n - 1) % n), &[]))
                .collect();
            prop_assert!(graph_problem(&entries).is_err());
        }

        /// The graph check never panics on arbitrary small graphs.
        #[test]
        fn arbitrary_graphs_never_panic(edges in proptest::collection::vec((0u8..6, 0u8..7, proptest::collection::vec(0u8..7, 0..3)), 0..8)) {
            let entries: Vec<Entry> = edges.iter().map(|(n, r, s)| Entry {
                name: format!("b{n}"),
                replaces: if *r == 6 { String::new() } else { format!("b{r}") },
                skips: s.iter().map(|x| format!("b{x}")).collect(),
                skip_range: String::new(),
            }).collect();
            let _ = graph_problem(&entries);
        }
    }
}
