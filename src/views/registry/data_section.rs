//! The data section of a cache image: laid out when writing, read back as
//! (offset, length) spans.
//!
//! In: reply chunks to place (writing), or the decoded section and span pairs
//! (reading). Out: offsets, or zero-copy slices — and [`DecodeError`] for a
//! span that does not fit. A leaf of the index, shared by the writers and
//! readers of the image ([`super::persist`], [`super::persist_tables`],
//! [`super::lazy_tables`]).

use bytes::Bytes;
use std::collections::HashMap;

/// The `data` section being laid out: distinct chunks in order, found by identity.
#[derive(Default)]
pub(super) struct DataSection {
    chunks: Vec<Bytes>,
    len: u64,
    at: HashMap<(usize, usize), u64>,
}

impl DataSection {
    /// The offset of `chunk`, adding it unless the same bytes (same allocation
    /// and range) are already in.
    pub(super) fn place(&mut self, chunk: &Bytes) -> u64 {
        let key = (chunk.as_ptr() as usize, chunk.len());
        if let Some(at) = self.at.get(&key) {
            return *at;
        }
        let at = self.len;
        self.len += chunk.len() as u64;
        self.chunks.push(chunk.clone());
        self.at.insert(key, at);
        at
    }

    /// Its length in bytes.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was placed.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunks, in placing order.
    pub(super) fn chunks(&self) -> &[Bytes] {
        &self.chunks
    }
}

/// Why a persisted index could not be read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("corrupt index data: {0}")]
pub struct DecodeError(String);

impl DecodeError {
    pub(super) fn new(what: &str) -> Self {
        DecodeError(what.to_string())
    }
}

/// (offset, length) spans into a decoded data section.
pub(super) struct Spans {
    data: Bytes,
}

impl Spans {
    /// Spans into `data`.
    pub(super) fn new(data: Bytes) -> Self {
        Spans { data }
    }

    fn span(&self, at: u64, len: u64) -> Result<Bytes, DecodeError> {
        let end = at
            .checked_add(len)
            .filter(|end| *end <= self.data.len() as u64);
        match end {
            Some(end) => Ok(self.data.slice(at as usize..end as usize)),
            None => Err(DecodeError::new("a chunk lies outside the data section")),
        }
    }

    /// The one span `pair` holds.
    pub(super) fn one(&self, pair: &[u64]) -> Result<Bytes, DecodeError> {
        match pair {
            [at, len] => self.span(*at, *len),
            _ => Err(DecodeError::new("a span is an (offset, length) pair")),
        }
    }

    /// The spans `pairs` holds, in order.
    pub(super) fn many(&self, pairs: &[u64]) -> Result<Vec<Bytes>, DecodeError> {
        if !pairs.len().is_multiple_of(2) {
            return Err(DecodeError::new("spans come in (offset, length) pairs"));
        }
        pairs
            .chunks_exact(2)
            .map(|pair| self.span(pair[0], pair[1]))
            .collect()
    }
}
