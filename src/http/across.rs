//! The routes across every served catalog (this project's, beside catalogd's
//! per-catalog ones).
//!
//! In: `GET /api/v1/catalogs`; `GET /api/v1/packages?q=TERM`; `GET
//! /api/v1/packages/{package}/providers[?version=V][&channel=C…]`. Out: JSON:
//! the catalogs (name, priority, source, port, serving, digest, generation,
//! package count, catalogd's status); the packages matching the term in every
//! catalog ([`crate::views::across::search`]: catalog, channels, versions,
//! provider, what matched — never icons); which catalog OLM v1 would install
//! the package from, by priority, and why
//! ([`fbc_catalog::graph::providers`]). Each answer reads one snapshot per
//! catalog; it is never cached (`no-store`), since it spans catalogs that
//! reload on their own.

use super::body::PartsBody;
use super::catalogd::{ApiState, view_error};
use super::errors::{self, Refusal, Reply};
use super::goquery::Query;
use crate::fleet::across::across;
use crate::views::across::{self as views, MAX_QUERY};
use bytes::Bytes;
use fbc_catalog::graph::GraphError;
use fbc_catalog::graph::successors::SuccessorQuery;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, Uri, header};
use serde_json::{Value, json};

/// `GET|HEAD /api/v1/catalogs`.
pub async fn catalogs(state: ApiState, method: Method, uri: Uri, _headers: HeaderMap) -> Reply {
    if let Err(reply) = admit(&method, &uri, &[]) {
        return *reply;
    }
    let items: Vec<Value> = state
        .fleet
        .members()
        .iter()
        .map(|m| {
            let snapshot = m.catalog.load();
            // From the registry view's counts: the tables may not be decoded yet
            // (a warm start), and this is the I/O thread.
            let packages = snapshot.as_ref().map(|s| s.registry.stats().packages);
            json!({
                "name": &*m.name,
                "priority": m.priority,
                "source": m.source,
                "port": m.port,
                "serving": m.serving(),
                "digest": snapshot.as_ref().map(|s| s.digest.to_string()),
                "generation": snapshot.as_ref().map(|s| s.generation),
                "imageDigest": snapshot.as_ref().and_then(|s| s.image.as_ref()).map(|i| i.digest.to_string()),
                "filterDigest": snapshot.as_ref().and_then(|s| s.filter.as_ref()).map(|f| f.digest.clone()),
                "packages": packages,
                "status": m.status.to_json(&m.name)["status"],
            })
        })
        .collect();
    reply_json(&method, &json!({ "catalogs": items }))
}

/// `GET|HEAD /api/v1/packages?q=TERM`.
pub async fn packages(state: ApiState, method: Method, uri: Uri, _headers: HeaderMap) -> Reply {
    let query = match admit(&method, &uri, &["q"]) {
        Ok(query) => query,
        Err(reply) => return *reply,
    };
    let term = match text(&query, "q") {
        Ok(term) if term.len() <= MAX_QUERY => term,
        Ok(_) => return bad(&format!("q is longer than {MAX_QUERY} bytes")),
        Err(reply) => return *reply,
    };
    let answered = across(&state.fleet, move |shelves| {
        let catalogs: Vec<&str> = shelves.iter().map(|s| s.name).collect();
        let hits = views::search(shelves, &term);
        json!({"query": term, "catalogs": catalogs, "total": hits.len(), "packages": hits})
    })
    .await;
    match answered {
        Ok(body) => reply_json(&method, &body),
        Err(e) => view_error(e),
    }
}

/// `GET|HEAD /api/v1/packages/{package}/providers[?version=V][&channel=C…]`.
pub async fn providers(state: ApiState, method: Method, uri: Uri, _headers: HeaderMap) -> Reply {
    let query = match admit(&method, &uri, &["version", "channel"]) {
        Ok(query) => query,
        Err(reply) => return *reply,
    };
    let package = uri
        .path()
        .strip_prefix("/api/v1/packages/")
        .and_then(|rest| rest.strip_suffix("/providers"))
        .map(|p| {
            percent_encoding::percent_decode_str(p)
                .decode_utf8_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    let version = match text(&query, "version") {
        Ok(v) => v,
        Err(reply) => return *reply,
    };
    let mut channels = Vec::new();
    for c in query.values("channel") {
        match std::str::from_utf8(c) {
            Ok(c) => channels.push(c.to_string()),
            Err(_) => return bad("channel is not UTF-8"),
        }
    }
    let q = SuccessorQuery {
        package,
        version_range: (!version.is_empty()).then_some(version),
        channels,
        ..SuccessorQuery::default()
    };
    match across(&state.fleet, move |shelves| views::provider(shelves, &q)).await {
        Ok(Ok(answer)) => reply_json(&method, &json!(answer)),
        Ok(Err(GraphError::InvalidArgument(message))) => bad(&message),
        Ok(Err(other)) => errors::text(StatusCode::BAD_REQUEST, &other.to_string()),
        Err(e) => view_error(e),
    }
}

/// GET or HEAD only (405 otherwise), and only the parameters `keys` (400 otherwise).
fn admit(method: &Method, uri: &Uri, keys: &[&str]) -> Result<Query, Refusal> {
    if method != Method::GET && method != Method::HEAD {
        return Err(Box::new(errors::method_not_allowed("GET, HEAD")));
    }
    let query = Query::parse(uri.query().unwrap_or_default());
    if let Some(unknown) = query
        .keys()
        .find(|k| !keys.iter().any(|key| key.as_bytes() == *k))
    {
        return Err(Box::new(bad(&format!(
            "unknown parameter {:?}; this route takes {}",
            String::from_utf8_lossy(unknown),
            if keys.is_empty() {
                "none".to_string()
            } else {
                keys.join(", ")
            }
        ))));
    }
    Ok(query)
}

/// A parameter's first value as text (empty when absent).
fn text(query: &Query, key: &str) -> Result<String, Refusal> {
    match query.get(key) {
        None => Ok(String::new()),
        Some(v) => {
            String::from_utf8(v.to_vec()).map_err(|_| Box::new(bad(&format!("{key} is not UTF-8"))))
        }
    }
}

fn bad(message: &str) -> Reply {
    errors::text(StatusCode::BAD_REQUEST, message)
}

/// `value` as a JSON answer, never cached.
pub fn reply_json(method: &Method, value: &Value) -> Reply {
    let body = Bytes::from(format!("{value}\n"));
    let length = body.len();
    let mut reply = Response::new(if method == Method::HEAD {
        PartsBody::empty()
    } else {
        PartsBody::new(vec![body])
    });
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    reply
}
