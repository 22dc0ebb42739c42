//! Resolution end to end on catalogs written here: the seed documents'
//! dependency and upgrade examples, with the answers the reference resolver
//! (OLM v0.25, `../shared/peers/olm-oracle`) gives for them.

mod property;

use super::request::parse;
use super::*;

/// One bundle of a test catalog.
pub(super) struct B {
    pub(super) name: &'static str,
    pub(super) channel: &'static str,
    pub(super) version: &'static str,
    pub(super) replaces: &'static str,
    pub(super) skips: &'static [&'static str],
    pub(super) skip_range: &'static str,
    /// Extra property lines, YAML flow.
    pub(super) props: &'static [&'static str],
}

pub(super) const fn b(name: &'static str, channel: &'static str, version: &'static str) -> B {
    B {
        name,
        channel,
        version,
        replaces: "",
        skips: &[],
        skip_range: "",
        props: &[],
    }
}

/// The catalog of `bundles` (package = the name up to its first `.`; the
/// default channel is the first bundle's), and the answer to `request`.
fn resolve_json(bundles: &[B], request: &str) -> String {
    let tables = tables_of(bundles);
    let request = parse(request).expect("request");
    match resolve(&[&tables], &request, &Limits::default()) {
        Ok(Outcome::Resolved(ops)) => serde_json::json!({ "operators": ops }).to_string(),
        Ok(Outcome::Unsatisfiable { error, constraints }) => {
            serde_json::json!({"error": error, "unsat_constraints": constraints}).to_string()
        }
        Err(e) => serde_json::json!({ "error": e.to_string() }).to_string(),
    }
}

/// The tables of the catalog of `bundles` (see [`resolve_json`]).
pub(super) fn tables_of(bundles: &[B]) -> crate::tables::Tables {
    let mut packages: Vec<&str> = Vec::new();
    let mut docs = Vec::new();
    let package_of = |b: &B| b.name.split('.').next().unwrap_or_default();
    for b in bundles {
        let p = package_of(b);
        if !packages.contains(&p) {
            packages.push(p);
            docs.push(format!(
                "schema: olm.package\nname: {p}\ndefaultChannel: {}\n",
                b.channel
            ));
        }
    }
    let mut channels: Vec<(&str, &str)> =
        bundles.iter().map(|b| (package_of(b), b.channel)).collect();
    channels.sort();
    channels.dedup();
    for (p, c) in channels {
        let mut doc = format!("schema: olm.channel\npackage: {p}\nname: {c}\nentries:\n");
        for b in bundles
            .iter()
            .filter(|b| package_of(b) == p && b.channel == c)
        {
            doc.push_str(&format!("  - name: {}\n", b.name));
            if !b.replaces.is_empty() {
                doc.push_str(&format!("    replaces: {}\n", b.replaces));
            }
            if !b.skips.is_empty() {
                doc.push_str(&format!("    skips: [{}]\n", b.skips.join(", ")));
            }
            if !b.skip_range.is_empty() {
                doc.push_str(&format!("    skipRange: '{}'\n", b.skip_range));
            }
        }
        docs.push(doc);
    }
    let mut seen = Vec::new();
    for b in bundles.iter().filter(|b| {
        let new = !seen.contains(&b.name);
        seen.push(b.name);
        new
    }) {
        let p = package_of(b);
        let mut doc = format!(
            "schema: olm.bundle\npackage: {p}\nname: {}\nimage: quay.io/{p}:{}\nproperties:\n  - {{type: olm.package, value: {{packageName: {p}, version: \"{}\"}}}}\n",
            b.name, b.version, b.version
        );
        for prop in b.props {
            doc.push_str(&format!("  - {prop}\n"));
        }
        docs.push(doc);
    }
    match crate::tables::testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

fn op(name: &str, channel: &str, replaces: &str, subscription: Option<&str>) -> serde_json::Value {
    let package = name.split('.').next().unwrap_or_default();
    let mut v = serde_json::json!({"name": name, "package": package, "channel": channel, "replaces": replaces,
        "catalog": "cat", "catalogNamespace": "olm"});
    if let Some(s) = subscription {
        v["subscription"] = s.into();
    }
    v
}

/// OLM's unsatisfiable answer naming `constraints` (sorted, as printed).
fn unsatisfiable(constraints: &[&str]) -> String {
    serde_json::json!({"error": format!("constraints not satisfiable: {}", constraints.join(", ")),
        "unsat_constraints": constraints})
    .to_string()
}

fn operators(ops: &[serde_json::Value]) -> String {
    serde_json::json!({ "operators": ops }).to_string()
}

/// Seed 000, "Operator Updates": foo 1.2.2 replaces 1.2.1 and skips 1.2.0 (the
/// seed's 1.1.0 under 1.2.0 is left out: opm validation calls it stranded).
const FOO: [B; 4] = [
    b("foo.v1.2.0", "stable", "1.2.0"),
    B {
        replaces: "foo.v1.2.0",
        ..b("foo.v1.2.1", "stable", "1.2.1")
    },
    B {
        replaces: "foo.v1.2.1",
        skips: &["foo.v1.2.0"],
        ..b("foo.v1.2.2", "stable", "1.2.2")
    },
    B {
        replaces: "foo.v1.2.2",
        ..b("foo.v1.2.3", "stable", "1.2.3")
    },
];

#[test]
fn an_installed_skipped_bundle_moves_one_hop_to_what_skips_it() {
    let got = resolve_json(
        &FOO,
        r#"{"catalog": {"name": "cat", "namespace": "olm"},
            "subscriptions": [{"name": "foo", "package": "foo", "channel": "stable", "installedCSV": "foo.v1.2.0"}],
            "installed": [{"name": "foo.v1.2.0", "package": "foo", "version": "1.2.0"}]}"#,
    );
    assert_eq!(
        got,
        operators(&[op("foo.v1.2.2", "stable", "foo.v1.2.0", Some("foo"))])
    );
}

#[test]
fn a_new_subscription_installs_the_channel_head() {
    let got = resolve_json(
        &FOO,
        r#"{"catalog": {"name": "cat"}, "subscriptions": [{"package": "foo", "channel": "stable"}]}"#,
    );
    assert_eq!(
        got,
        operators(&[op("foo.v1.2.3", "stable", "foo.v1.2.2", Some("foo"))])
    );
}

#[test]
fn a_head_with_a_missing_api_falls_back_to_the_previous_bundle() {
    let bundles = [
        b("a.v1", "stable", "1.0.0"),
        B {
            replaces: "a.v1",
            props: &["{type: olm.gvk.required, value: {group: x.io, version: v1, kind: X}}"],
            ..b("a.v2", "stable", "2.0.0")
        },
    ];
    let got = resolve_json(
        &bundles,
        r#"{"catalog": {"name": "cat"}, "subscriptions": [{"package": "a", "channel": "stable"}]}"#,
    );
    assert_eq!(got, operators(&[op("a.v1", "stable", "", Some("a"))]));
}

#[test]
fn a_dependency_is_installed_from_its_providers_default_channel() {
    let bundles = [
        B {
            props: &["{type: olm.gvk.required, value: {group: d.io, version: v1, kind: D}}"],
            ..b("app.v1", "stable", "1.0.0")
        },
        B {
            props: &["{type: olm.gvk, value: {group: d.io, version: v1, kind: D}}"],
            ..b("dep.v1", "stable", "1.0.0")
        },
        B {
            replaces: "dep.v1",
            props: &["{type: olm.gvk, value: {group: d.io, version: v1, kind: D}}"],
            ..b("dep.v2", "stable", "2.0.0")
        },
    ];
    let got = resolve_json(
        &bundles,
        r#"{"catalog": {"name": "cat"}, "subscriptions": [{"package": "app", "channel": "stable"}]}"#,
    );
    assert_eq!(
        got,
        operators(&[
            op("app.v1", "stable", "", Some("app")),
            op("dep.v2", "stable", "dep.v1", None)
        ])
    );
}

#[test]
fn two_missing_apis_report_only_the_last_as_olm_keys_them_by_literal() {
    let bundles = [B {
        props: &[
            "{type: olm.gvk.required, value: {group: x.io, version: v1, kind: X}}",
            r#"{type: olm.gvk.required, value: {group: y.io, version: v1, kind: "Y"}}"#,
        ],
        ..b("a.v1", "stable", "1.0.0")
    }];
    let got = resolve_json(
        &bundles,
        r#"{"catalog": {"name": "cat"}, "subscriptions": [{"package": "a", "channel": "stable"}]}"#,
    );
    let constraints = [
        "bundle a.v1 requires an operator providing an API with group: y.io, version: v1, kind: Y",
        "subscription a exists",
        "subscription a requires cat/olm/stable/a.v1",
    ];
    assert_eq!(got, unsatisfiable(&constraints));
}

#[test]
fn a_missing_channel_names_it() {
    let got = resolve_json(
        &FOO,
        r#"{"catalog": {"name": "cat"}, "subscriptions": [{"package": "foo", "channel": "beta"}]}"#,
    );
    let constraints = [
        "no operators found in channel beta of package foo in the catalog referenced by subscription foo",
        "subscription foo exists",
    ];
    assert_eq!(got, unsatisfiable(&constraints));
}

#[test]
fn an_installed_csv_without_a_subscription_must_stay() {
    let bundles = [
        b("a.v1", "stable", "1.0.0"),
        B {
            replaces: "a.v1",
            ..b("a.v2", "stable", "2.0.0")
        },
    ];
    let got = resolve_json(
        &bundles,
        r#"{"catalog": {"name": "cat"}, "subscriptions": [{"package": "a", "channel": "stable"}],
            "installed": [{"name": "a.v1", "package": "a", "version": "1.0.0"}]}"#,
    );
    let constraints = [
        "@existing/operators//a.v1, cat/olm/stable/a.v2 and cat/olm/stable/a.v1 originate from package a",
        "clusterserviceversion a.v1 exists and is not referenced by a subscription",
        "subscription a exists",
        "subscription a requires at least one of cat/olm/stable/a.v2 or cat/olm/stable/a.v1",
    ];
    assert_eq!(got, unsatisfiable(&constraints));
}

#[test]
fn the_not_constraint_falls_back_to_an_older_bundle() {
    let bundles = [
        B {
            props: &[
                r#"{type: olm.constraint, value: {all: {constraints: [{package: {packageName: bar, versionRange: ">=1.0.0"}}, {not: {constraints: [{gvk: {group: foos.example.com, version: v1alpha1, kind: Foo}}]}}]}}}"#,
            ],
            ..b("baz.v1.0.0", "stable", "1.0.0")
        },
        b("bar.v1.0.0", "stable", "1.0.0"),
        B {
            replaces: "bar.v1.0.0",
            props: &[
                "{type: olm.gvk, value: {group: foos.example.com, version: v1alpha1, kind: Foo}}",
            ],
            ..b("bar.v1.1.0", "stable", "1.1.0")
        },
    ];
    let got = resolve_json(
        &bundles,
        r#"{"catalog": {"name": "cat"}, "subscriptions": [{"package": "baz", "channel": "stable"}]}"#,
    );
    assert_eq!(
        got,
        operators(&[
            op("bar.v1.0.0", "stable", "", None),
            op("baz.v1.0.0", "stable", "", Some("baz"))
        ])
    );
}

const PROVIDES_FOO: &[&str] = &["{type: olm.gvk, value: {group: foo.io, version: v1, kind: Foo}}"];
const REQUIRES_FOO: &[&str] =
    &["{type: olm.gvk.required, value: {group: foo.io, version: v1, kind: Foo}}"];

/// The operators resolved against `catalogs` (name, namespace, priority, bundles)
/// for a subscription to `bar` in the first catalog, as (name, catalog) pairs.
fn across(catalogs: &[(&str, &str, i32, &[B])]) -> Vec<(String, String)> {
    let tables: Vec<crate::tables::Tables> = catalogs.iter().map(|c| tables_of(c.3)).collect();
    let refs: Vec<&crate::tables::Tables> = tables.iter().collect();
    let json = |(name, namespace, priority, _): &(&str, &str, i32, &[B])| serde_json::json!({"name": name, "namespace": namespace, "priority": priority});
    let request = serde_json::json!({
        "catalog": json(&catalogs[0]),
        "catalogs": catalogs[1..].iter().map(json).collect::<Vec<_>>(),
        "subscriptions": [{"package": "bar", "channel": "stable"}],
    });
    let request = parse(&request.to_string()).expect("request");
    match resolve(&refs, &request, &Limits::default()) {
        Ok(Outcome::Resolved(ops)) => ops.into_iter().map(|o| (o.name, o.catalog)).collect(),
        other => panic!("{other:?}"),
    }
}

fn pairs(of: &[(&str, &str)]) -> Vec<(String, String)> {
    of.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn seed_the_dependents_own_catalog_is_preferred_to_a_higher_priority_one() {
    let a = [
        B {
            props: PROVIDES_FOO,
            ..b("foo.v1", "stable", "1.0.0")
        },
        B {
            props: REQUIRES_FOO,
            ..b("bar.v1", "stable", "1.0.0")
        },
    ];
    let b_ = [B {
        props: PROVIDES_FOO,
        ..b("fooalt.v1", "stable", "1.0.0")
    }];
    assert_eq!(
        across(&[("a", "olm", 0, &a), ("b", "olm", 50, &b_)]),
        pairs(&[("bar.v1", "a"), ("foo.v1", "a")])
    );
}

#[test]
fn seed_a_higher_priority_catalog_is_preferred() {
    let a = [B {
        props: REQUIRES_FOO,
        ..b("bar.v1", "stable", "1.0.0")
    }];
    let b_ = [B {
        props: PROVIDES_FOO,
        ..b("foo.v1", "stable", "1.0.0")
    }];
    let c = [B {
        props: PROVIDES_FOO,
        ..b("fooalt.v1", "stable", "1.0.0")
    }];
    assert_eq!(
        across(&[
            ("a", "olm", 0, &a),
            ("b", "olm", 50, &b_),
            ("c", "olm", 100, &c)
        ]),
        pairs(&[("bar.v1", "a"), ("fooalt.v1", "c")])
    );
}

#[test]
fn equal_priorities_prefer_the_resolving_namespace_then_the_name() {
    let a = [B {
        props: REQUIRES_FOO,
        ..b("bar.v1", "stable", "1.0.0")
    }];
    let foo = [B {
        props: PROVIDES_FOO,
        ..b("foo.v1", "stable", "1.0.0")
    }];
    let alt = [B {
        props: PROVIDES_FOO,
        ..b("fooalt.v1", "stable", "1.0.0")
    }];
    assert_eq!(
        across(&[
            ("a", "olm", 0, &a),
            ("b", "olm", 0, &foo),
            ("c", "operators", 0, &alt)
        ]),
        pairs(&[("bar.v1", "a"), ("fooalt.v1", "c")])
    );
    assert_eq!(
        across(&[
            ("a", "olm", 0, &a),
            ("c", "olm", 0, &alt),
            ("b", "olm", 0, &foo)
        ]),
        pairs(&[("bar.v1", "a"), ("foo.v1", "b")])
    );
    // A catalog in a namespace OLM does not look in holds nothing.
    assert_eq!(
        across(&[
            ("a", "olm", 0, &a),
            ("b", "elsewhere", 100, &alt),
            ("c", "olm", 0, &foo)
        ]),
        pairs(&[("bar.v1", "a"), ("foo.v1", "c")])
    );
}
