//! A layer blob → its tar stream, by the blob's first bytes.
//!
//! In: a reader over a layer blob as stored. Out: a reader over the uncompressed tar. gzip
//! (`1f 8b`, members concatenated as pigz writes them) through flate2, zstd (`28 b5 2f fd`, or a
//! skippable frame first, all frames in sequence as zstd:chunked writes them) through ruzstd
//! (pure Rust, no C build), anything else as a plain tar. The media type is not trusted:
//! containers/image decides by the bytes too.

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{FrameDecoder, StreamingDecoder};
use std::cell::RefCell;
use std::io::{self, BufRead, BufReader, Read};
use std::rc::Rc;

/// How a layer was compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// gzip.
    Gzip,
    /// zstd.
    Zstd,
    /// None: a plain tar.
    None,
}

/// The largest zstd window accepted (128 MiB, the zstd tool's default decompression limit), so a
/// frame cannot make the decoder allocate gigabytes.
const MAX_ZSTD_WINDOW: u64 = 128 * 1024 * 1024;

/// Detects the compression of `blob` from its first bytes and returns the uncompressed stream.
pub fn decompress<'a, R: Read + 'a>(blob: R) -> io::Result<(Compression, Box<dyn Read + 'a>)> {
    let mut reader = BufReader::with_capacity(64 * 1024, blob);
    let head = peek(&mut reader, 4)?;
    let kind = if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head == [0x28, 0xb5, 0x2f, 0xfd]
        || (head.len() == 4 && head[1..] == [0x2a, 0x4d, 0x18] && head[0] & 0xf0 == 0x50)
    {
        Compression::Zstd
    } else {
        Compression::None
    };
    let stream: Box<dyn Read + 'a> = match kind {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(reader)),
        Compression::Zstd => Box::new(ZstdFrames {
            source: Rc::new(RefCell::new(reader)),
            frame: None,
        }),
        Compression::None => Box::new(reader),
    };
    Ok((kind, stream))
}

/// Up to `n` first bytes of `reader`, left in its buffer.
fn peek<R: Read>(reader: &mut BufReader<R>, n: usize) -> io::Result<Vec<u8>> {
    // A BufReader's first fill reads up to its capacity; a short read of a few bytes can only
    // come from a blob that short.
    let buf = reader.fill_buf()?;
    Ok(buf[..buf.len().min(n)].to_vec())
}

/// One reader shared by the frames decoded in turn (a frame decoder owns its source while it
/// runs, and the next frame needs it back even when a frame header turns out to be skippable).
struct Shared<R>(Rc<RefCell<R>>);

impl<R: Read> Read for Shared<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.borrow_mut().read(buf)
    }
}

/// Every zstd frame of a stream in sequence, skippable frames skipped.
struct ZstdFrames<R: BufRead> {
    source: Rc<RefCell<R>>,
    frame: Option<StreamingDecoder<Shared<R>, FrameDecoder>>,
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(frame) = &mut self.frame {
                let n = frame.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                self.frame = None;
            }
            if self.source.borrow_mut().fill_buf()?.is_empty() {
                return Ok(0);
            }
            match StreamingDecoder::new_with_max_window_size(
                Shared(Rc::clone(&self.source)),
                MAX_ZSTD_WINDOW,
            ) {
                Ok(frame) => self.frame = Some(frame),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let mut source = self.source.borrow_mut();
                    let skipped =
                        io::copy(&mut (&mut *source).take(u64::from(length)), &mut io::sink())?;
                    if skipped < u64::from(length) {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "zstd: the stream ends inside a skippable frame",
                        ));
                    }
                }
                Err(e) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("zstd: {e}"),
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(blob: &[u8]) -> (Compression, Vec<u8>) {
        let (kind, mut r) = decompress(blob).expect("decompress");
        let mut out = Vec::new();
        r.read_to_end(&mut out).expect("read");
        (kind, out)
    }

    #[test]
    fn plain_bytes_pass_through() {
        assert_eq!(read_all(b"hello"), (Compression::None, b"hello".to_vec()));
        assert_eq!(read_all(b""), (Compression::None, Vec::new()));
    }

    #[test]
    fn concatenated_gzip_members_are_one_stream() {
        let mut blob = Vec::new();
        for part in [&b"hello, "[..], b"world"] {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(part).expect("gzip");
            blob.extend(gz.finish().expect("gzip"));
        }
        assert_eq!(
            read_all(&blob),
            (Compression::Gzip, b"hello, world".to_vec())
        );
    }

    #[test]
    fn zstd_frames_in_sequence_with_a_skippable_frame_between() {
        let frame = |data: &[u8]| {
            ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
        };
        let mut blob = frame(b"hello, ");
        blob.extend([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]);
        blob.extend(frame(b"world"));
        assert_eq!(
            read_all(&blob),
            (Compression::Zstd, b"hello, world".to_vec())
        );
    }

    #[test]
    fn a_corrupt_zstd_stream_is_an_error_not_a_panic() {
        let mut blob = vec![0x28, 0xb5, 0x2f, 0xfd];
        blob.extend([0xff; 32]);
        let (_, mut r) = decompress(&blob[..]).expect("decompress");
        assert!(r.read_to_end(&mut Vec::new()).is_err());
    }
}
