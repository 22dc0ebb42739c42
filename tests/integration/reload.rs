//! Hot reload: file changes reach clients; broken catalogs never do; every reply
//! is consistent with exactly one generation.

use crate::harness::*;
use fbc_registry::api;
use fbc_registry::views::registry::RegistryView;
use prost::Message;
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const PATIENCE: Duration = Duration::from_secs(20);
const DEBOUNCE: Duration = Duration::from_millis(50);

const NEW_PACKAGE_V1: &str = r#"---
schema: olm.package
name: newpkg
defaultChannel: stable
---
schema: olm.channel
package: newpkg
name: stable
entries:
  - name: newpkg.v1.0.0
---
schema: olm.bundle
package: newpkg
name: newpkg.v1.0.0
image: quay.io/example/newpkg:v1.0.0
properties:
  - type: olm.package
    value: {packageName: newpkg, version: 1.0.0}
"#;

const NEW_PACKAGE_V2: &str = r#"---
schema: olm.package
name: newpkg
defaultChannel: stable
---
schema: olm.channel
package: newpkg
name: stable
entries:
  - name: newpkg.v1.0.0
  - name: newpkg.v1.1.0
    replaces: newpkg.v1.0.0
---
schema: olm.bundle
package: newpkg
name: newpkg.v1.0.0
image: quay.io/example/newpkg:v1.0.0
properties:
  - type: olm.package
    value: {packageName: newpkg, version: 1.0.0}
---
schema: olm.bundle
package: newpkg
name: newpkg.v1.1.0
image: quay.io/example/newpkg:v1.1.0
properties:
  - type: olm.package
    value: {packageName: newpkg, version: 1.1.0}
"#;

async fn names_served(server: &TestServer) -> Vec<String> {
    package_names(&mut server.client().await).await
}

async fn head_of(server: &TestServer, package: &str, channel: &str) -> Option<String> {
    let mut c = server.client().await;
    let p = c
        .get_package(api::GetPackageRequest {
            name: package.into(),
        })
        .await
        .ok()?
        .into_inner();
    p.channels
        .into_iter()
        .find(|c| c.name == channel)
        .map(|c| c.csv_name)
}

/// Writes like an editor: a temporary file renamed over the target.
fn save_atomically(path: &Path, text: &str) {
    let tmp = path.with_extension("swp");
    std::fs::write(&tmp, text).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
}

#[tokio::test]
async fn added_bundles_moved_heads_and_deleted_packages_are_served_after_reload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("catalog");
    copy_dir(&fixture("catalog-a"), &root);
    let (server, _reload) = TestServer::start_reloading(&root, true, DEBOUNCE).await;

    std::fs::write(root.join("newpkg.yaml"), NEW_PACKAGE_V1).expect("write");
    eventually(PATIENCE, "the new package", || async {
        names_served(&server).await.contains(&s("newpkg"))
    })
    .await;
    assert_eq!(
        head_of(&server, "newpkg", "stable").await.as_deref(),
        Some("newpkg.v1.0.0")
    );

    save_atomically(&root.join("newpkg.yaml"), NEW_PACKAGE_V2);
    eventually(PATIENCE, "the moved head", || async {
        head_of(&server, "newpkg", "stable").await.as_deref() == Some("newpkg.v1.1.0")
    })
    .await;

    std::fs::remove_file(root.join("prometheus.yaml")).expect("rm");
    eventually(PATIENCE, "the deleted package to disappear", || async {
        !names_served(&server).await.contains(&s("prometheus"))
    })
    .await;
    assert_eq!(
        names_served(&server).await,
        ["etcd", "newpkg", "strimzi-kafka-operator"]
    );
}

#[tokio::test]
async fn an_invalid_change_keeps_the_last_good_catalog_and_health_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("catalog");
    copy_dir(&fixture("catalog-a"), &root);
    std::fs::write(root.join("newpkg.yaml"), NEW_PACKAGE_V1).expect("write");
    let (server, reload) = TestServer::start_reloading(&root, true, DEBOUNCE).await;
    let failed = || reload.stats.failed.load(Ordering::Relaxed);
    let mut health = HealthClient::new(server.channel().await);

    // invalid YAML
    std::fs::write(
        root.join("newpkg.yaml"),
        "schema: olm.package\nname: [unclosed\n",
    )
    .expect("write");
    eventually(PATIENCE, "the invalid YAML to be rejected", || async {
        failed() >= 1
    })
    .await;
    assert_eq!(
        head_of(&server, "newpkg", "stable").await.as_deref(),
        Some("newpkg.v1.0.0")
    );
    let status = health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("check")
        .into_inner()
        .status;
    assert_eq!(
        status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );

    // a replaces cycle
    let cycle = NEW_PACKAGE_V2.replace(
        "  - name: newpkg.v1.0.0\n",
        "  - name: newpkg.v1.0.0\n    replaces: newpkg.v1.1.0\n",
    );
    std::fs::write(root.join("newpkg.yaml"), cycle).expect("write");
    eventually(PATIENCE, "the cycle to be rejected", || async {
        failed() >= 2
    })
    .await;
    assert_eq!(
        head_of(&server, "newpkg", "stable").await.as_deref(),
        Some("newpkg.v1.0.0")
    );

    // fixed
    std::fs::write(root.join("newpkg.yaml"), NEW_PACKAGE_V2).expect("write");
    eventually(PATIENCE, "the fixed catalog", || async {
        head_of(&server, "newpkg", "stable").await.as_deref() == Some("newpkg.v1.1.0")
    })
    .await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_configmap_data_symlink_swap_is_picked_up() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("catalog");
    std::fs::create_dir_all(root.join("..2026_11_22_01")).expect("mkdir");
    std::fs::write(root.join("..2026_11_22_01/newpkg.yaml"), NEW_PACKAGE_V1).expect("write");
    symlink("..2026_11_22_01", root.join("..data")).expect("symlink");
    symlink("..data/newpkg.yaml", root.join("newpkg.yaml")).expect("symlink");
    let (server, _reload) = TestServer::start_reloading(&root, true, DEBOUNCE).await;
    assert_eq!(
        head_of(&server, "newpkg", "stable").await.as_deref(),
        Some("newpkg.v1.0.0")
    );

    // what kubelet's atomic writer does
    std::fs::create_dir_all(root.join("..2026_11_22_02")).expect("mkdir");
    std::fs::write(root.join("..2026_11_22_02/newpkg.yaml"), NEW_PACKAGE_V2).expect("write");
    symlink("..2026_11_22_02", root.join("..data_tmp")).expect("symlink");
    std::fs::rename(root.join("..data_tmp"), root.join("..data")).expect("rename");
    std::fs::remove_dir_all(root.join("..2026_11_22_01")).expect("rm");
    eventually(PATIENCE, "the swapped ConfigMap content", || async {
        head_of(&server, "newpkg", "stable").await.as_deref() == Some("newpkg.v1.1.0")
    })
    .await;
}

#[tokio::test]
async fn a_replaced_root_directory_is_picked_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("catalog");
    copy_dir(&fixture("catalog-b"), &root);
    let (server, _reload) = TestServer::start_reloading(&root, true, DEBOUNCE).await;
    let next = dir.path().join("catalog.next");
    copy_dir(&fixture("catalog-b"), &next);
    std::fs::write(next.join("newpkg.yaml"), NEW_PACKAGE_V1).expect("write");
    std::fs::rename(&root, dir.path().join("catalog.old")).expect("rename");
    std::fs::rename(&next, &root).expect("rename");
    eventually(PATIENCE, "the replaced root", || async {
        names_served(&server).await == ["cockroachdb", "newpkg"]
    })
    .await;
}

/// The expected replies of one generation.
struct Expected {
    bundle: api::Bundle,
    package: api::Package,
    list: Vec<api::Bundle>,
}

fn expected(index: &RegistryView) -> Expected {
    let decode =
        |r: fbc_registry::grpc::wire::Reply| api::Bundle::decode(r.to_bytes()).expect("bundle");
    Expected {
        bundle: decode(
            index
                .bundle("etcd", "alpha", "etcdoperator.v0.9.2")
                .expect("bundle"),
        ),
        package: api::Package::decode(index.package_reply("etcd").expect("package").to_bytes())
            .expect("package"),
        list: (0..index.copy_count())
            .map(|i| decode(index.list_bundles_item(i).expect("item")))
            .collect(),
    }
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_reply_matches_one_generation_across_many_reloads() {
    use std::os::unix::fs::symlink;
    const RELOADS: u64 = 120;
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    copy_dir(&fixture("catalog-a"), &a);
    copy_dir(&fixture("catalog-a"), &b);
    edit(
        &b.join("etcd.json"),
        "\"defaultChannel\": \"alpha\"",
        "\"defaultChannel\": \"stable\"",
    );
    edit(&b.join("etcd.json"), "\"testlabel1\"", "\"testlabel2\"");
    let want = [
        expected(
            &fbc_registry::snapshot::load::load(&a, &Default::default())
                .expect("a")
                .registry,
        ),
        expected(
            &fbc_registry::snapshot::load::load(&b, &Default::default())
                .expect("b")
                .registry,
        ),
    ];
    assert_ne!(want[0].bundle, want[1].bundle);
    assert_ne!(want[0].package, want[1].package);
    let want = std::sync::Arc::new(want);

    let root = dir.path().join("current");
    symlink(&a, &root).expect("symlink");
    let (server, reload) =
        TestServer::start_reloading(&root, false, Duration::from_millis(1)).await;

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut clients = Vec::new();
    for task in 0..6 {
        let mut c = server.client().await;
        let want = want.clone();
        let stop = stop.clone();
        clients.push(tokio::spawn(async move {
            let mut calls = 0u64;
            let mut seen = HashSet::new();
            while !stop.load(Ordering::Relaxed) {
                match task % 3 {
                    0 => {
                        let r = c
                            .get_bundle(api::GetBundleRequest {
                                pkg_name: s("etcd"),
                                channel_name: s("alpha"),
                                csv_name: s("etcdoperator.v0.9.2"),
                            })
                            .await
                            .expect("GetBundle never fails during reloads")
                            .into_inner();
                        let g = want
                            .iter()
                            .position(|w| w.bundle == r)
                            .expect("GetBundle reply of one generation");
                        seen.insert(g);
                    }
                    1 => {
                        let r = c
                            .get_package(api::GetPackageRequest { name: s("etcd") })
                            .await
                            .expect("GetPackage")
                            .into_inner();
                        let g = want
                            .iter()
                            .position(|w| w.package == r)
                            .expect("GetPackage reply of one generation");
                        seen.insert(g);
                    }
                    _ => {
                        let items = collect(
                            c.list_bundles(api::ListBundlesRequest {})
                                .await
                                .expect("ListBundles")
                                .into_inner(),
                        )
                        .await;
                        let g = want
                            .iter()
                            .position(|w| w.list == items)
                            .expect("a whole ListBundles stream of one generation");
                        seen.insert(g);
                    }
                }
                calls += 1;
            }
            (calls, seen)
        }));
    }

    let mut generations = server.catalog.generations();
    for i in 0..RELOADS {
        let target = if i % 2 == 0 { &b } else { &a };
        let tmp = dir.path().join("current.tmp");
        symlink(target, &tmp).expect("symlink");
        std::fs::rename(&tmp, &root).expect("swap");
        let before = *generations.borrow_and_update();
        reload.trigger();
        tokio::time::timeout(PATIENCE, async {
            while *generations.borrow_and_update() == before {
                generations.changed().await.expect("publisher alive");
            }
        })
        .await
        .expect("reload within patience");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    stop.store(true, Ordering::Relaxed);
    let mut total = 0;
    for c in clients {
        let (calls, seen) = c.await.expect("client task");
        total += calls;
        assert!(!seen.is_empty());
    }
    assert_eq!(reload.stats.succeeded.load(Ordering::Relaxed), RELOADS);
    assert_eq!(reload.stats.failed.load(Ordering::Relaxed), 0);
    assert!(total > RELOADS, "clients made {total} calls");
}
