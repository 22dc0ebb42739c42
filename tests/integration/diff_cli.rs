//! `fbc-registry diff` on the real binary, from directories and from a server, and
//! `fbc.v1.Graph/DiffCatalog` and `ExportCatalog` on the real server.

use crate::harness::process::BIN;
use crate::harness::*;
use fbc_registry::fbc_v1 as pb;
use fbc_registry::fbc_v1::graph_client::GraphClient;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

/// The example catalog cut to its channel heads (and what they need), as a directory
/// and as the JSON stream `filter` prints.
fn heads_only(dir: &Path) -> (PathBuf, Vec<u8>) {
    let config = dir.join("heads.yaml");
    std::fs::write(
        &config,
        "apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\npackages:\n  - name: example-operator\n  - name: example-dependency\n",
    )
    .unwrap();
    let out = dir.join("heads");
    let run = |extra: &[&str]| {
        Command::new(BIN)
            .arg("filter")
            .arg(example())
            .arg("--config")
            .arg(&config)
            .args(extra)
            .output()
            .unwrap()
    };
    let written = run(&["--output-dir", out.to_str().unwrap()]);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    let stream = run(&[]);
    assert!(stream.status.success());
    (out, stream.stdout)
}

fn diff(args: &[&str]) -> Output {
    Command::new(BIN).arg("diff").args(args).output().unwrap()
}

#[test]
fn a_catalog_against_itself_has_no_differences() {
    let e = example();
    let out = diff(&[
        e.to_str().unwrap(),
        e.to_str().unwrap(),
        "--fail-on",
        "removal,stranded,broken-path",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "No differences.\n");
}

#[test]
fn cutting_a_catalog_to_its_heads_strands_what_was_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (heads, _) = heads_only(dir.path());
    let (old, new) = (example(), heads);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());

    let text = diff(&[old, new]);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("OLM v0 paths stranded:"), "{text}");
    assert!(
        text.contains("example-operator/alpha example-operator.v0.1.0: was"),
        "{text}"
    );

    let json = diff(&[old, new, "-o", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let removed = &json["packages"][1]["bundles_removed"];
    assert!(
        removed
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b == "example-operator.v0.1.0"),
        "{json}"
    );

    let md = diff(&[old, new, "-o", "markdown"]);
    assert!(String::from_utf8_lossy(&md.stdout).starts_with("## Catalog diff\n"));

    let failing = diff(&[old, new, "--fail-on", "stranded"]);
    assert_eq!(failing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&failing.stderr);
    assert!(stderr.contains("stranded"), "{stderr}");
    let removal = diff(&[old, new, "--fail-on=removal"]);
    assert_eq!(removal.status.code(), Some(2));
    // adding is no removal: the way back passes
    let back = diff(&[new, old, "--fail-on", "removal,stranded,broken-path"]);
    assert_eq!(
        back.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
}

#[test]
fn an_unreadable_side_is_an_error_naming_it() {
    let out = diff(&["/no/such/catalog", example().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/catalog"));
}

#[tokio::test]
async fn a_served_catalog_is_diffed_as_its_directory_is() {
    let dir = tempfile::tempdir().unwrap();
    let (heads, stream) = heads_only(dir.path());
    let server = TestServer::start_http(&example(), "example").await;
    let addr = format!("grpc://{}", server.addr);
    let heads_arg = heads.to_str().unwrap().to_owned();
    let example_arg = example().to_str().unwrap().to_owned();
    let (from_server, from_dir) = tokio::task::spawn_blocking(move || {
        (
            diff(&[&addr, &heads_arg, "-o", "json"]),
            diff(&[&example_arg, &heads_arg, "-o", "json"]),
        )
    })
    .await
    .unwrap();
    assert!(
        from_server.status.success(),
        "{}",
        String::from_utf8_lossy(&from_server.stderr)
    );
    let expected: serde_json::Value = serde_json::from_slice(&from_dir.stdout).unwrap();
    let got: serde_json::Value = serde_json::from_slice(&from_server.stdout).unwrap();
    assert_eq!(got, expected);

    // the same question over fbc.v1: the served catalog against one sent in chunks
    let mut client = GraphClient::new(server.channel().await);
    let chunks: Vec<pb::DiffCatalogRequest> = stream
        .chunks(100)
        .map(|c| pb::DiffCatalogRequest {
            data: c.to_vec(),
            ..Default::default()
        })
        .collect();
    let reply = client
        .diff_catalog(tokio_stream::iter(chunks))
        .await
        .unwrap()
        .into_inner();
    let summary = reply.summary.unwrap();
    assert!(summary.stranded > 0 && summary.removals, "{summary:?}");
    let json: serde_json::Value = serde_json::from_str(&reply.json).unwrap();
    assert_eq!(json, expected);
    assert!(reply.markdown.starts_with("## Catalog diff"));
    assert_eq!(reply.snapshot.unwrap().generation, 1);

    // ExportCatalog is catalogd's /api/v1/all
    let mut exported = Vec::new();
    let mut messages = client
        .export_catalog(pb::ExportCatalogRequest::default())
        .await
        .unwrap()
        .into_inner();
    let mut first = true;
    while let Some(m) = messages.message().await.unwrap() {
        assert_eq!(m.snapshot.is_some(), first);
        first = false;
        exported.extend_from_slice(&m.data);
    }
    let all = crate::http_client::get(server.http_addr(), "/catalogs/example/api/v1/all").await;
    assert_eq!(exported, all.decoded());

    // a catalog that does not validate is refused, saying why
    let bad = pb::DiffCatalogRequest {
        data: b"{\"schema\":\"olm.channel\",\"package\":\"nope\",\"name\":\"x\"}".to_vec(),
        ..Default::default()
    };
    let refused = client
        .diff_catalog(tokio_stream::iter([bad]))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
}

#[tokio::test]
async fn a_catalog_sent_past_the_cap_is_refused_before_more_is_read() {
    let server = TestServer::start(&example()).await;
    let mut client = GraphClient::new(server.channel().await);
    let chunks = std::iter::repeat_with(|| pb::DiffCatalogRequest {
        data: vec![b' '; 1 << 20],
        ..Default::default()
    })
    .take(65);
    let refused = client
        .diff_catalog(tokio_stream::iter(chunks))
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::ResourceExhausted,
        "{refused:?}"
    );
    assert!(refused.message().contains("larger than"), "{refused:?}");
}
