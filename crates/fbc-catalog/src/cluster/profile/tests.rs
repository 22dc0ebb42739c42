use super::*;
use crate::tables::testing;
use base64::Engine;

/// `op`: 1.0.0 (bundle.object only, unpinned image), 1.1.0 (csv.metadata only,
/// maxOpenShiftVersion 4.16), 1.2.0 (both forms, max 4.17, a related image by
/// tag), 1.3.0 (neither; head of channel `solo`), 1.4.0 (max "four"; head of `stable`); an icon whose bytes
/// are a PNG but whose media type says SVG.
fn catalog() -> Tables {
    let png = base64::engine::general_purpose::STANDARD.encode(b"\x89PNG\r\n\x1a\nrest");
    let object = base64::engine::general_purpose::STANDARD
        .encode(br#"{"kind":"ClusterServiceVersion","metadata":{"name":"x"},"spec":{}}"#);
    let bundle = |version: &str, props: &[String], image: &str, related: &str| {
        let mut out = format!(
            "schema: olm.bundle\npackage: op\nname: op.v{version}\nimage: {image}\nproperties:\n  - {{type: olm.package, value: {{packageName: op, version: \"{version}\"}}}}\n"
        );
        for p in props {
            out.push_str(&format!("  - {p}\n"));
        }
        out.push_str(related);
        out
    };
    let obj = format!("{{type: olm.bundle.object, value: {{data: {object}}}}}");
    let meta = "{type: olm.csv.metadata, value: {displayName: Op}}".to_string();
    let max = |v: &str| format!("{{type: olm.maxOpenShiftVersion, value: {v}}}");
    let digest = "quay.io/op/op@sha256:".to_string() + &"a".repeat(64);
    let docs = [
        format!("schema: olm.package\nname: op\ndefaultChannel: stable\nicon: {{base64data: {png}, mediatype: image/svg+xml}}\n"),
        "schema: olm.channel\npackage: op\nname: stable\nentries:\n  - {name: op.v1.0.0}\n  - {name: op.v1.1.0, replaces: op.v1.0.0}\n  - {name: op.v1.2.0, replaces: op.v1.1.0}\n  - {name: op.v1.3.0, replaces: op.v1.2.0}\n  - {name: op.v1.4.0, replaces: op.v1.3.0}\n".to_string(),
        "schema: olm.channel\npackage: op\nname: solo\nentries:\n  - {name: op.v1.3.0}\n".to_string(),
        bundle("1.0.0", std::slice::from_ref(&obj), "quay.io/op/op:1.0.0", ""),
        bundle("1.1.0", &[meta.clone(), max("\"4.16\"")], &digest, ""),
        bundle(
            "1.2.0",
            &[obj.clone(), meta.clone(), max("\"4.17\"")],
            &digest,
            "relatedImages:\n  - {name: x, image: \"quay.io/op/helper:v1\"}\n",
        ),
        bundle("1.3.0", &[], &digest, ""),
        bundle("1.4.0", &[meta, max("four")], &digest, ""),
    ];
    match testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

/// (entry, check, severity, message) of every finding.
fn findings(target: &str) -> Vec<(String, &'static str, Severity, String)> {
    let target = Target::parse(target).expect("target");
    lint(&catalog(), None, target)
        .expect("lint")
        .into_iter()
        .map(|f| (f.entry, f.check, f.severity, f.message))
        .collect()
}

fn has(
    all: &[(String, &'static str, Severity, String)],
    entry: &str,
    check: &str,
    severity: Severity,
    text: &str,
) {
    assert!(
        all.iter()
            .any(|(e, c, s, m)| e == entry && *c == check && *s == severity && m.contains(text)),
        "no {severity:?} {check} on {entry:?} containing {text:?} in {all:#?}"
    );
}

#[test]
fn targets_parse_and_unknown_ones_are_named() {
    assert_eq!(Target::parse("olm-v1"), Ok(Target::OlmV1));
    assert_eq!(Target::parse("console"), Ok(Target::Console));
    assert_eq!(
        Target::parse("ocp-4.17.2"),
        Ok(Target::Ocp(MinorVersion {
            major: 4,
            minor: 17
        }))
    );
    assert_eq!(
        Target::parse("openshift").unwrap_err(),
        "unknown target \"openshift\": known targets: olm-v1, console, ocp-4.Y"
    );
    assert!(Target::parse("ocp-four").is_err());
}

#[test]
fn console_flags_a_head_without_a_csv_both_forms_unpinned_images_and_the_icon() {
    let all = findings("console");
    has(
        &all,
        "op.v1.3.0",
        "metadataForm",
        Severity::Warning,
        "it heads a channel",
    );
    has(
        &all,
        "op.v1.2.0",
        "metadataForm",
        Severity::Info,
        "both olm.bundle.object and olm.csv.metadata",
    );
    has(
        &all,
        "op.v1.2.0",
        "imageDigest",
        Severity::Info,
        "related image \"quay.io/op/helper:v1\" is not pinned by digest",
    );
    has(
        &all,
        "op.v1.0.0",
        "imageDigest",
        Severity::Info,
        "\"quay.io/op/op:1.0.0\" is not pinned by digest",
    );
    has(
        &all,
        "",
        "icon",
        Severity::Warning,
        "icon mediatype is \"image/svg+xml\" but its data is image/png",
    );
    assert!(
        !all.iter().any(|f| f.1 == "maxOpenShiftVersion"),
        "console has no release"
    );
}

#[test]
fn ocp_4_16_wants_bundle_objects_and_ocp_4_17_csv_metadata_in_konfluxs_words() {
    let old = findings("ocp-4.16");
    has(
        &old,
        "op.v1.1.0",
        "metadataForm",
        Severity::Warning,
        "olm.csv.metadata bundle properties are not permitted in a FBC fragment for OCP version 4.16. Fragments must move to olm.bundle.object bundle metadata.",
    );
    has(
        &old,
        "op.v1.3.0",
        "metadataForm",
        Severity::Warning,
        "must have a corresponding olm.bundle.object bundle property (OCP 4.16)",
    );
    assert!(
        !old.iter()
            .any(|f| f.0 == "op.v1.0.0" && f.1 == "metadataForm")
    );
    let new = findings("ocp-4.17");
    has(
        &new,
        "op.v1.0.0",
        "metadataForm",
        Severity::Warning,
        "olm.bundle.object bundle properties are not permitted in a FBC fragment for OCP version 4.17. Fragments must move to olm.csv.metadata bundle metadata.",
    );
    assert!(
        !new.iter()
            .any(|f| f.0 == "op.v1.1.0" && f.1 == "metadataForm")
    );
    // 5.0 is after 4.17 (Konflux's check would class it with 4.16)
    let five = findings("ocp-5.0");
    has(
        &five,
        "op.v1.0.0",
        "metadataForm",
        Severity::Warning,
        "Fragments must move to olm.csv.metadata",
    );
    // OpenShift mirrors need digests
    has(
        &new,
        "op.v1.0.0",
        "imageDigest",
        Severity::Warning,
        "is not pinned by digest",
    );
}

#[test]
fn ocp_flags_max_openshift_versions_below_at_and_unreadable() {
    let all = findings("ocp-4.17");
    has(
        &all,
        "op.v1.1.0",
        "maxOpenShiftVersion",
        Severity::Warning,
        "olm.maxOpenShiftVersion 4.16 is below OpenShift 4.17",
    );
    has(
        &all,
        "op.v1.2.0",
        "maxOpenShiftVersion",
        Severity::Info,
        "blocks the upgrade to the next minor",
    );
    has(
        &all,
        "op.v1.4.0",
        "maxOpenShiftVersion",
        Severity::Warning,
        "does not read",
    );
    let findings_before: Vec<_> = findings("ocp-4.16")
        .into_iter()
        .filter(|f| f.1 == "maxOpenShiftVersion" && f.0 == "op.v1.1.0")
        .collect();
    assert_eq!(findings_before.len(), 1);
    assert_eq!(findings_before[0].2, Severity::Info);
}

#[test]
fn findings_name_the_file_document_and_line() {
    let all = lint(&catalog(), Some("op"), Target::Console).expect("lint");
    let head = all
        .iter()
        .find(|f| f.entry == "op.v1.3.0" && f.check == "metadataForm")
        .expect("finding");
    assert_eq!((head.file.as_str(), head.document), ("catalog.yaml", 7));
    assert!(head.line > 1);
    assert!(lint(&catalog(), Some("nope"), Target::Console).is_err());
}
