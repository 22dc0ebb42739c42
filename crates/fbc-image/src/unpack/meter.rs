//! The uncompressed tar streams, counted as the tar reader takes them.
//!
//! In: each layer's decompressed stream, the unpack-size limit, and before each entry a
//! fence (how far the reader may go before it hands over the next entry). Out: the same
//! bytes, until the streams of all layers together pass the limit or the reader passes the
//! fence; then an error, and [`Meter::tripped`] says which.
//!
//! Why both: the entries' own sizes are not all the reading there is. The `tar` crate reads
//! the data of GNU long-name and long-link headers and of PAX headers into memory before it
//! returns the entry they describe, and a PAX `size` record overrides the size in the
//! header; neither is seen entry by entry. The limit bounds the bytes read (a compression
//! bomb stops here, however its headers are dressed), the fence the bytes held in memory.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

/// What stopped the reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trip {
    /// The streams passed the unpack-size limit.
    UnpackSize,
    /// The headers before one entry passed [`MAX_HEADER_BYTES`].
    Headers,
}

/// Most bytes of headers before one entry: its own, GNU long names and links, PAX records
/// (real ones are a few hundred bytes; a name longer than 4096 bytes is refused anyway).
pub(super) const MAX_HEADER_BYTES: u64 = 1 << 20;

/// The count over every layer of one unpack.
#[derive(Debug)]
pub(super) struct Meter {
    limit: u64,
    total: Cell<u64>,
    /// Bytes read from the current layer's stream.
    position: Cell<u64>,
    /// How far into the current layer's stream reading may go, when fenced.
    fence: Cell<Option<u64>>,
    tripped: Cell<Option<Trip>>,
}

impl Meter {
    /// A meter for streams of at most `limit` bytes in all.
    pub(super) fn new(limit: u64) -> Rc<Meter> {
        Rc::new(Meter {
            limit,
            total: Cell::new(0),
            position: Cell::new(0),
            fence: Cell::new(None),
            tripped: Cell::new(None),
        })
    }

    /// `stream`, counted; the next layer's positions start at 0.
    pub(super) fn wrap<'a, R: Read + 'a>(self: &Rc<Meter>, stream: R) -> Box<dyn Read + 'a> {
        self.position.set(0);
        self.fence.set(None);
        Box::new(Metered {
            inner: stream,
            meter: Rc::clone(self),
        })
    }

    /// Until [`unfence`](Self::unfence), reading stops at `headers_from` (where the next
    /// entry's headers start in this layer's stream) plus [`MAX_HEADER_BYTES`].
    pub(super) fn fence(&self, headers_from: u64) {
        self.fence
            .set(Some(headers_from.saturating_add(MAX_HEADER_BYTES)));
    }

    /// Lifts the fence: an entry's data is read within its own size.
    pub(super) fn unfence(&self) {
        self.fence.set(None);
    }

    /// What stopped the reading, if anything did.
    pub(super) fn tripped(&self) -> Option<Trip> {
        self.tripped.get()
    }
}

struct Metered<R> {
    inner: R,
    meter: Rc<Meter>,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let m = &self.meter;
        if let Some(trip) = m.tripped.get() {
            return Err(refused(trip));
        }
        let by_limit = m.limit.saturating_sub(m.total.get());
        let by_fence = m
            .fence
            .get()
            .map_or(u64::MAX, |f| f.saturating_sub(m.position.get()));
        let room = by_limit.min(by_fence);
        // One byte past the room tells a stream that goes on from one that ends there.
        let want = buf
            .len()
            .min(usize::try_from(room.saturating_add(1)).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        let n64 = n as u64;
        if n64 > room {
            let trip = if by_limit <= by_fence {
                Trip::UnpackSize
            } else {
                Trip::Headers
            };
            m.tripped.set(Some(trip));
            return Err(refused(trip));
        }
        m.total.set(m.total.get() + n64);
        m.position.set(m.position.get() + n64);
        Ok(n)
    }
}

fn refused(trip: Trip) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        match trip {
            Trip::UnpackSize => "the layers' uncompressed streams are over the unpack-size limit",
            Trip::Headers => "the headers before an entry (long names, PAX records) are over 1 MiB",
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(meter: &Rc<Meter>, bytes: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        meter.wrap(bytes).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn a_stream_that_ends_at_the_limit_is_read_whole() {
        let meter = Meter::new(5);
        assert_eq!(read_all(&meter, b"12345").expect("read"), b"12345");
        assert_eq!(meter.tripped(), None);
    }

    #[test]
    fn the_limit_counts_every_layer() {
        let meter = Meter::new(5);
        assert_eq!(read_all(&meter, b"123").expect("read"), b"123");
        assert!(read_all(&meter, b"456").is_err());
        assert_eq!(meter.tripped(), Some(Trip::UnpackSize));
    }

    #[test]
    fn a_fence_stops_the_headers_and_lifting_it_lets_data_through() {
        let big = vec![7u8; (MAX_HEADER_BYTES + 10) as usize];
        let meter = Meter::new(u64::MAX);
        let mut stream = meter.wrap(&big[..]);
        meter.unfence();
        let mut first = vec![0u8; 10];
        stream.read_exact(&mut first).expect("unfenced");
        meter.fence(10);
        let mut rest = Vec::new();
        assert_eq!(
            stream.read_to_end(&mut rest).map_err(|e| e.kind()),
            Ok(MAX_HEADER_BYTES as usize),
            "exactly up to the fence"
        );
        let meter = Meter::new(u64::MAX);
        let mut stream = meter.wrap(&big[..]);
        meter.fence(0);
        assert!(stream.read_to_end(&mut Vec::new()).is_err());
        assert_eq!(meter.tripped(), Some(Trip::Headers));
    }
}
