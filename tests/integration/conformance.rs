//! The expectations of the reference project's own tests (spec §7.1–§7.5),
//! against fixtures re-created as FBC in `tests/fixtures/catalog-{a..e}`.

use crate::harness::*;
use fbc_registry::api;
use fbc_registry::api::experimental_registry_client::ExperimentalRegistryClient;
use tonic::Code;

fn ack<T>(msg: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut().insert(
        "x-acknowledge-experimental",
        "true".parse().expect("header"),
    );
    r
}

fn custom_req(schema: &str, package: &str) -> api::ExperimentalListPackageCustomSchemasRequest {
    api::ExperimentalListPackageCustomSchemasRequest {
        schema: schema.into(),
        package_name: package.into(),
    }
}

/// The bundle the reference calls **E** in §7.1 (trimmed, alpha copy).
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

#[tokio::test]
async fn catalog_b_serves_deprecations() {
    let server = TestServer::start(&fixture("catalog-b")).await;
    let mut c = server.client().await;
    let names: Vec<String> = package_names(&mut c).await;
    assert_eq!(names, ["cockroachdb"]);
    let pkg = c
        .get_package(api::GetPackageRequest {
            name: s("cockroachdb"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(pkg.default_channel_name, "stable-v6.x");
    assert_eq!(pkg.channels.len(), 2);
    assert_eq!(pkg.channels[0].name, "stable-5.x");
    assert_eq!(pkg.channels[0].csv_name, "cockroachdb.v5.0.4");
    assert_eq!(
        pkg.channels[0]
            .deprecation
            .as_ref()
            .map(|d| d.message.as_str()),
        Some(
            "channel stable-5.x is no longer supported.  Please switch to channel 'stable-6.x'.\n"
        )
    );
    assert_eq!(pkg.channels[1].name, "stable-v6.x");
    assert_eq!(pkg.channels[1].csv_name, "cockroachdb.v6.0.0");
    assert!(pkg.channels[1].deprecation.is_none());
    assert_eq!(
        pkg.deprecation.as_ref().map(|d| d.message.as_str()),
        Some(
            "package cockroachdb is end of life.  Please use 'nouveau-cockroachdb' package for support.\n"
        )
    );

    let b = c
        .get_bundle(api::GetBundleRequest {
            pkg_name: s("cockroachdb"),
            channel_name: s("stable-5.x"),
            csv_name: s("cockroachdb.v5.0.4"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(
        b.bundle_path,
        "quay.io/openshift-community-operators/cockroachdb@sha256:f42337e7b85a46d83c94694638e2312e10ca16a03542399a65ba783c94a32b63"
    );
    assert_eq!(b.version, "5.0.4");
    assert_eq!(b.provided_apis.len(), 1);
    assert_eq!(
        (
            b.provided_apis[0].group.as_str(),
            b.provided_apis[0].version.as_str(),
            b.provided_apis[0].kind.as_str()
        ),
        ("charts.operatorhub.io", "v1alpha1", "Cockroachdb")
    );
    assert!(b.required_apis.is_empty() && b.dependencies.is_empty());
    let props: Vec<(&str, &str)> = b
        .properties
        .iter()
        .map(|p| (p.r#type.as_str(), p.value.as_str()))
        .collect();
    assert_eq!(
        props,
        [
            (
                "olm.gvk",
                r#"{"group":"charts.operatorhub.io","kind":"Cockroachdb","version":"v1alpha1"}"#
            ),
            (
                "olm.package",
                r#"{"packageName":"cockroachdb","version":"5.0.4"}"#
            ),
        ]
    );
    assert!(b.csv_json.is_empty() && b.object.is_empty() && b.deprecation.is_none());

    let old = c
        .get_bundle(api::GetBundleRequest {
            pkg_name: s("cockroachdb"),
            channel_name: s("stable-5.x"),
            csv_name: s("cockroachdb.v5.0.3"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(
        old.deprecation.map(|d| d.message),
        Some(s(
            "cockroachdb.v5.0.3 is deprecated. Uninstall and install cockroachdb.v5.0.4 for support.\n"
        ))
    );

    let replace = collect(
        c.get_channel_entries_that_replace(api::GetAllReplacementsRequest {
            csv_name: s("cockroachdb.v5.0.3"),
        })
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    assert_eq!(
        replace,
        [api::ChannelEntry {
            package_name: s("cockroachdb"),
            channel_name: s("stable-5.x"),
            bundle_name: s("cockroachdb.v5.0.4"),
            replaces: s("cockroachdb.v5.0.3"),
        }]
    );

    // csvName "": every entry that replaces nothing (opm v1.26–v1.73), in ListBundles order
    let nothing = collect(
        c.get_channel_entries_that_replace(api::GetAllReplacementsRequest { csv_name: s("") })
            .await
            .expect("csvName \"\" is answered")
            .into_inner(),
    )
    .await;
    let first = |channel: &str, bundle: &str| api::ChannelEntry {
        package_name: s("cockroachdb"),
        channel_name: s(channel),
        bundle_name: s(bundle),
        replaces: s(""),
    };
    assert_eq!(
        nothing,
        [
            first("stable-5.x", "cockroachdb.v5.0.3"),
            first("stable-v6.x", "cockroachdb.v6.0.0")
        ]
    );
}

#[tokio::test]
async fn catalog_c_custom_schemas_need_the_acknowledgement_header() {
    let server = TestServer::start(&fixture("catalog-c")).await;
    let mut x = ExperimentalRegistryClient::new(server.channel().await);
    let got = collect(
        x.experimental_list_package_custom_schemas(ack(custom_req(
            "custom.operator.io",
            "testpkg",
        )))
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    assert_eq!(got.len(), 2);
    for st in &got {
        let field = |k: &str| st.fields.get(k).and_then(|v| v.kind.clone());
        assert_eq!(
            field("schema"),
            Some(prost_types::value::Kind::StringValue(s(
                "custom.operator.io"
            )))
        );
        assert_eq!(
            field("package"),
            Some(prost_types::value::Kind::StringValue(s("testpkg")))
        );
    }
    let none = collect(
        x.experimental_list_package_custom_schemas(ack(custom_req(
            "custom.operator.io",
            "nonexistent",
        )))
        .await
        .expect("rpc")
        .into_inner(),
    )
    .await;
    assert!(none.is_empty());
    let err = x
        .experimental_list_package_custom_schemas(ack(custom_req("", "")))
        .await
        .expect_err("empty schema");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(err.message(), "schema is required");
    let global = collect(
        x.experimental_list_package_custom_schemas(ack(custom_req("custom.packageless", "")))
            .await
            .expect("rpc")
            .into_inner(),
    )
    .await;
    assert_eq!(global.len(), 1);
    assert_eq!(
        global[0].fields.get("name").and_then(|v| v.kind.clone()),
        Some(prost_types::value::Kind::StringValue(s("global-config")))
    );
    let silent = collect(
        x.experimental_list_package_custom_schemas(custom_req("custom.operator.io", "testpkg"))
            .await
            .expect("rpc")
            .into_inner(),
    )
    .await;
    assert!(
        silent.is_empty(),
        "without the header the stream is empty and OK"
    );
    let bad = x
        .experimental_list_package_custom_schemas(ack(custom_req("custom.operator.io", "../x")))
        .await
        .expect_err("bad key");
    assert_eq!(bad.code(), Code::InvalidArgument);
    assert!(
        bad.message().contains("invalid packageName \"../x\""),
        "{}",
        bad.message()
    );
}

#[tokio::test]
async fn a_call_past_its_deadline_reports_cancelled_or_deadline_exceeded() {
    // tonic enforces a deadline on the response headers only, so a 1 ns call
    // sometimes completes first; over many calls some must fail, all with the right code
    let server = TestServer::start(&fixture("catalog-c")).await;
    let mut x = ExperimentalRegistryClient::new(server.channel().await);
    let mut failures = 0;
    for _ in 0..40 {
        let mut req = ack(custom_req("custom.operator.io", "testpkg"));
        req.set_timeout(std::time::Duration::from_nanos(1));
        if let Err(e) = x.experimental_list_package_custom_schemas(req).await {
            assert!(
                matches!(e.code(), Code::Cancelled | Code::DeadlineExceeded),
                "{e:?}"
            );
            failures += 1;
        }
    }
    assert!(failures > 0, "no call past its deadline failed");
}

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

#[tokio::test]
async fn catalog_e_custom_schemas_by_schema_and_package() {
    let server = TestServer::start(&fixture("catalog-e")).await;
    let mut x = ExperimentalRegistryClient::new(server.channel().await);
    let mut count = async |schema: &str, package: &str| {
        collect(
            x.experimental_list_package_custom_schemas(ack(custom_req(schema, package)))
                .await
                .expect("rpc")
                .into_inner(),
        )
        .await
    };
    assert_eq!(count("custom.operator.io", "testpkg").await.len(), 2);
    let other = count("other.custom.schema", "testpkg").await;
    assert_eq!(other.len(), 1);
    assert!(other[0].fields.contains_key("info"));
    assert!(count("unknown.schema", "testpkg").await.is_empty());
    assert!(count("custom.operator.io", "otherpkg").await.is_empty());
    assert_eq!(count("custom.packageless", "").await.len(), 1);
    assert!(count("custom.packageless", "testpkg").await.is_empty());
    let mut c = server.client().await;
    let names: Vec<String> = package_names(&mut c).await;
    assert_eq!(names, ["testpkg"]);
}

#[tokio::test]
async fn indexignore_fixture_hides_non_catalog_files() {
    let fbc_registry::catalog::LoadedCatalog { index, report, .. } =
        fbc_registry::catalog::load(&fixture("indexignore"), &Default::default()).expect("valid");
    assert_eq!(index.stats().packages, 1);
    assert_eq!(report.files, 2, "README.md and the CSV yaml are ignored");
}
