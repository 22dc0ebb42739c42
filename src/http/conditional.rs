//! RFC 9110 preconditions as Go's `http.ServeContent` evaluates them.
//!
//! In: the request's method and headers, the resource's validators (our strong
//! `ETag`s, its `Last-Modified` in whole seconds). Out: [`Verdict`]: 412, 304, or
//! go on with the `Range` header to honour (dropped by a failing `If-Range`).
//! The order is Go's (fs.go `checkPreconditions`): `If-Match`, else
//! `If-Unmodified-Since` → 412; `If-None-Match` → 304 (412 for other methods),
//! else `If-Modified-Since` → 304; then `If-Range`. Entity tags are scanned as Go
//! scans them (a malformed list stops the scan). catalogd sends no `ETag`, so a
//! client that never saw ours gets exactly catalogd's answers.

use super::gotime;
use http::{HeaderMap, Method, header};

/// What the resource offers to compare with.
#[derive(Clone, Copy, Debug)]
pub struct Validators<'a> {
    /// The entity tags of the resource's representations (identity first); any
    /// matches `If-Match` and `If-None-Match`.
    pub etags: &'a [&'a str],
    /// `Last-Modified`, Unix seconds.
    pub modified: i64,
}

/// The outcome of the preconditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict<'a> {
    /// 412 Precondition Failed.
    PreconditionFailed,
    /// 304 Not Modified.
    NotModified,
    /// Serve the resource, honouring this `Range` header if any.
    Proceed(Option<&'a [u8]>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cond {
    None,
    True,
    False,
}

/// Evaluates the preconditions of a `method` request with `headers`.
pub fn evaluate<'h>(method: &Method, headers: &'h HeaderMap, v: Validators<'_>) -> Verdict<'h> {
    let get_or_head = method == Method::GET || method == Method::HEAD;
    let mut check = if_match(headers, v);
    if check == Cond::None {
        check = if_unmodified_since(headers, v);
    }
    if check == Cond::False {
        return Verdict::PreconditionFailed;
    }
    match if_none_match(headers, v) {
        Cond::False if get_or_head => return Verdict::NotModified,
        Cond::False => return Verdict::PreconditionFailed,
        Cond::None if get_or_head && if_modified_since(headers, v) == Cond::False => {
            return Verdict::NotModified;
        }
        _ => {}
    }
    let range = headers
        .get(header::RANGE)
        .map(|r| r.as_bytes())
        .filter(|r| !r.is_empty());
    match range {
        Some(range) if !(get_or_head && if_range(headers, v) == Cond::False) => {
            Verdict::Proceed(Some(range))
        }
        _ => Verdict::Proceed(None),
    }
}

fn value(headers: &HeaderMap, name: header::HeaderName) -> Option<&[u8]> {
    headers
        .get(name)
        .map(|v| v.as_bytes())
        .filter(|v| !v.is_empty())
}

fn date(headers: &HeaderMap, name: header::HeaderName) -> Option<i64> {
    value(headers, name)
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(gotime::parse)
}

fn if_match(headers: &HeaderMap, v: Validators<'_>) -> Cond {
    match value(headers, header::IF_MATCH) {
        None => Cond::None,
        Some(list) if list_matches(list, |tag| v.etags.iter().any(|e| strong_match(tag, e))) => {
            Cond::True
        }
        Some(_) => Cond::False,
    }
}

fn if_unmodified_since(headers: &HeaderMap, v: Validators<'_>) -> Cond {
    match date(headers, header::IF_UNMODIFIED_SINCE) {
        None => Cond::None,
        Some(t) if v.modified <= t => Cond::True,
        Some(_) => Cond::False,
    }
}

fn if_none_match(headers: &HeaderMap, v: Validators<'_>) -> Cond {
    match value(headers, header::IF_NONE_MATCH) {
        None => Cond::None,
        Some(list) if list_matches(list, |tag| v.etags.iter().any(|e| weak_match(tag, e))) => {
            Cond::False
        }
        Some(_) => Cond::True,
    }
}

/// Whether an entity-tag list is `*` or names a tag `matches` accepts, scanned as
/// Go scans it: a malformed tag ends the scan without a match.
pub fn list_matches(mut list: &[u8], matches: impl Fn(&[u8]) -> bool) -> bool {
    loop {
        list = trim(list);
        match list.first() {
            None => return false,
            Some(b',') => list = &list[1..],
            Some(b'*') => return true,
            Some(_) => match scan_etag(list) {
                Some((tag, _)) if matches(tag) => return true,
                Some((_, rest)) => list = rest,
                None => return false,
            },
        }
    }
}

fn if_modified_since(headers: &HeaderMap, v: Validators<'_>) -> Cond {
    match date(headers, header::IF_MODIFIED_SINCE) {
        None => Cond::None,
        Some(t) if v.modified <= t => Cond::False,
        Some(_) => Cond::True,
    }
}

/// Ranges are of the identity representation: only its tag or its date match.
fn if_range(headers: &HeaderMap, v: Validators<'_>) -> Cond {
    let Some(raw) = value(headers, header::IF_RANGE) else {
        return Cond::None;
    };
    if let Some((tag, _)) = scan_etag(raw) {
        return match v.etags.first() {
            Some(identity) if strong_match(tag, identity) => Cond::True,
            _ => Cond::False,
        };
    }
    match std::str::from_utf8(raw).ok().and_then(gotime::parse) {
        Some(t) if t == v.modified => Cond::True,
        _ => Cond::False,
    }
}

/// Go's `scanETag`: the tag at the start of `s` (with `W/`) and the rest.
pub fn scan_etag(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let s = trim(s);
    let start = if s.starts_with(b"W/") { 2 } else { 0 };
    if s.len() < start + 2 || s[start] != b'"' {
        return None;
    }
    for (i, &c) in s.iter().enumerate().skip(start + 1) {
        match c {
            b'"' => return Some((&s[..=i], &s[i + 1..])),
            0x21 | 0x23..=0x7e | 0x80..=0xff => {}
            _ => return None,
        }
    }
    None
}

fn strong_match(tag: &[u8], ours: &str) -> bool {
    tag == ours.as_bytes() && tag.first() == Some(&b'"')
}

/// RFC 9110's weak comparison: equal once any `W/` is set aside.
pub fn weak_match(tag: &[u8], ours: &str) -> bool {
    let ours = ours.as_bytes();
    tag.strip_prefix(b"W/").unwrap_or(tag) == ours.strip_prefix(b"W/").unwrap_or(ours)
}

/// Go's `textproto.TrimString`: ASCII space, tab, CR and LF off both ends.
pub fn trim(mut s: &[u8]) -> &[u8] {
    let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    while s.first().is_some_and(space) {
        s = &s[1..];
    }
    while s.last().is_some_and(space) {
        s = &s[..s.len() - 1];
    }
    s
}

#[cfg(test)]
mod tests;
