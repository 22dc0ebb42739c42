//! `fbc-registry explain-upgrade` (issue #32) on a catalog and a cluster state of
//! our own with one object per reason it can give: the exact text (a golden file),
//! the exit codes (0 all can move or are up to date, 2 something is stuck, 1
//! errors), JSON, standard input, and the same answer from a server (`--addr`,
//! `fbc.v1.Graph/ExplainUpgrade`) as offline.

use crate::harness::process::{Ran, run_cli};

const CATALOG: &str = "tests/fixtures/cluster/explain/catalog";
const STATE: &str = "tests/fixtures/cluster/explain/state.yaml";

/// Runs `explain-upgrade` in the crate's root with `args`, `stdin` on standard input.
fn run(args: &[&str], stdin: &str) -> Ran {
    let all: Vec<&str> = std::iter::once("explain-upgrade")
        .chain(args.iter().copied())
        .collect();
    run_cli(all, stdin)
}

#[test]
fn every_reason_reads_as_the_golden_file_and_stuck_is_exit_2() {
    let (code, out, err) = run(&[CATALOG, "--cluster-state", STATE], "");
    assert_eq!(code, Some(2), "{err}");
    let expected = std::fs::read_to_string(format!(
        "{}/tests/fixtures/cluster/explain/expected.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("golden file");
    assert_eq!(out, expected);
}

#[test]
fn json_has_every_object_and_the_resolution() {
    let (code, out, err) = run(&[CATALOG, "--cluster-state", STATE, "-o", "json"], "");
    assert_eq!(code, Some(2), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["stuck"], true);
    assert_eq!(v["subscriptions"].as_array().map(Vec::len), Some(9));
    assert_eq!(v["extensions"].as_array().map(Vec::len), Some(5));
    assert_eq!(v["problems"].as_array().map(Vec::len), Some(1));
    let dependency = &v["subscriptions"][1];
    assert_eq!(dependency["subscription"], "dependency/op");
    assert_eq!(dependency["resolution"]["outcome"], "resolves");
    assert_eq!(
        dependency["resolution"]["passedOver"][0]["candidate"]
            .as_str()
            .map(|c| c.starts_with("op.v1.3.0")),
        Some(true),
        "{dependency}"
    );
    let range = &v["extensions"][4];
    assert_eq!(range["extension"], "v1-range");
    assert_eq!(range["leftOut"][0]["name"], "op.v1.2.0");
}

#[test]
fn nothing_stuck_is_exit_0_from_standard_input() {
    let state = "kind: Subscription\nmetadata: {name: op, namespace: ns}\nspec: {name: op, channel: stable, source: cat, sourceNamespace: olm}\nstatus: {installedCSV: op.v1.0.0}\n";
    let (code, out, err) = run(&[CATALOG, "--cluster-state", "-"], state);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "Subscription ns/op (package op, OLM v0): op.v1.0.0; channel \"stable\", head op.v1.2.0\n  OLM v0 installs op.v1.1.0 next, then the rest of the path (2 install(s) to op.v1.2.0)\n  path: op.v1.1.0 -> op.v1.2.0\n"
    );
}

#[test]
fn mistakes_are_exit_1_naming_the_file_document_and_field() {
    let (code, _, err) = run(&[CATALOG], "");
    assert_eq!(code, Some(1));
    assert!(err.contains("--cluster-state"), "{err}");
    let bad = "kind: Subscription\nmetadata: {name: op}\nspec: {name: [op]}\n";
    let (code, _, err) = run(&[CATALOG, "--cluster-state", "-"], bad);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("<stdin>") && err.contains("document 1") && err.contains("spec.name"),
        "{err}"
    );
    let (code, _, err) = run(
        &[CATALOG, "--cluster-state", "-", "--max-file-size", "10"],
        bad,
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("--max-file-size"), "{err}");
}

#[tokio::test]
async fn the_server_answers_as_the_offline_cli_does() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let server = crate::harness::TestServer::start(&root.join(CATALOG)).await;
    let addr = server.addr.to_string();
    let answers = tokio::task::spawn_blocking(move || {
        let mut pairs = Vec::new();
        for output in ["text", "json"] {
            let offline = run(&[CATALOG, "--cluster-state", STATE, "-o", output], "");
            let remote = run(
                &["--addr", &addr, "--cluster-state", STATE, "-o", output],
                "",
            );
            pairs.push((offline, remote));
        }
        pairs
    })
    .await
    .expect("cli");
    for (offline, remote) in answers {
        assert_eq!(offline.0, Some(2), "{}", offline.2);
        assert_eq!(offline, remote);
    }
}
