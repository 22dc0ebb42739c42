//! One phase per RPC: `--concurrency` workers over the connections, calling back
//! to back through the warm-up and the measured window, their [`Stats`] merged.

use crate::MAX_DECODING;
use crate::args::{Args, Rpc};
use crate::calls::call;
use crate::histogram::Histogram;
use crate::targets::Targets;
use fbc_registry::api::registry_client::RegistryClient;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tonic::transport::Channel;

pub(crate) struct Stats {
    pub(crate) calls: u64,
    pub(crate) errors: u64,
    pub(crate) bytes: u64,
    pub(crate) hist: Histogram,
    pub(crate) first_error: Option<String>,
}

impl Stats {
    fn new() -> Self {
        Stats {
            calls: 0,
            errors: 0,
            bytes: 0,
            hist: Histogram::new(),
            first_error: None,
        }
    }

    fn merge(&mut self, other: Stats) {
        self.calls += other.calls;
        self.errors += other.errors;
        self.bytes += other.bytes;
        self.hist.merge(&other.hist);
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

struct Window {
    measure_start: Instant,
    end: Instant,
    timeout: Duration,
    /// Calls left in the phase, if bounded.
    budget: Option<Arc<AtomicU64>>,
}

async fn worker(
    mut client: RegistryClient<Channel>,
    rpc: Rpc,
    targets: Arc<Targets>,
    mut i: usize,
    w: Arc<Window>,
) -> Stats {
    let mut st = Stats::new();
    loop {
        let started = Instant::now();
        if started >= w.end {
            break;
        }
        if let Some(b) = &w.budget
            && b.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_err()
        {
            break;
        }
        let deadline = (started + w.timeout).min(w.end);
        let result = tokio::time::timeout_at(deadline, call(&mut client, rpc, &targets, i)).await;
        i = i.wrapping_add(1);
        let done = Instant::now();
        let counted = done >= w.measure_start;
        match result {
            Ok(Ok(bytes)) => {
                if counted {
                    st.calls += 1;
                    st.bytes += bytes;
                    st.hist
                        .record(u64::try_from((done - started).as_nanos()).unwrap_or(u64::MAX));
                }
            }
            Ok(Err(status)) => {
                if counted {
                    st.errors += 1;
                }
                st.first_error
                    .get_or_insert_with(|| format!("{:?}: {}", status.code(), status.message()));
            }
            // Out of time: the run is over, the call is dropped uncounted.
            Err(_) if deadline >= w.end => break,
            Err(_) => {
                if counted {
                    st.errors += 1;
                }
                st.first_error
                    .get_or_insert_with(|| format!("timed out after {:?}", w.timeout));
            }
        }
    }
    st
}

pub(crate) async fn run_phase(
    rpc: Rpc,
    channels: &[Channel],
    targets: &Arc<Targets>,
    args: &Args,
) -> (Stats, Duration) {
    let n = targets.count(rpc);
    let concurrency = args.concurrency as usize;
    let start = Instant::now();
    let w = Arc::new(Window {
        measure_start: start + args.warmup,
        end: start + args.warmup + args.duration,
        timeout: args.timeout,
        budget: args.max_calls.map(|m| Arc::new(AtomicU64::new(m))),
    });
    let mut tasks = JoinSet::new();
    for task in 0..concurrency {
        let client = RegistryClient::new(channels[task % channels.len()].clone())
            .max_decoding_message_size(MAX_DECODING);
        let offset = task * n / concurrency;
        tasks.spawn(worker(client, rpc, targets.clone(), offset, w.clone()));
    }
    // Workers stop by themselves at `end`; this only guards against a stuck runtime.
    let hard_stop = w.end + Duration::from_secs(10);
    let mut total = Stats::new();
    loop {
        match tokio::time::timeout_at(hard_stop, tasks.join_next()).await {
            Ok(Some(Ok(st))) => total.merge(st),
            Ok(Some(Err(e))) => eprintln!("load: {}: a worker failed: {e}", rpc.name()),
            Ok(None) => break,
            Err(_) => {
                eprintln!(
                    "load: {}: workers did not stop in time; aborted",
                    rpc.name()
                );
                tasks.abort_all();
                break;
            }
        }
    }
    let measured = Instant::now()
        .min(w.end)
        .saturating_duration_since(w.measure_start);
    (total, measured)
}
