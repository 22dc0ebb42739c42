//! Go's `TestServeContent` precondition cases (net/http/fs_test.go), with and
//! without an ETag (catalogd sets none).

use super::*;
use http::HeaderValue;

const MOD: i64 = 1_700_000_000; // Tue, 14 Nov 2023 22:13:20 GMT
const MOD_TEXT: &str = "Tue, 14 Nov 2023 22:13:20 GMT";
const LATER: &str = "Tue, 14 Nov 2023 22:13:21 GMT";
const EARLIER: &str = "Tue, 14 Nov 2023 22:13:19 GMT";

fn run(method: Method, headers: &[(&str, &str)], etags: &[&str]) -> String {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        map.append(
            header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    let v = Validators {
        etags,
        modified: MOD,
    };
    match evaluate(&method, &map, v) {
        Verdict::PreconditionFailed => "412".into(),
        Verdict::NotModified => "304".into(),
        Verdict::Proceed(None) => "200".into(),
        Verdict::Proceed(Some(r)) => format!("range {}", String::from_utf8_lossy(r)),
    }
}

const TAG: &[&str] = &["\"foo\"", "\"foo-gzip\""];

#[test]
fn modification_times() {
    let get = |h: &[(&str, &str)]| run(Method::GET, h, &[]);
    assert_eq!(get(&[("If-Modified-Since", MOD_TEXT)]), "304");
    assert_eq!(get(&[("If-Modified-Since", LATER)]), "304");
    assert_eq!(get(&[("If-Modified-Since", EARLIER)]), "200");
    assert_eq!(get(&[("If-Modified-Since", "garbage")]), "200");
    assert_eq!(get(&[("If-Unmodified-Since", EARLIER)]), "412");
    assert_eq!(get(&[("If-Unmodified-Since", MOD_TEXT)]), "200");
    assert_eq!(
        run(Method::POST, &[("If-Modified-Since", MOD_TEXT)], &[]),
        "200"
    );
}

#[test]
fn entity_tags() {
    let get = |h: &[(&str, &str)]| run(Method::GET, h, TAG);
    // not_modified_etag, and the gzip representation's tag
    assert_eq!(get(&[("If-None-Match", "\"foo\"")]), "304");
    assert_eq!(get(&[("If-None-Match", "W/\"foo-gzip\"")]), "304");
    assert_eq!(get(&[("If-None-Match", "\"bar\"")]), "200");
    // If-None-Match present (no match) skips If-Modified-Since
    assert_eq!(
        get(&[
            ("If-None-Match", "\"bar\""),
            ("If-Modified-Since", MOD_TEXT)
        ]),
        "200"
    );
    // if_none_match_malformed: the scan stops, the condition is true
    assert_eq!(get(&[("If-None-Match", "foo, \"foo\"")]), "200");
    assert_eq!(run(Method::POST, &[("If-None-Match", "*")], TAG), "412");
    // ifmatch_matches, ifmatch_star, ifmatch_fails, ifmatch_weak
    assert_eq!(get(&[("If-Match", "\"Z\", \"foo\"")]), "200");
    assert_eq!(get(&[("If-Match", "*")]), "200");
    assert_eq!(get(&[("If-Match", "\"Z\"")]), "412");
    assert_eq!(get(&[("If-Match", "W/\"foo\"")]), "412");
    // If-Match beats If-Unmodified-Since
    assert_eq!(
        get(&[("If-Match", "\"foo\""), ("If-Unmodified-Since", EARLIER)]),
        "200"
    );
}

#[test]
fn without_an_etag_only_stars_match_as_in_catalogd() {
    let get = |h: &[(&str, &str)]| run(Method::GET, h, &[]);
    assert_eq!(get(&[("If-None-Match", "*")]), "304");
    assert_eq!(get(&[("If-None-Match", "\"foo\"")]), "200");
    assert_eq!(get(&[("If-Match", "\"foo\"")]), "412");
    assert_eq!(get(&[("If-Match", "*")]), "200");
}

#[test]
fn ranges_and_if_range() {
    let get = |h: &[(&str, &str)]| run(Method::GET, h, TAG);
    assert_eq!(get(&[("Range", "bytes=0-4")]), "range bytes=0-4");
    // range_match, range_match_weak_etag, range_no_match
    assert_eq!(
        get(&[("Range", "bytes=0-4"), ("If-Range", "\"foo\"")]),
        "range bytes=0-4"
    );
    assert_eq!(
        get(&[("Range", "bytes=0-4"), ("If-Range", "W/\"foo\"")]),
        "200"
    );
    assert_eq!(
        get(&[("Range", "bytes=0-4"), ("If-Range", "\"foo-gzip\"")]),
        "200"
    );
    // range_with_modtime, range_with_modtime_mismatch, range_with_modtime_nanos
    assert_eq!(
        get(&[("Range", "bytes=0-4"), ("If-Range", MOD_TEXT)]),
        "range bytes=0-4"
    );
    assert_eq!(get(&[("Range", "bytes=0-4"), ("If-Range", EARLIER)]), "200");
    assert_eq!(get(&[("Range", "bytes=0-4"), ("If-Range", "junk")]), "200");
    // not modified wins over a range
    assert_eq!(
        get(&[("Range", "bytes=0-4"), ("If-None-Match", "\"foo\"")]),
        "304"
    );
}

#[test]
fn scan_etag_is_gos() {
    assert_eq!(
        scan_etag(b" W/\"a\" , \"b\""),
        Some((&b"W/\"a\""[..], &b" , \"b\""[..]))
    );
    assert_eq!(scan_etag(b"\"a b\""), None);
    assert_eq!(scan_etag(b"\""), None);
    assert_eq!(scan_etag(b"a"), None);
}
