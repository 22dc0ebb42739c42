//! `--metrics-addr`: the real binary (one server per process, as in production)
//! scraped with a real Prometheus text parser (`prometheus-parse`); the values
//! move with gRPC calls, HTTP answers, reloads and refused reloads.

use crate::harness::process::{self, Served};
use crate::harness::{collect, copy_dir, fixture};
use crate::http_client::{get, request};
use fbc_registry::api::registry_client::RegistryClient;
use fbc_registry::api::{GetPackageRequest, ListPackageRequest};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// A server of its own (one per process, as in production), on ports it picked.
struct Server {
    served: Served,
    grpc: SocketAddr,
    http: SocketAddr,
    metrics: SocketAddr,
}

/// The binary serving `dir` with metrics on a port it picks, and `flags`.
async fn serve_with(dir: &std::path::Path, flags: &[&str]) -> Served {
    let mut args: Vec<std::ffi::OsString> = [
        "--watch=false",
        "-t",
        "/dev/null",
        "--metrics-addr=127.0.0.1:0",
    ]
    .iter()
    .chain(flags)
    .map(Into::into)
    .collect();
    args.push(dir.into());
    tokio::task::spawn_blocking(move || process::serve(args))
        .await
        .expect("join")
}

async fn start(dir: &std::path::Path) -> Server {
    start_with(dir, &[]).await
}

/// [`start`] with more `flags`.
async fn start_with(dir: &std::path::Path, flags: &[&str]) -> Server {
    let mut all = vec!["--http-addr=127.0.0.1:0", "--catalog-name=metrics-test"];
    all.extend_from_slice(flags);
    let served = serve_with(dir, &all).await;
    let grpc = served.grpc();
    let (Some(http), Some(metrics)) = (served.addrs.http, served.addrs.metrics) else {
        panic!("no HTTP or metrics address:\n{}", served.stderr());
    };
    Server {
        served,
        grpc,
        http,
        metrics,
    }
}

/// One scrape, parsed.
async fn scrape(addr: SocketAddr) -> prometheus_parse::Scrape {
    let reply = get(addr, "/metrics").await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let text = reply.text();
    assert!(text.ends_with("# EOF\n"), "{text}");
    prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).expect("parses")
}

/// The value of the sample `name` whose labels include `labels` (0 when absent).
fn value(scrape: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name)
        .find(|s| labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map_or(0.0, |s| match &s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => *v,
            prometheus_parse::Value::Histogram(buckets) => buckets.last().map_or(0.0, |b| b.count),
            prometheus_parse::Value::Summary(_) => f64::NAN,
        })
}

fn exists(scrape: &prometheus_parse::Scrape, name: &str) -> bool {
    scrape.samples.iter().any(|s| s.metric == name)
}

#[tokio::test]
async fn metrics_move_with_calls_answers_and_reloads() {
    let dir = tempfile::tempdir().expect("tmp");
    copy_dir(&fixture("catalog-a"), dir.path());
    let server = start(dir.path()).await;
    let before = scrape(server.metrics).await;
    assert_eq!(value(&before, "fbc_registry_snapshot_generation", &[]), 1.0);
    assert_eq!(
        value(
            &before,
            "fbc_registry_catalog_loads_total",
            &[("result", "success")]
        ),
        1.0
    );
    assert!(value(&before, "fbc_registry_catalog_packages", &[]) > 0.0);
    assert!(
        value(
            &before,
            "fbc_registry_catalog_last_success_timestamp_seconds",
            &[]
        ) > 1.7e9
    );
    assert!(value(&before, "process_resident_memory_bytes", &[]) > 1e6);
    assert!(value(&before, "process_open_fds", &[]) > 3.0);
    assert!(exists(&before, "process_cpu_seconds_total"));
    assert!(exists(&before, "fbc_registry_snapshot_info"));

    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.grpc))
        .expect("uri")
        .connect()
        .await
        .expect("connect");
    let mut client = RegistryClient::new(channel);
    // Each stream is read to its end: its trailers (the status) reach the client only
    // after the server counted the call. Stopping at the reply headers left the last
    // call's body unread, to be counted whenever it was dropped — after the scrape, at
    // times (the test's old flake).
    for _ in 0..3 {
        let stream = client
            .list_packages(ListPackageRequest {})
            .await
            .expect("list")
            .into_inner();
        assert!(!collect(stream).await.is_empty());
    }
    let missing = client
        .get_package(GetPackageRequest {
            name: "nope".into(),
        })
        .await;
    assert!(missing.is_err());
    for _ in 0..2 {
        assert_eq!(
            get(server.http, "/catalogs/metrics-test/api/v1/all")
                .await
                .status,
            200
        );
    }
    assert_eq!(get(server.http, "/no/such/path").await.status, 404);

    let after = scrape(server.metrics).await;
    let list = [("method", "/api.Registry/ListPackages"), ("code", "OK")];
    assert_eq!(value(&after, "fbc_registry_grpc_calls_total", &list), 3.0);
    // opm answers an unknown package with UNKNOWN, and so do we.
    let get_missing = [("method", "/api.Registry/GetPackage"), ("code", "UNKNOWN")];
    assert_eq!(
        value(&after, "fbc_registry_grpc_calls_total", &get_missing),
        1.0
    );
    assert_eq!(
        value(
            &after,
            "fbc_registry_grpc_call_seconds_count",
            &[("method", "/api.Registry/ListPackages")]
        ),
        3.0
    );
    let all = [
        ("route", "/catalogs/:catalog/api/v1/all"),
        ("status", "200"),
    ];
    assert_eq!(value(&after, "fbc_registry_http_requests_total", &all), 2.0);
    let other = [("route", "other"), ("status", "404")];
    assert_eq!(
        value(&after, "fbc_registry_http_requests_total", &other),
        1.0
    );
    assert!(
        value(
            &after,
            "fbc_registry_open_connections",
            &[("listener", "grpc")]
        ) >= 1.0
    );

    // A reload that is published, then one that is refused.
    let digest = |s: &prometheus_parse::Scrape| {
        s.samples
            .iter()
            .find(|x| x.metric == "fbc_registry_snapshot_info")
            .and_then(|x| x.labels.get("digest").map(str::to_string))
    };
    std::fs::write(
        dir.path().join("extra.json"),
        r#"{"schema":"olm.package","name":"metrics-extra","defaultChannel":"stable"}
{"schema":"olm.channel","package":"metrics-extra","name":"stable","entries":[{"name":"metrics-extra.v1.0.0"}]}
{"schema":"olm.bundle","package":"metrics-extra","name":"metrics-extra.v1.0.0","image":"example.com/extra:v1","properties":[{"type":"olm.package","value":{"packageName":"metrics-extra","version":"1.0.0"}}]}
"#,
    )
    .expect("write");
    hangup(&server);
    let reloaded = scrape_until(&server, |s| {
        value(s, "fbc_registry_snapshot_generation", &[]) == 2.0
    })
    .await;
    assert_eq!(
        value(
            &reloaded,
            "fbc_registry_catalog_loads_total",
            &[("result", "success")]
        ),
        2.0
    );
    assert_eq!(
        value(&reloaded, "fbc_registry_catalog_packages", &[]),
        value(&before, "fbc_registry_catalog_packages", &[]) + 1.0
    );
    assert_ne!(digest(&reloaded), digest(&before));
    std::fs::write(dir.path().join("broken.json"), "{not json").expect("write");
    hangup(&server);
    let refused = scrape_until(&server, |s| {
        value(
            s,
            "fbc_registry_catalog_loads_total",
            &[("result", "failure")],
        ) == 1.0
    })
    .await;
    assert_eq!(
        value(&refused, "fbc_registry_snapshot_generation", &[]),
        2.0
    );
    assert_eq!(digest(&refused), digest(&reloaded));
}

fn hangup(server: &Server) {
    server.served.signal(libc::SIGHUP);
}

async fn scrape_until(
    server: &Server,
    done: impl Fn(&prometheus_parse::Scrape) -> bool,
) -> prometheus_parse::Scrape {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = scrape(server.metrics).await;
        if done(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "the metrics did not move");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn only_metrics_is_served_there() {
    let server = start(&fixture("catalog-a")).await;
    assert_eq!(get(server.metrics, "/").await.status, 404);
    assert_eq!(get(server.metrics, "/metrics/x").await.status, 404);
}

/// The sample `fbc_registry_memory_bytes{holder}`, when there is one.
fn held(scrape: &prometheus_parse::Scrape, holder: &str) -> Option<(String, f64)> {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == "fbc_registry_memory_bytes")
        .find(|s| s.labels.get("holder") == Some(holder))
        .map(|s| {
            let place = s.labels.get("place").unwrap_or_default().to_owned();
            (
                place,
                value(scrape, "fbc_registry_memory_bytes", &[("holder", holder)]),
            )
        })
}

/// Views only when asked (#29): without `--http-addr` no HTTP view, GraphQL schema or
/// browser is ever built, however the catalog is used over gRPC; with it, the HTTP
/// view appears once a request needs it. The replies are in the spill file.
#[tokio::test]
async fn no_view_is_built_for_a_protocol_that_is_not_served() {
    let dir = fixture("catalog-a");
    let served = serve_with(&dir, &[]).await;
    let Some(metrics) = served.addrs.metrics else {
        panic!("no metrics address:\n{}", served.stderr());
    };
    let mut client = RegistryClient::connect(format!("http://{}", served.grpc()))
        .await
        .expect("connect");
    let packages = collect(
        client
            .list_packages(ListPackageRequest {})
            .await
            .expect("list")
            .into_inner(),
    )
    .await;
    for p in &packages {
        let request = GetPackageRequest {
            name: p.name.clone(),
        };
        client.get_package(request).await.expect("package");
    }
    let now = scrape(metrics).await;
    let (place, bytes) = held(&now, "registry").expect("the registry's bytes are reported");
    assert_eq!(place, "file", "a cold start serves from its spill file");
    assert!(bytes > 0.0);
    for view in ["http", "graphql", "browser"] {
        assert_eq!(
            held(&now, view),
            None,
            "{view} was built without --http-addr"
        );
    }
    assert!(
        served.stderr().contains("mapped_bytes="),
        "{}",
        served.stderr()
    );

    let server = start(&dir).await;
    let before = scrape(server.metrics).await;
    assert_eq!(held(&before, "http"), None, "built before any request");
    let all = get(server.http, "/catalogs/metrics-test/api/v1/all").await;
    assert_eq!(all.status, 200);
    let after = scrape(server.metrics).await;
    let (place, bytes) = held(&after, "http").expect("the HTTP view, built");
    assert_eq!(place, "memory");
    assert!(
        bytes >= all.body.len() as f64,
        "{bytes} < {}",
        all.body.len()
    );
    assert_eq!(held(&after, "browser"), None);

    // --eager-views: both are built at publish, before any request.
    let eager = serve_with(&dir, &["--http-addr=127.0.0.1:0", "--eager-views"]).await;
    let Some(metrics) = eager.addrs.metrics else {
        panic!("no metrics address:\n{}", eager.stderr());
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = scrape(metrics).await;
        if held(&now, "http").is_some() && held(&now, "browser").is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "--eager-views built nothing");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `--memory-target` (#29): a view larger than the target is built for each request
/// and never kept; views that fit one at a time replace each other, least recently
/// used first; no gzip is kept, yet gzipped answers still decode to the identity
/// bytes.
#[tokio::test]
async fn a_memory_target_keeps_only_the_views_that_fit() {
    let dir = fixture("catalog-a");
    let all_path = "/catalogs/metrics-test/api/v1/all";
    let gzip = [("Accept-Encoding", "gzip")];
    // The views' sizes, measured on a server without a target.
    let free = start(&dir).await;
    let identity = get(free.http, all_path).await;
    assert_eq!(identity.status, 200);
    assert_eq!(get(free.http, "/").await.status, 200);
    let sizes = scrape(free.metrics).await;
    let (_, browser) = held(&sizes, "browser").expect("the browser's cards");
    let http = identity.body.len() as f64;

    // A target smaller than every view: each is built, served, and dropped.
    let tiny = start_with(&dir, &["--memory-target=1"]).await;
    let (addr, metrics) = (tiny.http, tiny.metrics);
    for _ in 0..2 {
        let plain = get(addr, all_path).await;
        assert_eq!(plain.body, identity.body);
        let zipped = request(addr, "GET", all_path, &gzip).await;
        assert_eq!(zipped.header("content-encoding"), Some("gzip"));
        assert_eq!(zipped.decoded(), identity.body);
    }
    let metas = "/catalogs/metrics-test/api/v1/metas?schema=olm.package";
    let zipped = request(addr, "GET", metas, &gzip).await;
    assert_eq!(zipped.decoded(), get(addr, metas).await.body);
    assert_eq!(
        held(&scrape(metrics).await, "http"),
        None,
        "kept over the target"
    );
    assert!(
        tiny.served.stderr().contains("larger than --memory-target"),
        "{}",
        tiny.served.stderr()
    );

    // Room for either view, not both: each request keeps the one it used.
    let target = format!("--memory-target={}", http.max(browser) as u64);
    assert!(http + browser > http.max(browser));
    let one = start_with(&dir, &[&target]).await;
    let (addr, metrics) = (one.http, one.metrics);
    for round in 0..2 {
        assert_eq!(get(addr, all_path).await.body, identity.body);
        let now = scrape(metrics).await;
        assert_eq!(held(&now, "http").map(|h| h.1), Some(http), "round {round}");
        assert_eq!(held(&now, "browser"), None, "round {round}");
        assert_eq!(get(addr, "/").await.status, 200);
        let now = scrape(metrics).await;
        assert_eq!(held(&now, "browser").map(|h| h.1), Some(browser));
        assert_eq!(
            held(&now, "http"),
            None,
            "round {round}: not dropped for the browser"
        );
    }
}
