//! The security headers on the answers hyper writes by itself.
//!
//! In: a connection's byte stream, as hyper writes it. Out: the same stream,
//! except that the error heads hyper writes when a request head does not parse
//! — `400 Bad Request`, `414 URI Too Long`, `431 Request Header Fields Too
//! Large` (a head over [`super::HttpLimits::max_header_bytes`], 16 KiB) — carry the headers every
//! other answer of ours carries ([`SECURITY_HEADERS`]).
//!
//! Written by hand because hyper offers no hook: those answers come from
//! `Conn::on_parse_error`, which writes a bare head (status line,
//! `content-length: 0`, `date`) without calling the service, so no tower layer
//! ever sees them. hyper writes that head into its own head buffer after every
//! earlier answer has been flushed, so it reaches the socket as the first slice
//! of a write. A slice is taken for one only when all of this holds: no call is
//! in progress on the connection, it starts with an HTTP/1.x status line of
//! one of those three codes, it is a whole head (ends with a blank line) of at
//! most [`MAX_CANNED_HEAD`] bytes, it says `content-length: 0`, and it lacks
//! `x-content-type-options` (which every answer of ours has). Anything else
//! passes through untouched.

use crate::transport::conn::ConnState;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The headers on every HTTP answer: no MIME sniffing, no referrer, and (for
/// anything that did not set its own policy) a Content-Security-Policy that
/// allows nothing.
pub const SECURITY_HEADERS: [(&str, &str); 3] = [
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    (
        "content-security-policy",
        "default-src 'none'; frame-ancestors 'none'",
    ),
];

/// The longest head taken for one of hyper's own (they are about 100 bytes).
pub const MAX_CANNED_HEAD: usize = 512;

/// The statuses hyper answers a request head that does not parse with.
const CANNED_STATUSES: [&[u8]; 3] = [b"400 ", b"414 ", b"431 "];

/// A connection whose hyper-written error heads gain the security headers.
pub struct SecureCanned<IO> {
    inner: IO,
    state: Arc<ConnState>,
    /// A rewritten head being written: its bytes, how many are out, and how
    /// many bytes of hyper's buffer it stands for.
    pending: Option<Pending>,
}

struct Pending {
    bytes: Vec<u8>,
    written: usize,
    stands_for: usize,
}

impl<IO> SecureCanned<IO> {
    /// Wraps `inner`, a connection whose calls `state` counts.
    pub fn new(inner: IO, state: Arc<ConnState>) -> Self {
        SecureCanned {
            inner,
            state,
            pending: None,
        }
    }
}

/// `head` with the security headers, if it is one of hyper's own error heads
/// (see the module docs).
pub fn rewrite(head: &[u8]) -> Option<Vec<u8>> {
    if head.len() > MAX_CANNED_HEAD || !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let status = head
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| head.strip_prefix(b"HTTP/1.0 "))?;
    if !CANNED_STATUSES.iter().any(|s| status.starts_with(s)) {
        return None;
    }
    let lower = head.to_ascii_lowercase();
    let has = |needle: &[u8]| lower.windows(needle.len()).any(|w| w == needle);
    if !has(b"\r\ncontent-length: 0\r\n") || has(b"\r\nx-content-type-options:") {
        return None;
    }
    let mut out = Vec::with_capacity(head.len() + 160);
    out.extend_from_slice(&head[..head.len() - 2]);
    for (name, value) in SECURITY_HEADERS {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    Some(out)
}

impl<IO: AsyncWrite + Unpin> SecureCanned<IO> {
    /// Writes out a pending rewritten head; then how much of hyper's buffer it
    /// stood for.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<usize>>> {
        let Some(p) = self.pending.as_mut() else {
            return Poll::Ready(Ok(None));
        };
        while p.written < p.bytes.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &p.bytes[p.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            p.written += n;
        }
        let stands_for = p.stands_for;
        self.pending = None;
        Poll::Ready(Ok(Some(stands_for)))
    }

    /// Starts a rewrite when `first` (the start of a write) is one of hyper's
    /// error heads and no call is in progress.
    fn take_canned(&mut self, first: &[u8]) {
        if self.pending.is_none()
            && first.starts_with(b"HTTP/1.")
            && self.state.active_calls() == 0
            && let Some(bytes) = rewrite(first)
        {
            self.pending = Some(Pending {
                bytes,
                written: 0,
                stands_for: first.len(),
            });
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for SecureCanned<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for SecureCanned<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.take_canned(buf);
        if let Some(n) = ready!(this.poll_pending(cx))? {
            return Poll::Ready(Ok(n));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(first) = bufs.iter().find(|b| !b.is_empty()) {
            this.take_canned(first);
        }
        if let Some(n) = ready!(this.poll_pending(cx))? {
            return Poll::Ready(Ok(n));
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYPER_431: &[u8] = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Fri, 27 Nov 2026 16:00:00 GMT\r\n\r\n";

    #[test]
    fn hyper_error_heads_gain_the_headers_before_the_blank_line() {
        let out = rewrite(HYPER_431).expect("rewritten");
        let text = String::from_utf8(out).expect("text");
        assert!(
            text.starts_with(
                "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n"
            )
        );
        assert!(
            text.contains("\r\nx-content-type-options: nosniff\r\n"),
            "{text}"
        );
        assert!(
            text.contains("\r\nreferrer-policy: no-referrer\r\n"),
            "{text}"
        );
        assert!(text.ends_with("frame-ancestors 'none'\r\n\r\n"), "{text}");
        assert_eq!(text.matches("\r\n\r\n").count(), 1, "still one head");
    }

    #[test]
    fn anything_else_passes_through() {
        for other in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nx-content-type-options: nosniff\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n",
            b"{\"schema\":\"olm.package\"}\n",
            b"HTTP/1.1 4",
        ] {
            assert_eq!(rewrite(other), None, "{}", String::from_utf8_lossy(other));
        }
        let long = format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nx-pad: {}\r\n\r\n",
            "x".repeat(MAX_CANNED_HEAD)
        );
        assert_eq!(rewrite(long.as_bytes()), None);
    }
}
