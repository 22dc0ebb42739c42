//! `lint --target console|ocp-4.Y` and `validate --target` (issue #32) on a
//! catalog of our own with one finding of each kind: the exact findings per
//! target (golden files beside the catalog), validate's verdict and exit code,
//! and the same findings from a server (`--addr`).

use crate::harness::process::{Ran, run_cli};

const DIR: &str = "tests/fixtures/cluster/targets";

/// Runs the binary in the crate's root: (exit code, stdout, stderr).
fn run(args: &[&str]) -> Ran {
    run_cli(args, "")
}

fn golden(target: &str) -> String {
    std::fs::read_to_string(format!("{}/{DIR}/{target}.txt", env!("CARGO_MANIFEST_DIR")))
        .expect("golden file")
}

#[test]
fn each_target_gives_its_golden_findings() {
    let catalog = format!("{DIR}/catalog");
    for target in ["console", "ocp-4.16", "ocp-4.17"] {
        let (code, out, err) = run(&["lint", &catalog, "--target", target]);
        assert_eq!(code, Some(0), "{target}: {err}");
        assert_eq!(out, golden(target), "{target}");
        let (code, _, _) = run(&["lint", &catalog, "--target", target, "--deny-warnings"]);
        assert_eq!(
            code,
            Some(2),
            "{target}: warnings fail with --deny-warnings"
        );
    }
}

#[test]
fn validate_with_a_target_is_invalid_for_it_on_a_warning() {
    let catalog = format!("{DIR}/catalog");
    let (code, out, _) = run(&["validate", &catalog]);
    assert_eq!(code, Some(0));
    assert!(
        out.ends_with(": valid: 1 packages, 2 channels, 4 bundles (4 channel entries)\n"),
        "{out}"
    );
    let (code, out, _) = run(&["validate", &catalog, "--target", "ocp-4.17"]);
    assert_eq!(code, Some(1));
    assert!(out.starts_with(&golden("ocp-4.17")), "{out}");
    assert!(
        out.ends_with(": valid, but not for ocp-4.17 (8 warning(s)): 1 packages, 2 channels, 4 bundles (4 channel entries)\n"),
        "{out}"
    );
    let (code, out, _) = run(&["validate", &catalog, "--target", "console", "-o", "json"]);
    assert_eq!(code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["valid"], false);
    assert_eq!(v["target"]["name"], "console");
    assert_eq!(v["target"]["warnings"], 2);
    assert_eq!(v["target"]["findings"].as_array().map(Vec::len), Some(5));
    let (code, _, err) = run(&["validate", &catalog, "--target", "openshift"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "validate: unknown target \"openshift\": known targets: olm-v1, console, ocp-4.Y\n"
    );
    let (code, out, _) = run(&["validate", "catalogs/example", "--target", "console"]);
    assert_eq!(
        (code, out.contains("valid for console")),
        (Some(0), true),
        "{out}"
    );
}

#[tokio::test]
async fn the_server_gives_the_same_findings() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let server = crate::harness::TestServer::start(&root.join(DIR).join("catalog")).await;
    let addr = server.addr.to_string();
    let remote = tokio::task::spawn_blocking(move || {
        run(&["lint", "--addr", &addr, "--target", "ocp-4.16"])
    })
    .await
    .expect("cli");
    assert_eq!(remote.0, Some(0), "{}", remote.2);
    assert_eq!(remote.1, golden("ocp-4.16"));
}
