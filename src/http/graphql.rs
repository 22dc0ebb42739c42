//! `POST /catalogs/{name}/api/v1/graphql`: catalogd's GraphQL endpoint.
//!
//! In: the request and the served catalog. Out: catalogd's answer, checked in
//! its handler's order (operator-controller `internal/catalogd/server/handlers.go`
//! and `service/graphql_service.go`): method (405), catalog name (400), body (1
//! MiB read, first JSON value, `query` matched as `encoding/json` does: any
//! case, last one wins; 400 `Invalid request body`, `Query cannot be empty`,
//! `Query too large` over 100,000 bytes), catalogd's caps (200 with the error,
//! before the catalog is looked up), catalog (404), then the query, run on the
//! blocking pool, one per core at a time, for at most 5 s. Answers are
//! `application/json`, gzipped as gzhttp would (per request: they are small).

use super::body::PartsBody;
use super::catalogd::{self, ApiState};
use super::encoding::{self, Encoding};
use super::errors::{self, Reply};
use crate::views::graphql::{self, limits, response};
use axum::body::Body;
use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, Uri, header};
use http_body_util::BodyExt;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// catalogd's `MaxBytesReader` limit on the request body.
pub const MAX_BODY_BYTES: usize = 1 << 20;
/// catalogd's limit on the query text, in bytes.
pub const MAX_QUERY_BYTES: usize = 100_000;
/// How long the body may take to arrive (catalogd's server ReadTimeout).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);

/// `POST /catalogs/{name}/api/v1/graphql`.
pub async fn graphql(
    state: ApiState,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Reply {
    let name = match catalogd::admit_for(&method, &uri, &[Method::POST], "POST") {
        Ok(name) => name,
        Err(reply) => return *reply,
    };
    let accept = headers.get(header::ACCEPT_ENCODING).cloned();
    let query = match read_query(body).await {
        Ok(query) => query,
        Err(message) => return errors::text(StatusCode::BAD_REQUEST, message),
    };
    let checked = match limits::check(query) {
        Ok(checked) => checked,
        Err(refusal) => return json(accept, response::error_only(&refusal.to_string())),
    };
    let snapshot = match catalogd::snapshot(&state, &name) {
        Ok(snapshot) => snapshot,
        Err(reply) => return *reply,
    };
    let catalog = match snapshot.graphql().await {
        Ok(Ok(catalog)) => catalog,
        Ok(Err(error)) => {
            // Logged once, when the schema build failed (see `Snapshot::graphql`).
            tracing::debug!(%error, "this catalog has no GraphQL schema");
            let message =
                format!("500 Internal Server Error: this catalog has no GraphQL schema: {error}");
            return errors::text(StatusCode::INTERNAL_SERVER_ERROR, &message);
        }
        Err(error) => return catalogd::view_error(error),
    };
    // The deadline bounds the query, from here: the schema a snapshot's first query may have
    // waited for above is built once per snapshot (and capped in size), not per query, and a
    // first query after a reload must not fail for it (catalogd builds it when it stores).
    let deadline = Instant::now() + graphql::QUERY_TIMEOUT;
    let Ok(Ok(_permit)) = tokio::time::timeout_at(deadline.into(), runners().acquire()).await
    else {
        return json(accept, response::error_only("context deadline exceeded"));
    };
    let answered =
        tokio::task::spawn_blocking(move || json(accept, catalog.answer(checked, deadline))).await;
    answered.unwrap_or_else(|error| {
        tracing::error!(%error, "a GraphQL query failed");
        errors::status(StatusCode::INTERNAL_SERVER_ERROR)
    })
}

/// One query at a time per core.
fn runners() -> &'static Semaphore {
    static RUNNERS: OnceLock<Semaphore> = OnceLock::new();
    RUNNERS
        .get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get())))
}

/// An answer as `application/json`, gzipped as gzhttp decides from the
/// request's `Accept-Encoding` (blocking for a large answer: call it where
/// the answer was made).
fn json(accept: Option<HeaderValue>, body: Vec<u8>) -> Reply {
    let accept = accept.as_ref().map(HeaderValue::as_bytes);
    let (body, encoding) = match encoding::choose(false, accept, body.len() as u64, false) {
        Encoding::Gzip => (crate::views::catalogd::gzip::whole(&body), Encoding::Gzip),
        Encoding::Identity => (Bytes::from(body), Encoding::Identity),
    };
    let len = body.len();
    let mut reply = Response::new(PartsBody::new(vec![body]));
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if encoding == Encoding::Gzip {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    reply
}

/// The body's `query`, or the 400 message catalogd answers.
async fn read_query(body: Body) -> Result<String, &'static str> {
    const INVALID: &str = "Invalid request body";
    let bytes = tokio::time::timeout(BODY_TIMEOUT, first_bytes(body, MAX_BODY_BYTES))
        .await
        .map_err(|_| INVALID)?;
    let query = decode(&bytes).ok_or(INVALID)?;
    if query.is_empty() {
        return Err("Query cannot be empty");
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err("Query too large");
    }
    Ok(query)
}

/// At most `limit` bytes of the body (a longer body is cut there, as
/// `MaxBytesReader` does: a JSON value that ends before the cut still counts).
async fn first_bytes(mut body: Body, limit: usize) -> Bytes {
    let mut out = BytesMut::new();
    while let Some(Ok(frame)) = body.frame().await {
        if let Ok(data) = frame.into_data() {
            let room = limit - out.len();
            out.extend_from_slice(&data[..data.len().min(room)]);
            if out.len() == limit {
                break;
            }
        }
    }
    out.freeze()
}

/// `json.NewDecoder(r.Body).Decode(&struct{ Query string })`: the first JSON
/// value (trailing bytes ignored); `null` and a missing `query` are empty.
fn decode(bytes: &[u8]) -> Option<String> {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<QueryBody>();
    match values.next() {
        Some(Ok(QueryBody(query))) => Some(query),
        _ => None,
    }
}

/// The `query` of a request body, found as Go's `encoding/json` finds a
/// struct field: any case, the last occurrence wins, `null` leaves it as it was.
struct QueryBody(String);

impl<'de> serde::Deserialize<'de> for QueryBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(QueryVisitor)
    }
}

struct QueryVisitor;

impl<'de> Visitor<'de> for QueryVisitor {
    type Value = QueryBody;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object or null")
    }

    fn visit_unit<E>(self) -> Result<QueryBody, E> {
        Ok(QueryBody(String::new()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<QueryBody, A::Error> {
        let mut query = String::new();
        while let Some(key) = map.next_key::<String>()? {
            if key.eq_ignore_ascii_case("query") {
                if let Some(value) = map.next_value::<Option<String>>()? {
                    query = value;
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(QueryBody(query))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_decode_as_encoding_json_does() {
        assert_eq!(decode(br#"{"query":"{ a }"}"#), Some("{ a }".into()));
        assert_eq!(decode(br#"{"QUERY":"x"}"#), Some("x".into()));
        assert_eq!(decode(br#"{"query":"x","query":"y"}"#), Some("y".into()));
        assert_eq!(decode(br#"{"query":"x","Query":null}"#), Some("x".into()));
        assert_eq!(decode(br#"{"query":"x"} trailing"#), Some("x".into()));
        assert_eq!(decode(b"null"), Some(String::new()));
        assert_eq!(decode(b"{}"), Some(String::new()));
        assert_eq!(decode(br#"{"query":5}"#), None);
        assert_eq!(decode(b"[]"), None);
        assert_eq!(decode(b""), None);
        assert_eq!(decode(br#"{"query":"#), None);
    }
}
