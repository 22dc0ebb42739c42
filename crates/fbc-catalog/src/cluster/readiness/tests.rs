use super::*;
use crate::tables::{Tables, testing};
use base64::Engine;

fn bundle(name: &str, extra: &[String]) -> String {
    let mut out = format!(
        "schema: olm.bundle\npackage: op\nname: {name}\nimage: quay.io/op:{name}\nproperties:\n  - {{type: olm.package, value: {{packageName: op, version: \"{}\"}}}}\n",
        name.trim_start_matches("op.v")
    );
    for e in extra {
        out.push_str(&format!("  - {e}\n"));
    }
    out
}

fn metadata(value: &str) -> String {
    format!("{{type: olm.csv.metadata, value: {value}}}")
}

fn embedded(csv: &serde_json::Value) -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(csv.to_string());
    format!("{{type: olm.bundle.object, value: {{data: {data}}}}}")
}

fn catalog() -> Tables {
    let all = "installModes: [{type: AllNamespaces, supported: true}]";
    let csv = |spec: serde_json::Value| {
        serde_json::json!({"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
            "metadata": {"name": "x"}, "spec": spec})
    };
    let bundles = [
        bundle("op.v1.0.0", &[metadata(&format!("{{{all}}}"))]),
        bundle(
            "op.v1.0.1",
            &[metadata(
                "{installModes: [{type: OwnNamespace, supported: true}, {type: AllNamespaces, supported: false}]}",
            )],
        ),
        bundle(
            "op.v1.0.2",
            &[
                metadata(&format!("{{{all}}}")),
                "{type: olm.package.required, value: {packageName: dep, versionRange: '>=1.0.0'}}"
                    .into(),
            ],
        ),
        bundle(
            "op.v1.0.3",
            &[metadata(&format!(
                "{{{all}, apiServiceDefinitions: {{owned: [{{group: g, version: v1, kind: K, name: svc}}]}}}}"
            ))],
        ),
        bundle("op.v1.0.4", &[]),
        bundle(
            "op.v1.0.5",
            &[metadata(
                "{installModes: [{type: MultiNamespace, supported: true}]}",
            )],
        ),
        bundle(
            "op.v1.0.6",
            &[metadata(&format!(
                "{{{all}, annotations: {{olm.properties: 'not json'}}}}"
            ))],
        ),
        bundle(
            "op.v1.0.7",
            &[embedded(&csv(serde_json::json!({
                "installModes": [{"type": "AllNamespaces", "supported": true}],
                "webhookdefinitions": [{"type": "ValidatingAdmissionWebhook", "generateName": "v.example.com"}]
            })))],
        ),
        bundle(
            "op.v1.0.8",
            &[embedded(&csv(serde_json::json!({
                "installModes": [{"type": "AllNamespaces", "supported": true}]
            })))],
        ),
    ];
    let entries: Vec<String> = (0..bundles.len())
        .map(|i| match i {
            0 => "  - {name: op.v1.0.0}\n".to_string(),
            i => format!("  - {{name: op.v1.0.{i}, replaces: op.v1.0.{}}}\n", i - 1),
        })
        .collect();
    let mut docs = vec![
        "schema: olm.package\nname: op\ndefaultChannel: stable\n".to_string(),
        format!(
            "schema: olm.channel\npackage: op\nname: stable\nentries:\n{}",
            entries.concat()
        ),
    ];
    docs.extend(bundles);
    match testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

fn of(tables: &Tables, name: &str) -> Readiness {
    let (_, package) = tables.package("op").expect("package");
    readiness(package, package.bundle(name).expect("bundle"))
}

fn rules(r: &Readiness) -> Vec<(&'static str, Weight)> {
    r.reasons.iter().map(|x| (x.rule, x.weight)).collect()
}

#[test]
fn every_reason_by_its_rule() {
    let t = catalog();
    let plain = of(&t, "op.v1.0.0");
    assert!(plain.installable);
    assert_eq!(
        rules(&plain),
        [("R3", Weight::Unknown)],
        "csv.metadata cannot show webhooks"
    );
    let own = of(&t, "op.v1.0.1");
    assert!(own.installable);
    assert_eq!(
        rules(&own),
        [("R3", Weight::Unknown), ("R4", Weight::NeedsGate)]
    );
    let dep = of(&t, "op.v1.0.2");
    assert!(!dep.installable);
    assert_eq!(
        dep.reasons[0].message,
        "validating bundle \"op.v1.0.2\": bundle \"op.v1.0.2\" has a dependency declared via property \"olm.package.required\" which is currently not supported"
    );
    let api = of(&t, "op.v1.0.3");
    assert_eq!(rules(&api)[0], ("R2", Weight::Refused));
    assert_eq!(
        api.reasons[0].message,
        "unsupported bundle: apiServiceDefintions are not supported"
    );
    let image_only = of(&t, "op.v1.0.4");
    assert!(image_only.installable);
    assert_eq!(rules(&image_only), [("R2", Weight::Unknown)]);
    let multi = of(&t, "op.v1.0.5");
    assert_eq!(
        rules(&multi),
        [("R3", Weight::Unknown), ("R5", Weight::Refused)]
    );
    let props = of(&t, "op.v1.0.6");
    assert!(!props.installable);
    assert!(
        props.reasons.iter().any(|r| r.rule == "R15"
            && r.message
                .starts_with("failed to unmarshal csv.metadata.annotations['olm.properties']: ")),
        "{props:?}"
    );
    let hooks = of(&t, "op.v1.0.7");
    assert!(hooks.installable);
    assert_eq!(rules(&hooks), [("R3", Weight::NeedsGate)]);
    let clean = of(&t, "op.v1.0.8");
    assert!(clean.installable && clean.reasons.is_empty(), "{clean:?}");
}

#[test]
fn the_summary_counts_bundles_by_rule_in_rule_order() {
    let t = catalog();
    let (_, package) = t.package("op").expect("package");
    let mut summary = Summary::default();
    for b in &package.bundles {
        summary.add(&readiness(package, b));
    }
    assert_eq!((summary.bundles, summary.installable), (9, 5));
    let by_rule: Vec<(&str, Weight, usize)> = summary
        .by_rule
        .iter()
        .map(|c| (c.rule, c.weight, c.bundles))
        .collect();
    assert_eq!(
        by_rule,
        [
            ("R1", Weight::Refused, 1),
            ("R2", Weight::Refused, 1),
            ("R2", Weight::Unknown, 1),
            ("R3", Weight::NeedsGate, 1),
            ("R3", Weight::Unknown, 6),
            ("R4", Weight::NeedsGate, 1),
            ("R5", Weight::Refused, 1),
            ("R15", Weight::Refused, 1),
        ]
    );
}

#[test]
fn the_catalog_summary_counts_packages_by_their_heads_and_every_bundle() {
    let tables = catalog();
    let ready = super::catalog(&tables, None).expect("summary");
    assert_eq!((ready.packages, ready.installable_packages), (1, 1));
    // the head, op.v1.0.8, is installable with nothing to say
    assert_eq!(ready.per_package[0].head, "op.v1.0.8");
    assert!(ready.per_package[0].head_installable);
    assert_eq!(ready.heads.bundles, 1);
    assert!(ready.heads.by_rule.is_empty());
    assert_eq!(ready.bundles.bundles, 9);
    assert_eq!(ready.per_package[0].bundles.len(), 9);
    assert_eq!(
        ready.bundles.installable,
        ready.per_package[0]
            .bundles
            .iter()
            .filter(|r| r.installable)
            .count()
    );
    assert!(super::catalog(&tables, Some("nope")).is_err());
}

#[test]
fn the_fast_csv_read_gives_the_rules_the_whole_read_gives() {
    let texts = [
        r#"{"metadata":{"name":"x","annotations":{"olm.properties":"not json","other":1}},"spec":{"installModes":[{"type":"OwnNamespace","supported":true}],"description":"long"}}"#,
        r#"{"spec":{"apiservicedefinitions":{"owned":[{"name":"a"}]},"webhookdefinitions":[{"type":"x"}],"installModes":[{"type":"AllNamespaces","supported":true}]}}"#,
        r#"{"spec":{"apiservicedefinitions":null,"webhookdefinitions":[],"installModes":"AllNamespaces"}}"#,
        r#"{"metadata":"odd","spec":{"installModes":[{"type":"AllNamespaces","supported":true}]}}"#,
        r#"{"spec":{"installModes":[]},"spec":{"installModes":[{"type":"AllNamespaces","supported":true}]}}"#,
        r#"{"metadata":{"annotations":{"olm.properties":"[{\"type\":\"a\",\"value\":1}]"}},"spec":{"installModes":[{"type":"SingleNamespace","supported":true}]}}"#,
        r#"[]"#,
    ];
    for text in texts {
        let rules = |csv: Option<serde_json::Value>| {
            let mut reasons = Vec::new();
            if let Some(csv) = csv {
                csv_rules(&csv, true, &mut reasons);
            }
            reasons
        };
        assert_eq!(
            rules(csv_fields(text.as_bytes())),
            rules(serde_json::from_str(text).ok()),
            "{text}"
        );
    }
}
