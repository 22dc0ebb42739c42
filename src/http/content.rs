//! Serving a prepared resource as Go's `http.ServeContent` behind `gzhttp` does.
//!
//! In: the request (method, headers), the resource's validators and identity
//! size. Out: a [`Plan`] — an answer already decided (412, 304, 416), the whole
//! body in an [`Encoding`], or byte ranges — and then the response for it, with
//! catalogd's headers (`Last-Modified`, `Vary`, `Accept-Ranges`, `Content-Range`)
//! and ours (`ETag`, `Cache-Control: no-cache`, an exact `Content-Length`).

use super::body::PartsBody;
use super::conditional::{self, Validators, Verdict};
use super::encoding::{self, Encoding};
use super::errors::{self, Reply};
use super::range::{self, ByteRange, RangeError};
use crate::views::catalogd::{HttpView, Parts, gzip};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, header};
use std::time::UNIX_EPOCH;

/// What the resource is and allows.
#[derive(Clone, Copy, Debug)]
pub struct Resource<'a> {
    /// The view whose validators it has.
    pub view: &'a HttpView,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Its identity size.
    pub size: u64,
    /// `Range` is honoured (`/all`; catalogd's `/metas` ignores it).
    pub ranges: bool,
    /// `Content-Type` is set before the preconditions (so a 412 keeps it), as
    /// catalogd's `/all` handler does; `/metas` sets it after.
    pub typed_412: bool,
}

/// What to send.
#[derive(Debug)]
pub enum Plan {
    /// An answer decided without the body.
    Reply(Reply),
    /// The whole body, so encoded.
    Whole(Encoding),
    /// These ranges of the identity body.
    Ranges(Vec<ByteRange>),
}

/// Decides the answer to `method` with `headers` for `resource`.
pub fn plan(method: &Method, headers: &HeaderMap, resource: Resource<'_>) -> Plan {
    let view = resource.view;
    let etags = [view.etag.as_str(), view.etag_gzip.as_str()];
    let validators = Validators {
        etags: &etags,
        modified: unix(view),
    };
    let head = method == Method::HEAD;
    let accept = headers
        .get(header::ACCEPT_ENCODING)
        .map(HeaderValue::as_bytes);
    let whole = encoding::choose(head, accept, resource.size, false);
    let verdict = conditional::evaluate(method, headers, validators);
    match verdict {
        Verdict::PreconditionFailed => {
            let mut reply = empty(StatusCode::PRECONDITION_FAILED, resource, None);
            reply
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(0));
            if resource.typed_412 {
                reply.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(resource.content_type),
                );
            }
            Plan::Reply(reply)
        }
        Verdict::NotModified => {
            let mut reply = empty(StatusCode::NOT_MODIFIED, resource, Some(whole));
            // Go drops Last-Modified from a 304 that carries an ETag.
            reply.headers_mut().remove(header::LAST_MODIFIED);
            Plan::Reply(reply)
        }
        Verdict::Proceed(Some(spec)) if resource.ranges => {
            match range::parse(spec, resource.size) {
                Err(RangeError::NoOverlap) if resource.size == 0 => Plan::Whole(whole),
                Err(error) => Plan::Reply(unsatisfiable(error, resource)),
                Ok(ranges) => match range::servable(ranges, resource.size) {
                    Some(ranges) => Plan::Ranges(ranges),
                    None => Plan::Whole(whole),
                },
            }
        }
        Verdict::Proceed(_) => Plan::Whole(whole),
    }
}

/// The answer with the whole body: `identity`, or `gzip` when so planned.
pub fn whole(head: bool, resource: Resource<'_>, encoding: Encoding, body: Parts) -> Reply {
    let mut reply = empty(StatusCode::OK, resource, Some(encoding));
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(resource.content_type),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len));
    if encoding == Encoding::Gzip {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    } else if resource.ranges {
        headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    }
    if !head {
        *reply.body_mut() = PartsBody::new(body.parts);
    }
    reply
}

/// The answer with a body computed for this request (not prepared with the
/// view): identity, or gzipped now when the client takes it; ranges ignored.
pub fn computed(
    method: &Method,
    headers: &HeaderMap,
    resource: Resource<'_>,
    body: Bytes,
) -> Reply {
    let head = method == Method::HEAD;
    let (encoding, body) = match plan(method, headers, resource) {
        Plan::Reply(reply) => return reply,
        Plan::Whole(Encoding::Gzip) => (Encoding::Gzip, gzip::whole(&body)),
        Plan::Whole(_) | Plan::Ranges(_) => (Encoding::Identity, body),
    };
    let len = body.len() as u64;
    let parts = Parts {
        parts: vec![body],
        len,
    };
    whole(head, resource, encoding, parts)
}

/// The 206 answer for `ranges` of `body` (the whole identity body).
pub fn partial(
    head: bool,
    resource: Resource<'_>,
    ranges: &[ByteRange],
    body: &Bytes,
    request_range: &[u8],
) -> Reply {
    let mut reply = empty(
        StatusCode::PARTIAL_CONTENT,
        resource,
        Some(Encoding::Identity),
    );
    let headers = reply.headers_mut();
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    let parts = match ranges {
        [one] => {
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(resource.content_type),
            );
            if let Ok(value) = HeaderValue::from_str(&one.content_range(resource.size)) {
                headers.insert(header::CONTENT_RANGE, value);
            }
            let start = one.start as usize;
            vec![body.slice(start..start + one.length as usize)]
        }
        _ => {
            let boundary = boundary(&resource.view.etag, request_range);
            let multipart = range::multipart(ranges, body, resource.content_type, &boundary);
            if let Ok(value) = HeaderValue::from_str(&multipart.content_type) {
                headers.insert(header::CONTENT_TYPE, value);
            }
            multipart.parts
        }
    };
    let length: u64 = parts.iter().map(|p| p.len() as u64).sum();
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    if !head {
        *reply.body_mut() = PartsBody::new(parts);
    }
    reply
}

/// 416, with Go ≥ 1.23's `serveError` clearing the validators first.
fn unsatisfiable(error: RangeError, resource: Resource<'_>) -> Reply {
    let mut reply = errors::text(StatusCode::RANGE_NOT_SATISFIABLE, error.message());
    let headers = reply.headers_mut();
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if error == RangeError::NoOverlap
        && let Ok(value) = HeaderValue::from_str(&format!("bytes */{}", resource.size))
    {
        headers.insert(header::CONTENT_RANGE, value);
    }
    reply
}

/// A response with no body and the resource's validators: `ETag` of the
/// representation `encoding` would send (none for a 412).
fn empty(status: StatusCode, resource: Resource<'_>, encoding: Option<Encoding>) -> Reply {
    let view = resource.view;
    let mut reply = Response::new(PartsBody::empty());
    *reply.status_mut() = status;
    let headers = reply.headers_mut();
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Ok(value) = HeaderValue::from_str(&httpdate::fmt_http_date(view.last_modified)) {
        headers.insert(header::LAST_MODIFIED, value);
    }
    if let Some(encoding) = encoding {
        let tag = match encoding {
            Encoding::Identity => &view.etag,
            Encoding::Gzip => &view.etag_gzip,
        };
        if let Ok(value) = HeaderValue::from_str(tag) {
            headers.insert(header::ETAG, value);
        }
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    reply
}

fn unix(view: &HttpView) -> i64 {
    view.last_modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// 60 hex digits, as long as Go's random boundaries, derived from the resource
/// and the request so that the same request gets the same bytes.
fn boundary(etag: &str, request_range: &[u8]) -> String {
    let mut key = etag.as_bytes().to_vec();
    key.extend_from_slice(request_range);
    let a = xxhash_rust::xxh3::xxh3_128_with_seed(&key, 1);
    let b = xxhash_rust::xxh3::xxh3_128_with_seed(&key, 2);
    format!("{a:032x}{b:032x}")[..60].to_string()
}
