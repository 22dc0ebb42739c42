//! What the run records: per phase latencies, failures and connections, one
//! timeline entry a second, and the replica each client is on; as JSON.

use crate::SAMPLES;
use crate::histogram::Histogram;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tokio::time::Instant;

// What the run records.

#[derive(Default)]
pub(crate) struct Failure {
    pub(crate) count: u64,
    pub(crate) samples: Vec<String>,
}

pub(crate) struct Phase {
    pub(crate) name: String,
    pub(crate) start: f64,
    pub(crate) end: Option<f64>,
    pub(crate) all: Histogram,
    pub(crate) by_rpc: BTreeMap<&'static str, Histogram>,
    pub(crate) failures: BTreeMap<(&'static str, &'static str), Failure>,
    pub(crate) retried: BTreeMap<(&'static str, &'static str), Failure>,
    pub(crate) connects: u64,
    pub(crate) landings: BTreeMap<String, u64>,
    pub(crate) bytes: u64,
}

impl Phase {
    pub(crate) fn new(name: &str, start: f64) -> Self {
        Phase {
            name: name.to_owned(),
            start,
            end: None,
            all: Histogram::new(),
            by_rpc: BTreeMap::new(),
            failures: BTreeMap::new(),
            retried: BTreeMap::new(),
            connects: 0,
            landings: BTreeMap::new(),
            bytes: 0,
        }
    }

    /// A call of `rpc` that took `us` microseconds ended in this phase.
    pub(crate) fn took(&mut self, rpc: &'static str, us: u64) {
        self.all.record(us);
        self.by_rpc
            .entry(rpc)
            .or_insert_with(Histogram::new)
            .record(us);
    }

    pub(crate) fn failed(&self) -> u64 {
        self.failures.values().map(|f| f.count).sum()
    }

    pub(crate) fn json(&self, now: f64) -> Value {
        let end = self.end.unwrap_or(now);
        let secs = (end - self.start).max(1e-9);
        let list = |map: &BTreeMap<(&'static str, &'static str), Failure>| -> Vec<Value> {
            map.iter()
                .map(|((rpc, code), f)| {
                    json!({"rpc": rpc, "code": code, "count": f.count, "samples": f.samples})
                })
                .collect()
        };
        let mut by_code: BTreeMap<&str, u64> = BTreeMap::new();
        for ((_, code), f) in &self.failures {
            *by_code.entry(code).or_default() += f.count;
        }
        let mut latency = Map::new();
        latency.insert("all".to_owned(), latency_json(&self.all));
        for (rpc, h) in &self.by_rpc {
            latency.insert((*rpc).to_owned(), latency_json(h));
        }
        json!({
            "name": self.name,
            "start_s": round3(self.start),
            "end_s": round3(end),
            "duration_s": round3(secs),
            "calls": self.all.total,
            "failed": self.failed(),
            "failed_by_code": by_code,
            "calls_per_s": round3(self.all.total as f64 / secs),
            "reply_mb": round3(self.bytes as f64 / 1e6),
            "latency_us": latency,
            "failures": list(&self.failures),
            "transparent_retries": self.retried.values().map(|f| f.count).sum::<u64>(),
            "transparent_retries_by_cause": list(&self.retried),
            "connects": self.connects,
            "landings": self.landings,
        })
    }
}

pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Everything recorded, behind one lock (calls are counted in microseconds; the
/// lock is held for a few hundred nanoseconds per call).
pub(crate) struct Record {
    pub(crate) phases: Vec<Phase>,
    pub(crate) second: Histogram,
    pub(crate) second_failed: u64,
    pub(crate) timeline: Vec<Value>,
    pub(crate) events: Vec<Value>,
    /// Replica names, interned: a client's `on` is an index + 1 (0: not known).
    pub(crate) replicas: Vec<String>,
}

pub(crate) struct Run {
    pub(crate) t0: Instant,
    pub(crate) record: Mutex<Record>,
    /// Per client: the replica its connection landed on (index into `replicas` + 1).
    pub(crate) on: Vec<AtomicUsize>,
    pub(crate) started: AtomicU64,
}

impl Run {
    pub(crate) fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn phase<'a>(r: &'a mut MutexGuard<'_, Record>) -> Option<&'a mut Phase> {
        r.phases.last_mut()
    }

    pub(crate) fn ok(&self, rpc: &'static str, took: Duration, bytes: usize) {
        let us = took.as_micros() as u64;
        let mut r = self.lock();
        r.second.record(us);
        if let Some(p) = Self::phase(&mut r) {
            p.took(rpc, us);
            p.bytes += bytes as u64;
        }
    }

    pub(crate) fn failed(
        &self,
        rpc: &'static str,
        took: Duration,
        code: &'static str,
        message: String,
    ) {
        let us = took.as_micros() as u64;
        let mut r = self.lock();
        r.second.record(us);
        r.second_failed += 1;
        if let Some(p) = Self::phase(&mut r) {
            p.took(rpc, us);
            let f = p.failures.entry((rpc, code)).or_default();
            f.count += 1;
            if f.samples.len() < SAMPLES && !f.samples.contains(&message) {
                f.samples.push(message);
            }
        }
    }

    /// A call that never reached the server, sent again on a new connection.
    pub(crate) fn retried(&self, rpc: &'static str, code: &'static str, message: String) {
        let mut r = self.lock();
        if let Some(p) = Self::phase(&mut r) {
            let f = p.retried.entry((rpc, code)).or_default();
            f.count += 1;
            if f.samples.len() < SAMPLES && !f.samples.contains(&message) {
                f.samples.push(message);
            }
        }
    }

    pub(crate) fn connected(&self) {
        let mut r = self.lock();
        if let Some(p) = Self::phase(&mut r) {
            p.connects += 1;
        }
    }

    pub(crate) fn landed(&self, client: usize, replica: &str) {
        let mut r = self.lock();
        let id = match r.replicas.iter().position(|n| n == replica) {
            Some(i) => i + 1,
            None => {
                r.replicas.push(replica.to_owned());
                r.replicas.len()
            }
        };
        if let Some(p) = Self::phase(&mut r) {
            *p.landings.entry(replica.to_owned()).or_default() += 1;
        }
        drop(r);
        if let Some(slot) = self.on.get(client) {
            slot.store(id, Ordering::Relaxed);
        }
    }

    pub(crate) fn start_phase(&self, name: &str) {
        let now = self.now();
        let mut r = self.lock();
        if let Some(p) = r.phases.last_mut() {
            p.end = Some(now);
        }
        r.phases.push(Phase::new(name, now));
        r.events
            .push(json!({"t": round3(now), "text": format!("phase {name}")}));
        eprintln!("olm_load: t={now:.1}s phase {name}");
    }

    pub(crate) fn event(&self, text: &str) {
        let now = self.now();
        self.lock()
            .events
            .push(json!({"t": round3(now), "text": text}));
    }

    /// How many clients are on each replica now.
    pub(crate) fn spread(&self, replicas: &[String]) -> BTreeMap<String, u64> {
        let mut counts = vec![0u64; replicas.len() + 1];
        for slot in &self.on {
            let i = slot.load(Ordering::Relaxed);
            if let Some(c) = counts.get_mut(i) {
                *c += 1;
            }
        }
        let mut out = BTreeMap::new();
        for (i, c) in counts.into_iter().enumerate() {
            if c == 0 {
                continue;
            }
            let name = if i == 0 {
                "unknown".to_owned()
            } else {
                replicas[i - 1].clone()
            };
            out.insert(name, c);
        }
        out
    }

    /// Closes the current second: one timeline entry.
    pub(crate) fn tick(&self) -> Value {
        let now = self.now();
        let mut r = self.lock();
        let second = std::mem::replace(&mut r.second, Histogram::new());
        let failed = std::mem::take(&mut r.second_failed);
        let phase = r.phases.last().map(|p| p.name.clone()).unwrap_or_default();
        let replicas = r.replicas.clone();
        drop(r);
        let spread = self.spread(&replicas);
        let entry = json!({
            "t": now.round() as u64,
            "phase": phase,
            "calls": second.total,
            "failed": failed,
            "p50_us": second.quantile(0.5),
            "p99_us": second.quantile(0.99),
            "max_us": second.max,
            "clients": self.started.load(Ordering::Relaxed),
            "by_replica": spread,
        });
        self.lock().timeline.push(entry.clone());
        entry
    }
}

/// A latency histogram (microseconds) as the report gives it.
pub(crate) fn latency_json(h: &Histogram) -> Value {
    json!({
        "count": h.total,
        "mean": h.mean(),
        "p50": h.quantile(0.50),
        "p90": h.quantile(0.90),
        "p99": h.quantile(0.99),
        "p999": h.quantile(0.999),
        "max": h.max,
    })
}
