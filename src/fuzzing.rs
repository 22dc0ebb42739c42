//! Entry points for the fuzz targets (`fuzz/`, built with the `fuzzing` feature):
//! the server's parsers of untrusted bytes, reachable from outside the crate
//! without making their modules public. Never in a release build.
//!
//! In: raw bytes or text as a client sends them. Out: nothing — each function
//! parses, then uses what it parsed as the server would, so a panic anywhere on
//! the way is the fuzzer's finding.

use crate::http::{conditional, goquery::Query, gotime, range};
use http::{HeaderMap, HeaderName, HeaderValue, Method};

/// A URL query string (`?package=…&channel=…`), read as Go's `url.ParseQuery`.
pub fn http_query(raw: &str) {
    let query = Query::parse(raw);
    let _ = query.keys().count();
    for key in ["package", "channel", "schema", "name", "q"] {
        let _ = query.get(key);
        let _ = query.values(key).count();
    }
}

/// A `Range` header against a body of `size` bytes, and the parts it would serve.
pub fn range_header(header: &[u8], size: u64) {
    if let Ok(ranges) = range::parse(header, size)
        && let Some(servable) = range::servable(ranges, size)
    {
        for r in &servable {
            let _ = r.content_range(size);
        }
    }
}

/// Request headers, one `name: value` per line, through the conditional-request
/// checks (`If-Match`, `If-None-Match`, `If-Modified-Since`, `If-Unmodified-Since`,
/// `If-Range`) of a resource with two entity tags.
pub fn conditional_headers(text: &[u8]) {
    let mut headers = HeaderMap::new();
    for line in text.split(|b| *b == b'\n') {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(conditional::trim(&line[colon + 1..])),
        ) else {
            continue;
        };
        headers.append(name, value);
    }
    let validators = conditional::Validators {
        etags: &["\"7a029816f7037038002a2ba26406a903-1\"", "\"gz-7a0298\""],
        modified: 1_764_000_000,
    };
    for method in [Method::GET, Method::HEAD, Method::POST] {
        let _ = conditional::evaluate(&method, &headers, validators);
    }
    if let Some(date) = headers.get(http::header::IF_MODIFIED_SINCE) {
        let _ = gotime::parse(date.to_str().unwrap_or_default());
    }
}

/// A GraphQL query through catalogd's caps (depth, aliases, fields).
pub fn graphql_query(text: &str) {
    let _ = crate::views::graphql::limits::check(text.to_owned());
}

/// `grpc_health_probe`'s command line (Go flag syntax), and its durations.
pub fn probe_flags(args: &[String]) {
    let _ = crate::cli::probe::flags::parse(args);
    for arg in args {
        let _ = crate::cli::probe::flags::go_duration(arg);
    }
}
