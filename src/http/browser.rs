//! The catalog browser's routes: `/`, `/packages/{name}` and `/assets/{file}`.
//!
//! In: GET or HEAD on those paths (`?q=` on `/`). Out: the pages of
//! [`crate::views::browser`] for the snapshot current when the request arrived, as
//! `text/html` under a Content-Security-Policy that allows script, style and
//! fetches from this server only, images from it or `data:`, no frames, no
//! `<base>`, forms only to itself; with the snapshot's ETag (a reload changes
//! it), gzip when taken, and the assets cached for a year under their hashed
//! names. Every other path stays Go's 404, so there is no directory listing.

use super::catalogd::{self, ApiState};
use super::content::{self, Resource};
use super::errors::{self, Reply};
use super::goquery::Query;
use crate::views::browser::html::Site;
use crate::views::browser::{Browser, assets, home, page};
use crate::views::catalogd::HttpView;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, Uri, header};
use std::sync::Arc;

/// The pages' policy. `style-src 'self'` also forbids `style` attributes, so
/// no markup a catalog smuggles past the sanitiser can style the page.
pub const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `GET|HEAD /`: the search page.
pub async fn home(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    let query = Query::parse(uri.query().unwrap_or_default())
        .get("q")
        .map(|q| String::from_utf8_lossy(q).into_owned())
        .unwrap_or_default();
    serve(state, method, &uri, headers, move |browser, _, site| {
        Some(home::render(browser, site, &query))
    })
    .await
}

/// `GET|HEAD /packages/{name}`: a package's page.
pub async fn package(state: ApiState, method: Method, uri: Uri, headers: HeaderMap) -> Reply {
    let Some(wanted) = uri
        .path()
        .strip_prefix("/packages/")
        .and_then(percent_decode)
    else {
        return errors::status(StatusCode::NOT_FOUND);
    };
    serve(
        state,
        method,
        &uri,
        headers,
        move |browser, tables, site| {
            let index = browser
                .cards
                .binary_search_by(|c| c.name.as_str().cmp(&wanted))
                .ok()?;
            page::render(tables, &browser.cards[index], site)
        },
    )
    .await
}

/// `GET|HEAD /assets/{file}`: the stylesheet or the script.
pub async fn asset(_: ApiState, method: Method, uri: Uri, _: HeaderMap) -> Reply {
    if method != Method::GET && method != Method::HEAD {
        return errors::method_not_allowed("GET, HEAD");
    }
    let Some(asset) = assets::find(uri.path()) else {
        return errors::no_route();
    };
    let mut reply = Response::new(super::body::PartsBody::empty());
    let h = reply.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(asset.body.len()));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    if method == Method::GET {
        *reply.body_mut() = super::body::PartsBody::new(vec![Bytes::from_static(asset.body)]);
    }
    reply
}

/// The checks the pages share, then `render` on the blocking pool; `None` from
/// it is a 404. The catalog is `?catalog=NAME`'s, else the server's first
/// ([`crate::fleet::Fleet::first`]).
async fn serve(
    state: ApiState,
    method: Method,
    uri: &Uri,
    headers: HeaderMap,
    render: impl FnOnce(&Browser, &fbc_catalog::tables::Tables, &Site<'_>) -> Option<String>
    + Send
    + 'static,
) -> Reply {
    if method != Method::GET && method != Method::HEAD {
        return errors::method_not_allowed("GET, HEAD");
    }
    let named = Query::parse(uri.query().unwrap_or_default())
        .get("catalog")
        .map(|c| String::from_utf8_lossy(c).into_owned());
    let member = match named {
        Some(name) => state.fleet.get(&name),
        None => state.fleet.first(),
    };
    let Some(member) = member else {
        return errors::status(StatusCode::NOT_FOUND);
    };
    let snapshot = match catalogd::snapshot(&state, &member.name) {
        Ok(snapshot) => snapshot,
        Err(reply) => return *reply,
    };
    let (view, browser) = match (catalogd::view(&snapshot).await, snapshot.browser().await) {
        (Ok(view), Ok(browser)) => (view, browser),
        (Err(reply), _) => return *reply,
        (_, Err(error)) => return catalogd::view_error(error),
    };
    let name = member.name.clone();
    let catalogs = state.fleet.names();
    // With several catalogs a page also shows the others (the picker): it changes when
    // the served set does, which the snapshot's validators do not see.
    let validated = catalogs.len() < 2;
    let _turn = super::workers::turn().await;
    let rendered = tokio::task::spawn_blocking(move || {
        let tables = snapshot.tables.get().ok()?;
        render(
            &browser,
            tables,
            &Site {
                catalog: &name,
                catalogs: &catalogs,
            },
        )
    })
    .await;
    match rendered {
        Ok(Some(html)) => page_reply(&method, &headers, &view, html, validated),
        Ok(None) => errors::status(StatusCode::NOT_FOUND),
        Err(e) => errors::text(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("the page failed: {e}"),
        ),
    }
}

/// A page as HTML. `validated`: the page depends on its snapshot alone, so the
/// snapshot's `ETag` and `Last-Modified` validate it; otherwise neither is sent and
/// a conditional request gets the page.
fn page_reply(
    method: &Method,
    headers: &HeaderMap,
    view: &Arc<HttpView>,
    html: String,
    validated: bool,
) -> Reply {
    let mut unconditional;
    let headers = if validated {
        headers
    } else {
        unconditional = headers.clone();
        for name in [
            header::IF_MATCH,
            header::IF_NONE_MATCH,
            header::IF_MODIFIED_SINCE,
            header::IF_UNMODIFIED_SINCE,
            header::IF_RANGE,
        ] {
            unconditional.remove(name);
        }
        &unconditional
    };
    let resource = Resource {
        view,
        content_type: "text/html; charset=utf-8",
        size: html.len() as u64,
        ranges: false,
        typed_412: false,
    };
    let mut reply = content::computed(method, headers, resource, Bytes::from(html));
    if !validated {
        reply.headers_mut().remove(header::ETAG);
        reply.headers_mut().remove(header::LAST_MODIFIED);
    }
    reply.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_POLICY),
    );
    reply
}

/// A percent-encoded path segment as text; `None` when it is not UTF-8 or
/// holds a `/` (a package name never does).
fn percent_decode(segment: &str) -> Option<String> {
    let text = percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .ok()?;
    (!text.contains('/')).then(|| text.into_owned())
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn decodes_path_segments() {
        assert_eq!(percent_decode("a%2Db.c").as_deref(), Some("a-b.c"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
        assert_eq!(percent_decode("a%2Fb"), None);
        assert_eq!(percent_decode("a/b"), None);
        assert_eq!(percent_decode("%FF"), None);
    }
}
