use super::*;
use crate::views::browser::Browser;
use fbc_catalog::tables::testing::from_text;

/// A catalog of `packages`: (name, display name, provider, keywords, API kind), one bundle each.
fn catalog(packages: &[(&str, &str, &str, &str, &str)]) -> Tables {
    let mut docs = String::new();
    for (name, display, provider, keywords, kind) in packages {
        let csv = serde_json::json!({
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": {"name": format!("{name}.v1.0.0")},
            "spec": {"displayName": display, "provider": {"name": provider},
                     "keywords": keywords.split(',').collect::<Vec<_>>(), "version": "1.0.0"}
        });
        let object = base64_json(&csv);
        docs.push_str(&format!(
            "---\nschema: olm.package\nname: {name}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: {name}\nname: stable\nentries:\n  - name: {name}.v1.0.0\n---\nschema: olm.bundle\npackage: {name}\nname: {name}.v1.0.0\nimage: quay.io/x/{name}:1\nproperties:\n  - {{type: olm.package, value: {{packageName: {name}, version: 1.0.0}}}}\n  - {{type: olm.gvk, value: {{group: {name}.example.com, version: v1, kind: {kind}}}}}\n  - {{type: olm.bundle.object, value: {{data: {object}}}}}\n"
        ));
    }
    from_text("catalog.yaml", &docs).expect("the fixture validates")
}

fn base64_json(v: &serde_json::Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(v.to_string())
}

struct Fixture {
    community: (Tables, Browser),
    certified: (Tables, Browser),
}

fn fixture() -> Fixture {
    let community = catalog(&[
        ("etcd", "etcd", "CNCF", "database,kv", "EtcdCluster"),
        (
            "prometheus",
            "Prometheus Operator",
            "Red Hat",
            "monitoring",
            "Prometheus",
        ),
        ("etcd-backup", "Backups", "Acme", "backup", "EtcdBackup"),
    ]);
    let certified = catalog(&[(
        "etcd",
        "etcd (certified)",
        "Acme",
        "database",
        "EtcdCluster",
    )]);
    let cards = |t: Tables| {
        let b = Browser::build(&t);
        (t, b)
    };
    Fixture {
        community: cards(community),
        certified: cards(certified),
    }
}

fn shelves(f: &Fixture) -> Vec<Shelf<'_>> {
    vec![
        Shelf {
            name: "community",
            priority: 0,
            tables: &f.community.0,
            cards: &f.community.1.cards,
        },
        Shelf {
            name: "certified",
            priority: 10,
            tables: &f.certified.0,
            cards: &f.certified.1.cards,
        },
    ]
}

fn found(hits: &[SearchHit]) -> Vec<(&str, &str)> {
    hits.iter()
        .map(|h| (h.package.as_str(), h.catalog.as_str()))
        .collect()
}

#[test]
fn the_exact_name_comes_first_then_names_holding_it_then_the_rest_by_priority() {
    let f = fixture();
    let hits = search(&shelves(&f), "ETCD");
    assert_eq!(
        found(&hits),
        [
            ("etcd", "certified"),
            ("etcd", "community"),
            ("etcd-backup", "community")
        ]
    );
    assert_eq!(
        hits[0].matched,
        [Field::Name, Field::DisplayName, Field::Api]
    );
    assert_eq!(hits[0].provider, "Acme");
    assert_eq!(hits[0].versions, ["1.0.0"]);
    assert_eq!(hits[0].channels[0].head, "etcd.v1.0.0");
}

#[test]
fn every_term_must_match_somewhere_and_fields_say_where() {
    let f = fixture();
    let hits = search(&shelves(&f), "acme database");
    assert_eq!(found(&hits), [("etcd", "certified")]);
    assert_eq!(hits[0].matched, [Field::Keyword, Field::Provider]);
    assert!(search(&shelves(&f), "acme monitoring").is_empty());
    let by_api = search(&shelves(&f), "prometheus.example.com");
    assert_eq!(found(&by_api), [("prometheus", "community")]);
    assert_eq!(by_api[0].matched, [Field::Api]);
}

#[test]
fn an_empty_query_lists_every_package_of_every_catalog() {
    let f = fixture();
    let hits = search(&shelves(&f), "  ");
    assert_eq!(hits.len(), 4);
    assert!(hits.iter().all(|h| h.matched.is_empty()));
}

#[test]
fn providers_prefer_the_higher_priority_catalog() {
    let f = fixture();
    let q = SuccessorQuery {
        package: "etcd".into(),
        ..Default::default()
    };
    let p = provider(&shelves(&f), &q).expect("an answer");
    assert_eq!(p.catalog.as_deref(), Some("certified"));
}
