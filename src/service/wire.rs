//! Pre-encoded replies on the wire.
//!
//! In: protobuf bytes built at index time. Out: gRPC messages, written with one
//! copy and no per-request encoding.
//!
//! A protobuf message may be sent as the concatenation of encodings of its parts
//! (a parser merges them), so a bundle reply is `per-copy fields ++ shared fields
//! [++ manifests]`, each chunk built once and shared by reference count.
//! A length-delimited field is `tag ++ length ++ payload`, so one payload chunk
//! can be sent under two fields (a CSV as `csvJson` and as an `object`).

use bytes::{BufMut, Bytes};
use std::marker::PhantomData;
use std::sync::Arc;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

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

    fn parts(&self) -> impl Iterator<Item = &Bytes> {
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

/// Decodes requests with prost and writes [`Reply`] chunks as they are.
pub struct ReplyCodec<Req>(PhantomData<Req>);

impl<Req> Default for ReplyCodec<Req> {
    fn default() -> Self {
        ReplyCodec(PhantomData)
    }
}

impl<Req: prost::Message + Default + Send + 'static> Codec for ReplyCodec<Req> {
    type Encode = Reply;
    type Decode = Req;
    type Encoder = ReplyEncoder;
    type Decoder = RequestDecoder<Req>;

    fn encoder(&mut self) -> Self::Encoder {
        ReplyEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        RequestDecoder(PhantomData)
    }
}

/// Writes the chunks of a [`Reply`].
pub struct ReplyEncoder;

impl Encoder for ReplyEncoder {
    type Item = Reply;
    type Error = Status;

    fn encode(&mut self, item: Reply, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.reserve(item.len());
        for part in item.parts() {
            dst.put_slice(part);
        }
        Ok(())
    }
}

/// Decodes a request message with prost.
pub struct RequestDecoder<Req>(PhantomData<Req>);

impl<Req: prost::Message + Default> Decoder for RequestDecoder<Req> {
    type Item = Req;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Req>, Status> {
        Req::decode(src)
            .map(Some)
            .map_err(|e| Status::invalid_argument(format!("malformed request: {e}")))
    }
}
