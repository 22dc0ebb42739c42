//! `GET /catalogs/{name}/status`: where the served catalog came from and how its updates fare.
//!
//! In: the request and the server's [`SourceStatus`](crate::snapshot::status::SourceStatus).
//! Out: catalogd's ClusterCatalog `status` as JSON (`Serving` and `Progressing` conditions with
//! catalogd's reasons, `resolvedSource`, `urls`, `lastUnpacked`), never cached; 404 for
//! another catalog's name, 405 for a method other than GET or HEAD.

use super::body::PartsBody;
use super::catalogd::{ApiState, admit};
use super::errors::{self, Reply};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, Uri, header};

/// `GET|HEAD /catalogs/{name}/status`.
pub async fn status(state: ApiState, method: Method, uri: Uri, _headers: HeaderMap) -> Reply {
    let member = match admit(&method, &uri) {
        Ok(name) => match state.fleet.get(&name) {
            Some(member) => member,
            None => return errors::status(StatusCode::NOT_FOUND),
        },
        Err(reply) => return *reply,
    };
    let body = Bytes::from(format!("{}\n", member.status.to_json(&member.name)));
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
