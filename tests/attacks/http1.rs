//! The HTTP/1.1 attacks on the HTTP listener: slowloris, slow POST, endless headers.

use crate::target::{Conn, Target};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt, WriteHalf};

/// What the server did to one attacking connection.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// The first line the server sent, if any.
    pub status_line: String,
    /// When the server closed, after the attack began.
    pub closed_after: Option<Duration>,
}

/// Several connections' answers.
#[derive(Clone, Debug, Default)]
pub struct Answers(pub Vec<Answer>);

impl Answers {
    /// The latest close, or `None` when some connection was never closed.
    pub fn all_closed_within(&self) -> Option<Duration> {
        self.0
            .iter()
            .map(|a| a.closed_after)
            .try_fold(Duration::ZERO, |m, c| c.map(|c| m.max(c)))
    }
}

struct Attacker {
    write: WriteHalf<Conn>,
    got: Arc<Mutex<(Vec<u8>, Option<Instant>)>>,
}

impl Attacker {
    async fn open(target: &Target) -> Attacker {
        let conn = target.connect(target.http(), b"http/1.1").await;
        let (mut read, write) = tokio::io::split(conn);
        let got = Arc::new(Mutex::new((Vec::new(), None)));
        let out = got.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            loop {
                match read.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => out.lock().expect("got").0.extend_from_slice(&buf[..n]),
                }
            }
            out.lock().expect("got").1 = Some(Instant::now());
        });
        Attacker { write, got }
    }

    fn closed(&self) -> bool {
        self.got.lock().expect("got").1.is_some()
    }

    /// Writes `bytes`; false when the server closed or stopped reading for 1 s.
    async fn send(&mut self, bytes: &[u8]) -> bool {
        let write = tokio::time::timeout(Duration::from_secs(1), self.write.write_all(bytes));
        matches!(write.await, Ok(Ok(()))) && !self.closed()
    }

    fn answer(&self, started: Instant) -> Answer {
        let got = self.got.lock().expect("got");
        let text = String::from_utf8_lossy(&got.0);
        Answer {
            status_line: text.lines().next().unwrap_or_default().to_string(),
            closed_after: got.1.map(|c| c.saturating_duration_since(started)),
        }
    }
}

/// Waits until every attacker was closed, at most `within` from `started`.
async fn settle(attackers: &[Attacker], started: Instant, within: Duration) -> Answers {
    while Instant::now() < started + within && attackers.iter().any(|a| !a.closed()) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Answers(attackers.iter().map(|a| a.answer(started)).collect())
}

/// Slowloris: `n` connections, each sending its request head one byte at a time,
/// a byte every 250 ms, never finishing it.
pub async fn slowloris(target: &Target, n: usize, within: Duration) -> Answers {
    let started = Instant::now();
    let mut attackers = Vec::new();
    for _ in 0..n {
        attackers.push(Attacker::open(target).await);
    }
    let head = b"GET /catalogs/catalog/api/v1/all HTTP/1.1\r\nHost: localhost\r\n";
    let mut trickle = head
        .iter()
        .copied()
        .chain(b"X-Slow: ".iter().copied())
        .chain(std::iter::repeat(b'z'));
    while Instant::now() < started + within && attackers.iter().any(|a| !a.closed()) {
        let byte = [trickle.next().unwrap_or(b'z')];
        for a in attackers.iter_mut().filter(|a| !a.closed()) {
            a.send(&byte).await;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    settle(&attackers, started, within).await
}

/// Slow POST: a GraphQL request whose 100 kB body comes a byte every 200 ms.
pub async fn slow_post(target: &Target, within: Duration) -> Answers {
    let started = Instant::now();
    let mut a = Attacker::open(target).await;
    a.send(
        b"POST /catalogs/catalog/api/v1/graphql HTTP/1.1\r\nHost: localhost\r\n\
          Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"query\": \"",
    )
    .await;
    while Instant::now() < started + within && !a.closed() {
        a.send(b"a").await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    settle(&[a], started, within).await
}

/// Endless headers: a request head that never ends, written as fast as the server
/// reads it.
pub async fn endless_headers(target: &Target, within: Duration) -> Answers {
    let started = Instant::now();
    let mut a = Attacker::open(target).await;
    a.send(b"GET /catalogs/catalog/api/v1/all HTTP/1.1\r\nHost: localhost\r\n")
        .await;
    let line = format!("X-Endless: {}\r\n", "e".repeat(1000));
    while Instant::now() < started + within && a.send(line.as_bytes()).await {}
    settle(&[a], started, within).await
}
