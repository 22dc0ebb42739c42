//! `fbc-registry resolve` on the bundled example catalog: the answer's shape,
//! the exit codes (0 resolved, 2 unsatisfiable, 1 errors) and a dependency
//! pulled in from another package.

use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fbc-registry");

/// `resolve catalogs/example --request - -o json` with `request` on stdin.
fn resolve(request: &str) -> (Option<i32>, String) {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut child = Command::new(BIN)
        .args([
            "resolve",
            &format!("{root}/catalogs/example"),
            "--request",
            "-",
            "-o",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fbc-registry");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(request.as_bytes())
        .expect("write request");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).trim().to_owned(),
    )
}

#[test]
fn a_subscription_installs_the_head_and_its_dependency_in_documented_field_order() {
    let (code, out) = resolve(
        r#"{"catalog": {"name": "example", "namespace": "olm"},
            "subscriptions": [{"name": "example-operator", "package": "example-operator", "channel": "stable"}]}"#,
    );
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out,
        r#"{"operators":[{"name":"example-dependency.v1.1.0","package":"example-dependency","channel":"stable","replaces":"example-dependency.v1.0.0","catalog":"example","catalogNamespace":"olm"},{"name":"example-operator.v1.0.0","package":"example-operator","channel":"stable","replaces":"example-operator.v0.2.0","catalog":"example","catalogNamespace":"olm","subscription":"example-operator"}]}"#
    );
}

#[test]
fn an_upgrade_replaces_the_installed_csv_one_hop_up() {
    let (code, out) = resolve(
        r#"{"catalog": {"name": "example"},
            "subscriptions": [{"package": "example-operator", "channel": "alpha", "installedCSV": "example-operator.v0.1.0"}],
            "installed": [{"name": "example-operator.v0.1.0", "package": "example-operator", "version": "0.1.0"}]}"#,
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(r#""name":"example-operator.v0.2.0","package":"example-operator","channel":"alpha","replaces":"example-operator.v0.1.0""#),
        "{out}"
    );
}

#[test]
fn an_unknown_channel_is_unsatisfiable_with_olms_words_and_exit_2() {
    let (code, out) = resolve(
        r#"{"catalog": {"name": "example"}, "subscriptions": [{"package": "example-operator", "channel": "gamma"}]}"#,
    );
    assert_eq!(code, Some(2), "{out}");
    let reply: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        reply["unsat_constraints"],
        serde_json::json!([
            "no operators found in channel gamma of package example-operator in the catalog referenced by subscription example-operator",
            "subscription example-operator exists"
        ])
    );
    assert!(
        reply["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("constraints not satisfiable: no operators"))
    );
}

#[test]
fn a_malformed_request_exits_1_naming_the_field() {
    let (code, out) =
        resolve(r#"{"catalog": {"name": "example"}, "subscriptions": [{"channel": "stable"}]}"#);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out,
        r#"{"error":"-: request field subscriptions[0].package: required"}"#
    );
}
