//! Byte ranges as Go's `http.ServeContent` serves them.
//!
//! In: a `Range` header and the body's size. Out: the ranges asked for
//! ([`parse`], a port of Go's `parseRange` with its laxities: spaces around
//! numbers, empty pieces, signs), and the bodies of 206 answers: one range as is,
//! several as `multipart/byteranges` laid out as Go's `mime/multipart` writer
//! does. Ranges that add up to more than the body are ignored (a full 200), as
//! Go does; so are more than [`MAX_PARTS`] of them (nginx's `max_ranges` idea,
//! our addition).

use super::conditional::trim;
use bytes::Bytes;

/// More ranges than this in one request are ignored (the answer is a 200).
pub const MAX_PARTS: usize = 64;

/// One range: `length` bytes from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange {
    /// First byte.
    pub start: u64,
    /// How many bytes.
    pub length: u64,
}

impl ByteRange {
    /// `bytes a-b/size`, the `Content-Range` of this range.
    pub fn content_range(&self, size: u64) -> String {
        let last = (self.start + self.length).saturating_sub(1);
        format!("bytes {}-{last}/{size}", self.start)
    }
}

/// Why a `Range` header cannot be served (416).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeError {
    /// Not a byte range Go reads: `invalid range`.
    Invalid,
    /// Every range starts past the end: `invalid range: failed to overlap`.
    NoOverlap,
}

impl RangeError {
    /// Go's error text (the 416 body, before its newline).
    pub fn message(self) -> &'static str {
        match self {
            RangeError::Invalid => "invalid range",
            RangeError::NoOverlap => "invalid range: failed to overlap",
        }
    }
}

/// Go's `parseRange`: the ranges of `header` over `size` bytes.
pub fn parse(header: &[u8], size: u64) -> Result<Vec<ByteRange>, RangeError> {
    if header.is_empty() {
        return Ok(Vec::new());
    }
    let spec = header.strip_prefix(b"bytes=").ok_or(RangeError::Invalid)?;
    let size = i64::try_from(size).map_err(|_| RangeError::Invalid)?;
    let mut ranges = Vec::new();
    let mut no_overlap = false;
    for piece in spec.split(|&b| b == b',') {
        let piece = trim(piece);
        if piece.is_empty() {
            continue;
        }
        let dash = piece
            .iter()
            .position(|&b| b == b'-')
            .ok_or(RangeError::Invalid)?;
        let (start, end) = (trim(&piece[..dash]), trim(&piece[dash + 1..]));
        let (start, length) = if start.is_empty() {
            if end.is_empty() || end[0] == b'-' {
                return Err(RangeError::Invalid);
            }
            let suffix = parse_int(end)
                .filter(|i| *i >= 0)
                .ok_or(RangeError::Invalid)?;
            let from = size - suffix.min(size);
            (from, size - from)
        } else {
            let from = parse_int(start)
                .filter(|i| *i >= 0)
                .ok_or(RangeError::Invalid)?;
            if from >= size {
                no_overlap = true;
                continue;
            }
            if end.is_empty() {
                (from, size - from)
            } else {
                let last = parse_int(end)
                    .filter(|i| *i >= from)
                    .ok_or(RangeError::Invalid)?;
                (from, last.min(size - 1) - from + 1)
            }
        };
        ranges.push(ByteRange {
            start: start as u64,
            length: length as u64,
        });
    }
    if no_overlap && ranges.is_empty() {
        return Err(RangeError::NoOverlap);
    }
    Ok(ranges)
}

/// The ranges to serve, or `None` for a full answer: Go ignores ranges adding up
/// to more than the body; we also ignore more than [`MAX_PARTS`].
pub fn servable(ranges: Vec<ByteRange>, size: u64) -> Option<Vec<ByteRange>> {
    // checked: lengths of a body near u64::MAX (the fuzzer's; no real one) must not wrap
    let sum = ranges
        .iter()
        .try_fold(0u64, |sum, r| sum.checked_add(r.length));
    let fits = sum.is_some_and(|sum| sum <= size);
    (!ranges.is_empty() && fits && ranges.len() <= MAX_PARTS).then_some(ranges)
}

/// A `multipart/byteranges` body of several ranges of `body`.
#[derive(Clone, Debug)]
pub struct Multipart {
    /// The `Content-Type` header: `multipart/byteranges; boundary=…`.
    pub content_type: String,
    /// The parts of the body, in order.
    pub parts: Vec<Bytes>,
}

/// Lays out `ranges` of `body` as Go does: each part's headers in sorted order
/// (`Content-Range`, `Content-Type`), CRLF framing, a closing delimiter.
/// `boundary` is 60 hex digits (Go's are random; ours derive from the request).
pub fn multipart(
    ranges: &[ByteRange],
    body: &Bytes,
    content_type: &str,
    boundary: &str,
) -> Multipart {
    let size = body.len() as u64;
    let mut parts = Vec::with_capacity(ranges.len() * 2 + 1);
    for (i, range) in ranges.iter().enumerate() {
        let lead = if i == 0 { "" } else { "\r\n" };
        let head = format!(
            "{lead}--{boundary}\r\nContent-Range: {}\r\nContent-Type: {content_type}\r\n\r\n",
            range.content_range(size)
        );
        parts.push(Bytes::from(head));
        let (start, end) = (range.start as usize, (range.start + range.length) as usize);
        parts.push(body.slice(start..end));
    }
    parts.push(Bytes::from(format!("\r\n--{boundary}--\r\n")));
    Multipart {
        content_type: format!("multipart/byteranges; boundary={boundary}"),
        parts,
    }
}

/// `strconv.ParseInt(s, 10, 64)`: an optional sign, then decimal digits only.
fn parse_int(s: &[u8]) -> Option<i64> {
    let digits = s
        .strip_prefix(b"+")
        .or_else(|| s.strip_prefix(b"-"))
        .unwrap_or(s);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `http_inputs` fuzz target (crash-e35f669b): three ranges of a body of
    /// about 2^63 bytes add up past u64::MAX; the sum overflowed (a panic with overflow
    /// checks, a wrapped sum that let them through without).
    #[test]
    fn fuzz_crash_e35f669b_ranges_whose_lengths_overflow_are_a_full_answer() {
        let size = 0x7479_6200_0000_0003_u64;
        let ranges = parse(b"bytes=0-,9-,0-", size).expect("parsed");
        assert_eq!(ranges.len(), 3);
        assert_eq!(servable(ranges, size), None);
    }

    /// A header, a body size, and the (start, length) pairs Go parses (`None`: an error).
    type Case = (&'static str, u64, Option<&'static [(u64, u64)]>);

    /// Go's `ParseRangeTests` (net/http/range_test.go).
    #[test]
    fn go_parse_range_tests() {
        let cases: &[Case] = &[
            ("", 0, Some(&[])),
            ("", 1000, Some(&[])),
            ("foo", 0, None),
            ("bytes=", 0, Some(&[])),
            ("bytes=7", 10, None),
            ("bytes= 7 ", 10, None),
            ("bytes=1-", 0, None),
            ("bytes=5-4", 10, None),
            ("bytes=0-2,5-4", 10, None),
            ("bytes=2-5,4-3", 10, None),
            ("bytes=--5,4--3", 10, None),
            ("bytes=A-", 10, None),
            ("bytes=A- ", 10, None),
            ("bytes=A-Z", 10, None),
            ("bytes= -Z", 10, None),
            ("bytes=5-Z", 10, None),
            ("bytes=Ran-dom, garbage", 10, None),
            ("bytes=0x01-0x02", 10, None),
            ("bytes=         ", 10, Some(&[])),
            ("bytes= , , ,   ", 10, Some(&[])),
            ("bytes=0-9", 10, Some(&[(0, 10)])),
            ("bytes=0-", 10, Some(&[(0, 10)])),
            ("bytes=5-", 10, Some(&[(5, 5)])),
            ("bytes=0-20", 10, Some(&[(0, 10)])),
            ("bytes=15-,0-5", 10, Some(&[(0, 6)])),
            ("bytes=1-2,5-", 10, Some(&[(1, 2), (5, 5)])),
            ("bytes=-2 , 7-", 11, Some(&[(9, 2), (7, 4)])),
            ("bytes=0-0 ,2-2, 7-", 11, Some(&[(0, 1), (2, 1), (7, 4)])),
            ("bytes=-5", 10, Some(&[(5, 5)])),
            ("bytes=-15", 10, Some(&[(0, 10)])),
            ("bytes=0-499", 10000, Some(&[(0, 500)])),
            ("bytes=500-999", 10000, Some(&[(500, 500)])),
            ("bytes=-500", 10000, Some(&[(9500, 500)])),
            ("bytes=9500-", 10000, Some(&[(9500, 500)])),
            ("bytes=0-0,-1", 10000, Some(&[(0, 1), (9999, 1)])),
            (
                "bytes=500-600,601-999",
                10000,
                Some(&[(500, 101), (601, 399)]),
            ),
            (
                "bytes=500-700,601-999",
                10000,
                Some(&[(500, 201), (601, 399)]),
            ),
            (
                "bytes=   1 -2   ,  4- 5, 7 - 8 , ,,",
                11,
                Some(&[(1, 2), (4, 2), (7, 2)]),
            ),
        ];
        for (header, size, want) in cases {
            let got = parse(header.as_bytes(), *size)
                .ok()
                .map(|r| r.iter().map(|r| (r.start, r.length)).collect::<Vec<_>>());
            assert_eq!(got, want.map(<[_]>::to_vec), "{header:?} over {size}");
        }
        assert_eq!(parse(b"bytes=10-", 10), Err(RangeError::NoOverlap));
        assert_eq!(
            parse(b"bytes=+2-+3", 10).unwrap(),
            vec![ByteRange {
                start: 2,
                length: 2
            }]
        );
    }

    #[test]
    fn too_much_is_ignored() {
        let r = |start, length| ByteRange { start, length };
        assert_eq!(servable(vec![r(0, 6), r(0, 6)], 10), None);
        assert_eq!(servable(vec![r(0, 1); MAX_PARTS + 1], 1000), None);
        assert_eq!(servable(vec![r(0, 1)], 10), Some(vec![r(0, 1)]));
    }

    #[test]
    fn multipart_is_laid_out_as_go_writes_it() {
        let body = Bytes::from_static(b"0123456789");
        let ranges = [
            ByteRange {
                start: 0,
                length: 2,
            },
            ByteRange {
                start: 8,
                length: 2,
            },
        ];
        let m = multipart(&ranges, &body, "application/jsonl", "B");
        let text: Vec<u8> = m.parts.iter().flat_map(|p| p.iter().copied()).collect();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "--B\r\nContent-Range: bytes 0-1/10\r\nContent-Type: application/jsonl\r\n\r\n01\
             \r\n--B\r\nContent-Range: bytes 8-9/10\r\nContent-Type: application/jsonl\r\n\r\n89\
             \r\n--B--\r\n"
        );
        assert_eq!(m.content_type, "multipart/byteranges; boundary=B");
    }
}
