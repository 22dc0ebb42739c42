//! catalogd's HTTP API on the running server: catalogd's own pinned cases
//! (operator-controller `storage/localdir_test.go`), then what Go's
//! `ServeContent` and gzhttp add — validators, 304/412, ranges, gzip, HEAD —
//! and a reload that switches HTTP and gRPC together.

use crate::harness::{TestServer, copy_dir, edit, fixture, http_config, package_names};
use crate::http_client::{HttpReply, get, request};
use std::net::SocketAddr;

const BUNDLE: &str = r#"{"image":"quaydock.io/namespace/bundle:0.0.3","name":"bundle.v0.0.1","package":"webhook-operator-test","properties":[{"type":"olm.bundle.object","value":{"data":"dW5pbXBvcnRhbnQK"}},{"type":"some.other","value":{"data":"arbitrary-info"}},{"type":"olm.package","value":{"packageName":"webhook-operator-test","version":"0.0.1"}}],"relatedImages":[{"image":"testimage:latest","name":"test"}],"schema":"olm.bundle"}"#;
const PACKAGE: &str =
    r#"{"defaultChannel":"preview_test","name":"webhook-operator-test","schema":"olm.package"}"#;
const CHANNEL: &str = r#"{"entries":[{"name":"bundle.v0.0.1"}],"name":"preview_test","package":"webhook-operator-test","schema":"olm.channel"}"#;

/// catalogd's test catalog, served with the browser off: `/` is then a 404, as
/// catalogd answers it.
async fn catalogd_server() -> TestServer {
    let mut config = http_config(&fixture("catalogd-test-catalog"), "test-catalog");
    if let Some((_, http)) = &mut config.http {
        http.browser = false;
    }
    TestServer::start_config(config).await
}

async fn example_server() -> TestServer {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
    TestServer::start_http(&dir, "example").await
}

fn lines(items: &[&str]) -> String {
    items.iter().map(|l| format!("{l}\n")).collect()
}

#[tokio::test]
async fn catalogds_server_handler_cases() {
    let server = catalogd_server().await;
    let addr = server.http_addr();
    for path in [
        "/",
        "/catalogs/",
        "/catalogs/test-catalog/",
        "/catalogs/test-catalog/api/",
        "/catalogs/test-catalog/api/v1c",
        "/catalogs/test-catalog/non-existent.txt",
        "/catalogs/test-catalog.jsonl",
    ] {
        let reply = get(addr, path).await;
        assert_eq!(
            (reply.status, reply.text().as_str()),
            (404, "404 page not found\n"),
            "{path}"
        );
    }
    let reply = get(addr, "/catalogs/non-existent-catalog/api/v1/all").await;
    assert_eq!(
        (reply.status, reply.text().as_str()),
        (404, "404 Not Found\n")
    );
    let reply = request(
        addr,
        "GET",
        "/catalogs/test-catalog/api/v1/all",
        &[("Accept-Encoding", "gzip")],
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/jsonl"));
    assert_eq!(
        String::from_utf8(reply.decoded()).unwrap(),
        lines(&[BUNDLE, PACKAGE, CHANNEL])
    );
}

#[tokio::test]
async fn catalogds_metas_cases() {
    let server = catalogd_server().await;
    let addr = server.http_addr();
    let cases: &[(&str, u16, String)] = &[
        ("?schema=olm.package", 200, lines(&[PACKAGE])),
        (
            "?schema=olm.package&name=webhook-operator-test",
            200,
            lines(&[PACKAGE]),
        ),
        (
            "?schema=olm.channel&package=webhook-operator-test",
            200,
            lines(&[CHANNEL]),
        ),
        (
            "?schema=olm.bundle&package=webhook-operator-test&name=bundle.v0.0.1",
            200,
            lines(&[BUNDLE]),
        ),
        ("?schema=olm.package&name=not-present", 200, String::new()),
        (
            "?package=webhook-operator-test&name=bundle.v0.0.1",
            200,
            lines(&[BUNDLE]),
        ),
        ("?schema=non_existent_schema", 200, String::new()),
        (
            "?package=webhook-operator-test",
            200,
            lines(&[BUNDLE, CHANNEL]),
        ),
        ("?non-existent=foo", 400, "400 Bad Request\n".into()),
        (
            "?schema=olm.bundle&&schema=olm.bundle",
            200,
            lines(&[BUNDLE]),
        ),
        // Go's url.ParseQuery drops pairs with ';' or a bad escape
        (
            "?schema=olm.package;x=1",
            200,
            lines(&[BUNDLE, PACKAGE, CHANNEL]),
        ),
        ("?schema=%zz&name=preview_test", 200, lines(&[CHANNEL])),
        ("?schema=olm%2Echannel", 200, lines(&[CHANNEL])),
        ("", 200, lines(&[BUNDLE, PACKAGE, CHANNEL])),
    ];
    for (query, status, body) in cases {
        let path = format!("/catalogs/test-catalog/api/v1/metas{query}");
        let reply = request(addr, "GET", &path, &[("Accept-Encoding", "gzip")]).await;
        assert_eq!(reply.status, *status, "{query}");
        assert_eq!(
            String::from_utf8(reply.decoded()).unwrap(),
            *body,
            "{query}"
        );
    }
    // cached response with If-Modified-Since
    let path = "/catalogs/test-catalog/api/v1/metas?schema=olm.package";
    let first = get(addr, path).await;
    let since = first.header("last-modified").unwrap().to_string();
    let again = request(addr, "GET", path, &[("If-Modified-Since", &since)]).await;
    assert_eq!((again.status, again.body.len()), (304, 0));
}

#[tokio::test]
async fn methods_names_and_catalogs() {
    let server = catalogd_server().await;
    let addr = server.http_addr();
    let reply = request(addr, "POST", "/catalogs/test-catalog/api/v1/all", &[]).await;
    assert_eq!(
        (reply.status, reply.text().as_str()),
        (405, "Method Not Allowed\n")
    );
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    let reply = get(addr, "/catalogs/Test_Catalog/api/v1/metas?bogus=1").await;
    assert_eq!(reply.status, 400);
    assert!(
        reply
            .text()
            .starts_with("invalid catalog name: a lowercase RFC 1123 subdomain must consist of"),
        "{}",
        reply.text()
    );
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    // an escaped slash is one segment, decoded before the check (as Go's PathValue is)
    let reply = get(addr, "/catalogs/a%2Fb/api/v1/all").await;
    assert_eq!(reply.status, 400);
    let reply = get(addr, "/catalogs/../api/v1/all").await;
    assert_eq!(reply.status, 400, "{}", reply.text());
}

async fn all(addr: SocketAddr, headers: &[(&str, &str)]) -> HttpReply {
    request(addr, "GET", "/catalogs/example/api/v1/all", headers).await
}

#[tokio::test]
async fn head_is_get_without_the_body() {
    let server = example_server().await;
    let addr = server.http_addr();
    for path in [
        "/catalogs/example/api/v1/all",
        "/catalogs/example/api/v1/metas?schema=olm.bundle",
    ] {
        let got = request(addr, "GET", path, &[("Accept-Encoding", "gzip")]).await;
        let head = request(addr, "HEAD", path, &[("Accept-Encoding", "gzip")]).await;
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty());
        // HEAD is never compressed: its length is the identity body's
        assert_eq!(head.header("content-encoding"), None);
        assert_eq!(
            head.header("content-length").unwrap(),
            got.decoded().len().to_string(),
            "{path}"
        );
        assert_eq!(head.header("last-modified"), got.header("last-modified"));
        assert_eq!(head.header("content-type"), got.header("content-type"));
    }
}

#[tokio::test]
async fn gzip_when_asked_and_worth_it() {
    let server = example_server().await;
    let addr = server.http_addr();
    let plain = all(addr, &[]).await;
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.header("accept-ranges"), Some("bytes"));
    assert_eq!(plain.header("vary"), Some("Accept-Encoding"));
    let gzipped = all(addr, &[("Accept-Encoding", "deflate, gzip;q=0.5")]).await;
    assert_eq!(gzipped.header("content-encoding"), Some("gzip"));
    assert_eq!(
        gzipped.header("accept-ranges"),
        None,
        "gzhttp drops Accept-Ranges"
    );
    assert!(gzipped.body.len() < plain.body.len() / 2);
    assert_eq!(gzipped.decoded(), plain.body);
    assert_ne!(gzipped.header("etag"), plain.header("etag"));
    let refused = all(addr, &[("Accept-Encoding", "gzip;q=0")]).await;
    assert_eq!(refused.header("content-encoding"), None);
    // every /metas selection, gzipped from per-meta segments, decodes to its identity body
    for query in [
        "schema=olm.bundle",
        "package=example-operator",
        "schema=olm.channel&package=example-operator",
        "name=stable",
    ] {
        let path = format!("/catalogs/example/api/v1/metas?{query}");
        let plain = get(addr, &path).await;
        let gzipped = request(addr, "GET", &path, &[("Accept-Encoding", "gzip")]).await;
        assert!(!plain.body.is_empty(), "{query}");
        if plain.body.len() >= 1024 {
            assert_eq!(gzipped.header("content-encoding"), Some("gzip"), "{query}");
        } else {
            assert_eq!(
                gzipped.header("content-encoding"),
                None,
                "{query}: under 1 KiB goes as it is"
            );
        }
        assert_eq!(gzipped.decoded(), plain.body, "{query}");
    }
}

#[tokio::test]
async fn validators_and_preconditions() {
    let server = example_server().await;
    let addr = server.http_addr();
    let first = all(addr, &[]).await;
    let etag = first.header("etag").unwrap().to_string();
    let modified = first.header("last-modified").unwrap().to_string();
    assert_eq!(first.header("cache-control"), Some("no-cache"));
    let not_modified = all(addr, &[("If-None-Match", &etag)]).await;
    assert_eq!(not_modified.status, 304);
    assert_eq!(not_modified.header("etag"), Some(etag.as_str()));
    assert_eq!(not_modified.header("content-type"), None);
    assert_eq!(
        not_modified.header("last-modified"),
        None,
        "Go drops it when an ETag is set"
    );
    assert!(not_modified.body.is_empty());
    let gz = all(addr, &[("Accept-Encoding", "gzip")]).await;
    let gz_etag = gz.header("etag").unwrap().to_string();
    assert_eq!(
        all(
            addr,
            &[("If-None-Match", &gz_etag), ("Accept-Encoding", "gzip")]
        )
        .await
        .status,
        304
    );
    assert_eq!(
        all(addr, &[("If-Modified-Since", &modified)]).await.status,
        304
    );
    assert_eq!(
        all(addr, &[("If-None-Match", "\"other\"")]).await.status,
        200
    );
    let failed = all(addr, &[("If-Match", "\"other\"")]).await;
    assert_eq!(
        (failed.status, failed.header("content-length")),
        (412, Some("0"))
    );
    assert_eq!(all(addr, &[("If-Match", &etag)]).await.status, 200);
    assert_eq!(
        all(
            addr,
            &[("If-Unmodified-Since", "Thu, 01 Jan 1970 00:00:00 GMT")]
        )
        .await
        .status,
        412
    );
}

#[tokio::test]
async fn byte_ranges() {
    let server = example_server().await;
    let addr = server.http_addr();
    let body = all(addr, &[]).await.body;
    let size = body.len();
    let one = all(
        addr,
        &[("Range", "bytes=10-19"), ("Accept-Encoding", "gzip")],
    )
    .await;
    assert_eq!(one.status, 206);
    assert_eq!(
        one.header("content-encoding"),
        None,
        "ranges are never compressed"
    );
    assert_eq!(
        one.header("content-range"),
        Some(format!("bytes 10-19/{size}").as_str())
    );
    assert_eq!(one.body, &body[10..20]);
    let suffix = all(addr, &[("Range", "bytes=-5")]).await;
    assert_eq!(suffix.body, &body[size - 5..]);
    let multi = all(addr, &[("Range", "bytes=0-1, 100-104")]).await;
    assert_eq!(multi.status, 206);
    let content_type = multi.header("content-type").unwrap();
    let boundary = content_type
        .strip_prefix("multipart/byteranges; boundary=")
        .unwrap();
    assert_eq!(boundary.len(), 60);
    let text = multi.text();
    let expected = format!(
        "--{boundary}\r\nContent-Range: bytes 0-1/{size}\r\nContent-Type: application/jsonl\r\n\r\n{}\r\n--{boundary}\r\nContent-Range: bytes 100-104/{size}\r\nContent-Type: application/jsonl\r\n\r\n{}\r\n--{boundary}--\r\n",
        String::from_utf8_lossy(&body[0..2]),
        String::from_utf8_lossy(&body[100..105]),
    );
    assert_eq!(text, expected);
    assert_eq!(
        multi.header("content-length").unwrap(),
        text.len().to_string()
    );
    let beyond = all(addr, &[("Range", &format!("bytes={size}-"))]).await;
    assert_eq!(
        (beyond.status, beyond.text().as_str()),
        (416, "invalid range: failed to overlap\n")
    );
    assert_eq!(
        beyond.header("content-range"),
        Some(format!("bytes */{size}").as_str())
    );
    assert_eq!(beyond.header("etag"), None);
    let invalid = all(addr, &[("Range", "bytes=5-1")]).await;
    assert_eq!(
        (invalid.status, invalid.header("content-range")),
        (416, None)
    );
    // If-Range with an old date or another tag: the whole body
    let stale = all(addr, &[("Range", "bytes=0-1"), ("If-Range", "\"old\"")]).await;
    assert_eq!((stale.status, stale.body.len()), (200, size));
    // ranges adding up to more than the body: ignored
    let greedy = all(addr, &[("Range", "bytes=0-,0-")]).await;
    assert_eq!(greedy.status, 200);
    // /metas takes no ranges, as catalogd's
    let metas = request(
        addr,
        "GET",
        "/catalogs/example/api/v1/metas?schema=olm.package",
        &[("Range", "bytes=0-1")],
    )
    .await;
    assert_eq!((metas.status, metas.header("accept-ranges")), (200, None));
}

#[tokio::test]
async fn a_reload_switches_http_and_grpc_together() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("example");
    copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example"),
        &dir,
    );
    let server = TestServer::start_http(&dir, "example").await;
    let addr = server.http_addr();
    let before = all(addr, &[]).await;
    let mut client = server.client().await;
    assert!(before.text().contains("\"name\":\"example-dependency\""));
    let package_file = dir.join("example-dependency/catalog.json");
    edit(
        &package_file,
        "Example Dependency provides",
        "Example Dependency now provides",
    );
    let generation = server.catalog.load().unwrap().generation;
    server.reload.trigger();
    crate::harness::eventually(std::time::Duration::from_secs(30), "the reload", || async {
        server.catalog.load().unwrap().generation > generation
    })
    .await;
    let after = all(addr, &[]).await;
    assert!(after.text().contains("Example Dependency now provides"));
    assert_ne!(after.header("etag"), before.header("etag"));
    let (b, a) = (
        before.header("last-modified").unwrap(),
        after.header("last-modified").unwrap(),
    );
    let parse = |t: &str| httpdate::parse_http_date(t).unwrap();
    assert!(
        parse(a) > parse(b),
        "Last-Modified must move forward: {b} then {a}"
    );
    // the old validators no longer match
    let revalidated = all(addr, &[("If-None-Match", before.header("etag").unwrap())]).await;
    assert_eq!(revalidated.status, 200);
    assert_eq!(package_names(&mut client).await.len(), 2);
}

#[tokio::test]
async fn all_is_byte_for_byte_what_operator_registry_walks() {
    let catalogd = catalogd_server().await;
    crate::http_client::assert_all_is_operator_registrys(
        catalogd.http_addr(),
        "test-catalog",
        "catalogd-test-catalog",
    )
    .await;
    let example = example_server().await;
    crate::http_client::assert_all_is_operator_registrys(example.http_addr(), "example", "example")
        .await;
}

#[tokio::test]
async fn the_upgrade_graph_and_successors_over_http() {
    let server = example_server().await;
    let addr = server.http_addr();
    let base = "/catalogs/example/api/v1";
    let graph = get(addr, &format!("{base}/graph?package=example-operator")).await;
    assert_eq!(
        (graph.status, graph.header("content-type")),
        (200, Some("application/json"))
    );
    let json: serde_json::Value = serde_json::from_slice(&graph.body).unwrap();
    assert_eq!(json["packages"][0]["package"], "example-operator");
    assert!(graph.header("etag").is_some());
    let all = get(addr, &format!("{base}/graph")).await;
    let json: serde_json::Value = serde_json::from_slice(&all.body).unwrap();
    assert_eq!(json["packages"].as_array().unwrap().len(), 2);
    let dot = get(
        addr,
        &format!("{base}/graph?package=example-operator&format=dot"),
    )
    .await;
    assert!(dot.text().starts_with("digraph"), "{}", dot.text());
    let missing = get(addr, &format!("{base}/graph?package=example-operatr")).await;
    assert_eq!(
        (missing.status, missing.text().as_str()),
        (
            404,
            "package \"example-operatr\" not found (did you mean example-operator?)\n"
        )
    );
    assert_eq!(
        get(addr, &format!("{base}/graph?format=svg")).await.status,
        400
    );
    assert_eq!(get(addr, &format!("{base}/graph?pkg=x")).await.status, 400);
    let next = get(
        addr,
        &format!("{base}/successors?package=example-operator&installed=example-operator.v0.1.0"),
    )
    .await;
    let json: serde_json::Value = serde_json::from_slice(&next.body).unwrap();
    assert_eq!(json["selected"], "example-operator.v0.2.0");
    let etag = next.header("etag").unwrap().to_string();
    let again = request(
        addr,
        "GET",
        &format!("{base}/successors?package=example-operator&installed=example-operator.v0.1.0"),
        &[("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(again.status, 304);
    let unknown = get(
        addr,
        &format!("{base}/successors?package=example-operator&installed=nope"),
    )
    .await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn a_version_alone_finds_its_bundle_so_replaces_and_skips_count() {
    let server = example_server().await;
    let addr = server.http_addr();
    let base = "/catalogs/example/api/v1";
    let next = get(
        addr,
        &format!("{base}/successors?package=example-operator&version=0.2.0"),
    )
    .await;
    assert_eq!(next.status, 200, "{}", next.text());
    let json: serde_json::Value = serde_json::from_slice(&next.body).unwrap();
    let edges = |name: &str| -> Vec<String> {
        json["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["name"] == name)
            .flat_map(|c| c["edges"].as_array().unwrap().iter())
            .map(|e| {
                format!(
                    "{} {}",
                    e["kind"].as_str().unwrap(),
                    e["channel"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(json["selected"], "example-operator.v1.0.0");
    assert!(
        edges("example-operator.v0.3.0").contains(&"replaces alpha".to_string()),
        "{json}"
    );
    assert!(
        edges("example-operator.v1.0.0").contains(&"replaces stable".to_string()),
        "{json}"
    );
    assert!(
        json["warnings"][0]
            .as_str()
            .unwrap()
            .contains("\"example-operator.v0.2.0\""),
        "the answer says which bundle the version named: {json}"
    );
}

#[tokio::test]
async fn icons_are_resources_of_their_own() {
    let server = example_server().await;
    let addr = server.http_addr();
    let icon = get(addr, "/catalogs/example/api/v1/icons/example-operator").await;
    assert_eq!(icon.status, 200);
    assert_eq!(icon.header("content-type"), Some("image/svg+xml"));
    assert!(icon.text().starts_with("<svg"));
    assert_eq!(
        icon.header("content-security-policy"),
        Some("default-src 'none'; style-src 'unsafe-inline'; sandbox")
    );
    assert_eq!(icon.header("cache-control"), Some("no-cache"));
    let etag = icon.header("etag").unwrap().to_string();
    let version = etag
        .trim_matches('"')
        .strip_prefix("icon-")
        .unwrap()
        .to_string();
    let pinned = get(
        addr,
        &format!("/catalogs/example/api/v1/icons/example-operator?v={version}"),
    )
    .await;
    assert_eq!(
        pinned.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let revalidated = request(
        addr,
        "GET",
        "/catalogs/example/api/v1/icons/example-operator",
        &[("If-None-Match", &etag)],
    )
    .await;
    assert_eq!((revalidated.status, revalidated.body.len()), (304, 0));
    assert_eq!(
        get(addr, "/catalogs/example/api/v1/icons/example-dependency")
            .await
            .status,
        404,
        "no icon"
    );
    assert_eq!(
        get(addr, "/catalogs/example/api/v1/icons/nope")
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn readiness_answers_per_bundle_and_sums_the_catalog() {
    let server = example_server().await;
    let addr = server.http_addr();
    let base = "/catalogs/example/api/v1";
    let all = get(addr, &format!("{base}/readiness")).await;
    assert_eq!(all.status, 200, "{}", all.text());
    assert_eq!(all.header("content-type"), Some("application/json"));
    let json: serde_json::Value = serde_json::from_slice(&all.body).unwrap();
    let per_package = json["perPackage"].as_array().unwrap();
    assert_eq!(json["packages"].as_u64(), Some(per_package.len() as u64));
    let bundles: usize = per_package
        .iter()
        .map(|p| p["bundles"].as_array().unwrap().len())
        .sum();
    assert_eq!(json["bundles"]["bundles"].as_u64(), Some(bundles as u64));
    let installable_heads = per_package
        .iter()
        .filter(|p| p["headInstallable"] == true)
        .count();
    assert_eq!(
        json["installablePackages"].as_u64(),
        Some(installable_heads as u64)
    );
    let one = get(addr, &format!("{base}/readiness?package=example-operator")).await;
    let one: serde_json::Value = serde_json::from_slice(&one.body).unwrap();
    assert_eq!(one["packages"], 1);
    assert_eq!(one["perPackage"][0]["package"], "example-operator");
    let missing = get(addr, &format!("{base}/readiness?package=example-operatr")).await;
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("did you mean example-operator?"));
    assert_eq!(
        get(addr, &format!("{base}/readiness?pkg=x")).await.status,
        400
    );
}
