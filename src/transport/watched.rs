//! The reply body both protocols hand their server: a call of its connection,
//! watched for stalls, with what each protocol adds on top.
//!
//! In: a reply body, the [`ConnCall`] started when its request arrived, and a
//! [`Watch`] (the protocol's part). Out: [`Watched`], a body that
//!
//! - keeps the request counted as a call in progress on its connection until the
//!   body is done or dropped, so the idle timeout spares it;
//! - runs the connection's stall clock from each data frame handed to the server
//!   until it asks for the next, so the reaper closes a connection whose client
//!   stopped reading; the clock is unwatched on drop;
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
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                this.watch
                    .frame(&frame, this.call.as_ref().map(|c| c.0.as_ref()));
                if frame.is_data()
                    && let Some(clock) = &this.clock
                {
                    clock.start();
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(this.watch.error(e)))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
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
