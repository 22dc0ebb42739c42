//! `GET /catalogs/{name}/status`: where the served catalog came from and how its updates fare.
//!
//! In: the request and the server's [`SourceStatus`](crate::snapshot::status::SourceStatus).
//! Out: catalogd's ClusterCatalog `status` as JSON (`Serving` and `Progressing` conditions with
//! catalogd's reasons, `resolvedSource`, `urls`, `lastUnpacked`), never cached; 404 for
//! another catalog's name, 405 for a method other than GET or HEAD.

use super::across::reply_json;
use super::catalogd::{ApiState, admit};
use super::errors::{self, Reply};
use http::{HeaderMap, Method, StatusCode, Uri};

/// `GET|HEAD /catalogs/{name}/status`.
pub async fn status(state: ApiState, method: Method, uri: Uri, _headers: HeaderMap) -> Reply {
    let member = match admit(&method, &uri) {
        Ok(name) => match state.fleet.get(&name) {
            Some(member) => member,
            None => return errors::status(StatusCode::NOT_FOUND),
        },
        Err(reply) => return *reply,
    };
    reply_json(&method, &member.status.to_json(&member.name))
}
