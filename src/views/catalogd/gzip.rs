//! gzip prepared once per snapshot, for any selection of metas.
//!
//! In: the metas' JSON Lines, one piece per meta. Out: [`Segments`]: each piece
//! compressed on its own into a byte-aligned raw-deflate segment (sync flush, no
//! final block), laid out in one buffer behind a gzip header and followed by the
//! trailer of the whole catalog. Any subset of the pieces, in order, is then one
//! valid gzip member by concatenation: the header, the chosen segments, an empty
//! final block, and a trailer of the pieces' CRC-32 and length — no compression
//! per request. [`whole`] is the one-stream gzip of everything, for `/all`.
//!
//! Written by hand over `flate2`'s raw `Compress`: no crate stitches deflate
//! segments. The price is one 5-byte sync marker per meta and no back-references
//! across metas: segments come out 1.1–2.2× the size of one stream over the
//! same bytes (measured on the shared catalogs), which is why `/all` has its own.

use bytes::Bytes;
use flate2::{Compress, Compression, FlushCompress, Status};

/// `data` gzipped as one stream (default level).
pub fn whole(data: &[u8]) -> Bytes {
    use std::io::Write;
    let mut encoder =
        flate2::write::GzEncoder::new(Vec::with_capacity(data.len() / 4), Compression::default());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(data);
    Bytes::from(encoder.finish().unwrap_or_default())
}

/// A gzip member header: magic, deflate, no flags, no mtime, no extra flags, OS unknown.
pub const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
/// An empty final deflate block with fixed Huffman codes.
const FINAL_BLOCK: [u8; 2] = [0x03, 0x00];
/// The bytes after the last segment: final block, CRC-32, ISIZE.
pub const TRAILER_LEN: usize = FINAL_BLOCK.len() + 8;

/// Every piece's deflate segment, after a gzip header and before a trailer.
#[derive(Debug)]
pub struct Segments {
    /// `HEADER`, the segments, and the trailer of all pieces.
    buffer: Bytes,
    /// Piece `i`'s segment is `buffer[bounds[i]..bounds[i+1]]`.
    bounds: Box<[usize]>,
    /// Piece `i`'s CRC-32 and length, combined per answer for its trailer.
    crcs: Box<[(u32, u64)]>,
    /// The CRC-32 and length of pieces `0..i`: a run of several pieces gets its
    /// CRC from two of these and one shift, not one combine per piece.
    prefix: Box<[(u32, u64)]>,
}

impl Segments {
    /// Compresses every piece (on all cores).
    pub fn compress(pieces: &[&[u8]]) -> Segments {
        let compressed =
            fbc_catalog::parallel::parallel_map_with(pieces, |state: &mut Deflater, piece| {
                state.segment(piece)
            });
        let total: usize = compressed
            .iter()
            .map(|s| s.as_ref().map_or(0, Vec::len))
            .sum();
        let mut buffer = Vec::with_capacity(HEADER.len() + total + TRAILER_LEN);
        buffer.extend_from_slice(&HEADER);
        let mut bounds = Vec::with_capacity(pieces.len() + 1);
        bounds.push(buffer.len());
        for (segment, piece) in compressed.iter().zip(pieces) {
            match segment {
                Some(segment) => buffer.extend_from_slice(segment),
                // The compressor panicked (it never should): store the piece raw.
                None => buffer.extend_from_slice(&stored(piece)),
            }
            bounds.push(buffer.len());
        }
        let crcs: Vec<(u32, u64)> = pieces
            .iter()
            .map(|p| (crc32fast::hash(p), p.len() as u64))
            .collect();
        let prefix = prefixes(&crcs);
        let (crc, len) = prefix.last().copied().unwrap_or((0, 0));
        buffer.extend_from_slice(&trailer(crc, len));
        Segments {
            buffer: Bytes::from(buffer),
            bounds: bounds.into_boxed_slice(),
            crcs: crcs.into_boxed_slice(),
            prefix,
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.buffer.len()
    }

    /// The gzip of the pieces `chosen` (ascending indexes), as parts to send in
    /// order: nothing is compressed or checksummed again (the trailer's CRC-32
    /// combines the pieces' own).
    pub fn select(&self, chosen: &[u32]) -> Vec<Bytes> {
        let mut parts = vec![self.buffer.slice(..HEADER.len())];
        let mut picked = Vec::new();
        for (start, end) in runs(chosen) {
            let (from, to) = (self.bounds[start], self.bounds[end]);
            parts.push(self.buffer.slice(from..to));
            picked.push(self.run_crc(start, end));
        }
        let (crc, len) = combine(&picked);
        parts.push(Bytes::from(trailer(crc, len).to_vec()));
        parts
    }
}

impl Segments {
    /// The CRC-32 and length of pieces `start..end` laid end to end. CRC-32 is
    /// affine: `crc(A‖B) = shift(crc(A), |B|) ^ crc(B)`, so the run's CRC is the
    /// prefix up to `end` with the prefix up to `start` shifted out.
    fn run_crc(&self, start: usize, end: usize) -> (u32, u64) {
        if end - start == 1 {
            return self.crcs[start];
        }
        let (head_crc, head_len) = self.prefix[start];
        let (whole_crc, whole_len) = self.prefix[end];
        let len = whole_len - head_len;
        let mut shifted = crc32fast::Hasher::new_with_initial_len(head_crc, head_len);
        shifted.combine(&crc32fast::Hasher::new_with_initial_len(0, len));
        (shifted.finalize() ^ whole_crc, len)
    }
}

/// The CRC-32 and length of pieces `0..i`, for `i` in `0..=pieces`.
fn prefixes(crcs: &[(u32, u64)]) -> Box<[(u32, u64)]> {
    let mut out = Vec::with_capacity(crcs.len() + 1);
    let mut whole = crc32fast::Hasher::new();
    let mut len = 0;
    out.push((0, 0));
    for &(crc, n) in crcs {
        whole.combine(&crc32fast::Hasher::new_with_initial_len(crc, n));
        len += n;
        out.push((whole.clone().finalize(), len));
    }
    out.into_boxed_slice()
}

/// The CRC-32 and length of pieces laid end to end, from each one's.
fn combine(pieces: &[(u32, u64)]) -> (u32, u64) {
    let mut whole = crc32fast::Hasher::new();
    let mut len = 0;
    for &(crc, n) in pieces {
        whole.combine(&crc32fast::Hasher::new_with_initial_len(crc, n));
        len += n;
    }
    (whole.finalize(), len)
}

/// Runs of consecutive indexes as half-open ranges (`[1,2,3,7]` → `1..4, 7..8`).
pub fn runs(chosen: &[u32]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &i in chosen {
        let i = i as usize;
        match out.last_mut() {
            Some((_, end)) if *end == i => *end = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

fn trailer(crc: u32, len: u64) -> [u8; TRAILER_LEN] {
    let mut out = [0u8; TRAILER_LEN];
    out[..2].copy_from_slice(&FINAL_BLOCK);
    out[2..6].copy_from_slice(&crc.to_le_bytes());
    // ISIZE is the length modulo 2^32.
    out[6..].copy_from_slice(&(len as u32).to_le_bytes());
    out
}

/// `piece` as non-final stored blocks (at most 65,535 bytes each).
fn stored(piece: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(piece.len() + 5 * (piece.len() / 65_535 + 1));
    for chunk in piece.chunks(65_535) {
        let len = chunk.len() as u16;
        out.push(0);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

/// One worker's raw-deflate compressor, reset between pieces.
struct Deflater(Compress);

impl Default for Deflater {
    fn default() -> Self {
        Deflater(Compress::new(Compression::default(), false))
    }
}

impl Deflater {
    /// `piece` as a byte-aligned, non-final deflate segment (ending in a sync flush).
    fn segment(&mut self, piece: &[u8]) -> Vec<u8> {
        self.0.reset();
        let mut out = Vec::with_capacity(piece.len() / 3 + 64);
        let mut input = piece;
        loop {
            if out.capacity() - out.len() < 64 {
                out.reserve(out.capacity().max(1024));
            }
            let before = self.0.total_in();
            let status = self.0.compress_vec(input, &mut out, FlushCompress::Sync);
            let consumed = (self.0.total_in() - before) as usize;
            input = &input[consumed..];
            match status {
                // Done once all input is in and the flush left room to spare.
                Ok(Status::Ok | Status::BufError)
                    if input.is_empty() && out.capacity() > out.len() =>
                {
                    return out;
                }
                Ok(_) => {}
                Err(_) => return stored(piece),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Read;

    fn gunzip(parts: &[Bytes]) -> Vec<u8> {
        let joined: Vec<u8> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&joined[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn every_piece_selected_is_the_gzip_of_every_piece() {
        let pieces: Vec<&[u8]> = vec![
            b"{\"a\":1}\n",
            b"",
            b"{\"b\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n",
        ];
        let segments = Segments::compress(&pieces);
        assert_eq!(gunzip(&segments.select(&[0, 1, 2])), pieces.concat());
    }

    #[test]
    fn one_stream_decodes() {
        let data = b"{\"a\":1}\n".repeat(100);
        assert_eq!(gunzip(&[whole(&data)]), data);
    }

    #[test]
    fn stored_blocks_decode() {
        let big = vec![b'x'; 200_000];
        let mut raw = HEADER.to_vec();
        raw.extend(stored(&big));
        let mut crc = crc32fast::Hasher::new();
        crc.update(&big);
        raw.extend(trailer(crc.finalize(), big.len() as u64));
        assert_eq!(gunzip(&[Bytes::from(raw)]), big);
    }

    proptest! {
        #[test]
        fn any_selection_is_a_valid_gzip_of_its_pieces(
            pieces in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..3000), 0..12),
            mask in any::<u16>(),
        ) {
            let refs: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
            let segments = Segments::compress(&refs);
            let chosen: Vec<u32> = (0..pieces.len() as u32).filter(|i| mask & (1 << i) != 0).collect();
            let identity: Vec<Bytes> = chosen.iter().map(|&i| Bytes::from(pieces[i as usize].clone())).collect();
            let expected: Vec<u8> = identity.iter().flat_map(|p| p.iter().copied()).collect();
            prop_assert_eq!(gunzip(&segments.select(&chosen)), expected);
        }
    }
}
