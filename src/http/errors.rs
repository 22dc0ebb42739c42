//! Error answers as Go's `http.Error` writes them.
//!
//! In: a status and a message. Out: a response with the message and a newline as
//! a `text/plain; charset=utf-8` body, `X-Content-Type-Options: nosniff`, and an
//! exact `Content-Length` — byte for byte what catalogd's handlers send.

use super::body::PartsBody;
use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};

/// The response type of every handler.
pub type Reply = Response<PartsBody>;

/// An error answer on its way up from a helper, boxed (a response is large and
/// errors are rare).
pub type Refusal = Box<Reply>;

/// `http.Error(w, message, status)`.
pub fn text(status: StatusCode, message: &str) -> Reply {
    let body = Bytes::from(format!("{message}\n"));
    let mut reply = Response::new(PartsBody::new(vec![body.clone()]));
    *reply.status_mut() = status;
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    reply
}

/// catalogd's `httpError` for a status: `"404 Not Found"` and the like.
pub fn status(status: StatusCode) -> Reply {
    let reason = status.canonical_reason().unwrap_or_default();
    text(status, &format!("{} {reason}", status.as_u16()))
}

/// Go's mux for a path no route matches: `404 page not found`.
pub fn no_route() -> Reply {
    text(StatusCode::NOT_FOUND, "404 page not found")
}

/// A method the route does not take: Go's text, plus the `Allow` header RFC 9110
/// asks for (catalogd sends none).
pub fn method_not_allowed(allow: &'static str) -> Reply {
    let mut reply = text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
    reply
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_error_bodies() {
        let reply = status(StatusCode::NOT_FOUND);
        assert_eq!(reply.body().to_vec(), b"404 Not Found\n");
        assert_eq!(reply.headers()[header::CONTENT_LENGTH], "14");
        assert_eq!(no_route().body().to_vec(), b"404 page not found\n");
        assert_eq!(
            status(StatusCode::BAD_REQUEST).body().to_vec(),
            b"400 Bad Request\n"
        );
        assert_eq!(
            method_not_allowed("GET, HEAD").body().to_vec(),
            b"Method Not Allowed\n"
        );
    }
}
