//! The reply body both protocols hand their server: a call of its connection,
//! watched for stalls, with what each protocol adds on top.
//!
//! In: a reply body, the [`ConnCall`] started when its request arrived, and a
//! [`Watch`] (the protocol's part). Out: [`Watched`], a body that
//!
//! - keeps the request counted as a call in progress on its connection until the
//!   body is done or dropped, so the idle timeout spares it;
//! - hands the server data frames of at most [`MAX_FRAME_BYTES`] (a larger one
//!   goes in pieces, zero-copy), and runs the connection's stall clock from each
//!   until the server asks for the next, so the reaper closes a connection whose
//!   client stopped reading — or reads slower than one such frame per stall
//!   timeout (about 4–5 KiB/s at the default 60 s); the clock is unwatched on drop;
//! - lets the [`Watch`] refuse to go on (HTTP's write timeout), see each frame
//!   (gRPC counts reply bytes against the budget and reads the status from the
//!   trailers) and map the inner body's error.
//!
//! The gRPC watch passes the inner error through unchanged: tonic recovers a
//! `Status` from a body error by downcasting it, which a wrapper would defeat.

use super::conn::{ConnState, StallClock};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The largest data frame handed to the server: what a stalled client holds
/// hostage before the stall clock runs, and with the stall timeout the slowest
/// reading that is not taken for a stall.
pub const MAX_FRAME_BYTES: usize = 256 * 1024;

/// A request in progress on its connection: counted from the request's arrival
/// until dropped (with the handler, or with the body that answers it).
#[derive(Debug)]
pub struct ConnCall(Arc<ConnState>);

impl ConnCall {
    /// Counts a call on `conn`.
    pub fn start(conn: Arc<ConnState>) -> Self {
        conn.call_started();
        ConnCall(conn)
    }
}

impl Drop for ConnCall {
    fn drop(&mut self) {
        self.0.call_ended();
    }
}

/// What a protocol adds to a [`Watched`] body.
pub trait Watch<E> {
    /// The body's error.
    type Error;
    /// Asked before each poll of the inner body: an error ends the body with it.
    fn check(&mut self) -> Result<(), Self::Error>;
    /// Each frame the inner body yields, with the connection it goes to.
    fn frame(&mut self, frame: &Frame<Bytes>, conn: Option<&ConnState>);
    /// The inner body's error as the body's.
    fn error(&mut self, error: E) -> Self::Error;
}

/// A reply body counted as a call of its connection (see the module docs).
pub struct Watched<B, W> {
    inner: B,
    watch: W,
    clock: Option<Arc<StallClock>>,
    /// What is left of a data frame larger than [`MAX_FRAME_BYTES`].
    rest: Bytes,
    // Dropped last: the call ends once the body and its watch are gone.
    call: Option<ConnCall>,
}

impl<B, W> Watched<B, W> {
    /// Watches `inner` as the answer of `call` (none when the connection is not
    /// known, as in unit tests of a protocol layer).
    pub fn new(inner: B, call: Option<ConnCall>, watch: W) -> Self {
        let clock = call.as_ref().map(|c| c.0.watch());
        Watched {
            inner,
            watch,
            clock,
            rest: Bytes::new(),
            call,
        }
    }
}

impl<B, W> Drop for Watched<B, W> {
    fn drop(&mut self) {
        if let (Some(call), Some(clock)) = (&self.call, &self.clock) {
            call.0.unwatch(clock);
        }
    }
}

impl<B, W> Body for Watched<B, W>
where
    B: Body<Data = Bytes> + Unpin,
    W: Watch<B::Error> + Unpin,
{
    type Data = Bytes;
    type Error = W::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, W::Error>>> {
        let this = self.get_mut();
        // The server asks for more: whatever it had is on its way.
        if let Some(clock) = &this.clock {
            clock.stop();
        }
        if let Err(e) = this.watch.check() {
            return Poll::Ready(Some(Err(e)));
        }
        let frame = if this.rest.is_empty() {
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => {
                        this.rest = data;
                        Frame::data(next_piece(&mut this.rest))
                    }
                    Err(frame) => frame,
                },
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(this.watch.error(e)))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        } else {
            Frame::data(next_piece(&mut this.rest))
        };
        this.watch
            .frame(&frame, this.call.as_ref().map(|c| c.0.as_ref()));
        if frame.is_data()
            && let Some(clock) = &this.clock
        {
            clock.start();
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower().saturating_add(rest));
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper.saturating_add(rest));
        }
        hint
    }
}

/// The next at most [`MAX_FRAME_BYTES`] of `rest` (all of it if it is no longer).
fn next_piece(rest: &mut Bytes) -> Bytes {
    if rest.len() <= MAX_FRAME_BYTES {
        std::mem::take(rest)
    } else {
        rest.split_to(MAX_FRAME_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::budget::Budget;
    use crate::transport::conn::now_ms;
    use http_body_util::BodyExt;
    use std::collections::VecDeque;

    /// A body of ready frames and errors.
    struct Frames(VecDeque<Result<Frame<Bytes>, String>>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = String;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, String>>> {
            Poll::Ready(self.get_mut().0.pop_front())
        }
    }

    /// A watch that counts frames and refuses once told to.
    #[derive(Default)]
    struct Recorder {
        frames: usize,
        refuse: bool,
    }

    impl Watch<String> for Recorder {
        type Error = String;
        fn check(&mut self) -> Result<(), String> {
            if self.refuse {
                return Err("stop".into());
            }
            Ok(())
        }
        fn frame(&mut self, _: &Frame<Bytes>, _: Option<&ConnState>) {
            self.frames += 1;
        }
        fn error(&mut self, error: String) -> String {
            format!("inner: {error}")
        }
    }

    fn conn() -> Arc<ConnState> {
        Arc::new(ConnState::new(1, None, Arc::new(Budget::new(1 << 20, 8))))
    }

    #[tokio::test]
    async fn the_call_lasts_as_long_as_the_body_and_the_clock_runs_between_frames() {
        let conn = conn();
        let frames = Frames([Ok(Frame::data(Bytes::from_static(b"ab")))].into());
        let call = Some(ConnCall::start(conn.clone()));
        let mut watched = Watched::new(frames, call, Recorder::default());
        assert_eq!(conn.active_calls(), 1);
        let frame = watched.frame().await.expect("a frame").expect("ok");
        assert_eq!(frame.data_ref().map(Bytes::len), Some(2));
        // handed on and not asked for again: the clock runs
        assert!(conn.longest_stall_ms(now_ms() + 10).is_some());
        assert!(watched.frame().await.is_none());
        // asked again: stopped
        assert!(conn.longest_stall_ms(now_ms() + 10).is_none());
        assert_eq!(watched.watch.frames, 1);
        drop(watched);
        assert_eq!(conn.active_calls(), 0);
    }

    #[tokio::test]
    async fn large_frames_go_in_pieces_each_watched_and_counted_in_the_size_hint() {
        let big = Bytes::from(vec![7u8; MAX_FRAME_BYTES * 2 + 5]);
        let frames = Frames(
            [
                Ok(Frame::data(Bytes::from_static(b"ab"))),
                Ok(Frame::data(big)),
                Ok(Frame::trailers(http::HeaderMap::new())),
            ]
            .into(),
        );
        let mut watched = Watched::new(frames, Some(ConnCall::start(conn())), Recorder::default());
        let mut seen = Vec::new();
        while let Some(frame) = watched.frame().await {
            let frame = frame.expect("ok");
            seen.push(frame.data_ref().map_or(0, Bytes::len));
            if seen.len() == 2 {
                // a piece out, the rest still to come: neither over nor counted twice
                assert!(!watched.is_end_stream());
                assert_eq!(watched.size_hint().lower(), (MAX_FRAME_BYTES + 5) as u64);
            }
        }
        assert_eq!(seen, vec![2, MAX_FRAME_BYTES, MAX_FRAME_BYTES, 5, 0]);
        assert_eq!(watched.watch.frames, 5);
    }

    #[tokio::test]
    async fn the_watch_can_refuse_and_maps_the_inner_error() {
        let refuse = Recorder {
            refuse: true,
            ..Recorder::default()
        };
        let frames = Frames([Ok(Frame::data(Bytes::from_static(b"ab")))].into());
        let mut refused = Watched::new(frames, Some(ConnCall::start(conn())), refuse);
        let got = refused.frame().await.expect("an item");
        assert_eq!(got.err().as_deref(), Some("stop"));
        let mut failing = Watched::new(
            Frames([Err("broken".into())].into()),
            None,
            Recorder::default(),
        );
        let got = failing.frame().await.expect("an item");
        assert_eq!(got.err().as_deref(), Some("inner: broken"));
    }
}
