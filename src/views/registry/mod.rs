//! Model → immutable index with every reply ready to send.
//!
//! In: a validated [`Model`](fbc_catalog::model::Model). Out: an [`RegistryView`] answering every registry query
//! from tables built once, without parsing or scanning the catalog:
//!
//! - packages by name, with their encoded `api.Package` reply;
//! - bundle *copies*, one per (package, channel, entry) as the reference serves
//!   them, in ListBundles order: (channel, package, bundle) by bytes;
//! - each bundle's shared fields encoded once: a copy's reply is
//!   `copy fields ++ shared fields [++ csvJson and objects]` (see
//!   [`reply`]), so manifests are stored once per bundle, not per channel;
//! - answers of the replace and provide queries, precomputed per name and per GVK;
//! - custom-schema blobs encoded as `google.protobuf.Struct`, per (schema, package).
//!
//! Orders are defined, where the reference's are random: packages by name; entry
//! lists in ListBundles copy order; see each query for its rule.

use fbc_catalog::model::csv;
mod body;
mod build;
mod data_section;
pub(crate) mod echo;
mod lazy_tables;
mod persist;
mod persist_index_messages;
mod persist_table_messages;
mod persist_tables;
pub(crate) mod reply;
pub(crate) mod structs;
mod to_api;
pub use data_section::DecodeError;
pub use lazy_tables::SnapshotTables;
pub use persist::{CachedViews, read_cache, write_cache};

use crate::api;
use crate::views::registry::echo::{name_bare, name_quoted};
use crate::views::registry::reply::Reply;
use bytes::Bytes;
use fbc_catalog::arena::Arena;
use fbc_catalog::model;
use fbc_catalog::tables::Tables;
use prost::Message;
use std::collections::HashMap;
use std::sync::Arc;

/// Go gRPC clients refuse received messages above this size by default.
pub const GO_CLIENT_MAX_RECEIVE: usize = 4 * 1024 * 1024;

/// The encoded parts of one bundle, shared by all its copies.
#[derive(Debug)]
struct BundleBody {
    /// Every field except the per-copy ones, csvJson and object.
    core: Bytes,
    /// csvJson and object, as chunks: the CSV payload is shared by both fields.
    manifests: Arc<[Bytes]>,
    /// Whether the bundle has an image (ListBundles then omits the manifests).
    has_image: bool,
    version: semver::Version,
}

/// One (package, channel, bundle) copy.
#[derive(Debug)]
struct BundleCopy {
    package: u32,
    body: u32,
    /// channelName and skipRange: the trimmed form of the per-copy fields.
    trimmed: Bytes,
    /// channelName, skipRange, replaces and skips.
    full: Bytes,
}

#[derive(Debug)]
struct ChannelReplies {
    /// Copies by bundle name.
    copies: HashMap<String, u32>,
    head: u32,
    /// `GetBundleThatReplaces` answers by replaced name (see [`RegistryView::bundle_that_replaces`]).
    replacement: HashMap<String, u32>,
}

#[derive(Debug)]
struct PackageReplies {
    name: String,
    reply: Bytes,
    default_channel: String,
    channels: HashMap<String, ChannelReplies>,
}

/// A reply that would exceed a Go client's default 4 MiB receive limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OversizeReply {
    /// Package.
    pub package: String,
    /// Bundle.
    pub bundle: String,
    /// Encoded size of its GetBundle reply.
    pub bytes: usize,
}

/// Counts of what the index holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Packages.
    pub packages: usize,
    /// Channels.
    pub channels: usize,
    /// Distinct bundles.
    pub bundles: usize,
    /// (channel, bundle) copies, the number of ListBundles messages.
    pub copies: usize,
    /// Custom-schema blobs.
    pub custom_blobs: usize,
    /// Bytes of encoded replies held.
    pub encoded_bytes: usize,
}

/// The immutable, queryable form of one catalog.
#[derive(Debug, Default)]
pub struct RegistryView {
    packages: Vec<PackageReplies>,
    package_by_name: HashMap<String, u32>,
    package_names: Vec<Bytes>,
    bodies: Vec<BundleBody>,
    copies: Vec<BundleCopy>,
    replaced_by: HashMap<String, Vec<Bytes>>,
    providers: HashMap<(String, String, String), Vec<Bytes>>,
    latest_providers: HashMap<(String, String, String), Vec<Bytes>>,
    default_provider: HashMap<(String, String, String), u32>,
    custom: HashMap<(String, String), Vec<Bytes>>,
    oversize: Vec<OversizeReply>,
    stats: Stats,
}

/// Why a registry query has no answer. Messages follow the reference's wording;
/// names longer than [`REFERENCE_ECHO_LEN`](crate::views::registry::echo::REFERENCE_ECHO_LEN) bytes (none a catalog holds) are
/// cut to a short prefix, so a client never gets its input back whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// No such package.
    #[error("package {} not found", name_quoted(.0))]
    PackageNotFound(String),
    /// No such package (GetBundleThatReplaces words it without quotes).
    #[error("package {} not found", name_bare(.0))]
    PackageNotFoundUnquoted(String),
    /// No such channel.
    #[error("package {}, channel {} not found", name_quoted(.0), name_quoted(.1))]
    ChannelNotFound(String, String),
    /// No such bundle in the channel.
    #[error(
        "package {}, channel {}, bundle {} not found",
        name_quoted(.0),
        name_quoted(.1),
        name_quoted(.2)
    )]
    BundleNotFound(String, String, String),
    /// Nothing in the channel replaces or skips the bundle.
    #[error("no entry found for package {}, channel {}", name_quoted(.0), name_quoted(.1))]
    NoReplacement(String, String),
    /// Nothing replaces or skips the name.
    #[error("no channel entries found that replace {}", name_bare(.0))]
    NothingReplaces(String),
    /// Nothing provides the API.
    #[error(
        "no channel entries found that provide group:{} version:{} kind:{}",
        name_quoted(.0),
        name_quoted(.1),
        name_quoted(.2)
    )]
    NothingProvides(String, String, String),
    /// No default-channel head provides the API.
    #[error(
        "no entry found that provides group:{} version:{} kind:{}",
        name_quoted(.0),
        name_quoted(.1),
        name_quoted(.2)
    )]
    NoDefaultProvider(String, String, String),
}

/// What index building can fail on (a bundle the model accepted but that cannot be served).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: package {package:?}, bundle {bundle:?}: {message}")]
pub struct RegistryViewError {
    /// Where the bundle was read.
    pub location: fbc_catalog::diagnostic::Location,
    /// Package.
    pub package: String,
    /// Bundle.
    pub bundle: String,
    /// What is wrong.
    pub message: String,
}

impl RegistryView {
    /// What the index holds.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Bundles whose full reply exceeds [`GO_CLIENT_MAX_RECEIVE`].
    pub fn oversize_replies(&self) -> &[OversizeReply] {
        &self.oversize
    }

    /// `ListPackages`: one name per package, sorted by name.
    pub fn package_names(&self) -> &[Bytes] {
        &self.package_names
    }

    fn package(&self, name: &str) -> Result<&PackageReplies, QueryError> {
        self.package_by_name
            .get(name)
            .map(|i| &self.packages[*i as usize])
            .ok_or_else(|| QueryError::PackageNotFound(name.to_string()))
    }

    fn channel<'a>(
        &'a self,
        package: &'a PackageReplies,
        channel: &str,
    ) -> Result<&'a ChannelReplies, QueryError> {
        package
            .channels
            .get(channel)
            .ok_or_else(|| QueryError::ChannelNotFound(package.name.clone(), channel.to_string()))
    }

    /// A copy with replaces and skips cleared (GetBundle and friends).
    fn trimmed_reply(&self, copy: u32) -> Reply {
        let c = &self.copies[copy as usize];
        let b = &self.bodies[c.body as usize];
        Reply::chunks(c.trimmed.clone(), b.core.clone(), Some(b.manifests.clone()))
    }

    /// `GetPackage`: channels sorted by name, each with its head and deprecation.
    pub fn package_reply(&self, name: &str) -> Result<Reply, QueryError> {
        Ok(Reply::one(self.package(name)?.reply.clone()))
    }

    /// `GetBundle`: the copy of `bundle` in `channel`, trimmed.
    pub fn bundle(&self, package: &str, channel: &str, bundle: &str) -> Result<Reply, QueryError> {
        let p = self.package(package)?;
        let c = self.channel(p, channel)?;
        let copy = c.copies.get(bundle).ok_or_else(|| {
            QueryError::BundleNotFound(package.to_string(), channel.to_string(), bundle.to_string())
        })?;
        Ok(self.trimmed_reply(*copy))
    }

    /// `GetBundleForChannel`: the channel head, trimmed.
    pub fn bundle_for_channel(&self, package: &str, channel: &str) -> Result<Reply, QueryError> {
        let p = self.package(package)?;
        let c = self.channel(p, channel)?;
        Ok(self.trimmed_reply(c.head))
    }

    /// `GetBundleThatReplaces`: the entry of the channel that replaces or skips
    /// `name`, trimmed. Where several do, the pick is defined (the reference picks at
    /// random): an entry whose `replaces` is `name` wins over one that only skips it;
    /// then the highest version; then the smallest bundle name.
    pub fn bundle_that_replaces(
        &self,
        name: &str,
        package: &str,
        channel: &str,
    ) -> Result<Reply, QueryError> {
        let p = self
            .package_by_name
            .get(package)
            .map(|i| &self.packages[*i as usize])
            .ok_or_else(|| QueryError::PackageNotFoundUnquoted(package.to_string()))?;
        let c = self.channel(p, channel)?;
        let copy = c
            .replacement
            .get(name)
            .ok_or_else(|| QueryError::NoReplacement(package.to_string(), channel.to_string()))?;
        Ok(self.trimmed_reply(*copy))
    }

    /// `GetChannelEntriesThatReplace`, in ListBundles copy order (see the crate docs).
    /// `name == ""` answers every entry whose `replaces` is empty, as the reference does.
    pub fn entries_that_replace(&self, name: &str) -> Result<&[Bytes], QueryError> {
        self.replaced_by
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| QueryError::NothingReplaces(name.to_string()))
    }

    /// `GetChannelEntriesThatProvide`, in ListBundles copy order.
    pub fn entries_that_provide(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<&[Bytes], QueryError> {
        gvk_entries(&self.providers, group, version, kind)
    }

    /// `GetLatestChannelEntriesThatProvide`: channel heads only, by (channel, package).
    pub fn latest_entries_that_provide(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<&[Bytes], QueryError> {
        gvk_entries(&self.latest_providers, group, version, kind)
    }

    /// `GetDefaultBundleThatProvides`: the head of a default channel providing the
    /// API, from the first such package by name; trimmed.
    pub fn default_bundle_that_provides(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<Reply, QueryError> {
        self.latest_entries_that_provide(group, version, kind)?;
        self.default_provider
            .get(&(group.to_string(), version.to_string(), kind.to_string()))
            .map(|c| self.trimmed_reply(*c))
            .ok_or_else(|| {
                QueryError::NoDefaultProvider(
                    group.to_string(),
                    version.to_string(),
                    kind.to_string(),
                )
            })
    }

    /// Number of ListBundles messages.
    pub fn copy_count(&self) -> usize {
        self.copies.len()
    }

    /// ListBundles message `i` (in (channel, package, bundle) order): untrimmed, and
    /// without csvJson and objects when the bundle has an image.
    pub fn list_bundles_item(&self, i: usize) -> Option<Reply> {
        let c = self.copies.get(i)?;
        let b = &self.bodies[c.body as usize];
        let manifests = (!b.has_image).then(|| b.manifests.clone());
        Some(Reply::chunks(c.full.clone(), b.core.clone(), manifests))
    }

    /// Custom-schema blobs for (schema, package), in catalog walk order.
    pub fn custom_blobs(&self, schema: &str, package: &str) -> &[Bytes] {
        self.custom
            .get(&(schema.to_string(), package.to_string()))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The default channel of a package, if the package exists.
    pub fn default_channel(&self, package: &str) -> Option<&str> {
        self.package(package)
            .ok()
            .map(|p| p.default_channel.as_str())
    }
}

fn gvk_entries<'a>(
    map: &'a HashMap<(String, String, String), Vec<Bytes>>,
    group: &str,
    version: &str,
    kind: &str,
) -> Result<&'a [Bytes], QueryError> {
    map.get(&(group.to_string(), version.to_string(), kind.to_string()))
        .map(Vec::as_slice)
        .ok_or_else(|| {
            QueryError::NothingProvides(group.to_string(), version.to_string(), kind.to_string())
        })
}

#[cfg(test)]
mod tests;
