//! Catalog D (`tests/fixtures/catalog-d`), the reference's cache test: bundle
//! dependencies, channel heads, default providers, replacements, GVK lookups,
//! ListBundles and ListPackages.

use super::*;

#[tokio::test]
async fn catalog_d_matches_the_reference_cache_test() {
    let server = TestServer::start(&fixture("catalog-d")).await;
    let mut c = server.client().await;
    let b = c
        .get_bundle(api::GetBundleRequest {
            pkg_name: s("etcd"),
            channel_name: s("singlenamespace-alpha"),
            csv_name: s("etcdoperator.v0.9.4"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(b.csv_name, "etcdoperator.v0.9.4");
    let deps: Vec<(&str, &str)> = b
        .dependencies
        .iter()
        .map(|d| (d.r#type.as_str(), d.value.as_str()))
        .collect();
    assert_eq!(
        deps,
        [
            (
                "olm.package",
                r#"{"packageName":"test","version":">=1.2.3 <2.0.0-0"}"#
            ),
            (
                "olm.gvk",
                r#"{"group":"testapi.coreos.com","kind":"Testapi","version":"v1"}"#
            ),
        ]
    );
    let head = c
        .get_bundle_for_channel(api::GetBundleInChannelRequest {
            pkg_name: s("etcd"),
            channel_name: s("singlenamespace-alpha"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(head.csv_name, "etcdoperator.v0.9.4");
    let provider = c
        .get_default_bundle_that_provides(api::GetDefaultProviderRequest {
            group: s("etcd.database.coreos.com"),
            version: s("v1beta2"),
            kind: s("EtcdBackup"),
            plural: s(""),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(
        (
            provider.package_name.as_str(),
            provider.channel_name.as_str(),
            provider.csv_name.as_str()
        ),
        ("etcd", "singlenamespace-alpha", "etcdoperator.v0.9.4")
    );
    let r = c
        .get_bundle_that_replaces(api::GetReplacementRequest {
            csv_name: s("etcdoperator.v0.9.0"),
            pkg_name: s("etcd"),
            channel_name: s("singlenamespace-alpha"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(r.csv_name, "etcdoperator.v0.9.2");

    let provide = collect(
        c.get_channel_entries_that_provide(gvk_req(
            "etcd.database.coreos.com",
            "v1beta2",
            "EtcdBackup",
        ))
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    let mut expected = vec![
        (s("singlenamespace-alpha"), s("etcdoperator.v0.9.0"), s("")),
        (
            s("singlenamespace-alpha"),
            s("etcdoperator.v0.9.4"),
            s("etcdoperator.v0.9.2"),
        ),
        (s("clusterwide-alpha"), s("etcdoperator.v0.9.0"), s("")),
        (
            s("clusterwide-alpha"),
            s("etcdoperator.v0.9.2-clusterwide"),
            s("etcdoperator.v0.9.0"),
        ),
        (
            s("clusterwide-alpha"),
            s("etcdoperator.v0.9.2-clusterwide"),
            s("etcdoperator.v0.6.1"),
        ),
        (
            s("clusterwide-alpha"),
            s("etcdoperator.v0.9.4-clusterwide"),
            s("etcdoperator.v0.9.2-clusterwide"),
        ),
    ];
    expected.sort();
    assert_eq!(entry_triples(&provide), expected);

    let replace = collect(
        c.get_channel_entries_that_replace(api::GetAllReplacementsRequest {
            csv_name: s("etcdoperator.v0.9.0"),
        })
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    assert_eq!(
        entry_triples(&replace),
        [
            (
                s("clusterwide-alpha"),
                s("etcdoperator.v0.9.2-clusterwide"),
                s("etcdoperator.v0.9.0")
            ),
            (
                s("singlenamespace-alpha"),
                s("etcdoperator.v0.9.2"),
                s("etcdoperator.v0.9.0")
            ),
        ]
    );
    let latest =
        latest_providers(&mut c, "etcd.database.coreos.com", "v1beta2", "EtcdBackup").await;
    assert_eq!(
        entry_triples(&latest),
        [
            (
                s("clusterwide-alpha"),
                s("etcdoperator.v0.9.4-clusterwide"),
                s("etcdoperator.v0.9.2-clusterwide")
            ),
            (
                s("singlenamespace-alpha"),
                s("etcdoperator.v0.9.4"),
                s("etcdoperator.v0.9.2")
            ),
        ]
    );
    let pkg = c
        .get_package(api::GetPackageRequest { name: s("etcd") })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(pkg.default_channel_name, "singlenamespace-alpha");
    let heads: Vec<(&str, &str)> = pkg
        .channels
        .iter()
        .map(|c| (c.name.as_str(), c.csv_name.as_str()))
        .collect();
    assert_eq!(
        heads,
        [
            ("alpha", "etcdoperator-community.v0.6.1"),
            ("clusterwide-alpha", "etcdoperator.v0.9.4-clusterwide"),
            ("singlenamespace-alpha", "etcdoperator.v0.9.4"),
        ]
    );
    assert!(pkg.deprecation.is_none());
    let bundles = collect(
        c.list_bundles(api::ListBundlesRequest {})
            .await
            .expect("rpc")
            .into_inner(),
    )
    .await;
    assert_eq!(bundles.len(), 12);
    assert!(
        bundles
            .iter()
            .all(|b| b.csv_json.is_empty() && b.object.is_empty())
    );
    let order: Vec<(&str, &str)> = bundles
        .iter()
        .map(|b| (b.channel_name.as_str(), b.csv_name.as_str()))
        .collect();
    assert_eq!(order[0], ("alpha", "etcdoperator-community.v0.6.1"));
    let packages = collect(
        c.list_packages(api::ListPackageRequest {})
            .await
            .expect("rpc")
            .into_inner(),
    )
    .await;
    assert_eq!(packages.len(), 2);
    let mut x = ExperimentalRegistryClient::new(server.channel().await);
    let none = collect(
        x.experimental_list_package_custom_schemas(ack(custom_req(
            "custom.operator.io",
            "cockroachdb",
        )))
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    assert!(none.is_empty());
}
