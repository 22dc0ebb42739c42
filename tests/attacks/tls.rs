//! TLS handshake floods: complete handshakes as fast as a few clients can make them,
//! and handshakes that stop halfway.

use crate::target::Target;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What a flood achieved.
#[derive(Clone, Debug, Default)]
pub struct Flood {
    /// Handshakes completed (or connections opened, for half handshakes).
    pub handshakes: u64,
    /// Connections the server closed, and the latest close after the flood began.
    pub closed: u64,
    pub closed_within: Option<Duration>,
}

/// `clients` tasks, each connecting, completing a handshake and hanging up, for `time`.
pub async fn full_handshakes(
    target: &Target,
    addr: SocketAddr,
    alpn: &[u8],
    clients: usize,
    time: Duration,
) -> Flood {
    let done = Arc::new(AtomicU64::new(0));
    let end = Instant::now() + time;
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let connector = target.tls_connector(alpn);
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            while Instant::now() < end {
                let Ok(tcp) = tokio::net::TcpStream::connect(addr).await else {
                    continue;
                };
                let name = tokio_rustls::rustls::pki_types::ServerName::try_from("localhost")
                    .expect("name");
                if connector.connect(name, tcp).await.is_ok() {
                    done.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    Flood {
        handshakes: done.load(Ordering::Relaxed),
        ..Flood::default()
    }
}

/// `n` connections that send the first bytes of a ClientHello and stop; waits at
/// most `within` for the server to close them all.
pub async fn half_handshakes(addr: SocketAddr, n: usize, within: Duration) -> Flood {
    let started = Instant::now();
    let closed = Arc::new(AtomicU64::new(0));
    let latest = Arc::new(std::sync::Mutex::new(None::<Duration>));
    let mut tasks = Vec::new();
    for _ in 0..n {
        let Ok(mut tcp) = tokio::net::TcpStream::connect(addr).await else {
            continue;
        };
        // a handshake record header that promises 512 bytes, and 4 of them
        let _ = tcp
            .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc])
            .await;
        let (closed, latest) = (closed.clone(), latest.clone());
        tasks.push(tokio::spawn(async move {
            let mut buf = [0u8; 64];
            let read = tokio::time::timeout(within.saturating_sub(started.elapsed()), async {
                loop {
                    match tcp.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                }
            });
            if read.await.is_ok() {
                closed.fetch_add(1, Ordering::Relaxed);
                let mut latest = latest.lock().expect("latest");
                *latest = Some(latest.unwrap_or_default().max(started.elapsed()));
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let closed_within = *latest.lock().expect("latest");
    Flood {
        handshakes: n as u64,
        closed: closed.load(Ordering::Relaxed),
        closed_within,
    }
}
