//! `fbc-registry cluster-upgrade` and `lint --target olm-v1` (issue #32) on catalogs of our own:
//! the exact line per installed bundle, the exit codes (0 nothing blocks, 2 something
//! does, 1 errors), cluster state from a file and from stdin, and JSON.

use std::process::Command;

use crate::harness::process::{BIN, Ran, run_cli};

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/cluster/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Runs `cluster-upgrade` with `args` after the catalog, `stdin` on standard input.
fn run(args: &[&str], stdin: &str) -> Ran {
    let catalog = fixture("catalog");
    let all: Vec<&str> = ["cluster-upgrade", catalog.as_str()]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    run_cli(all, stdin)
}

#[test]
fn a_blocking_csv_gets_the_path_that_clears_it_and_exit_2() {
    let state = fixture("state.yaml");
    let (code, out, err) = run(&["--to", "4.16", "--cluster-state", &state], "");
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(
        out,
        "op op.v1.0.0 (OLM v0, operators/op): max OpenShift 4.14 (read from the cluster): \
         BLOCKS: upgrade first, through op.v1.1.0 -> op.v1.2.0\n"
    );
    // one minor less: the first step is enough
    let text = std::fs::read_to_string(&state).expect("fixture");
    let (code, out, _) = run(&["--to", "4.15.2", "--cluster-state", "-"], &text);
    assert_eq!(code, Some(2));
    assert!(
        out.ends_with("BLOCKS: upgrade first, through op.v1.1.0\n"),
        "{out}"
    );
}

#[test]
fn nothing_blocking_is_exit_0_and_json_says_why() {
    let (code, out, err) = run(
        &["--to", "4.15", "--installed", "op.v1.1.0", "-o", "json"],
        "",
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        r#"{"blocked":false,"notes":[],"to":"4.15","verdicts":[{"blocks":false,"installed":{"bundle":"op.v1.1.0","channel":"","olm":"V0","owner":"--installed","package":"op"},"max":"4.15","readFrom":"catalog","wayOut":{"kind":"none"}}]}
"#
    );
}

#[test]
fn mistakes_are_exit_1_with_the_reason() {
    let (code, _, err) = run(&["--to", "4.15"], "");
    assert_eq!(code, Some(1));
    assert!(err.contains("say what is installed"), "{err}");
    let (code, _, err) = run(&["--to", "four", "--installed", "op.v1.0.0"], "");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("\"four\" is not an OpenShift version"),
        "{err}"
    );
    let (code, _, err) = run(&["--to", "4.15", "--installed", "nope"], "");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("no package of the catalog has a bundle named \"nope\""),
        "{err}"
    );
    let (code, _, err) = run(
        &["--to", "4.15", "--cluster-state", "-"],
        "kind: Subscription\nmetadata: {name: s}\nspec: {}\n",
    );
    assert_eq!(code, Some(1));
    assert!(
        err.contains(
            "<stdin>: document 1 (line 1): Subscription \"s\": field spec.name: is required"
        ),
        "{err}"
    );
    // standard input is bounded like a file: too much is refused, not cut and misread
    let big = format!("# {}\n", "x".repeat(2000));
    let (code, _, err) = run(
        &[
            "--to",
            "4.15",
            "--max-file-size",
            "1000",
            "--cluster-state",
            "-",
        ],
        &big,
    );
    assert_eq!(code, Some(1));
    assert!(
        err.contains("standard input: larger than 1000 bytes (limit --max-file-size)"),
        "{err}"
    );
}

/// `lint --target olm-v1` on the bundled example catalog: a finding per reason OLM v1
/// would not (or might not) install a bundle; refusals are warnings.
#[test]
fn lint_target_olm_v1_names_each_reason_and_refusals_are_warnings() {
    let example = format!("{}/catalogs/example", env!("CARGO_MANIFEST_DIR"));
    let lint = |extra: &[&str]| {
        let all: Vec<&str> = ["lint", example.as_str(), "--target"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        run_cli(all, "")
    };
    let (code, out, err) = lint(&["olm-v1"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        err,
        "1 warning(s), 8 info\nOLM v1: 1 of 2 packages installable (their default channel's head; by reason: R1 refused 1, R3 unknown 1); 5 of 6 bundles (by reason: R1 refused 1, R3 unknown 5, R4 needsGate 3)\n"
    );
    let warnings: Vec<&str> = out.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(
        warnings,
        [
            "warning: example-operator/catalog.yaml: document 8 (line 219): package \"example-operator\", \
          entry \"example-operator.v1.0.0\": OLM v1 (R1): validating bundle \"example-operator.v1.0.0\": \
          bundle \"example-operator.v1.0.0\" has a dependency declared via property \"olm.gvk.required\" \
          which is currently not supported [olmV1Dependency]"
        ]
    );
    assert_eq!(out.matches("[olmV1InstallMode]").count(), 3, "{out}");
    let (code, _, _) = lint(&["olm-v1", "--deny-warnings"]);
    assert_eq!(code, Some(2));
    let (code, _, err) = lint(&["ocp4.17"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("unknown target \"ocp4.17\": known targets: olm-v1, console, ocp-4.Y"),
        "{err}"
    );
}

#[tokio::test]
async fn the_server_answers_as_the_offline_cli_does() {
    let server = crate::harness::TestServer::start(std::path::Path::new(&fixture("catalog"))).await;
    let addr = server.addr.to_string();
    let state = fixture("state.yaml");
    let (offline, remote) = tokio::task::spawn_blocking(move || {
        let args = |source: Vec<String>| {
            let mut child = Command::new(BIN)
                .arg("cluster-upgrade")
                .args(source)
                .args([
                    "--to",
                    "4.16",
                    "--cluster-state",
                    &state,
                    "--installed",
                    "op.v1.1.0",
                    "-o",
                    "json",
                ])
                .output()
                .expect("run");
            child.stdout.push(b'|');
            (
                child.status.code(),
                String::from_utf8_lossy(&child.stdout).into_owned(),
            )
        };
        (
            args(vec![fixture("catalog")]),
            args(vec!["--addr".into(), addr]),
        )
    })
    .await
    .expect("cli");
    assert_eq!(offline.0, Some(2), "{offline:?}");
    assert_eq!(offline, remote);
}
