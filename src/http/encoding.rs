//! Response compression as catalogd's wrapper (klauspost `gzhttp`) decides it.
//!
//! In: the request method and `Accept-Encoding`, the body's size, whether the
//! answer is a byte range. Out: [`Encoding`]. gzip when the client gives the
//! `gzip` coding a q-value above 0 (the first `gzip` listed counts; `x-gzip` and
//! `*` do not), never for HEAD, never for a range, and only for bodies of at
//! least [`MIN_SIZE`] bytes. gzhttp would answer zstd to clients preferring it;
//! we always answer gzip (documented in docs/http.md), which every such client
//! also accepts.

/// gzhttp's `DefaultMinSize`: smaller bodies go out as they are.
pub const MIN_SIZE: u64 = 1024;

/// How a body goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// As it is.
    Identity,
    /// gzip.
    Gzip,
}

/// The encoding for a `method` request with `accept` (its `Accept-Encoding`) and
/// a body of `size` bytes; `partial` for 206 and 416 answers.
pub fn choose(head: bool, accept: Option<&[u8]>, size: u64, partial: bool) -> Encoding {
    let wanted = accept.is_some_and(|a| gzip_quality(a) > 0.0);
    if head || partial || size < MIN_SIZE || !wanted {
        Encoding::Identity
    } else {
        Encoding::Gzip
    }
}

/// gzhttp's `parseEncodingGzip`: the q-value of the first `gzip` coding, 0 if none.
pub fn gzip_quality(accept: &[u8]) -> f64 {
    let text = String::from_utf8_lossy(accept);
    for coding in text.trim().split(',') {
        let mut parts = coding.split(';');
        let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        if name != "gzip" {
            continue;
        }
        let mut quality = 1.0;
        for part in parts {
            let part = part.trim();
            if part.len() >= 2 && part[..2].eq_ignore_ascii_case("q=") {
                // Go's ParseFloat yields 0 on a syntax error.
                quality = part[2..].parse::<f64>().unwrap_or(0.0).clamp(0.0, 1.0);
            }
        }
        return quality;
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gzhttp_decision_table() {
        let gzip = Some(&b"gzip"[..]);
        assert_eq!(choose(false, gzip, 1024, false), Encoding::Gzip);
        assert_eq!(choose(false, gzip, 1023, false), Encoding::Identity);
        assert_eq!(choose(true, gzip, 1 << 20, false), Encoding::Identity);
        assert_eq!(choose(false, gzip, 1 << 20, true), Encoding::Identity);
        assert_eq!(choose(false, None, 1 << 20, false), Encoding::Identity);
        for (header, q) in [
            ("gzip", 1.0),
            ("GZIP;Q=0.5", 0.5),
            ("br, gzip;q=0", 0.0),
            ("gzip;q=0, gzip", 0.0),
            ("x-gzip", 0.0),
            ("*", 0.0),
            ("deflate, gzip;q=2", 1.0),
            ("gzip;q=abc", 0.0),
            ("zstd, br, gzip", 1.0),
        ] {
            assert_eq!(gzip_quality(header.as_bytes()), q, "{header}");
        }
    }
}
