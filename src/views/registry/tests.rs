use super::*;
use std::path::Path;

fn fixture_index(name: &str) -> RegistryView {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let tables = fbc_catalog::tables::testing::from_dir(&dir).expect("valid fixture");
    RegistryView::build(&tables).expect("indexable")
}

/// Every answer of `a` and `b`, as bytes, over the names and GVKs of the fixture.
fn answers(ix: &RegistryView) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut push = |r: Result<Reply, QueryError>| {
        out.push(
            r.map(|r| r.to_bytes().to_vec())
                .unwrap_or_else(|e| e.to_string().into_bytes()),
        )
    };
    for p in [
        "etcd",
        "prometheus",
        "strimzi-kafka-operator",
        "cockroachdb",
        "nope",
    ] {
        push(ix.package_reply(p));
        for c in ["alpha", "beta", "stable", "preview", "stable-5.x", "nope"] {
            push(ix.bundle_for_channel(p, c));
            for b in [
                "etcdoperator.v0.9.2",
                "etcdoperator.v0.9.0",
                "etcdoperator.v0.6.1",
                "",
            ] {
                push(ix.bundle(p, c, b));
                push(ix.bundle_that_replaces(b, p, c));
            }
        }
    }
    let mut lists: Vec<Vec<u8>> = Vec::new();
    for name in [
        "etcdoperator.v0.6.1",
        "etcdoperator.v0.9.0",
        "etcdoperator.v0.9.1",
        "x",
        "",
    ] {
        lists.push(
            ix.entries_that_replace(name)
                .map(|l| l.concat())
                .unwrap_or_default(),
        );
    }
    for kind in ["EtcdCluster", "EtcdBackup", "Nope"] {
        lists.push(
            ix.entries_that_provide("etcd.database.coreos.com", "v1beta2", kind)
                .map(|l| l.concat())
                .unwrap_or_default(),
        );
        lists.push(
            ix.latest_entries_that_provide("etcd.database.coreos.com", "v1beta2", kind)
                .map(|l| l.concat())
                .unwrap_or_default(),
        );
        push(ix.default_bundle_that_provides("etcd.database.coreos.com", "v1beta2", kind));
    }
    for i in 0..ix.copy_count() {
        out.push(
            ix.list_bundles_item(i)
                .map(|r| r.to_bytes().to_vec())
                .unwrap_or_default(),
        );
    }
    out.push(ix.package_names().concat());
    out.extend(lists);
    out
}

#[test]
fn a_persisted_index_answers_exactly_like_the_built_one() {
    for fixture in ["catalog-a", "catalog-b", "catalog-c", "catalog-d"] {
        let built = fixture_index(fixture);
        let restored = RegistryView::from_bytes(built.to_bytes().into()).expect("round trip");
        assert_eq!(answers(&built), answers(&restored), "{fixture}");
        assert_eq!(built.stats(), restored.stats());
        assert_eq!(
            built.custom_blobs("custom.operator.io", "testpkg"),
            restored.custom_blobs("custom.operator.io", "testpkg")
        );
    }
}

#[test]
fn encoding_is_deterministic() {
    let a = fixture_index("catalog-a");
    assert_eq!(a.to_bytes(), fixture_index("catalog-a").to_bytes());
    let restored = RegistryView::from_bytes(a.to_bytes().into()).expect("round trip");
    assert_eq!(a.to_bytes(), restored.to_bytes());
}

#[test]
fn a_csv_shared_by_csv_json_and_object_is_stored_once() {
    let ix = fixture_index("catalog-a");
    let reply = ix
        .bundle("etcd", "alpha", "etcdoperator.v0.9.2")
        .expect("bundle");
    let bundle = <crate::api::Bundle as prost::Message>::decode(reply.to_bytes()).expect("decode");
    assert!(bundle.object.contains(&bundle.csv_json));
    // manifests are [csvJson header, CSV, object header, object, ...]: the CSV
    // payload must be the very allocation one of the object payloads uses
    for body in &ix.bodies {
        let csv = body.manifests[1].as_ptr();
        assert!(
            body.manifests
                .iter()
                .skip(3)
                .step_by(2)
                .any(|c| c.as_ptr() == csv),
            "the CSV is stored twice"
        );
    }
}

#[test]
fn corrupt_bytes_are_an_error_not_a_panic() {
    let bytes = fixture_index("catalog-b").to_bytes();
    for cut in [1, bytes.len() / 2, bytes.len() - 1] {
        let _ = RegistryView::from_bytes(Bytes::copy_from_slice(&bytes[..cut]));
    }
    let mut flipped = bytes.clone();
    for i in (0..flipped.len()).step_by(7) {
        flipped[i] ^= 0x5a;
    }
    let _ = RegistryView::from_bytes(Bytes::from(flipped));
    assert!(RegistryView::from_bytes(Bytes::from_static(b"\xff\xff\xff")).is_err());
}

const SYNTH_CATALOG: &str = r#"---
schema: olm.package
name: syn
defaultChannel: stable
description: Package description
icon:
  base64data: PHN2Zy8+
  mediatype: image/svg+xml
---
schema: olm.channel
package: syn
name: stable
entries:
  - name: syn.v1.2.3
---
schema: olm.bundle
package: syn
name: syn.v1.2.3
image: quay.io/x/syn:v1.2.3
relatedImages:
  - name: op
    image: quay.io/x/op:v1
properties:
  - type: olm.package
    value: {packageName: syn, version: 1.2.3}
  - type: olm.csv.metadata
    value:
      annotations:
        createdAt: 2026-01-26T17:53:29
        alm-examples: '[{"a":"<b>"}]'
      labels:
        operatorframework.io/arch.amd64: supported
      crdDescriptions:
        owned:
          - name: widgets.example.com
            version: v1
            kind: Widget
            displayName: Widget
            specDescriptors:
              - path: size
                x-descriptors: ["urn:alm:descriptor:com.tectonic.ui:podCount"]
                value: 3
      displayName: Syn Operator
      keywords: [a, b]
      maintainers: [{name: M, email: m@example.com}]
      provider: {name: Example}
      links: [{name: Docs, url: "https://example.com"}]
      installModes:
        - {type: OwnNamespace, supported: true}
        - {type: AllNamespaces, supported: false}
      maturity: stable
      minKubeVersion: 1.25.0
      unknownKey: dropped
"#;

/// The CSV the reference writes for this metadata: Go struct field order,
/// `omitempty`, HTML escapes, the package's description and icon, a stub install
/// strategy, the bundle's related images.
const SYNTH_EXPECTED: &str = concat!(
    r#"{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1","#,
    r#""metadata":{"name":"syn.v1.2.3","labels":{"operatorframework.io/arch.amd64":"supported"},"#,
    r#""annotations":{"alm-examples":"[{\"a\":\"\u003cb\u003e\"}]","createdAt":"2026-01-26T17:53:29"}},"#,
    r#""spec":{"install":{"strategy":"deployment","spec":{"deployments":null}},"version":"1.2.3","maturity":"stable","#,
    r#""customresourcedefinitions":{"owned":[{"name":"widgets.example.com","version":"v1","kind":"Widget","displayName":"Widget","#,
    r#""specDescriptors":[{"path":"size","x-descriptors":["urn:alm:descriptor:com.tectonic.ui:podCount"],"value":3}]}]},"#,
    r#""apiservicedefinitions":{},"minKubeVersion":"1.25.0","displayName":"Syn Operator","description":"Package description","#,
    r#""keywords":["a","b"],"maintainers":[{"name":"M","email":"m@example.com"}],"provider":{"name":"Example"},"#,
    r#""links":[{"name":"Docs","url":"https://example.com"}],"icon":[{"base64data":"PHN2Zy8+","mediatype":"image/svg+xml"}],"#,
    r#""installModes":[{"type":"OwnNamespace","supported":true},{"type":"AllNamespaces","supported":false}],"#,
    r#""cleanup":{"enabled":false},"relatedImages":[{"name":"op","image":"quay.io/x/op:v1"}]},"status":{"cleanup":{}}}"#,
);

#[test]
fn a_csv_is_synthesised_from_csv_metadata_exactly_as_the_reference_writes_it() {
    let tables =
        fbc_catalog::tables::testing::from_text("syn/catalog.yaml", SYNTH_CATALOG).expect("valid");
    let ix = RegistryView::build(&tables).expect("index");
    let reply = ix.bundle("syn", "stable", "syn.v1.2.3").expect("bundle");
    let b = <crate::api::Bundle as prost::Message>::decode(reply.to_bytes()).expect("decode");
    assert_eq!(b.csv_json, SYNTH_EXPECTED);
    assert_eq!(
        b.object,
        [SYNTH_EXPECTED],
        "with no manifests, the CSV is the only object"
    );
    let props: Vec<&str> = b.properties.iter().map(|p| p.r#type.as_str()).collect();
    assert_eq!(
        props,
        ["olm.package"],
        "olm.csv.metadata is not served as a property"
    );
    // ListBundles leaves the manifests out because the bundle has an image
    let listed = <crate::api::Bundle as prost::Message>::decode(
        ix.list_bundles_item(0).expect("item").to_bytes(),
    )
    .expect("decode");
    assert!(listed.csv_json.is_empty() && listed.object.is_empty());
}

proptest::proptest! {
    #[test]
    fn channel_entries_are_encoded_exactly_as_prost_encodes_them(
        fields in proptest::array::uniform4("[a-z.é0-9-]{0,12}|[a-z]{120,140}")
    ) {
        let [package, channel, bundle, replaces] = fields;
        let expected = prost::Message::encode_to_vec(&crate::api::ChannelEntry {
            package_name: package.clone(),
            channel_name: channel.clone(),
            bundle_name: bundle.clone(),
            replaces: replaces.clone(),
        });
        let mut arena = fbc_catalog::arena::Arena::new();
        let written = super::build::entry_bytes(&mut arena, &package, &channel, &bundle, &replaces);
        proptest::prop_assert_eq!(&written[..], &expected[..]);
    }
}

#[test]
fn replacing_nothing_lists_every_entry_with_an_empty_replaces_in_copy_order() {
    let ix = fixture_index("catalog-b");
    let entries: Vec<crate::api::ChannelEntry> = ix
        .entries_that_replace("")
        .expect("entries that replace nothing")
        .iter()
        .map(|b| prost::Message::decode(b.clone()).expect("decode"))
        .collect();
    let entry = |channel: &str, bundle: &str| crate::api::ChannelEntry {
        package_name: "cockroachdb".into(),
        channel_name: channel.into(),
        bundle_name: bundle.into(),
        replaces: String::new(),
    };
    assert_eq!(
        entries,
        [
            entry("stable-5.x", "cockroachdb.v5.0.3"),
            entry("stable-v6.x", "cockroachdb.v6.0.0"),
        ]
    );
}

#[test]
fn query_errors_echo_catalog_sized_names_whole_and_longer_ones_cut() {
    let ix = fixture_index("catalog-b");
    let name = "n".repeat(256);
    let Err(e) = ix.package_reply(&name) else {
        panic!("no such package")
    };
    assert_eq!(e.to_string(), format!("package \"{name}\" not found"));
    let long = "n".repeat(4096);
    let Err(e) = ix.entries_that_replace(&long) else {
        panic!("nothing replaces it")
    };
    assert_eq!(
        e.to_string(),
        format!(
            "no channel entries found that replace {}… (4096 bytes)",
            "n".repeat(64)
        )
    );
    let Err(e) = ix.bundle("cockroachdb", &long, "b") else {
        panic!("no such channel")
    };
    assert!(e.to_string().len() < 200, "{e}");
}

#[test]
fn the_cache_image_is_the_whole_message_prost_would_encode() {
    use super::persist_index_messages::PIndex;
    use prost::Message;
    for fixture in ["catalog-a", "catalog-d"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture);
        let tables = fbc_catalog::tables::testing::from_dir(&dir).expect("valid fixture");
        let index = RegistryView::build(&tables).expect("indexable");
        let mut image = Vec::new();
        write_cache(&mut image, &tables, &index).expect("written");
        // The same message decoded and encoded whole, tables field included.
        let message = PIndex::decode(&image[..]).expect("one message");
        assert!(message.tables.is_some(), "{fixture}");
        assert_eq!(message.encode_to_vec(), image, "{fixture}");
    }
}
