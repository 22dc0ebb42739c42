//! `fbc-registry resolve` on the bundled example catalog: the answer's shape,
//! the exit codes (0 resolved, 2 unsatisfiable, 1 errors) and a dependency
//! pulled in from another package.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::harness::process::BIN;

/// `resolve catalogs/example --request - -o json` with `request` on stdin.
fn resolve(request: &str) -> (Option<i32>, String) {
    resolve_with(
        &[format!("{}/catalogs/example", env!("CARGO_MANIFEST_DIR"))],
        request,
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

/// `resolve` with `args` (the catalog or `--addr`), `request` on stdin.
fn resolve_with(args: &[String], request: &str) -> (Option<i32>, String) {
    let mut child = Command::new(BIN)
        .arg("resolve")
        .args(args)
        .args(["--request", "-", "-o", "json"])
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

#[tokio::test]
async fn the_server_answers_as_the_offline_cli_does() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = format!("{root}/catalogs/example");
    let server = crate::harness::TestServer::start(std::path::Path::new(&dir)).await;
    let addr = server.addr.to_string();
    let requests = [
        r#"{"catalog": {"name": "example"}, "subscriptions": [{"package": "example-operator", "channel": "stable"}]}"#,
        r#"{"catalog": {"name": "example"}, "subscriptions": [{"package": "example-operator", "channel": "gamma"}]}"#,
        r#"{"catalog": {"name": "example"},
            "subscriptions": [{"package": "example-operator", "channel": "alpha", "installedCSV": "example-operator.v0.1.0"}],
            "installed": [{"name": "example-operator.v0.1.0", "package": "example-operator", "version": "v0.1",
                           "properties": [{"type": "olm.gvk", "value": {"group": "example.com", "version": "v1", "kind": "Widget"}}]}]}"#,
    ];
    for request in requests {
        let (offline, remote) = (vec![dir.clone()], vec!["--addr".to_owned(), addr.clone()]);
        let (a, b) = tokio::task::spawn_blocking(move || {
            (
                resolve_with(&offline, request),
                resolve_with(&remote, request),
            )
        })
        .await
        .expect("cli");
        assert!(matches!(a.0, Some(0 | 2)), "{request}: {a:?}");
        assert_eq!(a, b, "{request}");
    }
}

#[tokio::test]
async fn the_rpc_names_its_snapshot_and_uses_real_status_codes() {
    use fbc_registry::fbc_v1 as pb;
    let root = env!("CARGO_MANIFEST_DIR");
    let server =
        crate::harness::TestServer::start(&std::path::Path::new(root).join("catalogs/example"))
            .await;
    let mut client = pb::graph_client::GraphClient::new(server.channel().await);
    let subscription = |channel: &str| pb::Subscription {
        package: "example-operator".into(),
        channel: channel.into(),
        ..Default::default()
    };
    let ask = |subscriptions: Vec<pb::Subscription>| pb::ResolveRequest {
        catalog: Some(pb::CatalogRef {
            name: "example".into(),
            ..Default::default()
        }),
        subscriptions,
        ..Default::default()
    };
    let reply = client
        .resolve(ask(vec![subscription("stable")]))
        .await
        .expect("resolve")
        .into_inner();
    assert!(reply.snapshot.is_some_and(|s| !s.digest.is_empty()));
    assert_eq!(reply.operators.len(), 2);
    assert!(reply.error.is_empty());

    let reply = client
        .resolve(ask(vec![subscription("gamma")]))
        .await
        .expect("an answer")
        .into_inner();
    assert!(
        reply.error.starts_with("constraints not satisfiable: "),
        "{}",
        reply.error
    );

    let no_package = pb::Subscription {
        package: String::new(),
        ..subscription("stable")
    };
    let status = client
        .resolve(ask(vec![no_package]))
        .await
        .expect_err("invalid");
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    assert_eq!(
        status.message(),
        "request field subscriptions[0].package: required"
    );

    let mut stale = ask(vec![subscription("stable")]);
    stale.snapshot_digest = "0123".into();
    let status = client.resolve(stale).await.expect_err("stale");
    assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status:?}");
}

/// `resolve --explain` of a subscription to example-operator in `channel`,
/// which must exit with `code`; its JSON answer.
fn explain_example_operator(channel: &str, code: i32) -> serde_json::Value {
    let request = format!(
        r#"{{"catalog": {{"name": "example"}}, "subscriptions": [{{"package": "example-operator", "channel": "{channel}"}}]}}"#
    );
    let (status, out) = resolve_with(
        &[
            format!("{}/catalogs/example", env!("CARGO_MANIFEST_DIR")),
            "--explain".into(),
        ],
        &request,
    );
    assert_eq!(status, Some(code), "{out}");
    serde_json::from_str(&out).expect("json")
}

#[test]
fn explain_names_the_channels_there_are_in_olms_words_and_plain_words() {
    let reply = explain_example_operator("gamma", 2);
    let reasons = reply["explanation"]["minimal_unsat_constraints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let channel = reasons
        .iter()
        .find(|r| {
            r["olm"]
                .as_str()
                .is_some_and(|t| t.starts_with("no operators found in channel gamma"))
        })
        .expect("the channel reason");
    assert_eq!(
        channel["plain"],
        "Package example-operator has no channel gamma; its channels are alpha, beta, stable (default stable). Set the subscription's channel to one of them"
    );
}

#[test]
fn explain_says_why_each_operator_was_chosen() {
    let reply = explain_example_operator("stable", 0);
    let choices = reply["explanation"]["choices"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = choices
        .iter()
        .filter_map(|c| c["operator"].as_str())
        .collect();
    assert_eq!(
        names,
        ["example-operator.v1.0.0", "example-dependency.v1.1.0"]
    );
    assert_eq!(
        choices[1]["because"]["olm"],
        "bundle example-operator.v1.0.0 requires an operator providing an API with group: deps.example.com, version: v1alpha1, kind: Gadget"
    );
    assert_eq!(choices[1]["rank"], 1);
}

#[test]
fn several_catalogs_are_given_by_name_and_answer_as_olm_did() {
    let case = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/resolve-multi/multi-1-000");
    let mut command = std::process::Command::new(crate::harness::process::BIN);
    command.args(["resolve", "-o", "json", "--request"]);
    command.arg(case.join("request.json"));
    for name in ["summit", "harbor", "west"] {
        command.arg("--catalog").arg(format!(
            "{name}={}",
            case.join("catalogs").join(name).display()
        ));
    }
    let out = command.output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let expected: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
            .unwrap();
    assert!(expected.contains(&ours), "{ours}");
    assert_eq!(
        ours["operators"][1]["catalog"], "harbor",
        "priority 5 over 0"
    );
}
