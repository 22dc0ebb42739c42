//! This project's additions beside catalogd's routes: the upgrade graph and the
//! OLM v1 successor query over HTTP.
//!
//! In: `GET /catalogs/{name}/api/v1/graph?package=P[&format=json|dot|mermaid|svg]`
//! and `GET …/api/v1/successors?package=P[&installed=BUNDLE][&version=V]
//! [&range=R][&channel=C…][&policy=catalog|self][&explain=true]`, and
//! `GET …/api/v1/readiness[?package=P]` (OLM v1 readiness, per bundle and
//! summed over the catalog). Out: the same
//! answers as `fbc-registry graph` and `fbc-registry successors -o json` (one
//! renderer, [`crate::views::graph::json`]), computed on the blocking pool
//! from the request's snapshot, with the snapshot's validators; errors as
//! plain text with the gRPC API's messages (404 for an unknown package or
//! bundle, with its did-you-mean; 400 for a bad parameter; 422 for a graph too
//! large to export).

use super::catalogd::{self, ApiState, admit};
use super::content::{self, Resource};
use super::errors::{self, Refusal, Reply};
use super::goquery::Query;
use crate::fbc_v1 as pb;
use crate::grpc::graph::answer;
use crate::views::graph::json;
use bytes::Bytes;
use fbc_catalog::graph::export;
use fbc_catalog::tables::Tables;
use http::{HeaderMap, Method, StatusCode, Uri};

/// A computed answer: its bytes and content type.
struct Answer {
    body: Bytes,
    content_type: &'static str,
}

/// `GET|HEAD …/api/v1/graph`.
pub async fn graph(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    serve(
        state,
        method,
        uri,
        headers,
        &["package", "format"],
        |tables, query| {
            let package = text(query, "package")?;
            let format = match text(query, "format")?.as_str() {
                "" | "json" => pb::Format::Json,
                "dot" => pb::Format::Dot,
                "mermaid" => pb::Format::Mermaid,
                "svg" => return svg(tables, &package),
                other => {
                    return Err(bad(&format!(
                        "format {other:?}: use json, dot, mermaid or svg"
                    )));
                }
            };
            let indexes = answer::export_packages(tables, &package).map_err(from_status)?;
            let mut graphs = Vec::with_capacity(indexes.len());
            for index in indexes {
                let reply =
                    answer::export_one(tables, index, pb::Format::Json).map_err(from_status)?;
                if let Some(graph) = reply.graph {
                    graphs.push(crate::views::graph::convert::package_graph_back(graph));
                }
            }
            Ok(match format {
                pb::Format::Json => Answer {
                    body: Bytes::from(format!("{}\n", serde_json::json!({ "packages": graphs }))),
                    content_type: "application/json",
                },
                pb::Format::Dot => Answer {
                    body: Bytes::from(export::to_dot(&graphs)),
                    content_type: "text/vnd.graphviz; charset=utf-8",
                },
                pb::Format::Mermaid => Answer {
                    body: Bytes::from(export::to_mermaid(&graphs)),
                    content_type: "text/plain; charset=utf-8",
                },
            })
        },
    )
    .await
}

/// One package's graph drawn as SVG (the catalog browser's drawing); a
/// package is required, since a drawing of every package would be unreadable.
fn svg(tables: &Tables, package: &str) -> Result<Answer, Refusal> {
    if package.is_empty() {
        return Err(bad("format svg draws one package: give package="));
    }
    answer::export_packages(tables, package).map_err(from_status)?;
    let graph =
        export::package_graph(tables, package).map_err(|e| from_status(answer::status(e)))?;
    let drawing = crate::views::browser::svg::draw(&graph).map_err(|e| {
        Box::new(errors::text(
            StatusCode::UNPROCESSABLE_ENTITY,
            &e.to_string(),
        ))
    })?;
    Ok(Answer {
        body: Bytes::from(drawing),
        content_type: "image/svg+xml",
    })
}

/// `GET|HEAD …/api/v1/successors`.
pub async fn successors(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    const KEYS: &[&str] = &[
        "package",
        "installed",
        "version",
        "range",
        "channel",
        "policy",
        "explain",
    ];
    serve(state, method, uri, headers, KEYS, |tables, query| {
        let installed = text(query, "installed")?;
        let version = text(query, "version")?;
        let policy = match text(query, "policy")?.as_str() {
            "" | "catalog" => pb::Policy::CatalogProvided,
            "self" => pb::Policy::SelfCertified,
            other => return Err(bad(&format!("policy {other:?}: use catalog or self"))),
        };
        let request = pb::GetSuccessorsRequest {
            package: text(query, "package")?,
            installed: (!installed.is_empty() || !version.is_empty()).then_some(
                pb::InstalledBundle {
                    name: installed,
                    version,
                    release: None,
                },
            ),
            version_range: text(query, "range")?,
            channels: query
                .values("channel")
                .map(|c| String::from_utf8(c.to_vec()).map_err(|_| bad("channel is not UTF-8")))
                .collect::<Result<_, _>>()?,
            policy: policy as i32,
            explain: matches!(text(query, "explain")?.as_str(), "true" | "1"),
            ..pb::GetSuccessorsRequest::default()
        };
        let reply = answer::successors(tables, &request).map_err(from_status)?;
        Ok(Answer {
            body: Bytes::from(format!("{}\n", json::successors_json(&reply))),
            content_type: "application/json",
        })
    })
    .await
}

/// `GET|HEAD …/api/v1/readiness[?package=P]`: can OLM v1 install each bundle,
/// with every reason, and "n of m packages installable, by reason".
pub async fn readiness(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    serve(
        state,
        method,
        uri,
        headers,
        &["package"],
        |tables, query| {
            let package = text(query, "package")?;
            let ready = fbc_catalog::cluster::readiness::catalog(
                tables,
                Some(package.as_str()).filter(|p| !p.is_empty()),
            )
            .map_err(|e| from_status(answer::status(e)))?;
            Ok(Answer {
                body: Bytes::from(format!("{}\n", serde_json::json!(ready))),
                content_type: "application/json",
            })
        },
    )
    .await
}

/// The checks every route of this module shares, then `compute` on the blocking
/// pool, then the answer with the snapshot's validators.
async fn serve(
    state: ApiState,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    keys: &'static [&'static str],
    compute: impl FnOnce(&Tables, &Query) -> Result<Answer, Refusal> + Send + 'static,
) -> Reply {
    let name = match admit(&method, &uri) {
        Ok(name) => name,
        Err(reply) => return *reply,
    };
    let query = Query::parse(uri.query().unwrap_or_default());
    if let Some(unknown) = query
        .keys()
        .find(|k| !keys.iter().any(|key| key.as_bytes() == *k))
    {
        return *bad(&format!(
            "unknown parameter {:?}; this route takes {}",
            String::from_utf8_lossy(unknown),
            keys.join(", ")
        ));
    }
    let snapshot = match catalogd::snapshot(&state, &name) {
        Ok(snapshot) => snapshot,
        Err(reply) => return *reply,
    };
    let view = match catalogd::view(&snapshot).await {
        Ok(view) => view,
        Err(reply) => return *reply,
    };
    let for_answer = snapshot.clone();
    let _turn = super::workers::turn().await;
    let computed = tokio::task::spawn_blocking(move || {
        let tables = for_answer.tables.get().map_err(|e| {
            Box::new(errors::text(
                StatusCode::INTERNAL_SERVER_ERROR,
                &e.to_string(),
            ))
        })?;
        compute(tables, &query)
    })
    .await;
    let answer = match computed {
        Ok(Ok(answer)) => answer,
        Ok(Err(reply)) => return *reply,
        Err(e) => {
            return errors::text(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("the answer failed: {e}"),
            );
        }
    };
    let resource = Resource {
        view: &view,
        content_type: answer.content_type,
        size: answer.body.len() as u64,
        ranges: false,
        typed_412: false,
    };
    content::computed(&method, &headers, resource, answer.body)
}

/// A parameter's first value as text (empty when absent).
fn text(query: &Query, key: &str) -> Result<String, Refusal> {
    match query.get(key) {
        None => Ok(String::new()),
        Some(v) => String::from_utf8(v.to_vec()).map_err(|_| bad(&format!("{key} is not UTF-8"))),
    }
}

fn bad(message: &str) -> Refusal {
    Box::new(errors::text(StatusCode::BAD_REQUEST, message))
}

/// A gRPC status of the shared answering code as an HTTP answer.
fn from_status(status: tonic::Status) -> Refusal {
    let code = match status.code() {
        tonic::Code::NotFound => StatusCode::NOT_FOUND,
        tonic::Code::InvalidArgument | tonic::Code::OutOfRange => StatusCode::BAD_REQUEST,
        tonic::Code::ResourceExhausted => StatusCode::UNPROCESSABLE_ENTITY,
        tonic::Code::FailedPrecondition => StatusCode::CONFLICT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    Box::new(errors::text(code, status.message()))
}
