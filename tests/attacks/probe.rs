//! One attack's run: the server's usage before and after, and well-behaved clients on
//! other connections — a gRPC Health check and an HTTP GET, each on a new connection
//! every 250 ms — for as long as the attack lasts.

use crate::target::{Target, Usage};
use std::future::Future;
use std::time::{Duration, Instant};

/// What an attack cost the server, and how the well-behaved clients fared.
#[derive(Debug)]
pub struct Report<T> {
    /// What the attack saw.
    pub attack: T,
    /// How long the attack ran.
    pub took: Duration,
    pub before: Usage,
    pub after: Usage,
    /// CPU the server used in the second after the attack ended.
    pub cpu_after: Duration,
    /// The slowest answer to a well-behaved client, of each kind.
    pub slowest_health: Duration,
    pub slowest_http: Duration,
    /// Well-behaved calls made, and those that failed with why.
    pub calls: usize,
    pub failures: Vec<String>,
}

impl<T: std::fmt::Debug> Report<T> {
    pub fn rss_growth(&self) -> u64 {
        self.after.rss.saturating_sub(self.before.rss)
    }

    pub fn cpu(&self) -> Duration {
        self.after.cpu.saturating_sub(self.before.cpu)
    }

    /// One line for the log (docs/security.md's attack table is made of them).
    pub fn summary(&self) -> String {
        format!(
            "{:.1}s: server rss {:+} KiB, cpu {} ms (then {} ms idle); well-behaved: {} calls, \
             slowest Health {:.1} ms, HTTP GET {:.1} ms, {} failed; attack: {:?}",
            self.took.as_secs_f64(),
            self.rss_growth() / 1024,
            self.cpu().as_millis(),
            self.cpu_after.as_millis(),
            self.calls,
            self.slowest_health.as_secs_f64() * 1e3,
            self.slowest_http.as_secs_f64() * 1e3,
            self.failures.len(),
            cut(&format!("{:?}", self.attack), 400)
        )
    }

    /// The bounds every attack must respect: memory grown by at most `max_rss`,
    /// CPU during the attack at most `max_cpu`, an idle server the second after,
    /// and every well-behaved call answered within 1 s.
    pub fn check(&self, max_rss: u64, max_cpu: Duration) -> Result<(), String> {
        println!("{}", self.summary());
        let mut wrong = Vec::new();
        if self.rss_growth() > max_rss {
            wrong.push(format!(
                "resident set grew {} KiB (bound {} KiB)",
                self.rss_growth() / 1024,
                max_rss / 1024
            ));
        }
        if self.cpu() > max_cpu {
            wrong.push(format!(
                "the server used {:?} of CPU (bound {max_cpu:?})",
                self.cpu()
            ));
        }
        if self.cpu_after > Duration::from_millis(300) {
            wrong.push(format!(
                "the server still used {:?} of CPU in the second after the attack",
                self.cpu_after
            ));
        }
        if self.calls == 0 {
            wrong.push("no well-behaved call was made".into());
        }
        if !self.failures.is_empty() {
            wrong.push(format!("well-behaved calls failed: {:?}", self.failures));
        }
        for (what, slowest) in [
            ("Health", self.slowest_health),
            ("HTTP GET", self.slowest_http),
        ] {
            if slowest > Duration::from_secs(1) {
                wrong.push(format!(
                    "a well-behaved {what} took {slowest:?} (bound 1 s)"
                ));
            }
        }
        match wrong.is_empty() {
            true => Ok(()),
            false => Err(wrong.join("; ")),
        }
    }
}

/// At most `max` bytes of `text` (a sustained attack's runs fill pages otherwise).
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Runs `attack` against `target` with the well-behaved clients beside it.
pub async fn run<T, F>(target: &Target, attack: F) -> Report<T>
where
    F: Future<Output = T>,
{
    // warm: the first answers build lazy views
    let _ = target.health().await;
    let _ = target.http_get().await;
    let before = target.usage();
    let started = Instant::now();
    let (done_tx, mut done_rx) = tokio::sync::watch::channel(false);
    let clients = async {
        let (mut health, mut http, mut calls) = (Duration::ZERO, Duration::ZERO, 0);
        let mut failures = Vec::new();
        loop {
            match target.health().await {
                Ok(took) => health = health.max(took),
                Err(e) => failures.push(format!("Health: {e}")),
            }
            match target.http_get().await {
                Ok(took) => http = http.max(took),
                Err(e) => failures.push(format!("HTTP GET: {e}")),
            }
            calls += 2;
            let pause = tokio::time::sleep(Duration::from_millis(250));
            tokio::select! {
                _ = pause => {}
                _ = done_rx.wait_for(|d| *d) => break,
            }
        }
        (health, http, calls, failures)
    };
    let attack = async {
        let seen = attack.await;
        let _ = done_tx.send(true);
        seen
    };
    let (attack, (slowest_health, slowest_http, calls, failures)) = tokio::join!(attack, clients);
    let took = started.elapsed();
    let after = target.usage();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let cpu_after = target.usage().cpu.saturating_sub(after.cpu);
    Report {
        attack,
        took,
        before,
        after,
        cpu_after,
        slowest_health,
        slowest_http,
        calls,
        failures,
    }
}
