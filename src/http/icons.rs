//! Package icons as resources of their own: `GET …/api/v1/icons/{package}`.
//!
//! In: a package name. Out: its icon's bytes with their media type — icons are
//! ~98 % of the bytes of `olm.package` metas in real catalogs, so a page that
//! lists packages links them instead of inlining them. Only raster types and SVG
//! are served (anything else is 404, so a catalog cannot make this server serve
//! HTML); an SVG gets a policy that runs no script even when opened on its own.
//! The ETag is the icon's hash; with `?v=<that hash>` the answer may be cached
//! for a year (the URL changes when the icon does), without it clients revalidate.

use super::body::PartsBody;
use super::catalogd::{ApiState, admit, snapshot};
use super::conditional::{list_matches, weak_match};
use super::errors::{self, Reply};
use super::goquery::Query;
use crate::views::browser::{ICON_TYPES, icon_version};
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, Uri, header};

/// `GET|HEAD …/api/v1/icons/{package}`.
pub async fn icon(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    let snapshot = match admit(&method, &uri).and_then(|name| snapshot(&state, &name)) {
        Ok(snapshot) => snapshot,
        Err(reply) => return *reply,
    };
    let package = uri
        .path()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let Ok(tables) = snapshot.tables.get() else {
        return errors::status(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let icon = tables
        .package(&package)
        .and_then(|(_, p)| p.icon.as_ref())
        .filter(|i| ICON_TYPES.contains(&i.media_type.to_ascii_lowercase().as_str()));
    let Some(icon) = icon else {
        return errors::status(StatusCode::NOT_FOUND);
    };
    let version = icon_version(&icon.data);
    let etag = format!("\"icon-{version}\"");
    let pinned = Query::parse(uri.query().unwrap_or_default()).get("v") == Some(version.as_bytes());
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| list_matches(v.as_bytes(), |tag| weak_match(tag, &etag)));
    let mut reply = Response::new(PartsBody::empty());
    let h = reply.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, value);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if pinned {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        }),
    );
    if fresh {
        *reply.status_mut() = StatusCode::NOT_MODIFIED;
        return reply;
    }
    if let Ok(value) = HeaderValue::from_str(&icon.media_type.to_ascii_lowercase()) {
        h.insert(header::CONTENT_TYPE, value);
    }
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(icon.data.len()));
    if icon.media_type.eq_ignore_ascii_case("image/svg+xml") {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
        );
    }
    if method == Method::GET {
        *reply.body_mut() = PartsBody::new(vec![icon.data.clone()]);
    }
    reply
}
