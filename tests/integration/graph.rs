//! `fbc.v1.Graph` on the real server: answers, snapshot names, status codes, a
//! warm start, and the CLI's graph commands offline and against the server.

use crate::harness::*;
use fbc_registry::fbc_v1 as pb;
use fbc_registry::fbc_v1::graph_client::GraphClient;
use std::process::Command;
use tonic::Code;
use tonic::transport::Channel;

use crate::harness::process::BIN;

async fn graph_client(server: &TestServer) -> GraphClient<Channel> {
    GraphClient::new(server.channel().await)
}

fn installed(name: &str, version: &str) -> Option<pb::InstalledBundle> {
    Some(pb::InstalledBundle {
        name: name.into(),
        version: version.into(),
        release: None,
    })
}

fn successors_request(
    package: &str,
    from: Option<pb::InstalledBundle>,
) -> pb::GetSuccessorsRequest {
    pb::GetSuccessorsRequest {
        package: package.into(),
        installed: from,
        ..Default::default()
    }
}

fn path_request(
    package: &str,
    from: &str,
    version: &str,
    semantics: pb::Semantics,
) -> pb::GetUpgradePathRequest {
    pb::GetUpgradePathRequest {
        package: package.into(),
        from: installed(from, version),
        semantics: semantics as i32,
        ..Default::default()
    }
}

#[tokio::test]
async fn successors_and_paths_answer_the_divergence_case_as_each_olm_does() {
    let server = TestServer::start(&fixture("upgrade-graphs")).await;
    let mut c = graph_client(&server).await;
    let s = c
        .get_successors(successors_request(
            "divergence",
            installed("divergence.v1.0.0", "1.0.0"),
        ))
        .await
        .expect("GetSuccessors")
        .into_inner();
    assert_eq!(s.selected, "divergence.v2.0.0");
    assert_eq!(s.candidates[0].edges[0].kind, pb::EdgeKind::Replaces as i32);
    assert_eq!(
        s.candidates[0].image,
        "quay.io/example/divergence-bundle:v2.0.0"
    );
    let snapshot = s.snapshot.expect("snapshot");
    assert_eq!(snapshot.generation, 1);
    assert_eq!(snapshot.digest.len(), 32);
    assert!(snapshot.loaded_at.is_some());

    let v0 = c
        .get_upgrade_path(path_request(
            "divergence",
            "divergence.v1.0.0",
            "1.0.0",
            pb::Semantics::OlmV0,
        ))
        .await
        .expect("GetUpgradePath")
        .into_inner();
    assert_eq!(v0.outcome, pb::Outcome::Stuck as i32);
    assert!(
        v0.stuck_reason.contains("OLM v0 hides it"),
        "{}",
        v0.stuck_reason
    );
    let v1 = c
        .get_upgrade_path(path_request(
            "divergence",
            "divergence.v1.0.0",
            "1.0.0",
            pb::Semantics::OlmV1,
        ))
        .await
        .expect("GetUpgradePath")
        .into_inner();
    let to: Vec<&str> = v1.steps.iter().map(|s| s.to.as_str()).collect();
    assert_eq!(to, ["divergence.v2.0.0", "divergence.v3.0.0"]);
    assert_eq!(v1.outcome, pb::Outcome::ReachedHead as i32);
}

#[tokio::test]
async fn a_version_alone_names_the_start_of_a_path_and_of_successors() {
    let server = TestServer::start(&fixture("upgrade-graphs")).await;
    let mut c = graph_client(&server).await;
    let path = c
        .get_upgrade_path(path_request(
            "divergence",
            "",
            "2.0.0",
            pb::Semantics::OlmV1,
        ))
        .await
        .expect("GetUpgradePath by version")
        .into_inner();
    let steps: Vec<(&str, &str)> = path
        .steps
        .iter()
        .map(|s| (s.from.as_str(), s.to.as_str()))
        .collect();
    assert_eq!(steps, [("divergence.v2.0.0", "divergence.v3.0.0")]);
    let s = c
        .get_successors(successors_request("divergence", installed("", "2.0.0")))
        .await
        .expect("GetSuccessors by version")
        .into_inner();
    assert_eq!(s.selected, "divergence.v3.0.0");
    let kinds: Vec<i32> = s.candidates[0].edges.iter().map(|e| e.kind).collect();
    assert!(
        kinds.contains(&(pb::EdgeKind::Replaces as i32)),
        "{kinds:?}"
    );
    let neither = c
        .get_upgrade_path(path_request("divergence", "", "", pb::Semantics::OlmV0))
        .await
        .expect_err("nothing to start from");
    assert_eq!(neither.code(), Code::InvalidArgument);
    let unknown = c
        .get_upgrade_path(path_request(
            "divergence",
            "",
            "9.9.9",
            pb::Semantics::OlmV0,
        ))
        .await
        .expect_err("no bundle has it");
    assert!(
        unknown.message().contains("has version 9.9.9"),
        "{}",
        unknown.message()
    );
}

#[tokio::test]
async fn successors_name_the_streams_and_order_deprecated_bundles_last() {
    let server = TestServer::start(&fixture("upgrade-graphs")).await;
    let mut c = graph_client(&server).await;
    let s = c
        .get_successors(successors_request(
            "streams",
            installed("streams.v1.1.0", ""),
        ))
        .await
        .expect("GetSuccessors")
        .into_inner();
    let names: Vec<&str> = s.candidates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "streams.v2.0.0",
            "streams.v1.2.0",
            "streams.v1.1.0",
            "streams.v1.1.3"
        ]
    );
    assert!(s.candidates[3].deprecated);
    assert_eq!(s.best_y_stream, "streams.v1.2.0");
    assert_eq!(s.best_z_stream, "streams.v1.1.3");
}

#[tokio::test]
async fn export_streams_one_graph_per_package_by_name_and_lint_finds_the_traps() {
    let server = TestServer::start(&fixture("upgrade-graphs")).await;
    let mut c = graph_client(&server).await;
    let request = pb::ExportGraphRequest {
        format: pb::Format::Dot as i32,
        ..Default::default()
    };
    let graphs = collect(
        c.export_graph(request)
            .await
            .expect("ExportGraph")
            .into_inner(),
    )
    .await;
    let names: Vec<&str> = graphs
        .iter()
        .filter_map(|g| g.graph.as_ref())
        .map(|g| g.package.as_str())
        .collect();
    assert_eq!(names, ["divergence", "streams"]);
    assert!(
        graphs
            .iter()
            .all(|g| g.rendered.starts_with("digraph catalog {") && g.snapshot.is_some())
    );

    let lint = c
        .lint(pb::LintRequest::default())
        .await
        .expect("Lint")
        .into_inner();
    let checks: Vec<&str> = lint.findings.iter().map(|f| f.check.as_str()).collect();
    for check in ["v0-v1-divergence", "skipped-on-chain", "near-known-name"] {
        assert!(checks.contains(&check), "{check} not in {checks:?}");
    }
    assert!(!lint.truncated);
}

#[tokio::test]
async fn check_range_answers_without_a_catalog_question_and_parse_errors_are_answers() {
    let server = TestServer::start(&fixture("upgrade-graphs")).await;
    let mut c = graph_client(&server).await;
    let r = c
        .check_range(pb::CheckRangeRequest {
            grammar: pb::Grammar::Masterminds as i32,
            range: ">=1.11, <1.13".into(),
            versions: vec!["1.12.0".into(), "1.13.0".into()],
        })
        .await
        .expect("CheckRange")
        .into_inner();
    let matches: Vec<bool> = r.results.iter().map(|x| x.r#match).collect();
    assert_eq!(matches, [true, false]);
    let bad = c
        .check_range(pb::CheckRangeRequest {
            grammar: pb::Grammar::Blang as i32,
            range: ">=1.0.0,".into(),
            versions: vec![],
        })
        .await
        .expect("CheckRange")
        .into_inner();
    assert!(
        bad.parse_error.starts_with("Could not parse"),
        "{}",
        bad.parse_error
    );
}

#[tokio::test]
async fn errors_carry_real_status_codes() {
    let server = TestServer::start(&fixture("upgrade-graphs")).await;
    let mut c = graph_client(&server).await;
    let unknown = c
        .get_successors(successors_request("stream", None))
        .await
        .expect_err("unknown");
    assert_eq!(unknown.code(), Code::NotFound);
    assert_eq!(
        unknown.message(),
        r#"package "stream" not found (did you mean streams?)"#
    );
    let bad_range = c
        .get_successors(pb::GetSuccessorsRequest {
            version_range: ">=1 <".into(),
            ..successors_request("streams", None)
        })
        .await
        .expect_err("bad range");
    assert_eq!(bad_range.code(), Code::InvalidArgument);
    assert!(
        bad_range
            .message()
            .starts_with(r#"desired version range ">=1 <" is invalid"#)
    );
    let stale = c
        .lint(pb::LintRequest {
            snapshot_digest: "0".repeat(32),
            ..Default::default()
        })
        .await
        .expect_err("stale");
    assert_eq!(stale.code(), Code::FailedPrecondition);
    assert!(stale.message().starts_with("catalog snapshot changed"));
    let huge = c
        .get_successors(successors_request(&"x".repeat(5000), None))
        .await
        .expect_err("huge");
    assert_eq!(huge.code(), Code::InvalidArgument);
    let no_grammar = c
        .check_range(pb::CheckRangeRequest::default())
        .await
        .expect_err("grammar");
    assert_eq!(no_grammar.code(), Code::InvalidArgument);
    let missing_bundle = c
        .get_upgrade_path(path_request(
            "streams",
            "streams.v9",
            "",
            pb::Semantics::OlmV0,
        ))
        .await
        .expect_err("unknown bundle");
    assert_eq!(missing_bundle.code(), Code::NotFound);
}

#[tokio::test]
async fn a_warm_start_answers_from_the_cached_tables() {
    use fbc_registry::snapshot::cache::CacheConfig;
    let dir = fixture("upgrade-graphs");
    let cache = tempfile::tempdir().expect("cache");
    let build = CacheConfig {
        dir: cache.path().to_path_buf(),
        enforce_integrity: false,
        must_write: true,
    };
    fbc_registry::snapshot::cache::load(&dir, &build, &Default::default()).expect("cache built");
    let ask = |server: TestServer| async move {
        let mut c = graph_client(&server).await;
        let mut answer = c
            .get_successors(successors_request(
                "streams",
                installed("streams.v1.1.0", ""),
            ))
            .await
            .expect("GetSuccessors")
            .into_inner();
        answer.snapshot = None;
        server.stop().await;
        answer
    };
    let cold = ask(TestServer::start(&dir).await).await;
    // enforced integrity: the start is warm or fails
    let warm_config = fbc_registry::app::ServeConfig {
        cache: Some(CacheConfig {
            enforce_integrity: true,
            must_write: false,
            ..build
        }),
        ..test_config(&dir)
    };
    let warm = ask(TestServer::start_config(warm_config).await).await;
    assert_eq!(cold, warm);
    assert_eq!(warm.selected, "streams.v2.0.0");
}

fn cli_owned(args: &[String]) -> (Option<i32>, String, String) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    cli(&args)
}

fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A channel only opm before v1.58.0 accepts: the question commands answer it
/// as OLM does, with a warning naming the rule; `--strict` and `validate` refuse.
#[test]
fn questions_answer_a_catalog_only_old_opm_accepts_with_a_warning_and_strict_refuses() {
    let root = fixture("legacy-chain");
    let dir = root.join("catalog");
    let dir = dir.to_str().expect("utf-8 path");
    let request = root.join("request.json");
    let request = request.to_str().expect("utf-8 path");
    let stranded = "channel contains one or more stranded bundles: p.v1.0.0";

    let (code, out, _) = cli(&["validate", dir]);
    assert_eq!(code, Some(1), "validate keeps today's rule: {out}");
    assert!(out.contains(stranded), "{out}");

    let (code, out, err) = cli(&["resolve", dir, "--request", request, "-o", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["operators"][0]["name"], "p.v4.0.0", "{v}");
    assert!(err.contains("warning:") && err.contains(stranded), "{err}");
    assert!(err.contains("v1.58.0") && err.contains("--strict"), "{err}");

    let (code, out, err) = cli(&[
        "upgrade-path",
        dir,
        "--package",
        "p",
        "--from",
        "p.v1.0.0",
        "--semantics",
        "v1",
        "-o",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let to: Vec<&str> = v["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["to"].as_str())
        .collect();
    assert_eq!(
        to,
        ["p.v2.0.0", "p.v4.0.0"],
        "v1 takes the highest direct successor: {v}"
    );
    let (code, out, err) = cli(&[
        "successors",
        dir,
        "--package",
        "p",
        "--installed",
        "p.v2.0.0",
        "-o",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["selected"], "p.v4.0.0", "{v}");

    for command in [
        &["resolve", dir, "--request", request, "--strict"][..],
        &[
            "upgrade-path",
            dir,
            "--package",
            "p",
            "--from",
            "p.v1.0.0",
            "--strict",
        ],
        &["successors", dir, "--package", "p", "--strict"],
    ] {
        let (code, out, err) = cli(command);
        assert_eq!(code, Some(1), "{command:?} refuses: {out}{err}");
        assert!(
            format!("{out}{err}").contains(stranded),
            "{command:?}: {out}{err}"
        );
    }
}

#[tokio::test]
async fn the_cli_gives_the_same_json_offline_and_from_a_server() {
    let dir = fixture("upgrade-graphs");
    let dir = dir.to_str().expect("utf-8 path");
    let server = TestServer::start(&fixture("upgrade-graphs")).await;
    let addr = server.addr.to_string();
    let commands: [&[&str]; 4] = [
        &[
            "successors",
            "--package",
            "streams",
            "--installed",
            "streams.v1.1.0",
            "-o",
            "json",
        ],
        &[
            "upgrade-path",
            "--package",
            "divergence",
            "--from",
            "divergence.v2.0.0",
            "-o",
            "json",
        ],
        &["graph", "--format", "json"],
        &["lint", "-o", "json"],
    ];
    for command in commands {
        let offline: Vec<String> = command
            .iter()
            .copied()
            .chain([dir])
            .map(String::from)
            .collect();
        let remote: Vec<String> = command
            .iter()
            .copied()
            .chain(["--addr", addr.as_str()])
            .map(String::from)
            .collect();
        let (a, b) = tokio::task::spawn_blocking(move || (cli_owned(&offline), cli_owned(&remote)))
            .await
            .expect("cli");
        assert_eq!(a.0, Some(0), "{command:?}: {}", a.2);
        assert_eq!(a, b, "{command:?}");
    }
}

#[test]
fn cli_answers_have_the_documented_shapes_and_exit_codes() {
    let dir = fixture("upgrade-graphs");
    let dir = dir.to_str().expect("utf-8 path");
    let (code, out, _) = cli(&[
        "successors",
        dir,
        "--package",
        "divergence",
        "--installed",
        "divergence.v3.0.0",
        "-o",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        (code, v["selected"].as_str()),
        (Some(0), Some("divergence.v3.0.0"))
    );
    assert_eq!(v["candidates"][0]["name"], "divergence.v3.0.0");
    assert_eq!(v["candidates"][0]["version"], "3.0.0");

    let (code, out, _) = cli(&[
        "upgrade-path",
        dir,
        "--package",
        "divergence",
        "--from",
        "divergence.v1.0.0",
        "--from-version",
        "1.0.0",
        "-o",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        (code, v["outcome"].as_str()),
        (Some(2), Some("STUCK")),
        "stuck exits 2"
    );
    let (_, out, _) = cli(&[
        "upgrade-path",
        dir,
        "--package",
        "divergence",
        "--from",
        "divergence.v1.0.0",
        "--from-version",
        "1.0.0",
        "--semantics",
        "v1",
        "-o",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        v["steps"][0],
        serde_json::json!({"from": "divergence.v1.0.0", "to": "divergence.v2.0.0", "edge": "replaces"})
    );
    // A version alone names its bundle, for both questions.
    let (code, out, err) = cli(&[
        "upgrade-path",
        dir,
        "--package",
        "divergence",
        "--from-version",
        "2.0.0",
        "--semantics",
        "v1",
        "-o",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["steps"][0]["from"], "divergence.v2.0.0");
    let (code, out, err) = cli(&[
        "successors",
        dir,
        "--package",
        "divergence",
        "--installed-version",
        "2.0.0",
        "-o",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["candidates"][0]["edges"][0]["kind"], "replaces", "{v}");

    let (code, out, _) = cli(&[
        "range",
        "check",
        "--grammar",
        "blang",
        ">=1.0.0 <2.0.0",
        "1.5.0",
        "2.0.0",
        "-o",
        "json",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out.trim(),
        r#"{"results":[{"match":true,"version":"1.5.0"},{"match":false,"version":"2.0.0"}]}"#
    );
    let (code, out, _) = cli(&[
        "range",
        "check",
        "--grammar",
        "masterminds",
        ">=1 <",
        "1.0.0",
        "-o",
        "json",
    ]);
    assert_eq!(code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(
        v["parse_error"]
            .as_str()
            .is_some_and(|e| e.starts_with("improper constraint")),
        "{out}"
    );

    let (code, _, err) = cli(&["lint", dir, "--deny-warnings"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("3 warning(s)"), "{err}");
    let (code, _, _) = cli(&["lint", dir, "--package", "streams"]);
    assert_eq!(code, Some(0));
    let (code, _, err) = cli(&["successors", dir, "--package", "nope"]);
    assert_eq!(code, Some(1));
    assert!(err.contains(r#"package "nope" not found"#), "{err}");
}

#[test]
fn lint_on_a_catalog_that_does_not_validate_names_the_heads() {
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::write(
        tmp.path().join("catalog.yaml"),
        "schema: olm.package\nname: p\ndefaultChannel: s\n---\nschema: olm.channel\npackage: p\nname: s\nentries:\n  - name: p.v1\n  - name: p.v2\n---\nschema: olm.bundle\npackage: p\nname: p.v1\nimage: x.io/p:1\nproperties:\n  - {type: olm.package, value: {packageName: p, version: 1.0.0}}\n---\nschema: olm.bundle\npackage: p\nname: p.v2\nimage: x.io/p:2\nproperties:\n  - {type: olm.package, value: {packageName: p, version: 2.0.0}}\n",
    )
    .expect("write");
    let (code, out, _) = cli(&["lint", tmp.path().to_str().expect("utf-8")]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("multiple channel heads found in graph: p.v1, p.v2"),
        "{out}"
    );
    assert!(
        out.contains("hint: nothing replaces or skips any of p.v1, p.v2"),
        "{out}"
    );
}
