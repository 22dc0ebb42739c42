//! Response bodies: prepared bytes out in bounded frames, watched for stalls.
//!
//! In: a body's parts (zero-copy slices of a snapshot's buffers). Out:
//! [`PartsBody`], which hands hyper frames of at most [`FRAME_BYTES`], and
//! [`Tracked`], which wraps any response body of a connection: it counts the
//! request as a call in progress until the body is done (so the idle timeout
//! spares it), runs a stall clock from each frame handed to hyper until hyper
//! asks for the next (so the reaper closes a connection whose client stopped
//! reading), and fails the body once the whole answer has taken longer than the
//! write timeout.

use crate::transport::conn::{ConnState, StallClock};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

/// The largest frame handed to hyper: a stalled client holds at most this (plus
/// hyper's buffer) of progress hostage before the stall clock runs.
pub const FRAME_BYTES: usize = 256 * 1024;

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

    /// The bytes, joined (tests and small bodies).
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
        let Some(front) = this.parts.front_mut() else {
            return Poll::Ready(None);
        };
        let frame = if front.len() <= FRAME_BYTES {
            this.parts.pop_front().unwrap_or_default()
        } else {
            front.split_to(FRAME_BYTES)
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

/// A request in progress on its connection: counted from the request's arrival
/// until dropped (with the handler, or with the body that answers it).
pub struct CallGuard(Arc<ConnState>);

impl CallGuard {
    /// Counts a call on `conn`.
    pub fn start(conn: Arc<ConnState>) -> Self {
        conn.call_started();
        CallGuard(conn)
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.0.call_ended();
    }
}

/// A response body counted as a call of its connection (see the module docs).
pub struct Tracked<B> {
    inner: B,
    call: CallGuard,
    clock: Arc<StallClock>,
    deadline: Instant,
}

impl<B> Tracked<B> {
    /// Watches `inner` as the answer of `call`, failing it at `deadline`.
    pub fn new(inner: B, call: CallGuard, deadline: Instant) -> Self {
        let clock = call.0.watch();
        Tracked {
            inner,
            call,
            clock,
            deadline,
        }
    }
}

impl<B> Drop for Tracked<B> {
    fn drop(&mut self) {
        self.call.0.unwatch(&self.clock);
    }
}

impl<B> Body for Tracked<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        this.clock.stop();
        if Instant::now() >= this.deadline {
            return Poll::Ready(Some(Err(BodyError::WriteTimeout)));
        }
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(_))) = &polled {
            this.clock.start();
        }
        polled.map(|f| f.map(|r| r.map_err(|e| BodyError::Inner(e.to_string()))))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn frames_are_bounded_and_complete() {
        let big = Bytes::from(vec![7u8; FRAME_BYTES * 2 + 5]);
        let mut body = PartsBody::new(vec![Bytes::from_static(b"ab"), Bytes::new(), big]);
        assert_eq!(body.size_hint().exact(), Some((FRAME_BYTES * 2 + 7) as u64));
        let mut sizes = Vec::new();
        while let Some(frame) = body.frame().await {
            sizes.push(frame.unwrap().into_data().unwrap().len());
        }
        assert_eq!(sizes, vec![2, FRAME_BYTES, FRAME_BYTES, 5]);
    }
}
