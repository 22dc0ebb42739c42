//! Catalog B (`tests/fixtures/catalog-b`): deprecated channels and bundles in
//! GetPackage and GetBundle replies, and GetChannelEntriesThatReplace (`csvName ""`
//! included).

use super::*;

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
