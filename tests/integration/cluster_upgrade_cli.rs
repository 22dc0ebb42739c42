//! `fbc-registry cluster-upgrade` on a catalog of our own (tests/fixtures/cluster):
//! the exact line per installed bundle, the exit codes (0 nothing blocks, 2 something
//! does, 1 errors), cluster state from a file and from stdin, and JSON.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::harness::process::BIN;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/cluster/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Runs `cluster-upgrade` with `args` after the catalog, `stdin` on standard input.
fn run(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(BIN)
        .arg("cluster-upgrade")
        .arg(fixture("catalog"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
        r#"{"blocked":false,"notes":[],"to":"4.15","verdicts":[{"blocks":false,"installed":{"bundle":"op.v1.1.0","channel":"","olm":"V0","owner":"--installed","package":"op"},"max":{"major":4,"minor":15},"readFrom":"catalog","wayOut":{"kind":"none"}}]}
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
}
