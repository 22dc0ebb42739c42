//! The protobuf messages the typed tables are stored as in the index cache
//! (see `persist_tables` for the conversion). Byte strings are (offset, length)
//! spans into the cache image's data section.

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PTables {
    /// The catalog files, in walk order (origins refer to them by index).
    #[prost(message, repeated, tag = "1")]
    pub(super) files: Vec<PFile>,
    #[prost(message, repeated, tag = "2")]
    pub(super) packages: Vec<PPackage>,
    #[prost(message, repeated, tag = "3")]
    pub(super) custom: Vec<PCustom>,
    #[prost(message, repeated, tag = "4")]
    pub(super) metas: Vec<PMeta>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PFile {
    #[prost(string, tag = "1")]
    pub(super) rel: String,
    #[prost(uint64, tag = "2")]
    pub(super) size: u64,
    #[prost(uint64, tag = "3")]
    pub(super) hash_low: u64,
    #[prost(uint64, tag = "4")]
    pub(super) hash_high: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct POrigin {
    #[prost(uint32, tag = "1")]
    pub(super) file: u32,
    #[prost(uint64, tag = "2")]
    pub(super) document: u64,
    #[prost(uint64, tag = "3")]
    pub(super) line: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PPackage {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(string, tag = "2")]
    pub(super) default_channel: String,
    #[prost(string, tag = "3")]
    pub(super) description: String,
    #[prost(uint64, repeated, tag = "4")]
    pub(super) icon: Vec<u64>,
    #[prost(string, tag = "5")]
    pub(super) icon_media_type: String,
    #[prost(string, optional, tag = "6")]
    pub(super) deprecation: Option<String>,
    #[prost(message, optional, tag = "7")]
    pub(super) origin: Option<POrigin>,
    #[prost(message, repeated, tag = "8")]
    pub(super) channels: Vec<PChannel>,
    #[prost(message, repeated, tag = "9")]
    pub(super) bundles: Vec<PBundle>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PChannel {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(message, repeated, tag = "2")]
    pub(super) entries: Vec<PEntry>,
    #[prost(uint64, tag = "3")]
    pub(super) head: u64,
    #[prost(string, optional, tag = "4")]
    pub(super) deprecation: Option<String>,
    #[prost(message, optional, tag = "5")]
    pub(super) origin: Option<POrigin>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PEntry {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(string, tag = "2")]
    pub(super) replaces: String,
    #[prost(string, repeated, tag = "3")]
    pub(super) skips: Vec<String>,
    #[prost(string, tag = "4")]
    pub(super) skip_range: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PBundle {
    #[prost(string, tag = "1")]
    pub(super) name: String,
    #[prost(string, tag = "2")]
    pub(super) image: String,
    #[prost(message, repeated, tag = "3")]
    pub(super) properties: Vec<PProperty>,
    #[prost(string, repeated, tag = "4")]
    pub(super) related_images: Vec<String>,
    #[prost(string, tag = "5")]
    pub(super) version_text: String,
    #[prost(string, optional, tag = "6")]
    pub(super) release: Option<String>,
    /// (offset, length) pairs.
    #[prost(uint64, repeated, tag = "7")]
    pub(super) objects: Vec<u64>,
    #[prost(uint64, optional, tag = "8")]
    pub(super) csv_object: Option<u64>,
    /// head, description (empty span when none), middle, tail; absent when no CSV was synthesised.
    #[prost(uint64, repeated, tag = "9")]
    pub(super) csv_pieces: Vec<u64>,
    #[prost(bool, tag = "10")]
    pub(super) csv_has_description: bool,
    #[prost(string, optional, tag = "11")]
    pub(super) deprecation: Option<String>,
    #[prost(message, optional, tag = "12")]
    pub(super) origin: Option<POrigin>,
}

/// A property: its type, value text and typed reading (`kind` and up to three strings).
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PProperty {
    #[prost(string, tag = "1")]
    pub(super) typ: String,
    #[prost(string, tag = "2")]
    pub(super) value_json: String,
    #[prost(uint32, tag = "3")]
    pub(super) kind: u32,
    #[prost(string, repeated, tag = "4")]
    pub(super) fields: Vec<String>,
    #[prost(string, optional, tag = "5")]
    pub(super) release: Option<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PCustom {
    #[prost(string, tag = "1")]
    pub(super) schema: String,
    #[prost(string, tag = "2")]
    pub(super) package: String,
    #[prost(uint64, repeated, tag = "3")]
    pub(super) json: Vec<u64>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PMeta {
    #[prost(string, tag = "1")]
    pub(super) schema: String,
    #[prost(string, tag = "2")]
    pub(super) package: String,
    #[prost(string, tag = "3")]
    pub(super) name: String,
    #[prost(message, optional, tag = "4")]
    pub(super) origin: Option<POrigin>,
}

/// Property kinds, as stored.
pub(super) mod kind {
    pub const OTHER: u32 = 0;
    pub const PACKAGE: u32 = 1;
    pub const PACKAGE_REQUIRED: u32 = 2;
    pub const GVK: u32 = 3;
    pub const GVK_REQUIRED: u32 = 4;
    pub const BUNDLE_OBJECT: u32 = 5;
    pub const CSV_METADATA: u32 = 6;
    pub const CHANNEL: u32 = 7;
}
