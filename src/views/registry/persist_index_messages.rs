//! The protobuf messages the `api.Registry` view is stored as in the index
//! cache (see `persist` for the conversion and the layout). Byte strings are
//! (offset, length) pairs into the cache image's data section.

use bytes::Bytes;

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PIndex {
    #[prost(message, repeated, tag = "1")]
    pub(super) packages: Vec<PPackage>,
    #[prost(bytes = "bytes", repeated, tag = "2")]
    pub(super) package_names: Vec<Bytes>,
    #[prost(message, repeated, tag = "3")]
    pub(super) bodies: Vec<PBody>,
    #[prost(message, repeated, tag = "4")]
    pub(super) copies: Vec<PCopy>,
    #[prost(message, repeated, tag = "5")]
    pub(super) replaced_by: Vec<PNamedList>,
    #[prost(message, repeated, tag = "6")]
    pub(super) providers: Vec<PGvkList>,
    #[prost(message, repeated, tag = "7")]
    pub(super) latest_providers: Vec<PGvkList>,
    #[prost(message, repeated, tag = "8")]
    pub(super) default_provider: Vec<PGvkList>,
    #[prost(message, repeated, tag = "9")]
    pub(super) custom: Vec<PCustom>,
    #[prost(message, repeated, tag = "10")]
    pub(super) oversize: Vec<POversize>,
    #[prost(uint64, repeated, tag = "11")]
    pub(super) stats: Vec<u64>,
    /// The typed tables the index was built from, an encoded `PTables` (see
    /// `persist_tables`), decoded only when asked for (see `lazy_tables`).
    #[prost(bytes = "bytes", optional, tag = "13")]
    pub(super) tables: Option<Bytes>,
    /// Bundle cores, manifests and the tables' byte strings, referred to by
    /// (offset, length). The highest tag, so it is encoded last (see
    /// `persist::write_cache`).
    #[prost(bytes = "bytes", tag = "14")]
    pub(super) data: Bytes,
}

/// The data section's tag.
pub(super) const DATA_TAG: u32 = 14;

/// The tables' tag (written on their own, see `persist::write_cache`).
pub(super) const TABLES_TAG: u32 = 13;

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PPackage {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(bytes = "bytes", tag = "2")]
    pub(super) reply: Bytes,
    #[prost(string, tag = "3")]
    pub(super) default_channel: String,
    #[prost(message, repeated, tag = "4")]
    pub(super) channels: Vec<PChannel>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PChannel {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(message, repeated, tag = "2")]
    pub(super) copies: Vec<PNamedCopy>,
    #[prost(uint32, tag = "3")]
    pub(super) head: u32,
    #[prost(message, repeated, tag = "4")]
    pub(super) replacement: Vec<PNamedCopy>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PNamedCopy {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(uint32, tag = "2")]
    pub(super) copy: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PBody {
    /// The core's offset in `data`.
    #[prost(uint64, tag = "1")]
    pub(super) core_at: u64,
    /// The core's length.
    #[prost(uint64, tag = "2")]
    pub(super) core_len: u64,
    /// The manifest chunks, as (offset, length) pairs in `data`.
    #[prost(uint64, repeated, tag = "3")]
    pub(super) manifests: Vec<u64>,
    #[prost(bool, tag = "4")]
    pub(super) has_image: bool,
    #[prost(string, tag = "5")]
    pub(super) version: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PCopy {
    #[prost(uint32, tag = "1")]
    pub(super) package: u32,
    #[prost(uint32, tag = "2")]
    pub(super) body: u32,
    #[prost(bytes = "bytes", tag = "3")]
    pub(super) trimmed: Bytes,
    #[prost(bytes = "bytes", tag = "4")]
    pub(super) full: Bytes,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PNamedList {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(bytes = "bytes", repeated, tag = "2")]
    pub(super) items: Vec<Bytes>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PGvkList {
    #[prost(string, tag = "1")]
    pub(super) group: String,
    #[prost(string, tag = "2")]
    pub(super) version: String,
    #[prost(string, tag = "3")]
    pub(super) kind: String,
    #[prost(bytes = "bytes", repeated, tag = "4")]
    pub(super) items: Vec<Bytes>,
    #[prost(uint32, tag = "5")]
    pub(super) copy: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PCustom {
    #[prost(string, tag = "1")]
    pub(super) schema: String,
    #[prost(string, tag = "2")]
    pub(super) package: String,
    #[prost(bytes = "bytes", repeated, tag = "3")]
    pub(super) items: Vec<Bytes>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct POversize {
    #[prost(string, tag = "1")]
    pub(super) package: String,
    #[prost(string, tag = "2")]
    pub(super) bundle: String,
    #[prost(uint64, tag = "3")]
    pub(super) bytes: u64,
}
