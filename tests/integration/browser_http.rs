//! The catalog browser over HTTP (what a browser test cannot see): content
//! types, the page policy, validators, gzip, HEAD, 404s without listings or
//! traversal, cacheable assets, the SVG graph route, the pages following a
//! reload, and `--browser=false`.

use crate::harness::{TestServer, copy_dir, fixture, http_config};
use crate::http_client::{get, request};

const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

async fn server() -> TestServer {
    TestServer::start_http(&fixture("browser"), "browser").await
}

/// The hashed paths of the stylesheet and script a page links.
fn asset_paths(html: &str) -> Vec<String> {
    html.split("\"/assets/")
        .skip(1)
        .filter_map(|rest| rest.split_once('"'))
        .map(|(path, _)| format!("/assets/{path}"))
        .collect()
}

#[tokio::test]
async fn pages_are_html_under_a_strict_policy() {
    let server = server().await;
    let addr = server.http_addr();
    for path in [
        "/",
        "/?q=gizmo",
        "/packages/widget-operator",
        "/packages/plain%2Doperator",
    ] {
        let reply = get(addr, path).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        assert_eq!(
            reply.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        assert_eq!(
            reply.header("content-security-policy"),
            Some(POLICY),
            "{path}"
        );
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(
            reply.header("referrer-policy"),
            Some("no-referrer"),
            "{path}"
        );
        assert_eq!(reply.header("cache-control"), Some("no-cache"), "{path}");
        assert!(reply.header("etag").is_some(), "{path}");
        assert!(reply.text().starts_with("<!DOCTYPE html>"), "{path}");
    }
    let home = get(addr, "/?q=gizmo").await.text();
    assert!(home.contains("1 of 2 packages"), "{home}");
}

#[tokio::test]
async fn pages_revalidate_compress_and_answer_head() {
    let server = server().await;
    let addr = server.http_addr();
    let page = "/packages/widget-operator";
    let full = get(addr, page).await;
    let etag = full.header("etag").expect("etag").to_string();
    let again = request(addr, "GET", page, &[("If-None-Match", &etag)]).await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let gzip = request(addr, "GET", page, &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert_eq!(gzip.decoded(), full.body);
    assert!(gzip.body.len() < full.body.len() / 2);
    let head = request(addr, "HEAD", page, &[]).await;
    assert_eq!(head.status, 200);
    assert_eq!(
        head.header("content-length").map(str::to_string),
        Some(full.body.len().to_string())
    );
    assert!(head.body.is_empty());
    let post = request(addr, "POST", page, &[("Content-Length", "0")]).await;
    assert_eq!(
        (post.status, post.header("allow")),
        (405, Some("GET, HEAD"))
    );
}

#[tokio::test]
async fn no_listing_no_traversal_no_unknown_package() {
    let server = server().await;
    let addr = server.http_addr();
    for path in [
        "/packages/",
        "/packages/nope",
        "/packages/..%2Fcatalogs",
        "/packages/widget-operator/extra",
        "/assets/",
        "/assets/app.js",
        "/assets/../Cargo.toml",
        "/assets/..%2F..%2FCargo.toml",
        "/src/browser/assets/app.js",
        "/index.html",
    ] {
        let reply = get(addr, path).await;
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn assets_are_immutable_under_their_hashed_names() {
    let server = server().await;
    let addr = server.http_addr();
    let home = get(addr, "/").await.text();
    let paths = asset_paths(&home);
    assert_eq!(paths.len(), 2, "{paths:?}");
    for path in &paths {
        let reply = get(addr, path).await;
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(
            reply.header("cache-control"),
            Some("public, max-age=31536000, immutable")
        );
        let want = if path.ends_with(".js") {
            "text/javascript; charset=utf-8"
        } else {
            "text/css; charset=utf-8"
        };
        assert_eq!(reply.header("content-type"), Some(want));
    }
}

#[tokio::test]
async fn the_graph_route_draws_svg() {
    let server = server().await;
    let addr = server.http_addr();
    let reply = get(
        addr,
        "/catalogs/browser/api/v1/graph?package=widget-operator&format=svg",
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("image/svg+xml"));
    assert_eq!(
        reply.header("content-security-policy"),
        Some("default-src 'none'; frame-ancestors 'none'")
    );
    assert_eq!(reply.text().matches("<g class=\"node\"").count(), 4);
    let every = get(addr, "/catalogs/browser/api/v1/graph?format=svg").await;
    assert_eq!(every.status, 400, "{}", every.text());
    let unknown = get(
        addr,
        "/catalogs/browser/api/v1/graph?package=nope&format=svg",
    )
    .await;
    assert_eq!(unknown.status, 404, "{}", unknown.text());
}

#[tokio::test]
async fn pages_follow_a_reload() {
    let dir = tempfile::tempdir().expect("tmp");
    copy_dir(&fixture("browser"), dir.path());
    let server = TestServer::start_http(dir.path(), "browser").await;
    let addr = server.http_addr();
    let before = get(addr, "/").await;
    assert!(before.text().contains("2 packages"));
    std::fs::remove_dir_all(dir.path().join("plain-operator")).expect("remove");
    let generation = server.catalog.load().expect("loaded").generation;
    server.reload.trigger();
    crate::harness::eventually(std::time::Duration::from_secs(30), "the reload", || async {
        server.catalog.load().expect("loaded").generation > generation
    })
    .await;
    let after = get(addr, "/").await;
    assert!(after.text().contains("1 package<"), "{}", after.text());
    assert_ne!(before.header("etag"), after.header("etag"));
    assert_eq!(get(addr, "/packages/plain-operator").await.status, 404);
}

#[tokio::test]
async fn browser_false_leaves_catalogds_routes_only() {
    let mut config = http_config(&fixture("browser"), "browser");
    if let Some((_, http)) = &mut config.http {
        http.browser = false;
    }
    let server = TestServer::start_config(config).await;
    let addr = server.http_addr();
    for path in ["/", "/packages/widget-operator"] {
        let reply = get(addr, path).await;
        assert_eq!(
            (reply.status, reply.text().as_str()),
            (404, "404 page not found\n")
        );
    }
    assert_eq!(get(addr, "/catalogs/browser/api/v1/all").await.status, 200);
}
