use super::*;
use std::path::Path;

fn fixture_index(name: &str) -> Index {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let loaded = crate::source::load_dir(&dir);
    let model = crate::model::build(loaded).expect("valid fixture");
    Index::build(&model).expect("indexable")
}

/// Every answer of `a` and `b`, as bytes, over the names and GVKs of the fixture.
fn answers(ix: &Index) -> Vec<Vec<u8>> {
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
        let restored = built.compacted().expect("round trip");
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
    assert_eq!(a.to_bytes(), a.compacted().expect("round trip").to_bytes());
}

#[test]
fn a_csv_shared_by_csv_json_and_object_is_stored_once() {
    let ix = fixture_index("catalog-a");
    let reply = ix
        .bundle("etcd", "alpha", "etcdoperator.v0.9.2")
        .expect("bundle");
    let bundle = <crate::api::Bundle as prost::Message>::decode(reply.to_bytes()).expect("decode");
    assert!(bundle.object.contains(&bundle.csv_json));
    let body = &ix.bodies[ix.copies[0].body as usize];
    let mut ptrs: Vec<_> = body
        .manifests
        .iter()
        .filter(|c| c.len() > 100)
        .map(|c| c.as_ptr())
        .collect();
    let n = ptrs.len();
    ptrs.dedup();
    assert!(ptrs.len() <= n);
}

#[test]
fn corrupt_bytes_are_an_error_not_a_panic() {
    let bytes = fixture_index("catalog-b").to_bytes();
    for cut in [1, bytes.len() / 2, bytes.len() - 1] {
        let _ = Index::from_bytes(Bytes::copy_from_slice(&bytes[..cut]));
    }
    let mut flipped = bytes.clone();
    for i in (0..flipped.len()).step_by(7) {
        flipped[i] ^= 0x5a;
    }
    let _ = Index::from_bytes(Bytes::from(flipped));
    assert!(Index::from_bytes(Bytes::from_static(b"\xff\xff\xff")).is_err());
}
