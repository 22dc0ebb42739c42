//! A writer that refuses bytes past a limit: a blob may not be longer than its descriptor says.
//!
//! In: any `AsyncWrite` and the blob's size. Out: the same writer, failing with
//! `InvalidData` on the first write that would pass the size, and the count written.
//! Written here because `oci_client::Client::pull_blob` streams whatever the registry sends.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::AsyncWrite;

/// `inner`, limited to `limit` bytes.
pub(super) struct Capped<W> {
    inner: W,
    limit: u64,
    written: u64,
}

impl<W> Capped<W> {
    pub(super) fn new(inner: W, limit: u64) -> Self {
        Capped {
            inner,
            limit,
            written: 0,
        }
    }

    pub(super) fn written(&self) -> u64 {
        self.written
    }

    pub(super) fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Capped<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.written.saturating_add(buf.len() as u64) > self.limit {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the registry sent more than the descriptor's {} bytes",
                    self.limit
                ),
            )));
        }
        let this = &mut *self;
        let result = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &result {
            this.written += *n as u64;
        }
        result
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn bytes_past_the_limit_are_refused() {
        let mut sink = Capped::new(Vec::new(), 4);
        sink.write_all(b"abcd").await.expect("within");
        assert_eq!(sink.written(), 4);
        let e = sink.write_all(b"e").await.expect_err("past");
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(sink.into_inner(), b"abcd");
    }
}
