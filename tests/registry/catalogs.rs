//! `serve --config` with three catalogs — two directories and an image on a real registry,
//! one directory broken at start — through the real binary: the broken one is fixed while
//! the others serve, with no failed call on their ports.

use crate::distribution::{Auth, Registry, catalog_layer, copy_dir};
use crate::process;
use crate::support::{NamedTest, block_on};
use fbc_registry::api::ListPackageRequest;
use fbc_registry::api::registry_client::RegistryClient;
use libtest_mimic::Failed;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const TESTS: &[NamedTest<PathBuf>] = &[(
    "three_catalogs_one_an_image_one_fixed_while_the_others_serve",
    three_catalogs_one_an_image_one_fixed_while_the_others_serve,
)];

const LABEL: (&str, &str) = (
    "operators.operatorframework.io.index.configs.v1",
    "/configs",
);

/// Each catalog's api.Registry port, from the lines that announce them.
fn ports(log: &str) -> BTreeMap<String, u16> {
    log.lines()
        .filter(|l| l.contains("serving the catalog's api.Registry"))
        .filter_map(|l| {
            let name = l.split("catalog=").nth(1)?.split_whitespace().next()?;
            let addr = l.split("address=").nth(1)?.split_whitespace().next()?;
            let port = addr.rsplit(':').next()?.parse().ok()?;
            Some((name.to_owned(), port))
        })
        .collect()
}

fn status(http: SocketAddr, path: &str) -> u16 {
    block_on_value(async move {
        let Ok(mut tcp) = tokio::net::TcpStream::connect(http).await else {
            return 0;
        };
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let _ = tcp.write_all(request.as_bytes()).await;
        let mut raw = Vec::new();
        let _ = tcp.read_to_end(&mut raw).await;
        String::from_utf8_lossy(&raw)
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    })
}

fn block_on_value<T: Send + 'static>(f: impl std::future::Future<Output = T>) -> T {
    let mut out = None;
    block_on(async { out = Some(f.await) }).expect("runtime");
    out.expect("ran")
}

fn eventually(within: Duration, what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < within, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn three_catalogs_one_an_image_one_fixed_while_the_others_serve(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
    block_on(async {
        registry
            .push_image("c", "v1", &[LABEL], &[catalog_layer(&example)])
            .await;
    })
    .expect("runtime");
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy_dir(&example, &a);
    std::fs::create_dir_all(&b).expect("mkdir");
    std::fs::write(b.join("broken.json"), "{\"schema\":").expect("write");
    let config = tmp.path().join("catalogs.yaml");
    std::fs::write(
        &config,
        format!(
            "catalogs:\n\
             - {{name: alpha, source: {}, port: 0}}\n\
             - {{name: beta, source: {}, port: 0}}\n\
             - {{name: gamma, source: '{}/c:v1', port: 0, pollInterval: 1s}}\n",
            a.display(),
            b.display(),
            registry.host()
        ),
    )
    .expect("write config");
    let cache = tmp.path().join("cache");
    let server = process::serve([
        "--config".to_owned(),
        config.display().to_string(),
        "--http-addr=127.0.0.1:0".to_owned(),
        format!("--cache-dir={}", cache.display()),
    ]);
    let http = server.addrs.http.expect("the HTTP address");
    eventually(Duration::from_secs(30), "alpha and gamma serve", || {
        status(http, "/catalogs/alpha/api/v1/all") == 200
            && status(http, "/catalogs/gamma/api/v1/all") == 200
    });
    assert_eq!(status(http, "/catalogs/beta/api/v1/all"), 404);
    let ports = ports(&server.stderr());
    assert_eq!(ports.len(), 3, "{}", server.stderr());
    assert!(
        cache.join("catalogs/gamma/images").is_dir(),
        "gamma's own image store"
    );

    let stop = Arc::new(AtomicBool::new(false));
    let (calls, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let callers: Vec<_> = ["alpha", "gamma"]
        .iter()
        .map(|name| {
            let port = ports[*name];
            let (stop, calls, failed) = (stop.clone(), calls.clone(), failed.clone());
            std::thread::spawn(move || {
                block_on(async move {
                    let Ok(mut client) =
                        RegistryClient::connect(format!("http://127.0.0.1:{port}")).await
                    else {
                        failed.fetch_add(1, Ordering::Relaxed);
                        return;
                    };
                    while !stop.load(Ordering::Relaxed) {
                        match client.list_packages(ListPackageRequest {}).await {
                            Ok(reply) => {
                                let mut stream = reply.into_inner();
                                while let Ok(Some(_)) = stream.message().await {}
                                calls.fetch_add(1, Ordering::Relaxed)
                            }
                            Err(_) => failed.fetch_add(1, Ordering::Relaxed),
                        };
                    }
                })
                .expect("runtime");
            })
        })
        .collect();
    std::fs::remove_file(b.join("broken.json")).expect("remove");
    copy_dir(&example, &b);
    eventually(Duration::from_secs(30), "beta serves once fixed", || {
        status(http, "/catalogs/beta/api/v1/all") == 200
    });
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    for caller in callers {
        caller.join().expect("caller");
    }
    let (calls, failed) = (
        calls.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed),
    );
    println!("{calls} calls on alpha and gamma during beta's fix, {failed} failed");
    assert_eq!(failed, 0);
    assert!(calls > 10, "{calls} calls");
    Ok(())
}
