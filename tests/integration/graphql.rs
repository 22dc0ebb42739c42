//! catalogd's GraphQL endpoint on the running server, against catalogd's own
//! answers: `tests/fixtures/catalogd-graphql/` holds what catalogd's query code
//! (operator-controller, graphql-go v0.8.1, built from source by
//! `tools/catalogd-graphql`) answered to each request body, for the example
//! catalog and catalogd's test catalog. Answers Go leaves to map order
//! (`unordered`) are compared with their lists as sets; error messages
//! async-graphql words differently are compared by position and path only.

use crate::harness::{TestServer, fixture};
use crate::http_client::post;
use serde_json::Value;
use std::net::SocketAddr;

/// A recorded answer.
struct Recorded {
    request: String,
    status: u16,
    body: String,
    unordered: bool,
    /// catalogd crashed on it (a fragment that spreads itself).
    fatal: bool,
}

fn recorded(name: &str) -> Vec<Recorded> {
    let path = fixture("catalogd-graphql").join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("recorded answers");
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a recorded line");
            Recorded {
                request: v["request"].as_str().unwrap().to_string(),
                status: v["status"].as_u64().unwrap() as u16,
                body: v["body"].as_str().unwrap().to_string(),
                unordered: v["unordered"].as_bool().unwrap_or(false),
                fatal: v.get("fatal").is_some(),
            }
        })
        .collect()
}

/// Every list in `value` sorted by its elements' text (for Go's map orders).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(canonical).collect();
            items.sort_by_key(|v| v.to_string());
            Value::Array(items)
        }
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect())
        }
        other => other.clone(),
    }
}

/// The errors without their messages (where the wording may differ).
fn error_shapes(body: &Value) -> Vec<Value> {
    let mut shapes: Vec<Value> = body["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| serde_json::json!({"locations": e["locations"], "path": e.get("path")}))
                .collect()
        })
        .unwrap_or_default();
    shapes.sort_by_key(|v| v.to_string());
    shapes
}

/// Queries (by index in `queries.jsonl`) whose answers differ on purpose
/// (docs/http.md, "GraphQL"): each is checked for what we answer instead.
const KNOWN: &[(usize, &str)] = &[
    // async-graphql's wording, at the argument's field rather than its value
    (13, "Invalid value for argument"),
    // graphql-go v0.8.1 cannot parse `null`; we take it as no limit (100)
    (15, "{\"data\":{\"olmbundles\":["),
    // async-graphql always lists the `ID` scalar
    (21, "{\"kind\":\"SCALAR\",\"name\":\"ID\"}"),
    // async-graphql's directives: also `oneOf` and `specifiedBy`
    (23, "\"name\":\"specifiedBy\""),
];

async fn compare(addr: SocketAddr, path: &str, answers: &[Recorded]) -> Vec<String> {
    let mut differences = Vec::new();
    let mut worded = 0;
    for (i, want) in answers.iter().enumerate() {
        if let Some((_, ours)) = KNOWN.iter().find(|(k, _)| *k == i) {
            let got = post(addr, path, &[], want.request.as_bytes()).await;
            if got.status != 200 || !got.text().contains(ours) {
                differences.push(format!(
                    "#{i}: expected our answer to contain {ours:?}: {}",
                    got.text()
                ));
            }
            continue;
        }
        let got = post(addr, path, &[], want.request.as_bytes()).await;
        let text = got.text();
        if want.fatal {
            // catalogd dies; we answer graphql-go's (fixed) validation error.
            let body: Value = serde_json::from_str(&text).expect("JSON");
            if got.status != 200
                || body["data"] != Value::Null
                || body["errors"].as_array().is_none_or(Vec::is_empty)
            {
                differences.push(format!(
                    "#{i}: a fragment cycle must be refused, got {} {text}",
                    got.status
                ));
            }
            continue;
        }
        if got.status != want.status {
            differences.push(format!(
                "#{i}: status {} (catalogd {}): {text}",
                got.status, want.status
            ));
            continue;
        }
        if text == want.body {
            continue;
        }
        let (Ok(ours), Ok(theirs)) = (
            serde_json::from_str::<Value>(&text),
            serde_json::from_str::<Value>(&want.body),
        ) else {
            differences.push(format!("#{i}: body {text:?}, catalogd {:?}", want.body));
            continue;
        };
        let same_data = if want.unordered {
            canonical(&ours["data"]) == canonical(&theirs["data"])
        } else {
            ours["data"] == theirs["data"]
        };
        let same_errors = if want.unordered {
            canonical(&ours["errors"]) == canonical(&theirs["errors"])
        } else {
            ours["errors"] == theirs["errors"]
        };
        if same_data && same_errors && want.unordered {
            continue;
        }
        if same_data && error_shapes(&ours) == error_shapes(&theirs) {
            worded += 1;
            eprintln!(
                "#{i}: worded differently:\n  ours     {}\n  catalogd {}",
                ours["errors"], theirs["errors"]
            );
            continue;
        }
        differences.push(format!(
            "#{i}: {}\n  ours     {text}\n  catalogd {}",
            want.request, want.body
        ));
    }
    eprintln!(
        "{path}: {} answers, {worded} with errors worded differently",
        answers.len()
    );
    differences
}

#[tokio::test]
async fn answers_are_catalogds_for_the_example_catalog() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
    let server = TestServer::start_http(&dir, "example").await;
    let differences = compare(
        server.http_addr(),
        "/catalogs/example/api/v1/graphql",
        &recorded("example"),
    )
    .await;
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

#[tokio::test]
async fn answers_are_catalogds_for_catalogds_test_catalog() {
    let server = TestServer::start_http(&fixture("catalogd-test-catalog"), "test-catalog").await;
    let answers = recorded("catalogd-test-catalog");
    let differences = compare(
        server.http_addr(),
        "/catalogs/test-catalog/api/v1/graphql",
        &answers,
    )
    .await;
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

#[tokio::test]
async fn hostile_queries_are_refused_quickly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
    let server = TestServer::start_http(&dir, "example").await;
    let (addr, path) = (server.http_addr(), "/catalogs/example/api/v1/graphql");
    // 100 KB of nesting: refused before parsing, with catalogd's depth message
    let deep = format!(
        "{{\"query\":\"{}{}\"}}",
        "{".repeat(49_000),
        "}".repeat(49_000)
    );
    let reply = post(addr, path, &[], deep.as_bytes()).await;
    assert_eq!(reply.status, 200);
    assert!(
        reply.text().contains("query exceeds maximum depth of 10"),
        "{}",
        reply.text()
    );
    // a body over 1 MiB whose JSON does not end inside it
    let huge = format!("{{\"query\":\"{}\"}}", "a".repeat(1 << 20));
    let reply = post(addr, path, &[], huge.as_bytes()).await;
    assert_eq!(
        (reply.status, reply.text().as_str()),
        (400, "Invalid request body\n")
    );
    // other methods: Go's 405 text, and Allow
    let reply = crate::http_client::get(addr, path).await;
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("POST"));
    // answers are JSON, gzipped when asked and large enough
    let query = br#"{"query":"{ olmbundles { name properties { type value } } }"}"#;
    let reply = post(addr, path, &[("Accept-Encoding", "gzip")], query).await;
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.header("content-encoding"), Some("gzip"));
    let plain = post(addr, path, &[], query).await;
    assert_eq!(reply.decoded(), plain.body);
}
