//! `serve --poll-interval` against a real registry: a re-tagged image is served within a poll
//! with no failed call during the swap; the registry stopped → the last good catalog kept and
//! the status `Retrying`, recovered when it returns; an invalid image → `Blocked`, not served.

use crate::distribution::{Auth, Registry, catalog_layer, copy_dir};
use crate::process;
use crate::support::{NamedTest, block_on};
use fbc_registry::api::ListPackageRequest;
use fbc_registry::api::registry_client::RegistryClient;
use libtest_mimic::Failed;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const TESTS: &[NamedTest<PathBuf>] = &[(
    "a_polled_tag_swaps_images_keeps_the_last_good_and_reports_why",
    a_polled_tag_swaps_images_keeps_the_last_good_and_reports_why,
)];

const LABEL: (&str, &str) = (
    "operators.operatorframework.io.index.configs.v1",
    "/configs",
);

/// `GET path` on `addr`: status and body.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let Ok(mut tcp) = std::net::TcpStream::connect(addr) else {
        return (0, String::new());
    };
    let _ = tcp.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    );
    let mut raw = String::new();
    let _ = tcp.read_to_string(&mut raw);
    let status = raw
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = raw.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
    (status, body)
}

fn progressing(http: SocketAddr) -> (String, serde_json::Value) {
    let (_, body) = get(http, "/catalogs/c/status");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let reason = json["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Progressing"))
        .map(|c| c["reason"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    (reason, json)
}

/// Waits up to `within` for `check`; panics with `what` and the last value seen.
fn eventually<T: std::fmt::Debug>(
    within: Duration,
    what: &str,
    mut check: impl FnMut() -> (bool, T),
) {
    let start = Instant::now();
    loop {
        let (ok, seen) = check();
        if ok {
            return;
        }
        assert!(start.elapsed() < within, "{what}: last seen {seen:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn package_count(grpc: SocketAddr) -> usize {
    let mut count = 0;
    block_on(async {
        let Ok(mut client) = RegistryClient::connect(format!("http://{grpc}")).await else {
            return;
        };
        if let Ok(reply) = client.list_packages(ListPackageRequest {}).await {
            let mut stream = reply.into_inner();
            while let Ok(Some(_)) = stream.message().await {
                count += 1;
            }
        }
    })
    .expect("runtime");
    count
}

fn a_polled_tag_swaps_images_keeps_the_last_good_and_reports_why(_: PathBuf) -> Result<(), Failed> {
    let mut registry = Registry::start(Auth::None, None);
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
    let push = |registry: &Registry, layers: Vec<Vec<u8>>| {
        let mut out = None;
        block_on(async { out = Some(registry.push_image("c", "v1", &[LABEL], &layers).await) })
            .expect("runtime");
        out.expect("pushed")
    };
    let first = push(&registry, vec![catalog_layer(&example)]);
    let cache = tempfile::tempdir().expect("tempdir");
    let server = process::serve([
        "--poll-interval=1s",
        "--http-addr=127.0.0.1:0",
        "--metrics-addr=127.0.0.1:0",
        "--cache-dir",
        cache.path().to_str().expect("utf-8"),
        &format!("{}/c:v1", registry.host()),
    ]);
    let grpc = server.grpc();
    let http = server.addrs.http.expect("http");
    assert_eq!(package_count(grpc), 2);
    let (reason, status) = progressing(http);
    assert_eq!(reason, "Succeeded", "{status}");
    assert_eq!(
        status["status"]["resolvedSource"]["image"]["ref"],
        format!("{}/c@{first}", registry.host())
    );

    // Calls run all through the swap; none may fail.
    let stop = Arc::new(AtomicBool::new(false));
    let failed = Arc::new(AtomicU64::new(0));
    let calls = Arc::new(AtomicU64::new(0));
    let caller = {
        let (stop, failed, calls) = (stop.clone(), failed.clone(), calls.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if package_count(grpc) == 0 {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                calls.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let smaller = tempfile::tempdir().expect("tempdir");
    copy_dir(&example, smaller.path());
    std::fs::remove_file(smaller.path().join("example-dependency/catalog.json")).expect("rm");
    let second = push(&registry, vec![catalog_layer(smaller.path())]);
    let retagged = Instant::now();
    eventually(
        Duration::from_secs(15),
        "the re-tagged image served",
        || {
            let n = package_count(grpc);
            (n == 1, n)
        },
    );
    let swap = retagged.elapsed();
    eprintln!(
        "the re-tagged image was served {swap:?} after the push, with a 1 s poll interval ({} calls meanwhile)",
        calls.load(Ordering::Relaxed)
    );
    stop.store(true, Ordering::Relaxed);
    caller.join().expect("caller");
    assert_eq!(
        failed.load(Ordering::Relaxed),
        0,
        "of {} calls",
        calls.load(Ordering::Relaxed)
    );
    assert!(
        swap < Duration::from_millis(1100) + Duration::from_secs(5),
        "{swap:?}"
    );
    // The poller records the swap in the status once the reload task answers it,
    // just after publishing: on a busy machine a reader can come between the two.
    let served = format!("{}/c@{second}", registry.host());
    eventually(
        Duration::from_secs(5),
        "the status names the new image",
        || {
            let (reason, status) = progressing(http);
            let named = status["status"]["resolvedSource"]["image"]["ref"] == served.as_str();
            (reason == "Succeeded" && named, status)
        },
    );

    // The registry goes away: the last good catalog stays, the status says Retrying.
    registry.stop();
    eventually(Duration::from_secs(20), "Retrying", || {
        let (reason, status) = progressing(http);
        (reason == "Retrying", status)
    });
    let (reason, status) = progressing(http);
    assert_eq!(reason, "Retrying", "{status}");
    assert_eq!(package_count(grpc), 1);
    registry.restart();
    eventually(Duration::from_secs(30), "Succeeded again", || {
        let (reason, status) = progressing(http);
        (reason == "Succeeded", status)
    });

    // An invalid catalog is never served: Blocked, with the reason.
    push(
        &registry,
        vec![fbc_image::testing::gzip(
            &fbc_image::testing::Tar::new()
                .file("configs/bad.json", b"{\"schema\":")
                .finish(),
        )],
    );
    eventually(Duration::from_secs(15), "Blocked", || {
        let (reason, status) = progressing(http);
        (reason == "Blocked", status)
    });
    let (_, status) = progressing(http);
    assert_eq!(package_count(grpc), 1, "{status}");
    assert!(status.to_string().contains("bad.json"), "{status}");

    let metrics = server.addrs.metrics.expect("metrics");
    let (_, text) = get(metrics, "/metrics");
    for series in [
        "fbc_registry_image_polls_total{result=\"unchanged\"}",
        "fbc_registry_image_polls_total{result=\"pulled\"} 1",
        "fbc_registry_image_polls_total{result=\"failure\"}",
        &format!(
            "fbc_registry_image_info{{reference=\"{}/c:v1\",digest=\"{second}\"}} 1",
            registry.host()
        ),
    ] {
        assert!(text.contains(series), "{series} in\n{text}");
    }
    let log = server.stderr();
    assert!(log.contains("serving the tag's new image"), "{log}");
    Ok(())
}
