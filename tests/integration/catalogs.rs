//! Several catalogs in one process (`serve --config`, `--catalog`): each loads, fails,
//! reloads and stops on its own; the config file is watched.

use crate::harness::{copy_dir, eventually, package_names};
use crate::http_client::get;
use fbc_registry::api::registry_client::RegistryClient;
use fbc_registry::app::Listen;
use fbc_registry::app::catalogs::{self, CatalogDefaults, ManyConfig, ManyHandle};
use fbc_registry::fbc_v1 as pb;
use fbc_registry::fbc_v1::catalogs_client::CatalogsClient;
use fbc_registry::fbc_v1::graph_client::GraphClient;
use fbc_registry::fleet::Health;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const WITHIN: Duration = Duration::from_secs(20);

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

fn loopback() -> Listen {
    Listen::Addr(([127, 0, 0, 1], 0).into())
}

fn config(file: &Path) -> ManyConfig {
    ManyConfig {
        listen: Some(loopback()),
        transport: Default::default(),
        http: Some((
            loopback(),
            fbc_registry::http::HttpConfig {
                catalog_name: String::new(),
                limits: Default::default(),
                browser: true,
                eager_views: false,
            },
        )),
        metrics: None,
        metrics_tls: true,
        tls: None,
        defaults: CatalogDefaults {
            load: Default::default(),
            spill: Default::default(),
            load_timeout: Duration::from_secs(60),
            fetch: Default::default(),
            cache_dir: None,
            enforce_integrity: false,
            watch: true,
            reload_debounce: Duration::from_millis(50),
            poll_interval: None,
        },
        flagged: Vec::new(),
        file: Some(file.to_path_buf()),
    }
}

async fn start(file: &Path) -> ManyHandle {
    let config = config(file);
    let specs = catalogs::read_specs(&config, &[]).expect("config reads");
    catalogs::serve_many(config, specs).await.expect("serves")
}

async fn health(handle: &ManyHandle, service: &str) -> Result<i32, tonic::Code> {
    let addr = handle.grpc_addr.expect("the health port");
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .expect("endpoint")
        .connect()
        .await
        .expect("connect");
    let mut client = HealthClient::new(channel);
    client
        .check(tonic_health::pb::HealthCheckRequest {
            service: service.to_owned(),
        })
        .await
        .map(|r| r.into_inner().status)
        .map_err(|s| s.code())
}

/// Three copies of the example catalog under `root`: `a`, `b` and `c`.
fn three_copies(root: &Path) -> [std::path::PathBuf; 3] {
    ["a", "b", "c"].map(|name| {
        let dir = root.join(name);
        copy_dir(&example(), &dir);
        dir
    })
}

fn write_config(file: &Path, entries: &[(&str, &Path, Option<u16>)]) {
    let mut text = String::from("catalogs:\n");
    for (name, source, port) in entries {
        text.push_str(&format!("- name: {name}\n  source: {}\n", source.display()));
        if let Some(port) = port {
            text.push_str(&format!("  port: {port}\n"));
        }
    }
    // Written beside and renamed over, as editors and ConfigMaps do.
    let next = file.with_extension("next");
    std::fs::write(&next, text).expect("write config");
    std::fs::rename(&next, file).expect("rename config");
}

#[tokio::test]
async fn a_broken_catalog_is_fixed_while_the_others_serve_with_no_failed_call() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    copy_dir(&example(), &a);
    copy_dir(&example(), &c);
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(
        b.join("broken.json"),
        "{\"schema\": \"olm.package\", \"name\":",
    )
    .unwrap();
    let file = tmp.path().join("catalogs.yaml");
    write_config(
        &file,
        &[
            ("alpha", &a, Some(0)),
            ("beta", &b, Some(0)),
            ("gamma", &c, None),
        ],
    );
    let server = start(&file).await;
    let fleet = server.fleet.clone();
    eventually(WITHIN, "alpha and gamma serve", || {
        let fleet = fleet.clone();
        async move {
            fleet.health("alpha") == Health::Serving && fleet.health("gamma") == Health::Serving
        }
    })
    .await;
    assert_eq!(fleet.health("beta"), Health::NotServing);
    assert_eq!(
        health(&server, "alpha").await,
        Ok(ServingStatus::Serving as i32)
    );
    assert_eq!(
        health(&server, "beta").await,
        Ok(ServingStatus::NotServing as i32)
    );
    assert_eq!(
        health(&server, "").await,
        Ok(ServingStatus::NotServing as i32)
    );
    assert_eq!(health(&server, "nothing").await, Err(tonic::Code::NotFound));

    let http = server.http_addr.unwrap();
    let status = get(http, "/catalogs/beta/status").await;
    assert_eq!(status.status, 200);
    let json: serde_json::Value = serde_json::from_slice(&status.body).unwrap();
    assert_eq!(json["status"]["conditions"][0]["status"], "False", "{json}");
    let progressing = json["status"]["conditions"][1]["message"].as_str().unwrap();
    assert!(progressing.contains("broken.json"), "{progressing}");
    assert_eq!(get(http, "/catalogs/beta/api/v1/all").await.status, 404);
    assert_eq!(get(http, "/catalogs/gamma/api/v1/all").await.status, 200);

    // alpha answers on its own port throughout beta's fix.
    let ports = server.ports();
    let alpha = format!("http://127.0.0.1:{}", ports["alpha"]);
    let mut client = RegistryClient::connect(alpha).await.unwrap();
    assert_eq!(
        package_names(&mut client).await,
        ["example-dependency", "example-operator"]
    );
    let stop = Arc::new(AtomicBool::new(false));
    let (calls, failures) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let caller = {
        let (stop, calls, failures, mut client) = (
            stop.clone(),
            calls.clone(),
            failures.clone(),
            client.clone(),
        );
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let request = fbc_registry::api::ListPackageRequest {};
                match client.list_packages(request).await {
                    Ok(_) => calls.fetch_add(1, Ordering::Relaxed),
                    Err(_) => failures.fetch_add(1, Ordering::Relaxed),
                };
            }
        })
    };
    std::fs::remove_file(b.join("broken.json")).unwrap();
    copy_dir(&example(), &b);
    eventually(WITHIN, "beta serves once fixed", || {
        let fleet = fleet.clone();
        async move { fleet.health("beta") == Health::Serving }
    })
    .await;
    assert_eq!(health(&server, "").await, Ok(ServingStatus::Serving as i32));
    let json: serde_json::Value =
        serde_json::from_slice(&get(http, "/catalogs/beta/status").await.body).unwrap();
    assert_eq!(
        json["status"]["conditions"][0]["reason"], "Available",
        "{json}"
    );
    assert_eq!(get(http, "/catalogs/beta/api/v1/all").await.status, 200);
    let beta = format!("http://127.0.0.1:{}", ports["beta"]);
    let mut beta = RegistryClient::connect(beta).await.unwrap();
    assert_eq!(
        package_names(&mut beta).await,
        ["example-dependency", "example-operator"]
    );
    stop.store(true, Ordering::Relaxed);
    caller.await.unwrap();
    assert_eq!(failures.load(Ordering::Relaxed), 0);
    assert!(calls.load(Ordering::Relaxed) > 10, "{calls:?} calls");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn config_changes_add_and_remove_catalogs_and_leave_the_rest_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = three_copies(tmp.path());
    let file = tmp.path().join("catalogs.yaml");
    write_config(&file, &[("alpha", &a, Some(0)), ("beta", &b, Some(0))]);
    let server = start(&file).await;
    let fleet = server.fleet.clone();
    eventually(WITHIN, "alpha and beta serve", || {
        let fleet = fleet.clone();
        async move { fleet.health("") == Health::Serving && fleet.members().len() == 2 }
    })
    .await;
    let alpha_before = fleet.get("alpha").unwrap();
    let beta_port = server.ports()["beta"];
    let http = server.http_addr.unwrap();

    write_config(&file, &[("alpha", &a, Some(0)), ("gamma", &c, None)]);
    eventually(WITHIN, "gamma added, beta removed", || {
        let fleet = fleet.clone();
        async move { fleet.get("beta").is_none() && fleet.health("gamma") == Health::Serving }
    })
    .await;
    assert!(
        Arc::ptr_eq(&alpha_before, &fleet.get("alpha").unwrap()),
        "alpha was restarted"
    );
    assert_eq!(get(http, "/catalogs/beta/api/v1/all").await.status, 404);
    assert_eq!(get(http, "/catalogs/gamma/api/v1/all").await.status, 200);
    eventually(WITHIN, "beta's port closes", || async move {
        tokio::net::TcpStream::connect(("127.0.0.1", beta_port))
            .await
            .is_err()
    })
    .await;

    // A config that does not read changes nothing.
    std::fs::write(&file, "catalogs:\n- name: Bad Name\n  source: /x\n").unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    let names: Vec<String> = fleet.members().iter().map(|m| m.name.to_string()).collect();
    assert_eq!(names, ["alpha", "gamma"]);
    assert_eq!(health(&server, "").await, Ok(ServingStatus::Serving as i32));
    server.shutdown().await.unwrap();
}

fn json(reply: &crate::http_client::HttpReply) -> serde_json::Value {
    serde_json::from_slice(&reply.body).expect("a JSON answer")
}

#[tokio::test]
async fn catalogs_are_listed_searched_and_chosen_by_priority() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = three_copies(tmp.path());
    // gamma carries the dependency only.
    std::fs::remove_dir_all(c.join("example-operator")).unwrap();
    let file = tmp.path().join("catalogs.yaml");
    std::fs::write(
        &file,
        format!(
            "catalogs:\n- name: alpha\n  source: {}\n- name: beta\n  source: {}\n  priority: 10\n- name: gamma\n  source: {}\n  priority: 10\n",
            a.display(),
            b.display(),
            c.display()
        ),
    )
    .unwrap();
    let server = start(&file).await;
    let fleet = server.fleet.clone();
    eventually(WITHIN, "every catalog serves", || {
        let fleet = fleet.clone();
        async move { fleet.health("") == Health::Serving && fleet.members().len() == 3 }
    })
    .await;
    let http = server.http_addr.unwrap();

    let listed = json(&get(http, "/api/v1/catalogs").await);
    let names: Vec<&str> = listed["catalogs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    assert_eq!(listed["catalogs"][1]["priority"], 10);
    assert_eq!(listed["catalogs"][2]["packages"], 1);
    assert_eq!(listed["catalogs"][0]["serving"], true);

    let found = json(&get(http, "/api/v1/packages?q=example-operator").await);
    let hits = crate::harness::search_hits(&found);
    assert_eq!(
        hits,
        [("example-operator", "beta"), ("example-operator", "alpha")]
    );
    assert!(found["packages"][0].get("icon").is_none(), "no icons");
    assert!(
        !found["packages"][0]["versions"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let chosen = json(&get(http, "/api/v1/packages/example-operator/providers").await);
    assert_eq!(chosen["catalog"], "beta", "{chosen}");
    assert_eq!(chosen["catalogs"][1]["standing"], "outranked", "{chosen}");
    assert_eq!(chosen["catalogs"][2]["standing"], "noPackage", "{chosen}");
    // A tie at the top keeps every offer, so operator-controller's message names
    // alpha (priority 0) too.
    let tied = json(&get(http, "/api/v1/packages/example-dependency/providers").await);
    assert_eq!(
        tied["message"],
        "found bundles for package \"example-dependency\" in multiple catalogs with the same priority [alpha beta gamma]"
    );
    let none = json(
        &get(
            http,
            "/api/v1/packages/example-operator/providers?version=%3E%3D99",
        )
        .await,
    );
    assert_eq!(
        none["message"],
        "no bundles found for package \"example-operator\" matching version \">=99\""
    );

    // The same answers over fbc.v1.Catalogs, on the server-wide port and on a catalog's own.
    let addr = server.grpc_addr.expect("the server-wide port");
    let mut client = CatalogsClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let listed = client
        .list_catalogs(pb::ListCatalogsRequest {})
        .await
        .unwrap()
        .into_inner();
    let names: Vec<&str> = listed.catalogs.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    assert!(
        listed
            .catalogs
            .iter()
            .all(|c| c.serving && c.snapshot.is_some())
    );
    let found = client
        .search_packages(pb::SearchPackagesRequest {
            query: "example-operator".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let hits: Vec<(&str, &str)> = found
        .packages
        .iter()
        .map(|h| (h.package.as_str(), h.catalog.as_str()))
        .collect();
    assert_eq!(
        hits,
        [("example-operator", "beta"), ("example-operator", "alpha")]
    );
    assert_eq!(found.packages[0].matched, ["name"]);
    let chosen = client
        .get_providers(pb::GetProvidersRequest {
            package: "example-operator".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(chosen.catalog, "beta");
    assert_eq!(chosen.catalogs[1].standing, "outranked");
    let bad = client
        .get_providers(pb::GetProvidersRequest {
            package: "example-operator".into(),
            version_range: ">=>1".into(),
            ..Default::default()
        })
        .await;
    assert_eq!(bad.unwrap_err().code(), tonic::Code::InvalidArgument);
    // fbc.v1.Graph on the server-wide port answers for the catalog a request names.
    let mut graph = GraphClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let ask = |catalog: &str| pb::GetSuccessorsRequest {
        package: "example-operator".into(),
        catalog: catalog.into(),
        ..Default::default()
    };
    let beta = graph
        .get_successors(ask("beta"))
        .await
        .unwrap()
        .into_inner();
    assert!(!beta.selected.is_empty(), "{beta:?}");
    assert_eq!(
        graph.get_successors(ask("gamma")).await.unwrap_err().code(),
        tonic::Code::NotFound,
        "gamma lacks the package"
    );
    assert_eq!(
        graph.get_successors(ask("nope")).await.unwrap_err().code(),
        tonic::Code::NotFound
    );
    assert_eq!(
        graph.get_successors(ask("")).await.unwrap_err().code(),
        tonic::Code::InvalidArgument,
        "three catalogs: one must be named"
    );
    // The browser's catalog picker: the highest priority first, any other by name.
    let home = String::from_utf8(get(http, "/").await.body).unwrap();
    assert!(
        home.contains("data-catalog=\"beta\""),
        "the first by priority, then name"
    );
    assert!(
        home.contains("<a href=\"/?catalog=gamma\">gamma</a>"),
        "{home}"
    );
    let gamma = String::from_utf8(get(http, "/?catalog=gamma").await.body).unwrap();
    assert!(gamma.contains("aria-current=\"page\">gamma</a>"));
    assert!(gamma.contains("href=\"/packages/example-dependency?catalog=gamma\""));
    // The picker lists the served set, which the snapshot's validators do not see: no
    // validators, and a conditional request with the snapshot's ETag gets the page.
    let all = get(http, "/catalogs/gamma/api/v1/all").await;
    let etag = all.header("etag").expect("/all has an ETag").to_owned();
    let page =
        crate::http_client::request(http, "GET", "/?catalog=gamma", &[("if-none-match", &etag)])
            .await;
    assert_eq!(page.status, 200, "a stale page would be a 304");
    assert_eq!(page.header("etag"), None);
    assert_eq!(page.header("last-modified"), None);
    assert_eq!(
        get(http, "/packages/example-operator?catalog=gamma")
            .await
            .status,
        404
    );
    assert_eq!(
        get(http, "/packages/example-operator?catalog=alpha")
            .await
            .status,
        200
    );
    assert_eq!(get(http, "/api/v1/packages?term=x").await.status, 400);
    assert_eq!(
        get(
            http,
            "/api/v1/packages/example-operator/providers?version=%3E%3D%3E1"
        )
        .await
        .status,
        400
    );
    server.shutdown().await.unwrap();
}
