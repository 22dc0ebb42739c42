//! Admission control: which calls start, and what their replies may hold.
//!
//! In: every HTTP/2 request tonic routes, with its connection's [`ConnInfo`] in the
//! extensions. Out: RESOURCE_EXHAUSTED at once for a call beyond
//! `max_inflight_calls` (`server busy: N calls in flight`) or while more than
//! `max_buffered_reply_bytes` wait on slow clients — never a queue; otherwise the
//! call, with its request body bounded ([`RequestBody`]) and its reply body counted
//! (a [`Watched`] body): every data frame handed to hyper counts against the [`Budget`]
//! until its connection has written as many bytes, and starts the connection's stall
//! clock until hyper asks for the next frame. Health checks and reflection are
//! exempt from those caps, so probes answer however busy the registry is: health
//! checks are capped per connection only ([`MAX_HEALTH_CALLS_PER_CONNECTION`];
//! kubelet and grpc_health_probe open a connection per probe, so no other client
//! can use up a probe's share), reflection has a pool of its own
//! ([`MAX_REFLECTION_CALLS`]). Each call ends with one debug line: method, status,
//! elapsed time (the method is copied only when debug logging is on).

use super::request::RequestBody;
use crate::transport::budget::{Budget, Class};
use crate::transport::conn::{ConnInfo, ConnState};
use crate::transport::limits::{MAX_HEALTH_CALLS_PER_CONNECTION, MAX_REFLECTION_CALLS};
use crate::transport::watched::{ConnCall, Watch, Watched};
use bytes::{Buf, Bytes};
use http_body::{Body, Frame};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Instant;
use tonic::{Code, Status};

/// The pool of a gRPC method path.
pub fn classify(path: &str) -> Class {
    const REFLECTION: [&str; 2] = [
        "/grpc.reflection.v1.ServerReflection/",
        "/grpc.reflection.v1alpha.ServerReflection/",
    ];
    if path.starts_with("/grpc.health.v1.Health/") {
        Class::Health
    } else if REFLECTION.iter().any(|p| path.starts_with(p)) {
        Class::Reflection
    } else {
        Class::Counted
    }
}

/// Why a call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Busy {
    /// The call cap is reached.
    #[error("server busy: {0} calls in flight")]
    Calls(usize),
    /// The byte budget is spent.
    #[error("server busy: {0} bytes waiting on slow clients")]
    Bytes(usize),
    /// The connection has too many health checks in flight.
    #[error("server busy: {0} health checks in flight on this connection")]
    HealthChecks(usize),
}

/// A call's place in its pool, given back on drop.
#[derive(Debug)]
pub enum Permit {
    /// A registry or reflection call.
    Pooled(Arc<Budget>, Class),
    /// A health check, counted on its connection (if known).
    Health(Option<Arc<ConnState>>),
}

impl Drop for Permit {
    fn drop(&mut self) {
        match self {
            Permit::Pooled(budget, class) => {
                if let Some(pool) = budget.pool(*class) {
                    pool.fetch_sub(1, Ordering::AcqRel);
                }
            }
            Permit::Health(Some(conn)) => conn.health_check_ended(),
            Permit::Health(None) => {}
        }
    }
}

impl Budget {
    /// A place for one call of `class` on `conn`, or why there is none.
    pub fn admit(
        self: &Arc<Self>,
        class: Class,
        conn: Option<&Arc<ConnState>>,
    ) -> Result<Permit, Busy> {
        let max = match class {
            Class::Health => {
                return match conn {
                    Some(conn) => conn
                        .try_start_health_check(MAX_HEALTH_CALLS_PER_CONNECTION)
                        .map(|()| Permit::Health(Some(conn.clone())))
                        .map_err(Busy::HealthChecks),
                    None => Ok(Permit::Health(None)),
                };
            }
            Class::Counted => {
                let used = self.used();
                if used > self.limit() {
                    return Err(Busy::Bytes(used));
                }
                self.max_calls()
            }
            Class::Reflection => MAX_REFLECTION_CALLS,
        };
        // Every class but health (answered above) has a pool.
        let Some(pool) = self.pool(class) else {
            return Ok(Permit::Health(None));
        };
        pool.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < max).then_some(n + 1)
        })
        .map_err(Busy::Calls)?;
        Ok(Permit::Pooled(self.clone(), class))
    }
}

/// The tower layer in front of tonic's router.
#[derive(Clone, Debug)]
pub struct AdmissionLayer {
    budget: Arc<Budget>,
}

impl AdmissionLayer {
    /// Admission against `budget`.
    pub fn new(budget: Arc<Budget>) -> Self {
        AdmissionLayer { budget }
    }
}

impl<S> tower::Layer<S> for AdmissionLayer {
    type Service = Admission<S>;

    fn layer(&self, inner: S) -> Admission<S> {
        Admission {
            inner,
            budget: self.budget.clone(),
        }
    }
}

/// See the module docs.
#[derive(Clone, Debug)]
pub struct Admission<S> {
    inner: S,
    budget: Arc<Budget>,
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B> tower::Service<http::Request<tonic::body::Body>> for Admission<S>
where
    S: tower::Service<http::Request<tonic::body::Body>, Response = http::Response<B>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: Body<Data = Bytes> + Unpin + Send + 'static,
    B::Error: Into<tonic::codegen::StdError>,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Self::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let start = Instant::now();
        let conn = request.extensions().get::<ConnInfo>().map(|c| c.0.clone());
        let class = classify(request.uri().path());
        // nothing is copied on the request path unless debug logging is on
        let method =
            tracing::enabled!(tracing::Level::DEBUG).then(|| request.uri().path().to_string());
        let permit = match self.budget.admit(class, conn.as_ref()) {
            Ok(permit) => permit,
            Err(busy) => {
                crate::metrics::call_refused(request.uri().path(), Code::ResourceExhausted);
                if let Some(method) = method {
                    tracing::debug!(grpc.method = %method, grpc.status = ?Code::ResourceExhausted, "{busy}");
                }
                let refusal = Status::resource_exhausted(busy.to_string()).into_http();
                return Box::pin(std::future::ready(Ok(refusal)));
            }
        };
        let metric = crate::metrics::call_started(request.uri().path());
        let on_conn = conn.clone().map(ConnCall::start);
        let mut guard = CallGuard::new(permit, method, metric, start);
        let budget = self.budget.clone();
        let awaits_message = class != Class::Reflection;
        let request = request.map(|body| {
            tonic::body::Body::new(RequestBody::new(body, budget, conn, awaits_message))
        });
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = call.await?;
            guard.note_status(response.headers());
            Ok(response.map(|body| tonic::body::Body::new(Watched::new(body, on_conn, guard))))
        })
    }
}

/// One admitted call, from admission until its reply ends or is dropped: its
/// permit, its metrics and its debug line; the reply body's [`Watch`].
///
/// The call is counted when its status is seen — before the frame that
/// carries it is handed to the connection — so a client that has its answer
/// and then scrapes `/metrics` finds its call there. A reply dropped before
/// any status is counted when the guard drops.
struct CallGuard {
    _permit: Permit,
    /// Only with debug logging: the method.
    log: Option<String>,
    /// The method's metrics label.
    metric: &'static str,
    /// Whether the call has been counted and logged.
    ended: bool,
    start: Instant,
}

impl CallGuard {
    fn new(permit: Permit, method: Option<String>, metric: &'static str, start: Instant) -> Self {
        CallGuard {
            _permit: permit,
            log: method,
            metric,
            ended: false,
            start,
        }
    }

    /// Ends the call when headers or trailers carry `grpc-status`.
    fn note_status(&mut self, headers: &http::HeaderMap) {
        if let Some(code) = headers.get("grpc-status") {
            self.end(Some(Code::from_bytes(code.as_bytes())));
        }
    }

    /// Counts and logs the call once, with its status (`None`: the reply was
    /// dropped before one was sent).
    fn end(&mut self, status: Option<Code>) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let elapsed = self.start.elapsed();
        crate::metrics::call_ended(self.metric, status, elapsed);
        if let Some(method) = &self.log {
            let elapsed_us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
            match status {
                Some(code) => {
                    tracing::debug!(grpc.method = %method, grpc.status = ?code, elapsed_us, "call")
                }
                None => {
                    tracing::debug!(grpc.method = %method, grpc.status = "none (reply dropped)", elapsed_us, "call")
                }
            }
        }
    }
}

/// Reply bytes count against the budget until written; the status comes from
/// the trailers; errors pass through unchanged (see [`crate::transport::watched`]).
impl<E> Watch<E> for CallGuard {
    type Error = E;

    fn check(&mut self) -> Result<(), E> {
        Ok(())
    }

    fn frame(&mut self, frame: &Frame<Bytes>, conn: Option<&ConnState>) {
        if let Some(data) = frame.data_ref() {
            if let Some(conn) = conn {
                conn.handed(data.remaining());
            }
        } else if let Some(trailers) = frame.trailers_ref() {
            self.note_status(trailers);
        }
    }

    fn error(&mut self, error: E) -> E {
        error
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.end(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_beyond_the_cap_are_refused_and_permits_come_back() {
        let budget = Arc::new(Budget::new(100, 2));
        let a = budget.admit(Class::Counted, None).expect("first");
        let _b = budget.admit(Class::Counted, None).expect("second");
        assert_eq!(
            budget.admit(Class::Counted, None).map(|_| ()),
            Err(Busy::Calls(2))
        );
        let reflection = budget
            .admit(Class::Reflection, None)
            .expect("reflection has its own pool");
        drop(a);
        drop(reflection);
        assert!(budget.admit(Class::Counted, None).is_ok());
    }

    #[test]
    fn health_checks_are_capped_per_connection_only() {
        let budget = Arc::new(Budget::new(100, 1));
        budget.add(1000);
        let conn = Arc::new(ConnState::new(1, None, budget.clone()));
        let other = Arc::new(ConnState::new(2, None, budget.clone()));
        let held: Vec<_> = (0..MAX_HEALTH_CALLS_PER_CONNECTION)
            .map(|_| {
                budget
                    .admit(Class::Health, Some(&conn))
                    .expect("within the cap")
            })
            .collect();
        assert_eq!(
            budget.admit(Class::Health, Some(&conn)).map(|_| ()),
            Err(Busy::HealthChecks(MAX_HEALTH_CALLS_PER_CONNECTION))
        );
        assert!(budget.admit(Class::Health, Some(&other)).is_ok());
        drop(held);
        assert!(budget.admit(Class::Health, Some(&conn)).is_ok());
    }

    #[test]
    fn calls_are_refused_while_bytes_exceed_the_budget() {
        let budget = Arc::new(Budget::new(100, 8));
        budget.add(101);
        assert_eq!(
            budget.admit(Class::Counted, None).map(|_| ()),
            Err(Busy::Bytes(101))
        );
        assert!(budget.admit(Class::Reflection, None).is_ok());
        assert!(budget.admit(Class::Health, None).is_ok());
        assert!(!budget.try_reserve(1));
        budget.sub(50);
        assert!(budget.try_reserve(49));
        assert!(!budget.try_reserve(1));
    }

    #[test]
    fn health_and_reflection_have_pools_of_their_own() {
        assert_eq!(classify("/grpc.health.v1.Health/Check"), Class::Health);
        assert_eq!(
            classify("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"),
            Class::Reflection
        );
        assert_eq!(classify("/api.Registry/ListBundles"), Class::Counted);
        assert_eq!(classify("/grpc.health.v1.HealthX/Check"), Class::Counted);
    }
}
