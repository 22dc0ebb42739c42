//! Catalog C (`tests/fixtures/catalog-c`): custom schemas behind the
//! acknowledgement header, and calls past their deadline.

use super::*;

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
