//! A reply as the index keeps it: pre-encoded chunks of one protobuf message.
//!
//! In: protobuf bytes built at index time. Out: a [`Reply`] that the service's
//! codec writes with one copy and no per-request encoding.
//!
//! A protobuf message may be sent as the concatenation of encodings of its parts
//! (a parser merges them), so a bundle reply is `per-copy fields ++ shared fields
//! [++ manifests]`, each chunk built once and shared by reference count.
//! A length-delimited field is `tag ++ length ++ payload`, so one payload chunk
//! can be sent under two fields (a CSV as `csvJson` and as an `object`).

use bytes::Bytes;
use std::sync::Arc;

/// A reply: pre-encoded chunks of one protobuf message, written in order.
///
/// Two leading chunks (e.g. per-copy fields, shared fields) and an optional
/// shared list of further chunks (a bundle's manifests, where one payload may be
/// referenced under two fields).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    head: [Bytes; 2],
    tail: Option<Arc<[Bytes]>>,
}

impl Reply {
    /// A reply made of one chunk.
    pub fn one(a: Bytes) -> Self {
        Reply {
            head: [a, Bytes::new()],
            tail: None,
        }
    }

    /// A reply made of two chunks and an optional shared chunk list.
    pub fn chunks(a: Bytes, b: Bytes, tail: Option<Arc<[Bytes]>>) -> Self {
        Reply { head: [a, b], tail }
    }

    /// The chunks, in order.
    pub fn parts(&self) -> impl Iterator<Item = &Bytes> {
        self.head
            .iter()
            .chain(self.tail.iter().flat_map(|t| t.iter()))
    }

    /// Encoded length in bytes.
    pub fn len(&self) -> usize {
        self.parts().map(Bytes::len).sum()
    }

    /// Whether the reply is the empty message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The encoded message as one buffer (tests, tools).
    pub fn to_bytes(&self) -> Bytes {
        let mut v = Vec::with_capacity(self.len());
        for p in self.parts() {
            v.extend_from_slice(p);
        }
        Bytes::from(v)
    }
}
