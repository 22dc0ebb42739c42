//! The gRPC listener's HTTP/2 server: hyper's, fed the connections [`crate::transport`] tracks.
//!
//! In: accepted connections ([`ServedIo`], plain or after TLS), the service that
//! answers each request (tonic's routes under the admission layer), the
//! [`TransportLimits`] and a shutdown signal. Out: each connection served with the
//! limits' HTTP/2 settings until it closes or ages out; at shutdown the accepting
//! stops (the incoming stream is dropped, which closes the listener), every
//! connection gets a GOAWAY and finishes its calls, and [`serve`] returns once all
//! are gone (the caller's shutdown grace closes those that take too long).
//!
//! Written here rather than left to tonic's `Server` for the connection age. tonic
//! 0.14 gives every connection the same age and, given a grace, never sends the
//! GOAWAY at the age: it sleeps for age + grace and drops the connection with its
//! calls in flight. Here each connection gets its own age ([`connection_age`],
//! spread over ±10 % as grpc-go spreads MaxConnectionAge, so clients that connected
//! together do not all come back together one age later), the GOAWAY at that age,
//! and then the grace for its calls before it is closed. What tonic's server adds
//! per request is not needed: the routes never fail (`Infallible`), and a client's
//! `grpc-timeout` is the client's to enforce (grpc-go's client resets the stream at
//! its deadline, which drops the call here; grpc-go's server sends nothing of its
//! own at the deadline either).

use crate::transport::conn::ConnInfo;
use crate::transport::limits::{self, TransportLimits};
use crate::transport::served_io::ServedIo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::pin::pin;
use std::time::Duration;
use tokio::sync::watch;
use tokio_stream::{Stream, StreamExt};
use tower::ServiceExt;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Serves every connection `incoming` yields with `service` until `shutdown`
/// resolves, then as described in the module docs. Each request reaches `service`
/// with its connection's [`ConnInfo`] in its extensions.
pub async fn serve<S, B>(
    incoming: impl Stream<Item = ServedIo>,
    service: S,
    limits: TransportLimits,
    shutdown: impl Future<Output = ()>,
) where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<B>,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let builder = http2_builder(&limits);
    let (stop_tx, stop_rx) = watch::channel(false);
    {
        let mut incoming = pin!(incoming);
        let mut shutdown = pin!(shutdown);
        loop {
            let io = tokio::select! {
                () = &mut shutdown => break,
                io = incoming.next() => match io {
                    Some(io) => io,
                    None => break,
                },
            };
            let age = limits.max_connection_age.map(|age| Aging {
                age: connection_age(age, io.conn().state().id),
                grace: limits.max_connection_age_grace,
            });
            let info = ConnInfo(io.conn().state().clone());
            let service = TowerToHyperService::new(service.clone().map_request(
                move |request: http::Request<Incoming>| {
                    let mut request = request.map(tonic::body::Body::new);
                    request.extensions_mut().insert(info.clone());
                    request
                },
            ));
            let connection = builder.serve_connection(TokioIo::new(io), service);
            tokio::spawn(run_connection(connection, age, stop_rx.clone()));
        }
    }
    let _ = stop_tx.send(true);
    drop(stop_rx);
    stop_tx.closed().await;
}

/// hyper's HTTP/2 server with the limits' settings (tonic's defaults otherwise).
fn http2_builder(limits: &TransportLimits) -> hyper::server::conn::http2::Builder<TokioExecutor> {
    let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        .initial_connection_window_size(limits::CONNECTION_RECEIVE_WINDOW)
        .initial_stream_window_size(limits::STREAM_RECEIVE_WINDOW)
        .max_concurrent_streams(limits.max_concurrent_streams)
        .keep_alive_interval(limits.keepalive())
        .keep_alive_timeout(limits.keepalive_timeout)
        .max_pending_accept_reset_streams(Some(limits::MAX_PENDING_ACCEPT_RESETS))
        .max_local_error_reset_streams(Some(limits::MAX_LOCAL_ERROR_RESETS))
        .max_header_list_size(limits::MAX_HEADER_LIST_BYTES);
    builder
}

/// When a connection is sent away, and how long its calls then get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Aging {
    /// From the start of serving to the GOAWAY.
    age: Duration,
    /// From the GOAWAY to the close (`None`: as long as the calls take).
    grace: Option<Duration>,
}

/// Serves one connection until it ends: a GOAWAY at its age or at shutdown, then
/// its calls finish, or the grace after the age ends it.
async fn run_connection<C>(connection: C, aging: Option<Aging>, mut stop: watch::Receiver<bool>)
where
    C: Future<Output = Result<(), hyper::Error>> + GracefulShutdown,
{
    let mut connection = pin!(connection);
    let mut aged = pin!(sleep_or_never(aging.map(|a| a.age)));
    let mut graced = pin!(sleep_or_never(None));
    let mut stopping = pin!(stop.wait_for(|stop| *stop));
    let mut going_away = false;
    loop {
        tokio::select! {
            served = connection.as_mut() => {
                if let Err(error) = served {
                    tracing::debug!(%error, "connection ended with an error");
                }
                return;
            }
            () = &mut aged, if !going_away => {
                going_away = true;
                connection.as_mut().graceful_shutdown();
                graced.set(sleep_or_never(aging.and_then(|a| a.grace)));
            }
            _ = &mut stopping, if !going_away => {
                going_away = true;
                connection.as_mut().graceful_shutdown();
            }
            () = &mut graced => {
                tracing::debug!("closing a connection past --max-connection-age and its grace");
                return;
            }
        }
    }
}

/// A connection hyper serves, which can be told to finish (a trait so the aging
/// can be tested without sockets).
trait GracefulShutdown {
    /// Sends GOAWAY and ends the connection once its streams are done.
    fn graceful_shutdown(self: std::pin::Pin<&mut Self>);
}

impl<I, S, E> GracefulShutdown for hyper::server::conn::http2::Connection<I, S, E>
where
    S: hyper::service::HttpService<Incoming>,
    S::Error: Into<BoxError>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    S::ResBody: http_body::Body + 'static,
    <S::ResBody as http_body::Body>::Error: Into<BoxError>,
    E: hyper::rt::bounds::Http2ServerConnExec<S::Future, S::ResBody>,
{
    fn graceful_shutdown(self: std::pin::Pin<&mut Self>) {
        hyper::server::conn::http2::Connection::graceful_shutdown(self);
    }
}

async fn sleep_or_never(after: Option<Duration>) {
    match after {
        Some(after) => tokio::time::sleep(after).await,
        None => std::future::pending().await,
    }
}

/// The age of connection `id`: `age` times a factor in [0.9, 1.1) — the fractional
/// part of `id` times the golden ratio, so that consecutive connections get ages
/// spread evenly over the range (grpc-go draws its ±10 % at random; this is the
/// same spread, and the same answer every run).
pub fn connection_age(age: Duration, id: u64) -> Duration {
    const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
    let fraction = id.wrapping_mul(GOLDEN) as f64 / 18_446_744_073_709_551_616.0;
    Duration::try_from_secs_f64(age.as_secs_f64() * (0.9 + 0.2 * fraction)).unwrap_or(age)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll, Waker};
    use tokio::time::Instant;

    /// A connection whose calls end at the GOAWAY, or never.
    #[derive(Clone, Default)]
    struct Fake {
        goaway_at: Arc<Mutex<Option<Instant>>>,
        waker: Arc<Mutex<Option<Waker>>>,
        calls_never_end: bool,
    }

    impl Future for Fake {
        type Output = Result<(), hyper::Error>;
        fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            let going_away = self.goaway_at.lock().map(|g| g.is_some()).unwrap_or(false);
            if going_away && !self.calls_never_end {
                return Poll::Ready(Ok(()));
            }
            if let Ok(mut waker) = self.waker.lock() {
                *waker = Some(cx.waker().clone());
            }
            Poll::Pending
        }
    }

    impl GracefulShutdown for Fake {
        fn graceful_shutdown(self: std::pin::Pin<&mut Self>) {
            if let Ok(mut at) = self.goaway_at.lock() {
                at.get_or_insert_with(Instant::now);
            }
            if let Some(waker) = self.waker.lock().ok().and_then(|mut w| w.take()) {
                waker.wake();
            }
        }
    }

    /// Runs `fake` to its end (or for a day); when it ended and when its GOAWAY came,
    /// in seconds from the start.
    async fn run(fake: Fake, aging: Option<Aging>, stop_after: Option<u64>) -> (u64, Option<u64>) {
        let start = Instant::now();
        let (stop_tx, stop_rx) = watch::channel(false);
        let stopper = async move {
            match stop_after {
                Some(s) => {
                    tokio::time::sleep(Duration::from_secs(s)).await;
                    let _ = stop_tx.send(true);
                    std::future::pending::<()>().await
                }
                None => std::future::pending().await,
            }
        };
        let day = tokio::time::sleep(Duration::from_secs(86_400));
        tokio::select! {
            () = run_connection(fake.clone(), aging, stop_rx) => {}
            () = stopper => {}
            () = day => {}
        }
        let secs = |t: Instant| t.duration_since(start).as_secs();
        let goaway = fake.goaway_at.lock().ok().and_then(|g| g.map(secs));
        (secs(Instant::now()), goaway)
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_is_sent_away_at_its_age_and_closed_after_the_grace() {
        let aging = Some(Aging {
            age: Duration::from_secs(600),
            grace: Some(Duration::from_secs(30)),
        });
        let finishing = Fake::default();
        assert_eq!(run(finishing, aging, None).await, (600, Some(600)));
        let stuck = Fake {
            calls_never_end: true,
            ..Fake::default()
        };
        assert_eq!(run(stuck, aging, None).await, (630, Some(600)));
        let graceless = Some(Aging {
            age: Duration::from_secs(600),
            grace: None,
        });
        let stuck = Fake {
            calls_never_end: true,
            ..Fake::default()
        };
        assert_eq!(run(stuck, graceless, None).await, (86_400, Some(600)));
        // shutdown before the age: a GOAWAY then, and the calls take what they take
        let stopped = Fake::default();
        assert_eq!(run(stopped, aging, Some(5)).await, (5, Some(5)));
        let ageless = Fake::default();
        assert_eq!(run(ageless, None, None).await, (86_400, None));
    }

    #[test]
    fn ages_spread_evenly_over_ten_percent_either_side() {
        let age = Duration::from_secs(600);
        let ages: Vec<Duration> = (1..=1000).map(|id| connection_age(age, id)).collect();
        assert!(
            ages.iter()
                .all(|a| *a >= age.mul_f64(0.9) && *a < age.mul_f64(1.1))
        );
        // every twentieth of the range gets its share (50 each), give or take a few
        let mut bins = [0usize; 20];
        for a in &ages {
            let bin = ((a.as_secs_f64() / 600.0 - 0.9) / 0.01) as usize;
            bins[bin.min(19)] += 1;
        }
        assert!(bins.iter().all(|n| (45..=55).contains(n)), "{bins:?}");
        // consecutive connections never leave within the same second
        assert!(
            ages.windows(2)
                .all(|w| w[0].abs_diff(w[1]) >= Duration::from_secs(1))
        );
        assert_eq!(connection_age(age, 7), connection_age(age, 7));
        assert_eq!(connection_age(Duration::ZERO, 3), Duration::ZERO);
        for id in 0..64 {
            let _ = connection_age(Duration::MAX, id); // never panics on overflow
        }
    }
}
