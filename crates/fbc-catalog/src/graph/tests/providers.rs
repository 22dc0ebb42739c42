//! OLM v1 across catalogs: operator-controller's `CatalogResolver.Resolve` rules
//! (deprecation first, then priority, a tie at the top an error) and its texts.

use super::super::providers::{CatalogInput, Providers, Standing, providers};
use super::super::successors::SuccessorQuery;
use super::*;

/// Package `p` in channel `stable` with bundles of these versions (each replacing the one before).
fn catalog_of(versions: &[&str], deprecated: &[&str]) -> Tables {
    let mut entries = Vec::new();
    let mut bundles = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        let name = format!("p.v{v}");
        entries.push(match i {
            0 => format!("{{name: {name}}}"),
            _ => format!("{{name: {name}, replaces: p.v{}}}", versions[i - 1]),
        });
        bundles.push((name, v.to_string()));
    }
    let entries: Vec<&str> = entries.iter().map(String::as_str).collect();
    let bundles: Vec<(&str, &str)> = bundles
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let mut docs = one_channel(&entries, &bundles);
    if !deprecated.is_empty() {
        let mut d = "schema: olm.deprecations\npackage: p\nentries:\n".to_string();
        for name in deprecated {
            d.push_str(&format!(
                "  - reference: {{schema: olm.bundle, name: {name}}}\n    message: {name} is old\n"
            ));
        }
        docs.push(d);
    }
    tables(&docs)
}

fn other_package() -> Tables {
    tables(&[
        package("q", "stable"),
        channel("q", "stable", &["{name: q.v1}"]),
        bundle("q", "q.v1", "1.0.0"),
    ])
}

fn ask(catalogs: &[(&str, i32, &Tables)], range: Option<&str>) -> Providers {
    let inputs: Vec<CatalogInput<'_>> = catalogs
        .iter()
        .map(|(name, priority, tables)| CatalogInput {
            name,
            priority: *priority,
            tables,
        })
        .collect();
    let q = SuccessorQuery {
        package: "p".into(),
        version_range: range.map(str::to_string),
        ..Default::default()
    };
    providers(&inputs, &q).expect("an answer")
}

fn standings(p: &Providers) -> Vec<(&str, Standing)> {
    p.catalogs
        .iter()
        .map(|v| (v.catalog.as_str(), v.standing))
        .collect()
}

#[test]
fn the_higher_priority_wins_even_with_a_lower_version() {
    let (old, new) = (
        catalog_of(&["1.0.0"], &[]),
        catalog_of(&["1.0.0", "2.0.0"], &[]),
    );
    let p = ask(&[("community", 0, &new), ("mirror", 10, &old)], None);
    assert_eq!(p.catalog.as_deref(), Some("mirror"));
    assert_eq!(p.bundle.as_deref(), Some("p.v1.0.0"));
    assert_eq!(p.message, None);
    assert_eq!(
        standings(&p),
        [
            ("mirror", Standing::Chosen),
            ("community", Standing::Outranked)
        ]
    );
    assert!(
        p.catalogs[1].reason.contains("priority 0 is lower than 10"),
        "{p:?}"
    );
}

#[test]
fn equal_priorities_are_operator_controllers_ambiguity_error() {
    let (a, b) = (catalog_of(&["1.0.0"], &[]), catalog_of(&["2.0.0"], &[]));
    let low = other_package();
    let p = ask(
        &[("b", 5, &b), ("a", 5, &a), ("c", 0, &low)],
        Some(">=1.0.0"),
    );
    assert_eq!(p.catalog, None);
    assert_eq!(
        p.message.as_deref(),
        Some(
            r#"found bundles for package "p" matching version ">=1.0.0" in multiple catalogs with the same priority [a b]"#
        )
    );
    assert_eq!(
        standings(&p),
        [
            ("a", Standing::Tied),
            ("b", Standing::Tied),
            ("c", Standing::NoPackage)
        ]
    );
}

#[test]
fn a_tie_at_the_top_names_every_catalog_kept_even_lower_ones() {
    // operator-controller keeps every offer when the top two tie, so its message
    // lists the lower one too.
    let t = catalog_of(&["1.0.0"], &[]);
    let p = ask(&[("a", 1, &t), ("b", 1, &t), ("c", 0, &t)], None);
    assert_eq!(
        p.message.as_deref(),
        Some(
            r#"found bundles for package "p" in multiple catalogs with the same priority [a b c]"#
        )
    );
}

#[test]
fn a_non_deprecated_offer_beats_a_deprecated_one_of_higher_priority() {
    let deprecated = catalog_of(&["1.0.0", "2.0.0"], &["p.v2.0.0", "p.v1.0.0"]);
    let fine = catalog_of(&["1.0.0"], &[]);
    let p = ask(&[("a", 100, &deprecated), ("b", 0, &fine)], None);
    assert_eq!(p.catalog.as_deref(), Some("b"));
    assert_eq!(
        standings(&p),
        [("b", Standing::Chosen), ("a", Standing::Deprecated)]
    );
    assert!(p.catalogs[1].deprecated);
}

#[test]
fn inside_a_catalog_a_non_deprecated_bundle_comes_first() {
    let t = catalog_of(&["1.0.0", "2.0.0"], &["p.v2.0.0"]);
    let p = ask(&[("a", 0, &t)], None);
    assert_eq!(p.bundle.as_deref(), Some("p.v1.0.0"));
    assert_eq!(p.catalogs[0].candidates, 2);
}

#[test]
fn nothing_anywhere_is_the_no_bundles_message() {
    let t = catalog_of(&["1.0.0"], &[]);
    let q = other_package();
    let p = ask(&[("a", 0, &t), ("b", 0, &q)], Some(">=2.0.0"));
    assert_eq!(
        p.message.as_deref(),
        Some(r#"no bundles found for package "p" matching version ">=2.0.0""#)
    );
    assert_eq!(
        standings(&p),
        [("a", Standing::NoMatch), ("b", Standing::NoPackage)]
    );
}

#[test]
fn a_range_that_does_not_parse_is_an_error_not_a_verdict() {
    let t = catalog_of(&["1.0.0"], &[]);
    let inputs = [CatalogInput {
        name: "a",
        priority: 0,
        tables: &t,
    }];
    let q = SuccessorQuery {
        package: "p".into(),
        version_range: Some(">=>1".into()),
        ..Default::default()
    };
    assert!(providers(&inputs, &q).is_err());
}

mod property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// For any set of catalogs (has the package? deprecated offer? priority), the
        /// answer follows operator-controller's rule: the best deprecation class is kept;
        /// its highest priority wins when unique, else the tie error names every kept one.
        #[test]
        fn the_choice_is_the_unique_top_priority_of_the_best_offers(
            shape in proptest::collection::vec((any::<bool>(), any::<bool>(), -2i32..3), 1..6)
        ) {
            let fine = catalog_of(&["1.0.0"], &[]);
            let deprecated = catalog_of(&["1.0.0"], &["p.v1.0.0"]);
            let absent = other_package();
            let names: Vec<String> = (0..shape.len()).map(|i| format!("c{i}")).collect();
            let catalogs: Vec<(&str, i32, &Tables)> = shape
                .iter()
                .zip(&names)
                .map(|((has, dep, prio), name)| {
                    let t = match (has, dep) {
                        (false, _) => &absent,
                        (true, true) => &deprecated,
                        (true, false) => &fine,
                    };
                    (name.as_str(), *prio, t)
                })
                .collect();
            let p = ask(&catalogs, None);
            let offers: Vec<(usize, bool, i32)> = shape
                .iter()
                .enumerate()
                .filter(|(_, (has, _, _))| *has)
                .map(|(i, (_, dep, prio))| (i, *dep, *prio))
                .collect();
            let best_class = offers.iter().any(|o| !o.1);
            let kept: Vec<&(usize, bool, i32)> =
                offers.iter().filter(|o| o.1 != best_class || offers.iter().all(|x| x.1)).collect();
            let top = kept.iter().map(|o| o.2).max();
            let at_top: Vec<&&(usize, bool, i32)> =
                kept.iter().filter(|o| Some(o.2) == top).collect();
            match at_top.as_slice() {
                [] => prop_assert!(p.catalog.is_none() && p.message.is_some()),
                [one] => prop_assert_eq!(p.catalog.clone(), Some(names[one.0].clone())),
                _ => {
                    prop_assert!(p.catalog.is_none());
                    let message = p.message.clone().unwrap_or_default();
                    prop_assert!(message.contains("same priority"), "{}", message);
                    for o in &kept {
                        prop_assert!(message.contains(&names[o.0]), "{} lacks {}", message, names[o.0]);
                    }
                }
            }
            prop_assert_eq!(p.catalogs.len(), shape.len());
        }
    }
}
