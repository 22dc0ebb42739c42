//! catalogd's routes: `/catalogs/{name}/api/v1/all` and `/api/v1/metas`.
//!
//! In: a request on one of those paths and the served [`Catalog`]. Out:
//! catalogd's answer, checked in its order: method (405), catalog name (400 with
//! Kubernetes' messages), `/metas` parameters (400), catalog (404 for another
//! name, or before the first load), then the content from the snapshot's
//! [`HttpView`] through [`super::content`]. Each request reads one
//! snapshot; a reload switches HTTP and gRPC together.

use super::content::{self, Plan, Resource};
use super::encoding::Encoding;
use super::errors::{self, Refusal, Reply};
use super::goquery::Query;
use crate::fleet::Fleet;
use crate::snapshot::Snapshot;
use crate::views::catalogd::{HttpView, ViewError};
use fbc_catalog::catalogd::name;
use http::{HeaderMap, Method, StatusCode, Uri};
use std::sync::Arc;

/// What the catalogd routes serve: every catalog of the server, by name.
#[derive(Clone, Debug)]
pub struct ApiState {
    /// The served catalogs.
    pub fleet: Arc<Fleet>,
}

/// `Content-Type` of `/all` and `/metas`.
pub const JSONL: &str = "application/jsonl";

/// The `{catalog}` segment of `/catalogs/{catalog}/…`, percent-decoded as Go's
/// `PathValue` is (bytes that are not UTF-8 make a name that fails the check).
pub fn catalog_segment(uri: &Uri) -> String {
    let rest = uri.path().strip_prefix("/catalogs/").unwrap_or_default();
    let raw = rest.split('/').next().unwrap_or_default();
    percent_encoding::percent_decode_str(raw)
        .decode_utf8_lossy()
        .into_owned()
}

/// catalogd's first checks, in its order: the method (GET or HEAD, else 405),
/// then the catalog name (400 with Kubernetes' messages). Returns the name.
pub fn admit(method: &Method, uri: &Uri) -> Result<String, Refusal> {
    admit_for(method, uri, &[Method::GET, Method::HEAD], "GET, HEAD")
}

/// [`admit`] for a route taking the methods `allowed` (`allow`, their `Allow`).
pub fn admit_for(
    method: &Method,
    uri: &Uri,
    allowed: &[Method],
    allow: &'static str,
) -> Result<String, Refusal> {
    if !allowed.contains(method) {
        return Err(Box::new(errors::method_not_allowed(allow)));
    }
    let segment = catalog_segment(uri);
    match name::check(&segment) {
        Ok(()) => Ok(segment),
        Err(invalid) => Err(Box::new(errors::text(
            StatusCode::BAD_REQUEST,
            &invalid.to_string(),
        ))),
    }
}

/// The snapshot to answer from: 404 for another catalog's name, or before the
/// first load.
pub fn snapshot(state: &ApiState, name: &str) -> Result<Arc<Snapshot>, Refusal> {
    match state.fleet.get(name).and_then(|m| m.catalog.load()) {
        Some(s) => Ok(s),
        None => Err(Box::new(errors::status(StatusCode::NOT_FOUND))),
    }
}

/// The snapshot's HTTP view (built now if it is not yet).
pub async fn view(snapshot: &Arc<Snapshot>) -> Result<Arc<HttpView>, Refusal> {
    snapshot
        .http_view()
        .await
        .map_err(|e| Box::new(view_error(e)))
}

/// A snapshot without its view: 503 while the reload a file change triggered is
/// on its way, 500 otherwise (the reason is logged, not sent).
pub fn view_error(error: ViewError) -> Reply {
    match error {
        ViewError::Changed(why) => {
            tracing::warn!(error = %why, "HTTP view unavailable until the reload");
            errors::status(StatusCode::SERVICE_UNAVAILABLE)
        }
        ViewError::Failed(why) => {
            tracing::error!(error = %why, "HTTP view failed");
            errors::status(StatusCode::INTERNAL_SERVER_ERROR)
        }
    }
}

/// `GET|HEAD /catalogs/{name}/api/v1/all`.
pub async fn all(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    let found = match admit(&method, &uri).and_then(|name| snapshot(&state, &name)) {
        Ok(snapshot) => view(&snapshot).await,
        Err(reply) => return *reply,
    };
    let view = match found {
        Ok(view) => view,
        Err(reply) => return *reply,
    };
    let identity = view.all_identity();
    let resource = Resource {
        view: &view,
        content_type: JSONL,
        size: identity.len,
        ranges: true,
        typed_412: true,
    };
    let head = method == Method::HEAD;
    match content::plan(&method, &headers, resource) {
        Plan::Reply(reply) => reply,
        Plan::Whole(Encoding::Identity) => {
            content::whole(head, resource, Encoding::Identity, identity)
        }
        Plan::Whole(Encoding::Gzip) if view.gzip_on_request() => {
            // Under a memory target nothing gzipped is kept: compress now, off the runtime.
            let for_gzip = view.clone();
            match tokio::task::spawn_blocking(move || for_gzip.all().gzip).await {
                Ok(gzip) => content::whole(head, resource, Encoding::Gzip, gzip),
                Err(e) => view_error(ViewError::Failed(format!("gzip failed: {e}"))),
            }
        }
        Plan::Whole(Encoding::Gzip) => {
            content::whole(head, resource, Encoding::Gzip, view.all().gzip)
        }
        Plan::Ranges(ranges) => {
            let whole = identity.parts.first().cloned().unwrap_or_default();
            let spec = headers
                .get(http::header::RANGE)
                .map(|v| v.as_bytes())
                .unwrap_or_default();
            content::partial(head, resource, &ranges, &whole, spec)
        }
    }
}

/// `GET|HEAD /catalogs/{name}/api/v1/metas?schema=&package=&name=`.
pub async fn metas(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    let name = match admit(&method, &uri) {
        Ok(name) => name,
        Err(reply) => return *reply,
    };
    let query = Query::parse(uri.query().unwrap_or_default());
    if query
        .keys()
        .any(|k| !matches!(k, b"schema" | b"package" | b"name"))
    {
        return errors::status(StatusCode::BAD_REQUEST);
    }
    let snapshot = match snapshot(&state, &name) {
        Ok(snapshot) => snapshot,
        Err(reply) => return *reply,
    };
    let view = match view(&snapshot).await {
        Ok(view) => view,
        Err(reply) => return *reply,
    };
    let chosen = match select(&snapshot, &query) {
        Ok(chosen) => chosen,
        Err(error) => return view_error(error),
    };
    let identity = view.select_identity(&chosen);
    let resource = Resource {
        view: &view,
        content_type: JSONL,
        size: identity.len,
        ranges: false,
        typed_412: false,
    };
    let head = method == Method::HEAD;
    match content::plan(&method, &headers, resource) {
        Plan::Reply(reply) => reply,
        Plan::Whole(Encoding::Gzip) => {
            // Only the first gzipped answer compresses (on the blocking pool);
            // after that a selection is slices and a CRC combination, done inline.
            let gzip = if view.segments_ready() && !view.gzip_on_request() {
                view.select(&chosen).gzip
            } else {
                let for_gzip = view.clone();
                match tokio::task::spawn_blocking(move || for_gzip.select(&chosen).gzip).await {
                    Ok(gzip) => gzip,
                    Err(e) => return view_error(ViewError::Failed(format!("gzip failed: {e}"))),
                }
            };
            content::whole(head, resource, Encoding::Gzip, gzip)
        }
        Plan::Whole(_) | Plan::Ranges(_) => {
            content::whole(head, resource, Encoding::Identity, identity)
        }
    }
}

/// The metas `query` asks for (`MetaTable::select`: exact matches, walk order).
fn select(snapshot: &Snapshot, query: &Query) -> Result<Vec<u32>, ViewError> {
    let tables = snapshot
        .tables
        .get()
        .map_err(|e| ViewError::Failed(e.to_string()))?;
    let mut filters = [None; 3];
    for (slot, key) in filters.iter_mut().zip(["schema", "package", "name"]) {
        if let Some(value) = query.get(key) {
            match std::str::from_utf8(value) {
                Ok(value) => *slot = Some(value),
                // No meta has a field that is not UTF-8.
                Err(_) if !value.is_empty() => return Ok(Vec::new()),
                Err(_) => {}
            }
        }
    }
    let [schema, package, name] = filters;
    Ok(tables.metas().select(schema, package, name))
}
