//! Response bodies: prepared bytes out in bounded frames, watched for stalls.
//!
//! In: a body's parts (zero-copy slices of a snapshot's buffers). Out:
//! [`PartsBody`], which hands them on in order, and [`Tracked`], the transport's
//! [`Watched`] body (a call of its connection, in frames of bounded size, watched
//! for stalls) with HTTP's [`WriteDeadline`]: the body fails once the whole
//! answer has taken longer than the write timeout.

use crate::transport::conn::ConnState;
use crate::transport::watched::{Watch, Watched};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

/// Why a body stopped early.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The answer took longer than the write timeout.
    #[error("the response took longer than the write timeout")]
    WriteTimeout,
    /// The inner body failed.
    #[error("{0}")]
    Inner(String),
}

/// A body of prepared parts.
#[derive(Debug, Default)]
pub struct PartsBody {
    parts: VecDeque<Bytes>,
    remaining: u64,
}

impl PartsBody {
    /// A body of `parts`, sent in order.
    pub fn new(parts: Vec<Bytes>) -> Self {
        let remaining = parts.iter().map(|p| p.len() as u64).sum();
        PartsBody {
            parts: parts.into_iter().filter(|p| !p.is_empty()).collect(),
            remaining,
        }
    }

    /// No body (HEAD, 304, 412).
    pub fn empty() -> Self {
        PartsBody::default()
    }

    /// The bytes, joined.
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts.iter().flat_map(|p| p.iter().copied()).collect()
    }
}

impl Body for PartsBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        let Some(frame) = this.parts.pop_front() else {
            return Poll::Ready(None);
        };
        this.remaining -= frame.len() as u64;
        Poll::Ready(Some(Ok(Frame::data(frame))))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

/// HTTP's part of a [`Watched`] answer: the whole answer must be written before
/// the write timeout, and the inner body's error becomes a [`BodyError`].
#[derive(Debug)]
pub struct WriteDeadline(pub Instant);

impl<E: std::fmt::Display> Watch<E> for WriteDeadline {
    type Error = BodyError;

    fn check(&mut self) -> Result<(), BodyError> {
        if Instant::now() >= self.0 {
            return Err(BodyError::WriteTimeout);
        }
        Ok(())
    }

    fn frame(&mut self, _: &Frame<Bytes>, _: Option<&ConnState>) {}

    fn error(&mut self, error: E) -> BodyError {
        BodyError::Inner(error.to_string())
    }
}

/// A response body of a connection, watched (see the module docs).
pub type Tracked<B> = Watched<B, WriteDeadline>;

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn parts_come_in_order_without_the_empty_ones() {
        let big = Bytes::from(vec![7u8; 1 << 20]);
        let mut body = PartsBody::new(vec![Bytes::from_static(b"ab"), Bytes::new(), big]);
        assert_eq!(body.size_hint().exact(), Some((1 << 20) + 2));
        let mut sizes = Vec::new();
        while let Some(frame) = body.frame().await {
            sizes.push(frame.expect("ok").into_data().expect("data").len());
        }
        assert_eq!(sizes, vec![2, 1 << 20]);
    }
}
