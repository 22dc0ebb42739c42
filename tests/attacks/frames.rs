//! A raw HTTP/2 client for attacks: frames written byte by byte, as no well-behaved
//! client library would write them (h2 refuses to send a CONTINUATION flood, a
//! reset storm or a window overflow — rightly), and the server's frames read back
//! as events.
//!
//! Hand-written on purpose: the point is to send what correct crates never send.
//! Header blocks use HPACK's literal forms and static-table indexes only (no
//! Huffman), which every decoder must accept (RFC 7541 §6).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Frame types (RFC 9113 §6).
pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const RST_STREAM: u8 = 0x3;
pub const SETTINGS: u8 = 0x4;
pub const PING: u8 = 0x6;
pub const GOAWAY: u8 = 0x7;
pub const WINDOW_UPDATE: u8 = 0x8;
pub const CONTINUATION: u8 = 0x9;

/// Flags.
pub const END_STREAM: u8 = 0x1;
pub const ACK: u8 = 0x1;
pub const END_HEADERS: u8 = 0x4;

/// Error codes (RFC 9113 §7).
pub const PROTOCOL_ERROR: u32 = 0x1;
pub const FLOW_CONTROL_ERROR: u32 = 0x3;
pub const CANCEL: u32 = 0x8;
pub const FRAME_SIZE_ERROR: u32 = 0x6;
pub const ENHANCE_YOUR_CALM: u32 = 0xb;

/// SETTINGS_INITIAL_WINDOW_SIZE.
pub const INITIAL_WINDOW_SIZE: u16 = 0x4;

/// The client connection preface.
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// One frame's bytes.
pub fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len() as u32;
    let mut out = Vec::with_capacity(9 + payload.len());
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// A SETTINGS frame with these (identifier, value) pairs.
pub fn settings(pairs: &[(u16, u32)]) -> Vec<u8> {
    let payload: Vec<u8> = pairs
        .iter()
        .flat_map(|(id, value)| [id.to_be_bytes().as_slice(), &value.to_be_bytes()].concat())
        .collect();
    frame(SETTINGS, 0, 0, &payload)
}

/// RST_STREAM with `code`.
pub fn rst_stream(stream: u32, code: u32) -> Vec<u8> {
    frame(RST_STREAM, 0, stream, &code.to_be_bytes())
}

/// WINDOW_UPDATE of `increment` on `stream` (0: the connection).
pub fn window_update(stream: u32, increment: u32) -> Vec<u8> {
    frame(WINDOW_UPDATE, 0, stream, &increment.to_be_bytes())
}

/// An HPACK integer with an `n`-bit prefix, its first byte or-ed with `first`.
fn hpack_int(out: &mut Vec<u8>, first: u8, n: u32, mut value: usize) {
    let max = (1usize << n) - 1;
    if value < max {
        out.push(first | value as u8);
        return;
    }
    out.push(first | max as u8);
    value -= max;
    while value >= 128 {
        out.push((value % 128 + 128) as u8);
        value /= 128;
    }
    out.push(value as u8);
}

fn hpack_string(out: &mut Vec<u8>, text: &[u8]) {
    hpack_int(out, 0, 7, text.len());
    out.extend_from_slice(text);
}

/// A header block builder.
#[derive(Default)]
pub struct Block(pub Vec<u8>);

impl Block {
    /// A header from the static table by index (2 `:method GET`, 3 `:method POST`,
    /// 4 `:path /`, 6 `:scheme http`, 7 `:scheme https`).
    pub fn indexed(mut self, index: usize) -> Block {
        hpack_int(&mut self.0, 0x80, 7, index);
        self
    }

    /// A literal header, not added to the dynamic table.
    pub fn literal(mut self, name: &str, value: &[u8]) -> Block {
        self.0.push(0x00);
        hpack_string(&mut self.0, name.as_bytes());
        hpack_string(&mut self.0, value);
        self
    }

    /// A literal header added to the dynamic table (it becomes index 62).
    pub fn indexing(mut self, name: &str, value: &[u8]) -> Block {
        self.0.push(0x40);
        hpack_string(&mut self.0, name.as_bytes());
        hpack_string(&mut self.0, value);
        self
    }

    /// The request headers of a gRPC call of `method` (`/pkg.Service/Method`).
    pub fn grpc(path: &str, tls: bool) -> Block {
        Block::default()
            .indexed(3)
            .indexed(if tls { 7 } else { 6 })
            .literal(":path", path.as_bytes())
            .literal(":authority", b"localhost")
            .literal("content-type", b"application/grpc")
            .literal("te", b"trailers")
    }
}

/// The gRPC message frame of an empty request message.
pub const EMPTY_MESSAGE: [u8; 5] = [0, 0, 0, 0, 0];

/// A call whose reply streams the whole catalog.
pub const LIST_BUNDLES: &str = "/api.Registry/ListBundles";

/// What the server sent on an attacked connection.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// GOAWAY error codes, in order.
    pub goaway: Vec<u32>,
    /// RST_STREAM frames received.
    pub resets: usize,
    /// SETTINGS ACKs and PING ACKs received.
    pub acks: usize,
    /// Frames of any type received.
    pub frames: usize,
    /// Bytes received.
    pub bytes: u64,
    /// When the server closed the connection (read returned 0 or failed).
    pub closed: Option<Instant>,
}

/// Reads the server's frames into a shared [`Seen`] until the connection ends.
pub fn watch<R: AsyncRead + Unpin + Send + 'static>(mut read: R) -> Arc<Mutex<Seen>> {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let out = seen.clone();
    tokio::spawn(async move {
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = match read.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            buf.extend_from_slice(&chunk[..n]);
            let mut seen = out.lock().expect("seen");
            seen.bytes += n as u64;
            // the server's preface starts with its SETTINGS: frames from byte 0
            while buf.len() >= 9 {
                let len = u32::from_be_bytes([0, buf[0], buf[1], buf[2]]) as usize;
                if buf.len() < 9 + len {
                    break;
                }
                let (kind, flags) = (buf[3], buf[4]);
                seen.frames += 1;
                match kind {
                    GOAWAY if len >= 8 => {
                        let code = u32::from_be_bytes([buf[13], buf[14], buf[15], buf[16]]);
                        seen.goaway.push(code);
                    }
                    RST_STREAM => seen.resets += 1,
                    SETTINGS | PING if flags & ACK != 0 => seen.acks += 1,
                    _ => {}
                }
                buf.drain(..9 + len);
            }
        }
        if let Ok(mut seen) = out.lock() {
            seen.closed = Some(Instant::now());
        }
    });
    seen
}

/// Writes `bytes`; false once the server closed the connection or `deadline` passed
/// (a server that stops reading blocks the write: that is one of the bounds).
pub async fn send<W: AsyncWrite + Unpin>(write: &mut W, bytes: &[u8], deadline: Instant) -> bool {
    let left = deadline.saturating_duration_since(Instant::now());
    matches!(
        tokio::time::timeout(left, write.write_all(bytes)).await,
        Ok(Ok(()))
    )
}

/// Waits until `check` holds for what was seen, or `within` passed.
pub async fn until(
    seen: &Arc<Mutex<Seen>>,
    within: Duration,
    check: impl Fn(&Seen) -> bool,
) -> Seen {
    let end = Instant::now() + within;
    loop {
        let now = seen.lock().expect("seen").clone();
        if check(&now) || Instant::now() >= end {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
