//! Health, reflection, status codes and request limits.

use crate::harness::*;
use fbc_registry::api;
use fbc_registry::snapshot::Publisher;
use fbc_registry::transport::limits::TransportLimits;
use std::time::Duration;
use tonic::Code;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

#[tokio::test]
async fn health_is_serving_for_any_service_name() {
    let server = TestServer::start(&fixture("catalog-b")).await;
    let mut h = HealthClient::new(server.channel().await);
    for name in ["", "Registry", "api.Registry", "anything-else"] {
        let r = h
            .check(HealthCheckRequest {
                service: name.into(),
            })
            .await
            .expect("check")
            .into_inner();
        assert_eq!(r.status, ServingStatus::Serving as i32, "{name:?}");
    }
    let watch = h
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await;
    assert_eq!(
        watch.expect_err("unimplemented").code(),
        Code::Unimplemented
    );
}

#[tokio::test]
async fn health_is_not_serving_before_the_first_catalog() {
    let (_publisher, catalog) = Publisher::new();
    let (addr, _stop) = TestServer::serve_unloaded(catalog).await;
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .expect("uri")
        .connect()
        .await
        .expect("connect");
    let mut h = HealthClient::new(channel.clone());
    let r = h
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("check")
        .into_inner();
    assert_eq!(r.status, ServingStatus::NotServing as i32);
    let mut c = api::registry_client::RegistryClient::new(channel);
    let e = c
        .get_package(api::GetPackageRequest { name: s("x") })
        .await
        .expect_err("no catalog");
    assert_eq!(e.code(), Code::Unavailable);
}

#[tokio::test]
async fn not_found_errors_are_unknown_with_the_reference_messages() {
    let server = TestServer::start(&fixture("catalog-b")).await;
    let mut c = server.client().await;
    let e = c
        .get_package(api::GetPackageRequest { name: s("nope") })
        .await
        .expect_err("missing");
    assert_eq!(
        (e.code(), e.message()),
        (Code::Unknown, "package \"nope\" not found")
    );
    let e = c
        .get_bundle(api::GetBundleRequest {
            pkg_name: s("cockroachdb"),
            channel_name: s("nope"),
            csv_name: s("x"),
        })
        .await
        .expect_err("missing");
    assert_eq!(
        e.message(),
        "package \"cockroachdb\", channel \"nope\" not found"
    );
    let e = c
        .get_bundle(api::GetBundleRequest {
            pkg_name: s("cockroachdb"),
            channel_name: s("stable-5.x"),
            csv_name: s("x"),
        })
        .await
        .expect_err("missing");
    assert_eq!(
        e.message(),
        "package \"cockroachdb\", channel \"stable-5.x\", bundle \"x\" not found"
    );
    let e = c
        .get_bundle_that_replaces(api::GetReplacementRequest {
            csv_name: s("x"),
            pkg_name: s("nope"),
            channel_name: s("c"),
        })
        .await
        .expect_err("missing");
    assert_eq!(e.message(), "package nope not found");
    let e = c
        .get_bundle_that_replaces(api::GetReplacementRequest {
            csv_name: s("x"),
            pkg_name: s("cockroachdb"),
            channel_name: s("stable-5.x"),
        })
        .await
        .expect_err("missing");
    assert_eq!(
        e.message(),
        "no entry found for package \"cockroachdb\", channel \"stable-5.x\""
    );
    let e = c
        .get_channel_entries_that_replace(api::GetAllReplacementsRequest { csv_name: s("x") })
        .await
        .expect_err("missing");
    assert_eq!(
        (e.code(), e.message()),
        (Code::Unknown, "no channel entries found that replace x")
    );
    let e = c
        .get_channel_entries_that_provide(gvk_req("g", "v", "k"))
        .await
        .expect_err("missing");
    assert_eq!(
        e.message(),
        "no channel entries found that provide group:\"g\" version:\"v\" kind:\"k\""
    );
    let e = c
        .get_default_bundle_that_provides(api::GetDefaultProviderRequest {
            group: s("g"),
            version: s("v"),
            kind: s("k"),
            plural: s(""),
        })
        .await
        .expect_err("missing");
    assert_eq!(e.code(), Code::Unknown);
}

#[tokio::test]
async fn empty_and_huge_request_fields_get_a_clear_status() {
    let server = TestServer::start(&fixture("catalog-b")).await;
    let mut c = server.client().await;
    let e = c
        .get_package(api::GetPackageRequest {
            name: String::new(),
        })
        .await
        .expect_err("empty");
    assert_eq!(e.code(), Code::Unknown);
    let e = c
        .get_package(api::GetPackageRequest {
            name: "x".repeat(100_000),
        })
        .await
        .expect_err("huge");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("name is 100000 bytes long"),
        "{}",
        e.message()
    );
}

#[tokio::test]
async fn empty_replaces_matches_bundles_that_replace_nothing() {
    let server = TestServer::start(&fixture("catalog-b")).await;
    let mut c = server.client().await;
    let b = c
        .get_bundle_that_replaces(api::GetReplacementRequest {
            csv_name: s(""),
            pkg_name: s("cockroachdb"),
            channel_name: s("stable-5.x"),
        })
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(b.csv_name, "cockroachdb.v5.0.3");
}

#[tokio::test]
async fn reflection_lists_every_service() {
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    let server = TestServer::start(&fixture("catalog-b")).await;
    let mut r = ServerReflectionClient::new(server.channel().await);
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = r
        .server_reflection_info(tokio_stream::iter(vec![req]))
        .await
        .expect("reflection")
        .into_inner();
    let resp = stream.message().await.expect("reply").expect("one reply");
    let Some(MessageResponse::ListServicesResponse(list)) = resp.message_response else {
        panic!("unexpected {resp:?}")
    };
    let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "api.ExperimentalRegistry",
            "api.Registry",
            "fbc.v1.Catalogs",
            "fbc.v1.Graph",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"
        ]
    );
}

#[tokio::test]
async fn reflection_v1alpha_lists_every_service_too() {
    use tonic_reflection::pb::v1alpha::ServerReflectionRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse;
    let server = TestServer::start(&fixture("catalog-b")).await;
    let mut r = ServerReflectionClient::new(server.channel().await);
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = r
        .server_reflection_info(tokio_stream::iter(vec![req]))
        .await
        .expect("reflection")
        .into_inner();
    let resp = stream.message().await.expect("reply").expect("one reply");
    let Some(MessageResponse::ListServicesResponse(list)) = resp.message_response else {
        panic!("unexpected {resp:?}")
    };
    assert_eq!(list.service.len(), 7, "{:?}", list.service);
}

#[tokio::test]
async fn list_bundles_streams_interleave_with_unary_calls_on_one_connection() {
    let server = TestServer::start(&fixture("catalog-a")).await;
    let mut c = server.client().await;
    let mut stream = c
        .list_bundles(api::ListBundlesRequest {})
        .await
        .expect("rpc")
        .into_inner();
    let mut seen = 0;
    while let Some(b) = stream.message().await.expect("item") {
        let p = c
            .get_package(api::GetPackageRequest {
                name: b.package_name.clone(),
            })
            .await
            .expect("GetPackage inside the stream");
        assert_eq!(p.into_inner().name, b.package_name);
        seen += 1;
    }
    assert_eq!(seen, 20);
}

/// `--max-connection-age`: a client connection older than the age is told to go
/// away (GOAWAY, NO_ERROR) at the age, so clients reconnect and spread over
/// replicas; a call still running then gets `--max-connection-age-grace` before the
/// connection is closed; without an age the connection stays.
#[tokio::test]
async fn connections_past_max_connection_age_are_sent_away_then_closed_after_the_grace() {
    use std::time::Instant;
    let aged = TestServer::start_with(
        &fixture("catalog-a"),
        TransportLimits {
            max_connection_age: Some(Duration::from_millis(500)),
            max_connection_age_grace: Some(Duration::from_millis(1500)),
            ..TransportLimits::default()
        },
    )
    .await;
    let started = Instant::now();
    let tcp = tokio::net::TcpStream::connect(aged.addr)
        .await
        .expect("connect");
    let (client, connection) = h2::client::handshake(tcp).await.expect("handshake");
    let ended = tokio::spawn(async move {
        let _ = connection.await;
        started.elapsed()
    });
    // A call whose request never ends: it runs until the connection goes.
    let held = held_grpc_call(client.clone()).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    // Past the age, within the grace: new calls are refused with a GOAWAY.
    let refused = held_grpc_call(client)
        .await
        .expect_err("a new stream after the GOAWAY");
    assert!(refused.is_go_away(), "{refused:?}");
    assert_eq!(refused.reason(), Some(h2::Reason::NO_ERROR), "{refused:?}");
    let ended = tokio::time::timeout(Duration::from_secs(5), ended)
        .await
        .expect("closed after age + grace")
        .expect("joined");
    assert!(
        ended >= Duration::from_millis(1900),
        "closed early: {ended:?}"
    );
    assert!(
        ended < Duration::from_millis(3500),
        "closed late: {ended:?}"
    );
    drop(held);

    let ageless = TestServer::start(&fixture("catalog-a")).await;
    let tcp = tokio::net::TcpStream::connect(ageless.addr)
        .await
        .expect("connect");
    let (_client, connection) = h2::client::handshake(tcp).await.expect("handshake");
    assert!(
        tokio::time::timeout(Duration::from_secs(1), connection)
            .await
            .is_err()
    );
}

/// Opens a Health check whose request body never comes.
async fn held_grpc_call(
    client: h2::client::SendRequest<bytes::Bytes>,
) -> Result<h2::SendStream<bytes::Bytes>, h2::Error> {
    let request = http::Request::post("/grpc.health.v1.Health/Check")
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .expect("a request");
    let mut client = client.ready().await?;
    let (_response, stream) = client.send_request(request, false)?;
    Ok(stream)
}
