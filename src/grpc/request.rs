//! Request bodies, bounded as they arrive.
//!
//! In: a request body's data frames, split anywhere. Out: the same frames, or a
//! `tonic::Status` in their place as soon as a gRPC length prefix declares more than
//! [`MAX_REQUEST_BYTES`] (RESOURCE_EXHAUSTED with grpc-go's wording — tonic would
//! answer OUT_OF_RANGE, after reserving the declared size) or, for a message over
//! [`SMALL_REQUEST`], the server cannot reserve its declared length against the byte
//! budget (tonic allocates it on reading the prefix). Nothing is buffered here:
//! [`PrefixReader`] keeps the 5-byte prefix it is reading and a count.

use crate::transport::budget::Budget;
use crate::transport::conn::{ConnState, StallClock};
use crate::transport::limits::{MAX_REQUEST_BYTES, SMALL_REQUEST};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tonic::Status;

/// What a prefix reader saw in the bytes fed to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A message prefix declaring this many bytes was read.
    Started(usize),
    /// The message of this many bytes has passed entirely.
    Completed(usize),
}

/// A message prefix declared more than the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("grpc: received message larger than max ({len} vs. {limit})")]
pub struct TooLarge {
    /// The declared length.
    pub len: usize,
    /// The limit.
    pub limit: usize,
}

/// Follows the gRPC framing (1 flag byte, 4 length bytes big-endian, the message) of
/// a byte stream fed in arbitrary pieces.
#[derive(Clone, Debug)]
pub struct PrefixReader {
    limit: usize,
    prefix: [u8; 5],
    have: usize,
    /// Declared length of the message being passed, and how much of it is still due.
    current: usize,
    remaining: usize,
}

impl PrefixReader {
    /// A reader refusing messages longer than `limit`.
    pub fn new(limit: usize) -> Self {
        PrefixReader {
            limit,
            prefix: [0; 5],
            have: 0,
            current: 0,
            remaining: 0,
        }
    }

    /// Whether a message has begun and not yet fully passed.
    pub fn is_mid_message(&self) -> bool {
        self.have > 0 || self.remaining > 0
    }

    /// Reads `chunk`, reporting each event to `on`; stops at the first error, from a
    /// prefix over the limit or from `on`.
    pub fn feed<E: From<TooLarge>>(
        &mut self,
        mut chunk: &[u8],
        mut on: impl FnMut(Event) -> Result<(), E>,
    ) -> Result<(), E> {
        while !chunk.is_empty() {
            if self.remaining > 0 {
                let take = self.remaining.min(chunk.len());
                self.remaining -= take;
                chunk = &chunk[take..];
                if self.remaining == 0 {
                    on(Event::Completed(self.current))?;
                }
                continue;
            }
            let take = (5 - self.have).min(chunk.len());
            self.prefix[self.have..self.have + take].copy_from_slice(&chunk[..take]);
            self.have += take;
            chunk = &chunk[take..];
            if self.have < 5 {
                continue;
            }
            self.have = 0;
            let [_, a, b, c, d] = self.prefix;
            let len = u32::from_be_bytes([a, b, c, d]) as usize;
            if len > self.limit {
                return Err(TooLarge {
                    len,
                    limit: self.limit,
                }
                .into());
            }
            self.current = len;
            self.remaining = len;
            on(Event::Started(len))?;
            if len == 0 {
                on(Event::Completed(0))?;
            }
        }
        Ok(())
    }
}

/// Why a request body was cut short.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    #[error("server busy: {0} bytes waiting on slow clients")]
    Busy(usize),
}

/// A request body checked by a [`PrefixReader`] as it passes.
pub struct RequestBody {
    inner: tonic::body::Body,
    reader: PrefixReader,
    budget: Arc<Budget>,
    /// Bytes of the current message reserved against the budget.
    reserved: usize,
    clock: Option<(Arc<ConnState>, Arc<StallClock>)>,
    failed: bool,
}

impl RequestBody {
    /// Wraps `inner`. With `awaits_message` (a call with one request message), the
    /// connection's stall clock runs until that message is complete.
    pub fn new(
        inner: tonic::body::Body,
        budget: Arc<Budget>,
        conn: Option<Arc<ConnState>>,
        awaits_message: bool,
    ) -> Self {
        let clock = conn.map(|conn| {
            let clock = conn.watch();
            if awaits_message {
                clock.start();
            }
            (conn, clock)
        });
        RequestBody {
            inner,
            reader: PrefixReader::new(MAX_REQUEST_BYTES),
            budget,
            reserved: 0,
            clock,
            failed: false,
        }
    }

    /// Checks one data chunk; the status to fail the body with, if any.
    fn check(&mut self, data: &[u8]) -> Result<(), Status> {
        let budget = &self.budget;
        let reserved = &mut self.reserved;
        let fed = self.reader.feed(data, |event| match event {
            Event::Started(n) => {
                // small messages always pass (health probes must answer), counted
                if n <= SMALL_REQUEST {
                    budget.add(n);
                } else if !budget.try_reserve(n) {
                    return Err(Refusal::Busy(budget.used()));
                }
                *reserved = n;
                Ok(())
            }
            Event::Completed(n) => {
                budget.sub(n);
                *reserved = 0;
                Ok(())
            }
        });
        if let Some((_, clock)) = &self.clock {
            if self.reader.is_mid_message() {
                clock.start();
            } else {
                clock.stop();
            }
        }
        fed.map_err(|refusal| Status::resource_exhausted(refusal.to_string()))
    }
}

impl Body for RequestBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = self.get_mut();
        if this.failed {
            return Poll::Ready(None);
        }
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref()
                    && let Err(status) = this.check(data)
                {
                    this.failed = true;
                    return Poll::Ready(Some(Err(status)));
                }
            }
            Poll::Ready(_) => {
                if let Some((_, clock)) = &this.clock {
                    clock.stop();
                }
            }
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.failed || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for RequestBody {
    fn drop(&mut self) {
        self.budget.sub(self.reserved);
        if let Some((conn, clock)) = &self.clock {
            conn.unwatch(clock);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn message(len: usize) -> Vec<u8> {
        let mut m = vec![0u8];
        m.extend_from_slice(&(len as u32).to_be_bytes());
        m.extend(std::iter::repeat_n(7u8, len));
        m
    }

    /// Every event, then the verdict, of feeding `chunks` in order.
    fn run(limit: usize, chunks: &[&[u8]]) -> (Vec<Event>, Result<(), TooLarge>, bool) {
        let mut reader = PrefixReader::new(limit);
        let mut events = Vec::new();
        for chunk in chunks {
            let fed = reader.feed(chunk, |e| {
                events.push(e);
                Ok::<(), TooLarge>(())
            });
            if fed.is_err() {
                return (events, fed, reader.is_mid_message());
            }
        }
        (events, Ok(()), reader.is_mid_message())
    }

    #[test]
    fn prefixes_are_read_across_chunks() {
        let bytes = [message(3), message(0), message(2)].concat();
        let (events, verdict, mid) = run(10, &[&bytes[..2], &bytes[2..9], &bytes[9..]]);
        use Event::*;
        assert_eq!(
            events,
            [
                Started(3),
                Completed(3),
                Started(0),
                Completed(0),
                Started(2),
                Completed(2)
            ]
        );
        assert_eq!((verdict, mid), (Ok(()), false));
        let (_, _, mid) = run(10, &[&bytes[..6]]);
        assert!(mid);
    }

    #[test]
    fn an_oversize_prefix_is_refused_before_its_message() {
        let mut prefix = vec![0u8];
        prefix.extend_from_slice(&10_485_770u32.to_be_bytes());
        let (events, verdict, _) = run(MAX_REQUEST_BYTES, &[&prefix[..3], &prefix[3..]]);
        assert!(events.is_empty());
        let err = verdict.expect_err("too large");
        assert_eq!(
            err.to_string(),
            "grpc: received message larger than max (10485770 vs. 4194304)"
        );
    }

    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let framed = proptest::collection::vec(0usize..40, 0..6)
            .prop_map(|lens| lens.into_iter().flat_map(message).collect::<Vec<u8>>());
        let raw = proptest::collection::vec(any::<u8>(), 0..120);
        (framed, raw, any::<bool>()).prop_map(|(f, r, raw_first)| {
            if raw_first {
                [r, f].concat()
            } else {
                [f, r].concat()
            }
        })
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_verdict(
            bytes in stream(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            at.sort_unstable();
            let mut chunks = Vec::new();
            let mut from = 0;
            for to in at {
                chunks.push(&bytes[from..to]);
                from = to;
            }
            chunks.push(&bytes[from..]);
            prop_assert_eq!(run(30, &chunks), run(30, &[&bytes]));
        }
    }
}
