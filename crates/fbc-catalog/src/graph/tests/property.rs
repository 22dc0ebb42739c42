//! Property tests: on random channels (a `replaces` chain with random `skips` and
//! skipRanges), the indexed answers equal a brute-force reading of the rules,
//! and every walk ends.

use super::super::EdgeKind;
use super::super::successors::{Installed, SuccessorQuery, successors};
use super::super::upgrade_path::{Outcome, PathQuery, Semantics, upgrade_path};
use super::*;
use crate::model::Entry;
use crate::tables::ChannelRef;
use crate::version_range::blang;
use proptest::prelude::*;

/// A random valid channel: bundle `i` has version `1.i.0` and replaces bundle
/// `i-1`; the entries below a random cut `k` are all skipped by newer entries
/// (validation wants that: the chain stops at a skipped entry, and what is
/// below it must be skipped too), others skip absent names; some entries carry
/// a skipRange.
#[derive(Clone, Debug)]
struct RandomChannel {
    skips: Vec<Vec<usize>>,
    ranges: Vec<Option<(usize, usize)>>,
}

fn random_channel() -> impl Strategy<Value = RandomChannel> {
    (2usize..9).prop_flat_map(|n| {
        (
            0..n,
            proptest::collection::vec(0usize..64, n),
            proptest::collection::vec(proptest::collection::vec(0..n + 2, 0..3), n),
            proptest::collection::vec(proptest::option::of((0..n + 1, 0..n + 2)), n),
        )
            .prop_map(move |(k, skipper, extra, ranges)| {
                let mut skips: Vec<Vec<usize>> = extra
                    .into_iter()
                    .enumerate()
                    .map(|(i, list)| {
                        list.into_iter()
                            .filter(|&s| (s < k && s < i) || s >= n)
                            .collect()
                    })
                    .collect();
                for (j, r) in skipper.iter().enumerate().take(k) {
                    skips[j + 1 + r % (n - 1 - j)].push(j);
                }
                RandomChannel { skips, ranges }
            })
    })
}

fn name(i: usize) -> String {
    format!("p.v{i}")
}

fn catalog(c: &RandomChannel) -> Tables {
    let n = c.skips.len();
    let mut entries = Vec::new();
    for i in 0..n {
        let mut e = format!("{{name: {}", name(i));
        if i > 0 {
            e.push_str(&format!(", replaces: {}", name(i - 1)));
        }
        let mut skips: Vec<String> = c.skips[i].iter().map(|&s| name(s)).collect();
        skips.dedup();
        if !skips.is_empty() {
            e.push_str(&format!(", skips: [{}]", skips.join(", ")));
        }
        if let Some((lo, hi)) = c.ranges[i] {
            e.push_str(&format!(", skipRange: '>=1.{lo}.0 <1.{hi}.0'"));
        }
        e.push('}');
        entries.push(e);
    }
    let versions: Vec<(String, String)> = (0..n).map(|i| (name(i), format!("1.{i}.0"))).collect();
    let bundles: Vec<(&str, &str)> = versions
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let entry_refs: Vec<&str> = entries.iter().map(String::as_str).collect();
    tables(&one_channel(&entry_refs, &bundles))
}

/// Brute force: does `e` have a direct edge from bundle `from` at `version`?
fn edge_from(e: &Entry, from: &str, version: &semver::Version) -> bool {
    e.name != from
        && (e.replaces == from
            || e.skips.iter().any(|s| s == from)
            || (!e.skip_range.is_empty()
                && blang::parse(&e.skip_range).is_ok_and(|r| r.matches(version))))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn successors_are_exactly_the_entries_with_a_direct_edge(c in random_channel()) {
        let t = catalog(&c);
        let (_, p) = t.package("p").expect("package");
        for b in &p.bundles {
            let q = SuccessorQuery {
                package: "p".into(),
                installed: Some(Installed { name: b.name.clone(), version: b.version_text.clone(), release: None }),
                ..SuccessorQuery::default()
            };
            let s = successors(&t, &q).expect("answer");
            let mut got: Vec<&str> = s.candidates.iter()
                .filter(|c| c.edges.iter().any(|e| e.kind != EdgeKind::SameVersion))
                .map(|c| c.name.as_str()).collect();
            got.sort();
            let mut want: Vec<&str> = p.channels[0].entries.iter()
                .filter(|e| edge_from(e, &b.name, &b.version)).map(|e| e.name.as_str()).collect();
            want.sort();
            prop_assert_eq!(got, want);
            let versions: Vec<semver::Version> = s.candidates.iter()
                .map(|c| semver::Version::parse(&c.version).expect("version")).collect();
            prop_assert!(versions.windows(2).all(|w| w[0] >= w[1]), "highest first");
            // Explaining judges every bundle; not explaining skips the hopeless
            // ones early: the candidates must be the same.
            let explained = successors(&t, &SuccessorQuery { explain: true, ..q }).expect("answer");
            prop_assert_eq!(&explained.candidates, &s.candidates);
            prop_assert_eq!(explained.candidates.len() + explained.rejected.len(), p.bundles.len());
        }
    }

    #[test]
    fn the_v0_walk_takes_the_nearest_chain_entry_and_every_walk_ends(c in random_channel()) {
        let t = catalog(&c);
        let (pi, p) = t.package("p").expect("package");
        let channel = &p.channels[0];
        let chain: Vec<&Entry> = t.chain(ChannelRef { package: pi, channel: 0 }).iter()
            .map(|&i| &channel.entries[i as usize]).collect();
        for b in &p.bundles {
            for semantics in [Semantics::V0, Semantics::V1] {
                let q = PathQuery { package: "p".into(), from: b.name.clone(), semantics, ..PathQuery::default() };
                let path = upgrade_path(&t, &q).expect("path");
                prop_assert!(path.steps.len() <= p.bundles.len());
                let mut seen = std::collections::BTreeSet::from([b.name.clone()]);
                for step in &path.steps {
                    prop_assert!(seen.insert(step.to.clone()), "no revisits");
                }
                if path.outcome != Outcome::Stuck {
                    prop_assert_eq!(path.steps.last().map_or(&b.name, |s| &s.to), &channel.head_entry().name);
                }
                if semantics == Semantics::V0 && let Some(first) = path.steps.first() {
                    let want = chain.iter().find(|e| edge_from(e, &b.name, &b.version)).map(|e| e.name.as_str());
                    prop_assert_eq!(Some(first.to.as_str()), want);
                }
            }
        }
    }
}
