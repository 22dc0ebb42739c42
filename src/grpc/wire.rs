//! Pre-encoded replies on the wire.
//!
//! In: [`Reply`]s built at index time (see [`crate::views::registry::reply`]). Out: gRPC
//! messages, written with one copy and no per-request encoding; requests decoded
//! with prost.

pub use crate::views::registry::reply::Reply;
use bytes::BufMut;
use std::marker::PhantomData;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

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
