//! Catalog A (`tests/fixtures/catalog-a`), operator-registry's FBC cache test:
//! package order, channels and their heads, and the bundle it calls **E** as every
//! lookup returns it.

use super::*;

/// The bundle operator-registry's cache test calls **E** (trimmed, alpha copy).
fn assert_is_e(b: &api::Bundle) {
    assert_eq!(b.csv_name, "etcdoperator.v0.9.2");
    assert_eq!(b.package_name, "etcd");
    assert_eq!(b.channel_name, "alpha");
    assert_eq!(b.bundle_path, "fake/etcd-operator:v0.9.2");
    assert_eq!(b.version, "0.9.2");
    assert_eq!(b.skip_range, "< 0.6.0");
    assert_eq!(b.replaces, "");
    assert!(b.skips.is_empty());
    let mut provided: Vec<&str> = b.provided_apis.iter().map(|g| g.kind.as_str()).collect();
    provided.sort_unstable();
    assert_eq!(provided, ["EtcdBackup", "EtcdCluster", "EtcdRestore"]);
    assert!(
        b.provided_apis
            .iter()
            .all(|g| g.group == "etcd.database.coreos.com"
                && g.version == "v1beta2"
                && g.plural.is_empty())
    );
    assert_eq!(b.required_apis.len(), 1);
    assert_eq!(b.required_apis[0].kind, "EtcdCluster");
    assert_eq!(b.dependencies.len(), 1);
    assert_eq!(b.dependencies[0].r#type, "olm.gvk");
    assert_eq!(
        b.dependencies[0].value,
        r#"{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}"#
    );
    let mut props: Vec<(String, String)> = b
        .properties
        .iter()
        .map(|p| (p.r#type.clone(), p.value.clone()))
        .collect();
    props.sort();
    let gvk = |k: &str| {
        (
            s("olm.gvk"),
            format!(r#"{{"group":"etcd.database.coreos.com","kind":"{k}","version":"v1beta2"}}"#),
        )
    };
    let mut expected = vec![
        (
            s("olm.package"),
            s(r#"{"packageName":"etcd","version":"0.9.2"}"#),
        ),
        gvk("EtcdCluster"),
        gvk("EtcdRestore"),
        gvk("EtcdBackup"),
        (s("olm.label"), s(r#"{"label":"testlabel"}"#)),
        (s("olm.label"), s(r#"{"label":"testlabel1"}"#)),
        (s("other"), s(r#"{"its":"notdefined"}"#)),
        (
            s("olm.gvk.required"),
            s(r#"{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}"#),
        ),
    ];
    expected.sort();
    assert_eq!(props, expected);
    assert!(
        b.csv_json.starts_with(r#"{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"annotations":{"#),
        "{}",
        &b.csv_json[..b.csv_json.len().min(200)]
    );
    assert!(
        b.csv_json.contains("\\u003c"),
        "csvJson keeps Go's HTML escapes"
    );
    assert_eq!(b.object.len(), 4);
    assert!(b.object.contains(&b.csv_json));
    assert!(
        b.object
            .iter()
            .any(|o| o.contains(r#""metadata":{"name":"etcdbackups.etcd.database.coreos.com"}"#))
    );
    assert!(b.deprecation.is_none());
}

#[tokio::test]
async fn catalog_a_matches_the_reference_fbc_cache_test() {
    let server = TestServer::start(&fixture("catalog-a")).await;
    let mut c = server.client().await;

    let names: Vec<String> = package_names(&mut c).await;
    assert_eq!(
        names,
        ["etcd", "prometheus", "strimzi-kafka-operator"],
        "sorted by name"
    );

    let pkg = c
        .get_package(api::GetPackageRequest { name: s("etcd") })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(pkg.default_channel_name, "alpha");
    let heads: Vec<(String, String)> = pkg
        .channels
        .iter()
        .map(|ch| (ch.name.clone(), ch.csv_name.clone()))
        .collect();
    assert_eq!(
        heads,
        [
            (s("alpha"), s("etcdoperator.v0.9.2")),
            (s("beta"), s("etcdoperator.v0.9.0")),
            (s("stable"), s("etcdoperator.v0.9.2"))
        ]
    );
    assert!(pkg.deprecation.is_none() && pkg.channels.iter().all(|c| c.deprecation.is_none()));

    let e = c
        .get_bundle(api::GetBundleRequest {
            pkg_name: s("etcd"),
            channel_name: s("alpha"),
            csv_name: s("etcdoperator.v0.9.2"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_is_e(&e);
    let head = c
        .get_bundle_for_channel(api::GetBundleInChannelRequest {
            pkg_name: s("etcd"),
            channel_name: s("alpha"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_is_e(&head);
    for replaced in ["etcdoperator.v0.9.0", "etcdoperator.v0.9.1"] {
        let r = c
            .get_bundle_that_replaces(api::GetReplacementRequest {
                csv_name: s(replaced),
                pkg_name: s("etcd"),
                channel_name: s("alpha"),
            })
            .await
            .expect("rpc")
            .into_inner();
        assert_is_e(&r);
    }
    let d = c
        .get_default_bundle_that_provides(api::GetDefaultProviderRequest {
            group: s("etcd.database.coreos.com"),
            version: s("v1beta2"),
            kind: s("EtcdCluster"),
            plural: s(""),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_is_e(&d);

    let replace = collect(
        c.get_channel_entries_that_replace(api::GetAllReplacementsRequest {
            csv_name: s("etcdoperator.v0.6.1"),
        })
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    assert_eq!(
        entry_triples(&replace),
        ["alpha", "beta", "stable"].map(|ch| (
            s(ch),
            s("etcdoperator.v0.9.0"),
            s("etcdoperator.v0.6.1")
        ))
    );
    assert!(replace.iter().all(|e| e.package_name == "etcd"));

    let provide = collect(
        c.get_channel_entries_that_provide(gvk_req(
            "etcd.database.coreos.com",
            "v1beta2",
            "EtcdCluster",
        ))
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    let four = |ch: &str| {
        vec![
            (s(ch), s("etcdoperator.v0.6.1"), s("")),
            (s(ch), s("etcdoperator.v0.9.0"), s("etcdoperator.v0.6.1")),
            (s(ch), s("etcdoperator.v0.9.2"), s("etcdoperator.v0.9.0")),
            (s(ch), s("etcdoperator.v0.9.2"), s("etcdoperator.v0.9.1")),
        ]
    };
    let mut expected = four("alpha");
    expected.extend([
        (s("beta"), s("etcdoperator.v0.6.1"), s("")),
        (
            s("beta"),
            s("etcdoperator.v0.9.0"),
            s("etcdoperator.v0.6.1"),
        ),
    ]);
    expected.extend(four("stable"));
    expected.sort();
    assert_eq!(entry_triples(&provide), expected);

    let latest =
        latest_providers(&mut c, "etcd.database.coreos.com", "v1beta2", "EtcdCluster").await;
    assert_eq!(
        entry_triples(&latest),
        [
            (
                s("alpha"),
                s("etcdoperator.v0.9.2"),
                s("etcdoperator.v0.9.0")
            ),
            (
                s("beta"),
                s("etcdoperator.v0.9.0"),
                s("etcdoperator.v0.6.1")
            ),
            (
                s("stable"),
                s("etcdoperator.v0.9.2"),
                s("etcdoperator.v0.9.0")
            ),
        ]
    );

    let bundles = collect(
        c.list_bundles(api::ListBundlesRequest {})
            .await
            .expect("rpc")
            .into_inner(),
    )
    .await;
    assert_eq!(bundles.len(), 20);
    let keys: Vec<(String, String, String)> = bundles
        .iter()
        .map(|b| {
            (
                b.channel_name.clone(),
                b.package_name.clone(),
                b.csv_name.clone(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        keys, sorted,
        "ListBundles is in (channel, package, bundle) order"
    );
    let count = |name: &str| bundles.iter().filter(|b| b.csv_name == name).count();
    for (name, n) in [
        ("etcdoperator.v0.6.1", 3),
        ("etcdoperator.v0.9.0", 3),
        ("etcdoperator.v0.9.2", 2),
        ("prometheusoperator.0.14.0", 1),
        ("prometheusoperator.0.15.0", 1),
        ("prometheusoperator.0.22.2", 1),
        ("strimzi-cluster-operator.v0.11.0", 3),
        ("strimzi-cluster-operator.v0.11.1", 3),
        ("strimzi-cluster-operator.v0.12.1", 2),
        ("strimzi-cluster-operator.v0.12.2", 1),
    ] {
        assert_eq!(count(name), n, "{name}");
    }
    for b in bundles
        .iter()
        .filter(|b| b.csv_name == "etcdoperator.v0.9.2")
    {
        assert_eq!(b.replaces, "etcdoperator.v0.9.0");
        assert_eq!(b.skips, ["etcdoperator.v0.9.1"]);
        assert!(
            b.csv_json.is_empty() && b.object.is_empty(),
            "image set: manifests left out"
        );
        assert_eq!(b.bundle_path, "fake/etcd-operator:v0.9.2");
    }
    for b in bundles.iter().filter(|b| b.bundle_path.is_empty()) {
        assert!(
            !b.csv_json.is_empty() && !b.object.is_empty(),
            "{}: image-less bundles keep manifests",
            b.csv_name
        );
    }
    server.stop().await;
}
