//! Tests over every real catalog in `../shared/catalogs`, located by
//! `FBC_SHARED_CATALOGS` (set by `.ci/run`). A custom harness (see `support`):
//! without the variable the tests are reported as ignored, by name, with the
//! reason; under CI they fail instead.

#[path = "integration/harness/mod.rs"]
#[allow(dead_code)]
mod harness;
#[path = "integration/http_client.rs"]
#[allow(dead_code)]
mod http_client;
#[path = "shared/render.rs"]
mod render;
mod support;

use fbc_registry::api;
use harness::*;
use libtest_mimic::{Arguments, Failed};
use std::path::PathBuf;

fn main() {
    let args = Arguments::from_args();
    let shared = support::dir_from_env("FBC_SHARED_CATALOGS", "../shared/catalogs");
    let trials = support::trials(
        &shared,
        vec![
            (
                "every_shared_catalog_loads_with_its_published_counts",
                every_shared_catalog_loads_with_its_published_counts,
            ),
            (
                "every_shared_catalog_fits_limits_far_below_the_defaults",
                every_shared_catalog_fits_limits_far_below_the_defaults,
            ),
            (
                "every_shared_catalog_has_the_same_tables_after_a_warm_start",
                every_shared_catalog_has_the_same_tables_after_a_warm_start,
            ),
            (
                "every_shared_catalog_has_the_olm_v1_readiness_docs_list",
                every_shared_catalog_has_the_olm_v1_readiness_docs_list,
            ),
            (
                "no_shared_catalog_blocks_an_openshift_upgrade",
                no_shared_catalog_blocks_an_openshift_upgrade,
            ),
            (
                "every_shared_catalog_meets_the_profile_of_its_release",
                every_shared_catalog_meets_the_profile_of_its_release,
            ),
            (
                "every_shared_catalog_lints_as_docs_graphs_md_lists",
                every_shared_catalog_lints_as_docs_graphs_md_lists,
            ),
            (
                "every_shared_catalog_serves_catalogds_all_byte_for_byte",
                every_shared_catalog_serves_catalogds_all_byte_for_byte,
            ),
            (
                "graphql_answers_are_catalogds_for_shared_catalogs",
                graphql_answers_are_catalogds_for_shared_catalogs,
            ),
            (
                "community_v4_20_what_next_from_a_version_lists_its_upgrades",
                community_v4_20_what_next_from_a_version_lists_its_upgrades,
            ),
            (
                "search_and_priority_across_the_two_community_catalogs",
                search_and_priority_across_the_two_community_catalogs,
            ),
            (
                "every_shared_catalog_filters_keeping_every_guarantee",
                every_shared_catalog_filters_keeping_every_guarantee,
            ),
            (
                "diffs_of_the_community_catalogs_and_of_each_catalog_with_itself",
                diffs_of_the_community_catalogs_and_of_each_catalog_with_itself,
            ),
            (
                "render_of_every_shared_catalog_and_its_bundles_equals_opms",
                render::render_of_every_shared_catalog_and_its_bundles_equals_opms,
            ),
            (
                "community_v4_16_answers_every_rpc",
                community_v4_16_answers_every_rpc,
            ),
            (
                "community_v4_20_answers_every_rpc_with_synthesised_csvs",
                community_v4_20_answers_every_rpc_with_synthesised_csvs,
            ),
        ],
    );
    libtest_mimic::run(&args, trials).exit();
}

/// (folder, packages, channels, bundles, channel entries)
const EXPECTED: [(&str, usize, usize, usize, usize); 5] = [
    ("community-v4.16", 21, 35, 275, 339),
    ("community-v4.20", 37, 85, 803, 929),
    ("rhoai-3.5-v4.22", 1, 23, 77, 550),
    ("rhtpa-v4.18", 1, 4, 13, 16),
    ("submariner-4.16", 1, 8, 25, 25),
];

fn every_shared_catalog_loads_with_its_published_counts(root: PathBuf) -> Result<(), Failed> {
    let mut found: Vec<String> = std::fs::read_dir(&root)
        .expect("read shared catalogs")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let expected: Vec<&str> = EXPECTED.iter().map(|e| e.0).collect();
    assert_eq!(
        found, expected,
        "a new catalog needs its counts pinned here"
    );
    for (name, packages, channels, bundles, entries) in EXPECTED {
        let index = fbc_registry::snapshot::load::load(&root.join(name), &Default::default())
            .unwrap_or_else(|e| panic!("{name}: {e:#?}"))
            .registry;
        let s = index.stats();
        assert_eq!(
            (s.packages, s.channels, s.bundles, s.copies),
            (packages, channels, bundles, entries),
            "{name}"
        );
    }
    Ok(())
}

/// How many findings of one check a catalog has: (severity, check, count).
type LintCount = (&'static str, &'static str, usize);

/// Lint findings per catalog, as `docs/graphs.md` lists them.
const LINT: [(&str, &[LintCount]); 5] = [
    (
        "community-v4.16",
        &[
            ("info", "dangling-replaces", 5),
            ("info", "dangling-skips", 14),
            ("info", "skip-range-empty", 1),
            ("warning", "skipped-on-chain", 4),
            ("warning", "v0-v1-divergence", 1),
        ],
    ),
    (
        "community-v4.20",
        &[
            ("info", "dangling-replaces", 20),
            ("info", "dangling-skips", 67),
            ("info", "skip-range-empty", 7),
            ("warning", "skipped-on-chain", 11),
            ("warning", "stranded", 7),
            ("warning", "v0-v1-divergence", 1),
            ("warning", "version-down", 3),
        ],
    ),
    (
        "rhoai-3.5-v4.22",
        &[
            ("info", "dangling-replaces", 1),
            ("info", "skip-range-empty", 4),
            ("info", "skip-range-self", 14),
        ],
    ),
    (
        "rhtpa-v4.18",
        &[
            ("info", "dangling-replaces", 1),
            ("warning", "skipped-on-chain", 2),
        ],
    ),
    ("submariner-4.16", &[("info", "skip-range-empty", 8)]),
];

/// The graph lint over every real catalog finds what the docs say it finds.
fn every_shared_catalog_lints_as_docs_graphs_md_lists(root: PathBuf) -> Result<(), Failed> {
    use std::collections::BTreeMap;
    for (name, expected) in LINT {
        let dir = root.join(name);
        let loaded = fbc_catalog::load::load_model(&dir, &Default::default())
            .map_err(|e| format!("{name}: {e:?}"))?;
        let tables = loaded.tables(&dir, Default::default());
        let findings = fbc_catalog::graph::lint::lint(&tables, None)?;
        let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for f in &findings {
            *counts.entry((f.severity.as_str(), f.check)).or_default() += 1;
        }
        let found: Vec<(&str, &str, usize)> =
            counts.into_iter().map(|((s, c), n)| (s, c, n)).collect();
        if found != expected {
            return Err(
                format!("{name}: lint found {found:?}, docs/graphs.md lists {expected:?}").into(),
            );
        }
    }
    Ok(())
}

/// OLM v1 readiness per shared catalog, as docs/cluster-upgrade.md lists it: packages,
/// packages whose default channel head OLM v1 can install, bundles, installable
/// bundles, and bundles per (rule, weight).
type ReadinessRow = (
    &'static str,
    usize,
    usize,
    usize,
    usize,
    &'static [(&'static str, &'static str, usize)],
);
const READINESS: &[ReadinessRow] = &[
    (
        "community-v4.16",
        21,
        19,
        275,
        272,
        &[
            ("R1", "Refused", 3),
            ("R3", "NeedsGate", 64),
            ("R4", "NeedsGate", 47),
        ],
    ),
    (
        "community-v4.20",
        37,
        35,
        803,
        785,
        &[
            ("R1", "Refused", 18),
            ("R3", "Unknown", 803),
            ("R4", "NeedsGate", 53),
        ],
    ),
    ("rhoai-3.5-v4.22", 1, 1, 77, 77, &[("R3", "Unknown", 77)]),
    (
        "rhtpa-v4.18",
        1,
        1,
        13,
        13,
        &[("R3", "Unknown", 13), ("R4", "NeedsGate", 13)],
    ),
    ("submariner-4.16", 1, 1, 25, 25, &[("R4", "NeedsGate", 25)]),
];

fn every_shared_catalog_has_the_olm_v1_readiness_docs_list(root: PathBuf) -> Result<(), Failed> {
    let mut report = String::new();
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        let dir = root.join(name);
        let loaded = fbc_catalog::load::load_model(&dir, &Default::default())
            .map_err(|e| format!("{name}: {e:?}"))?;
        let tables = loaded.tables(&dir, Default::default());
        let ready = fbc_catalog::cluster::readiness::catalog(&tables, None)
            .map_err(|e| format!("{name}: {e}"))?;
        let (summary, heads_ready) = (ready.bundles, ready.installable_packages);
        let by_rule: Vec<(String, String, usize)> = summary
            .by_rule
            .iter()
            .map(|c| (c.rule.to_string(), format!("{:?}", c.weight), c.bundles))
            .collect();
        report.push_str(&format!(
            "(\"{name}\", {}, {heads_ready}, {}, {}, &{by_rule:?}),\n",
            tables.packages().len(),
            summary.bundles,
            summary.installable
        ));
    }
    let expected: String = READINESS
        .iter()
        .map(|(n, p, h, b, i, r)| {
            let by_rule: Vec<(String, String, usize)> = r
                .iter()
                .map(|(a, w, c)| (a.to_string(), w.to_string(), *c))
                .collect();
            format!("(\"{n}\", {p}, {h}, {b}, {i}, &{by_rule:?}),\n")
        })
        .collect();
    if report != expected {
        return Err(
            format!("readiness differs from docs/cluster-upgrade.md; found:\n{report}").into(),
        );
    }
    Ok(())
}

/// docs/cluster-upgrade.md: no bundle of the five catalogs carries
/// `olm.maxOpenShiftVersion` (as a property or in its CSV's `olm.properties`), so
/// every bundle installed, by either OLM, blocks none of 4.17 … 4.22.
fn no_shared_catalog_blocks_an_openshift_upgrade(root: PathBuf) -> Result<(), Failed> {
    use fbc_catalog::cluster::openshift::MinorVersion;
    use fbc_catalog::cluster::upgrade::{Installed, Olm, check};
    for (name, ..) in EXPECTED {
        let dir = root.join(name);
        let loaded = fbc_catalog::load::load_model(&dir, &Default::default())
            .map_err(|e| format!("{name}: {e:?}"))?;
        let tables = loaded.tables(&dir, Default::default());
        let installed: Vec<Installed> = tables
            .packages()
            .iter()
            .flat_map(|p| p.bundles.iter().map(move |b| (p, b)))
            .flat_map(|(p, b)| {
                [Olm::V0, Olm::V1].map(|olm| Installed {
                    owner: "all".into(),
                    package: p.name.clone(),
                    bundle: b.name.clone(),
                    channel: String::new(),
                    olm,
                    on_cluster: None,
                })
            })
            .collect();
        for minor in 17..=22 {
            let target = MinorVersion { major: 4, minor };
            let verdicts = check(&tables, &installed, target);
            if let Some(v) = verdicts.iter().find(|v| v.blocks || v.max.is_some()) {
                return Err(format!("{name} --to {target}: {v:?}").into());
            }
        }
    }
    Ok(())
}

/// Warnings by check, as docs/cluster-upgrade.md lists them.
type Counts = &'static [(&'static str, usize)];

/// (catalog, target, warnings by check): each catalog's metadata form is the one its
/// OpenShift release wants.
const PROFILES: &[(&str, &str, Counts)] = &[
    ("community-v4.16", "ocp-4.16", &[("imageDigest", 422)]),
    (
        "community-v4.16",
        "ocp-4.17",
        &[("imageDigest", 422), ("metadataForm", 550)],
    ),
    (
        "community-v4.20",
        "ocp-4.16",
        &[("imageDigest", 1866), ("metadataForm", 1606)],
    ),
    ("community-v4.20", "ocp-4.17", &[("imageDigest", 1866)]),
    ("rhoai-3.5-v4.22", "ocp-4.16", &[("metadataForm", 154)]),
    ("rhoai-3.5-v4.22", "ocp-4.17", &[]),
    ("rhtpa-v4.18", "ocp-4.16", &[("metadataForm", 26)]),
    ("rhtpa-v4.18", "ocp-4.17", &[]),
    ("submariner-4.16", "ocp-4.16", &[]),
    ("submariner-4.16", "ocp-4.17", &[("metadataForm", 50)]),
];

fn every_shared_catalog_meets_the_profile_of_its_release(root: PathBuf) -> Result<(), Failed> {
    use fbc_catalog::cluster::profile::{Target, lint};
    use fbc_catalog::graph::lint::Severity;
    for (name, target, expected) in PROFILES {
        let dir = root.join(name);
        let loaded = fbc_catalog::load::load_model(&dir, &Default::default())
            .map_err(|e| format!("{name}: {e:?}"))?;
        let tables = loaded.tables(&dir, Default::default());
        let findings =
            lint(&tables, None, Target::parse(target)?).map_err(|e| format!("{name}: {e}"))?;
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for f in findings.iter().filter(|f| f.severity == Severity::Warning) {
            *counts.entry(f.check).or_default() += 1;
        }
        let found: Vec<(&str, usize)> = counts.into_iter().collect();
        if found != expected.to_vec() {
            return Err(
                format!("{name} --target {target}: {found:?}, docs say {expected:?}").into(),
            );
        }
    }
    Ok(())
}

/// The browser's "from version X, what next?" as a user found it: on
/// community-v4.20, apicurio-registry-3 at 3.3.0 answered only "3.3.0 —
/// sameVersion", although 3.3.1 replaces 3.3.0 in two channels.
fn community_v4_20_what_next_from_a_version_lists_its_upgrades(
    root: PathBuf,
) -> Result<(), Failed> {
    use fbc_catalog::graph::successors::{Installed, SuccessorQuery, successors};
    let dir = root.join("community-v4.20");
    let loaded = fbc_catalog::load::load_model(&dir, &Default::default())
        .map_err(|e| format!("community-v4.20: {e:?}"))?;
    let tables = loaded.tables(&dir, Default::default());
    let answer = successors(
        &tables,
        &SuccessorQuery {
            package: "apicurio-registry-3".into(),
            installed: Some(Installed {
                version: "3.3.0".into(),
                ..Installed::default()
            }),
            ..SuccessorQuery::default()
        },
    )?;
    let replacing: Vec<(&str, &str)> = answer
        .candidates
        .iter()
        .flat_map(|c| c.edges.iter().map(move |e| (c.version.as_str(), e)))
        .filter(|(_, e)| e.kind == fbc_catalog::graph::EdgeKind::Replaces)
        .map(|(v, e)| (v, e.channel.as_str()))
        .collect();
    let channels = replacing.iter().filter(|(v, _)| *v == "3.3.1").count();
    if channels < 2 {
        return Err(format!(
            "3.3.1 should replace 3.3.0 in two channels; replaces edges found: {replacing:?}"
        )
        .into());
    }
    Ok(())
}

/// Every real catalog also loads within much tighter limits than the defaults:
/// the defaults leave a wide margin (docs/security.md).
fn every_shared_catalog_fits_limits_far_below_the_defaults(root: PathBuf) -> Result<(), Failed> {
    let tight = fbc_registry::snapshot::load::LoadOptions {
        limits: fbc_catalog::source::ParseLimits {
            max_file_bytes: 16 << 20,
            max_document_bytes: 4 << 20,
            max_depth: 48,
            max_alias_nodes: 1000,
        },
        ..Default::default()
    };
    for (name, ..) in EXPECTED {
        fbc_registry::snapshot::load::load(&root.join(name), &tight)
            .map_err(|e| format!("{name}: {e:#?}"))?;
    }
    Ok(())
}

/// A cold load and a warm start through the cache give the same tables, and the
/// metas' JSON (read again from the files) is the same both ways.
fn every_shared_catalog_has_the_same_tables_after_a_warm_start(
    root: PathBuf,
) -> Result<(), Failed> {
    use fbc_catalog::tables::summary::summary;
    let options = fbc_registry::snapshot::load::LoadOptions::default();
    for (name, ..) in EXPECTED {
        let dir = root.join(name);
        let cache = tempfile::tempdir().map_err(|e| e.to_string())?;
        let cfg = fbc_registry::snapshot::cache::CacheConfig {
            dir: cache.path().to_path_buf(),
            enforce_integrity: false,
            must_write: true,
        };
        let cold = fbc_registry::snapshot::cache::load(&dir, &cfg, &options)
            .map_err(|e| format!("{name}: {e}"))?;
        let warm = fbc_registry::snapshot::cache::load(&dir, &cfg, &options)
            .map_err(|e| format!("{name}: {e}"))?;
        if warm.outcome != fbc_registry::snapshot::cache::Outcome::Warm {
            return Err(format!("{name}: not read back warm").into());
        }
        let (Ok(cold_tables), Ok(warm_tables)) =
            (cold.catalog.tables.get(), warm.catalog.tables.get())
        else {
            return Err(format!("{name}: tables do not decode").into());
        };
        if summary(cold_tables) != summary(warm_tables) {
            return Err(format!("{name}: tables differ after a warm start").into());
        }
        let (a, b) = (cold_tables.metas().json(), warm_tables.metas().json());
        if a.is_err() || a != b {
            return Err(format!("{name}: metas' JSON differs or is missing: {a:?}").into());
        }
    }
    Ok(())
}

async fn exercise(root: PathBuf, name: &str) {
    let dir = root.join(name);
    let server = TestServer::start(&dir).await;
    let mut c = server.client().await;
    let expected_entries = EXPECTED
        .iter()
        .find(|e| e.0 == name)
        .map(|e| e.4)
        .unwrap_or_default();
    let packages = collect(
        c.list_packages(api::ListPackageRequest {})
            .await
            .expect("rpc")
            .into_inner(),
    )
    .await;
    let mut channels_seen = 0;
    for p in &packages {
        let pkg = c
            .get_package(api::GetPackageRequest {
                name: p.name.clone(),
            })
            .await
            .expect("GetPackage")
            .into_inner();
        for ch in &pkg.channels {
            channels_seen += 1;
            let head = c
                .get_bundle_for_channel(api::GetBundleInChannelRequest {
                    pkg_name: p.name.clone(),
                    channel_name: ch.name.clone(),
                })
                .await
                .expect("GetBundleForChannel")
                .into_inner();
            assert_eq!(head.csv_name, ch.csv_name);
            let csv: serde_json::Value = serde_json::from_str(&head.csv_json)
                .unwrap_or_else(|e| panic!("{}/{}: csvJson does not parse: {e}", p.name, ch.name));
            assert_eq!(
                csv["kind"], "ClusterServiceVersion",
                "{}/{}",
                p.name, ch.name
            );
            assert!(csv["apiVersion"].is_string(), "{}/{}", p.name, ch.name);
            let same = c
                .get_bundle(api::GetBundleRequest {
                    pkg_name: p.name.clone(),
                    channel_name: ch.name.clone(),
                    csv_name: ch.csv_name.clone(),
                })
                .await
                .expect("GetBundle")
                .into_inner();
            assert_eq!(same, head);
            if !head.replaces.is_empty() {
                let _ = c
                    .get_bundle_that_replaces(api::GetReplacementRequest {
                        csv_name: head.replaces.clone(),
                        pkg_name: p.name.clone(),
                        channel_name: ch.name.clone(),
                    })
                    .await;
            }
            for gvk in &head.provided_apis {
                let entries = collect(
                    c.get_channel_entries_that_provide(gvk_req(
                        &gvk.group,
                        &gvk.version,
                        &gvk.kind,
                    ))
                    .await
                    .expect("provide")
                    .into_inner(),
                )
                .await;
                assert!(
                    entries
                        .iter()
                        .any(|e| e.bundle_name == head.csv_name && e.channel_name == ch.name)
                );
                let latest = latest_providers(&mut c, &gvk.group, &gvk.version, &gvk.kind).await;
                assert!(latest.iter().any(|e| e.bundle_name == head.csv_name));
            }
        }
    }
    assert_eq!(
        channels_seen,
        EXPECTED
            .iter()
            .find(|e| e.0 == name)
            .map(|e| e.2)
            .unwrap_or_default()
    );
    let bundles = collect(
        c.list_bundles(api::ListBundlesRequest {})
            .await
            .expect("rpc")
            .into_inner(),
    )
    .await;
    assert_eq!(
        bundles.len(),
        expected_entries,
        "one ListBundles message per channel entry"
    );
    for b in &bundles {
        if !b.replaces.is_empty() {
            let r = collect(
                c.get_channel_entries_that_replace(api::GetAllReplacementsRequest {
                    csv_name: b.replaces.clone(),
                })
                .await
                .expect("replace")
                .into_inner(),
            )
            .await;
            assert!(
                r.iter()
                    .any(|e| e.bundle_name == b.csv_name && e.channel_name == b.channel_name)
            );
        }
    }
    server.stop().await;
}

fn community_v4_16_answers_every_rpc(root: PathBuf) -> Result<(), Failed> {
    support::block_on(exercise(root, "community-v4.16"))
}

fn community_v4_20_answers_every_rpc_with_synthesised_csvs(root: PathBuf) -> Result<(), Failed> {
    support::block_on(exercise(root, "community-v4.20"))
}

/// `/api/v1/all` of every shared catalog is what operator-registry's own walk
/// writes (recorded by `tools/catalogd-walk`), and its gzip and HEAD agree.
fn every_shared_catalog_serves_catalogds_all_byte_for_byte(root: PathBuf) -> Result<(), Failed> {
    support::block_on(async {
        for (name, ..) in EXPECTED {
            let server = TestServer::start_http(&root.join(name), name).await;
            http_client::assert_all_is_operator_registrys(server.http_addr(), name, name).await;
            server.stop().await;
        }
    })
}

/// catalogd's GraphQL answers for two shared catalogs, compared by digest
/// (`tests/fixtures/catalogd-graphql/shared.sha256`, recorded by
/// `tools/catalogd-graphql` from catalogd's own query code). Answers Go leaves
/// to map order, the query that crashes catalogd and the deliberate
/// differences (tests/integration/graphql.rs `KNOWN`) are left to those tests.
fn graphql_answers_are_catalogds_for_shared_catalogs(root: PathBuf) -> Result<(), Failed> {
    use sha2::Digest;
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogd-graphql");
    let queries: Vec<String> = std::fs::read_to_string(fixtures.join("queries.jsonl"))
        .expect("queries")
        .lines()
        .map(str::to_string)
        .collect();
    let recorded = std::fs::read_to_string(fixtures.join("shared.sha256")).expect("digests");
    support::block_on(async {
        let mut failures = Vec::new();
        for catalog in ["community-v4.20", "rhoai-3.5-v4.22"] {
            let server = TestServer::start_http(&root.join(catalog), catalog).await;
            let path = format!("/catalogs/{catalog}/api/v1/graphql");
            let mut compared = 0;
            for line in recorded.lines() {
                let f: Vec<&str> = line.split_whitespace().collect();
                let (digest, status, name, index) =
                    (f[0], f[1], f[3], f[4].parse::<usize>().unwrap());
                if name != catalog || f.len() > 5 || [13, 15, 21, 23].contains(&index) {
                    continue;
                }
                let got =
                    http_client::post(server.http_addr(), &path, &[], queries[index].as_bytes())
                        .await;
                let ours = format!("{:x}", sha2::Sha256::digest(&got.body));
                if got.status.to_string() != status || ours != digest {
                    failures.push(format!(
                        "{catalog} #{index}: {} {}",
                        got.status,
                        got.text().chars().take(300).collect::<String>()
                    ));
                }
                compared += 1;
            }
            eprintln!("{catalog}: {compared} answers compared with catalogd's");
            server.stop().await;
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    })
}

/// `fbc-registry search` over community-v4.16 and community-v4.20 (priority 10): the
/// packages they share are found in both, the higher priority first, and OLM v1's choice
/// is v4.20's unless only its offer is deprecated; at equal priority it is the tie error.
fn search_and_priority_across_the_two_community_catalogs(root: PathBuf) -> Result<(), Failed> {
    let names = |dir: &str| -> Result<std::collections::BTreeSet<String>, Failed> {
        let path = root.join(dir);
        let loaded = fbc_catalog::load::load_model(&path, &Default::default())
            .map_err(|e| format!("{dir}: {e:?}"))?;
        let tables = loaded.tables(&path, Default::default());
        Ok(tables.packages().iter().map(|p| p.name.clone()).collect())
    };
    let shared: Vec<String> = names("community-v4.16")?
        .intersection(&names("community-v4.20")?)
        .cloned()
        .collect();
    let package = shared.first().ok_or("the two catalogs share no package")?;
    let run = |priority: i32, extra: &[&str]| -> Result<serde_json::Value, Failed> {
        let out = std::process::Command::new(harness::process::BIN)
            .args(["search", "-o", "json", "--catalog"])
            .arg(format!("v416={}", root.join("community-v4.16").display()))
            .arg("--catalog")
            .arg(format!(
                "v420={},priority={priority}",
                root.join("community-v4.20").display()
            ))
            .args(extra)
            .output()
            .map_err(|e| e.to_string())?;
        Ok(serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?)
    };
    let found = run(10, &[package.as_str()])?;
    let hits = harness::search_hits(&found);
    let first_two = &hits[..hits.len().min(2)];
    if first_two != [(package.as_str(), "v420"), (package.as_str(), "v416")] {
        return Err(format!("{package}: {first_two:?}").into());
    }
    let chosen = run(10, &["--package", package])?;
    let deprecated = |catalog: &str| {
        chosen["catalogs"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|v| v["catalog"] == catalog && v["deprecated"] == true)
    };
    let want = if deprecated("v420") && !deprecated("v416") {
        "v416"
    } else {
        "v420"
    };
    if chosen["catalog"] != want {
        return Err(format!("{package}: chose {chosen}, want {want}").into());
    }
    let tied = run(0, &["--package", package])?;
    let message = tied["message"].as_str().unwrap_or_default();
    if deprecated("v420") == deprecated("v416")
        && !message.ends_with("in multiple catalogs with the same priority [v416 v420]")
    {
        return Err(format!("{package}: at equal priority: {tied}").into());
    }
    Ok(())
}

/// `filter` over every shared catalog: heads only and full for every package,
/// and a few windows; every output passed the filter's own checks, and here
/// the resolver confirms, on the output, that each kept bundle with a
/// dependency resolves, and a full filter writes the catalog unchanged.
/// `diff` of each shared catalog with itself is empty; community-v4.16 → v4.20 names
/// what moved, and the way back names the same bundles the other way round.
fn diffs_of_the_community_catalogs_and_of_each_catalog_with_itself(
    root: PathBuf,
) -> Result<(), Failed> {
    use fbc_catalog::diff::diff;
    let load = |name: &str| {
        fbc_catalog::tables::testing::from_dir(&root.join(name))
            .map_err(|e| Failed::from(format!("{name}: {e:?}")))
    };
    for (name, ..) in EXPECTED {
        let tables = load(name)?;
        let d = diff(&tables, &tables);
        if !d.is_empty() {
            return Err(format!("{name} against itself: {d:?}").into());
        }
    }
    let (old, new) = (load("community-v4.16")?, load("community-v4.20")?);
    let forward = diff(&old, &new);
    let backward = diff(&new, &old);
    let s = forward.summary();
    if s.packages_added == 0 || s.packages_removed == 0 || s.heads_moved == 0 {
        return Err(format!("v4.16 → v4.20 found too little: {s:?}").into());
    }
    if forward.packages_added != backward.packages_removed
        || forward.packages_removed != backward.packages_added
    {
        return Err("the way back does not swap added and removed packages".into());
    }
    let gone: Vec<&str> = forward
        .impact
        .bundles_gone
        .iter()
        .map(|b| b.bundle.as_str())
        .collect();
    for b in &gone {
        let in_new = new
            .packages()
            .iter()
            .flat_map(|p| &p.channels)
            .flat_map(|c| &c.entries)
            .any(|e| e.name == *b);
        if in_new {
            return Err(format!("{b} is called gone but is in a channel of v4.20").into());
        }
    }
    // every head that moved is the head of that channel in v4.20
    for p in &forward.packages {
        for c in p
            .channels
            .iter()
            .filter_map(|c| Some((c, c.head.as_ref()?)))
        {
            let (channel, head) = c;
            let now = new
                .package(&p.name)
                .and_then(|(_, np)| np.channel(&channel.name))
                .map(|nc| nc.head_entry().name.clone());
            if now.as_deref() != Some(head.new.as_str()) {
                return Err(
                    format!("{}/{}: head {head:?} vs {now:?}", p.name, channel.name).into(),
                );
            }
        }
    }
    Ok(())
}

fn every_shared_catalog_filters_keeping_every_guarantee(root: PathBuf) -> Result<(), Failed> {
    use fbc_catalog::filter::{self, FilterOptions, config, deps};
    use fbc_catalog::resolve::Outcome;
    let parse = |body: &str| {
        let text = format!(
            "apiVersion: {}\nkind: {}\n{body}",
            config::API_VERSION,
            config::KIND
        );
        config::parse("filter.yaml", &text).map_err(|e| Failed::from(e.to_string()))
    };
    for (name, ..) in EXPECTED {
        let tables = fbc_catalog::tables::testing::from_dir(&root.join(name))
            .map_err(|e| format!("{name}: {e:?}"))?;
        let rule = fbc_catalog::model::ChainRule::Current;
        let options = FilterOptions::default();
        let full = filter::filter(&tables, &parse("full: true\n")?, &options, rule)
            .map_err(|e| format!("{name} full: {e}"))?;
        let json = tables.metas().json().map_err(|e| e.to_string())?;
        let all: Vec<u8> = json
            .iter()
            .flat_map(|j| [j.as_ref(), b"\n"].concat())
            .collect();
        if full.stream != all {
            return Err(format!("{name}: a full filter changed the catalog").into());
        }
        let heads = filter::filter(&tables, &parse("")?, &options, rule)
            .map_err(|e| format!("{name} heads: {e}"))?;
        for p in tables.packages() {
            let (_, out) = heads
                .output
                .package(&p.name)
                .ok_or(format!("{name}: {} lost", p.name))?;
            for c in &p.channels {
                let oc = out
                    .channel(&c.name)
                    .ok_or(format!("{name}: {}/{} lost", p.name, c.name))?;
                if oc.head_entry().name != c.head_entry().name {
                    return Err(format!("{name}: {}/{}: head moved", p.name, c.name).into());
                }
            }
        }
        for p in heads.output.packages() {
            for b in &p.bundles {
                if deps::has_dependencies(&heads.output, &p.name, &b.name)
                    && !matches!(
                        deps::resolve_one(&heads.output, &p.name, &b.name),
                        Some(Ok(Outcome::Resolved(_)))
                    )
                    && matches!(
                        deps::resolve_one(&tables, &p.name, &b.name),
                        Some(Ok(Outcome::Resolved(_)))
                    )
                {
                    return Err(format!("{name}: {}/{} no longer resolves", p.name, b.name).into());
                }
            }
        }
    }
    // Windows on community-v4.16: a version range per package, the head moved down.
    let tables = fbc_catalog::tables::testing::from_dir(&root.join("community-v4.16"))
        .map_err(|e| format!("{e:?}"))?;
    let mut body = String::from("packages:\n");
    for p in tables.packages().iter().take(8) {
        let mut versions: Vec<&semver::Version> = p.bundles.iter().map(|b| &b.version).collect();
        versions.sort();
        let mid = versions[versions.len() / 2];
        body.push_str(&format!("  - name: {}\n    maxVersion: {mid}\n", p.name));
    }
    match filter::filter(
        &tables,
        &parse(&body)?,
        &FilterOptions::default(),
        fbc_catalog::model::ChainRule::Current,
    ) {
        Ok(_) => Ok(()),
        // A window that empties a default channel is refused by name, never written.
        Err(filter::FilterError::Config(m)) if m.contains("default channel") => Ok(()),
        Err(e) => Err(format!("community-v4.16 windows: {e}").into()),
    }
}
