//! Properties of every resolution over random small catalogs: the same
//! answer twice, the same answer with and without explaining, an answer that
//! keeps OLM's rules (one bundle per package, one provider per API, every
//! subscription served, every required API provided), and an unsatisfiable
//! answer that comes with a non-empty irreducible set. And no rule text
//! crashes the CEL compiler.

use crate::resolve::cel::CelRule;
use crate::resolve::request::parse;
use crate::resolve::{Limits, Outcome, resolve, resolve_explained};
use crate::tables::Tables;
use proptest::prelude::*;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// A package: how many bundles in its one channel, which API kinds each
/// provides and requires (kinds are `K0`..`K3`, group `k.io`, version v1).
#[derive(Clone, Debug)]
struct Pkg {
    bundles: Vec<(Vec<u8>, Vec<u8>)>,
}

fn pkg() -> impl Strategy<Value = Pkg> {
    let kinds = || proptest::collection::vec(0u8..4, 0..2);
    proptest::collection::vec((kinds(), kinds()), 1..4).prop_map(|bundles| Pkg { bundles })
}

fn gvk(kind: u8) -> serde_json::Value {
    json!({"group": "k.io", "version": "v1", "kind": format!("K{kind}")})
}

/// The catalog (packages `p0`, `p1`, ...) and its tables.
fn catalog(pkgs: &[Pkg]) -> Tables {
    let mut docs = Vec::new();
    for (i, p) in pkgs.iter().enumerate() {
        let name = format!("p{i}");
        docs.push(json!({"schema": "olm.package", "name": name, "defaultChannel": "stable"}));
        let entries: Vec<_> = (0..p.bundles.len())
            .map(|v| match v {
                0 => json!({"name": format!("{name}.v{v}")}),
                _ => json!({"name": format!("{name}.v{v}"), "replaces": format!("{name}.v{}", v - 1)}),
            })
            .collect();
        docs.push(
            json!({"schema": "olm.channel", "package": name, "name": "stable", "entries": entries}),
        );
        for (v, (provides, requires)) in p.bundles.iter().enumerate() {
            let mut props = vec![
                json!({"type": "olm.package", "value": {"packageName": name, "version": format!("{v}.0.0")}}),
            ];
            props.extend(
                provides
                    .iter()
                    .map(|&k| json!({"type": "olm.gvk", "value": gvk(k)})),
            );
            props.extend(
                requires
                    .iter()
                    .map(|&k| json!({"type": "olm.gvk.required", "value": gvk(k)})),
            );
            docs.push(
                json!({"schema": "olm.bundle", "package": name, "name": format!("{name}.v{v}"),
                "image": format!("x/{name}:{v}"), "properties": props}),
            );
        }
    }
    let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
    crate::tables::testing::from_text("catalog.json", &text).expect("generated catalogs are valid")
}

/// What each bundle provides and requires, by name.
fn apis(pkgs: &[Pkg]) -> BTreeMap<String, (Vec<u8>, Vec<u8>)> {
    let mut out = BTreeMap::new();
    for (i, p) in pkgs.iter().enumerate() {
        for (v, b) in p.bundles.iter().enumerate() {
            out.insert(format!("p{i}.v{v}"), b.clone());
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_answer_keeps_olms_rules(
        pkgs in proptest::collection::vec(pkg(), 1..5),
        subs in proptest::collection::btree_set(0usize..5, 1..3),
    ) {
        let tables = catalog(&pkgs);
        let subs: Vec<usize> = subs.into_iter().filter(|&s| s < pkgs.len()).collect();
        prop_assume!(!subs.is_empty());
        let request = json!({"catalog": {"name": "cat"}, "subscriptions":
            subs.iter().map(|s| json!({"package": format!("p{s}"), "channel": "stable"})).collect::<Vec<_>>()});
        let request = parse(&request.to_string()).expect("request");
        let limits = Limits::default();
        let first = resolve(&[&tables], &request, &limits).expect("resolves");
        prop_assert_eq!(&first, &resolve(&[&tables], &request, &limits).expect("resolves"));
        let (explained, why) = resolve_explained(&[&tables], &request, &limits).expect("resolves");
        prop_assert_eq!(&first, &explained);
        match first {
            Outcome::Resolved(ops) => {
                let apis = apis(&pkgs);
                let packages: BTreeSet<&str> = ops.iter().map(|o| o.package.as_str()).collect();
                prop_assert_eq!(packages.len(), ops.len(), "one bundle per package");
                for s in &subs {
                    prop_assert!(packages.contains(format!("p{s}").as_str()), "subscription p{} served", s);
                }
                let mut provided = BTreeMap::new();
                for o in &ops {
                    for k in &apis[&o.name].0 {
                        prop_assert!(provided.insert(*k, &o.name).is_none(), "one provider of K{}", k);
                    }
                }
                for o in &ops {
                    for k in &apis[&o.name].1 {
                        prop_assert!(provided.contains_key(k), "{} needs K{}", o.name, k);
                    }
                }
                prop_assert_eq!(why.choices.len(), ops.len());
            }
            Outcome::Unsatisfiable { constraints, .. } => {
                prop_assert!(!constraints.is_empty());
                prop_assert!(!why.minimal_unsat_constraints.is_empty());
                prop_assert!(why.minimal_unsat_constraints.len() <= constraints.len(), "shrunk from the core");
            }
        }
    }

    #[test]
    fn no_rule_text_crashes_the_cel_compiler(rule in "[a-z_.()\\[\\]{}<>=!&|+*/%?:,'\" 0-9-]{0,60}") {
        let _ = CelRule::compile(&rule);
    }
}
