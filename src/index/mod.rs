//! Model → immutable index with every reply ready to send.
//!
//! In: a validated [`Model`]. Out: an [`Index`] answering every registry query
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
pub mod echo;
mod persist;
mod persist_tables;
pub mod reply;
pub mod structs;
pub use persist::{CachedViews, DecodeError, read_cache, write_cache};

use crate::api;
use crate::index::echo::{name_bare, name_quoted};
use crate::index::reply::Reply;
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
struct Copy {
    package: u32,
    body: u32,
    /// channelName and skipRange: the trimmed form of the per-copy fields.
    trimmed: Bytes,
    /// channelName, skipRange, replaces and skips.
    full: Bytes,
}

#[derive(Debug)]
struct ChannelIndex {
    /// Copies by bundle name.
    copies: HashMap<String, u32>,
    head: u32,
    /// `GetBundleThatReplaces` answers by replaced name (see [`Index::bundle_that_replaces`]).
    replacement: HashMap<String, u32>,
}

#[derive(Debug)]
struct PackageIndex {
    name: String,
    reply: Bytes,
    default_channel: String,
    channels: HashMap<String, ChannelIndex>,
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
pub struct Index {
    packages: Vec<PackageIndex>,
    package_by_name: HashMap<String, u32>,
    package_names: Vec<Bytes>,
    bodies: Vec<BundleBody>,
    copies: Vec<Copy>,
    replaced_by: HashMap<String, Vec<Bytes>>,
    providers: HashMap<(String, String, String), Vec<Bytes>>,
    latest_providers: HashMap<(String, String, String), Vec<Bytes>>,
    default_provider: HashMap<(String, String, String), u32>,
    custom: HashMap<(String, String), Vec<Bytes>>,
    oversize: Vec<OversizeReply>,
    stats: Stats,
}

/// Why a registry query has no answer. Messages follow the reference's wording;
/// names longer than [`REFERENCE_ECHO_LEN`](crate::index::echo::REFERENCE_ECHO_LEN) bytes (none a catalog holds) are
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

fn encode(m: &impl Message) -> Bytes {
    Bytes::from(m.encode_to_vec())
}

fn deprecation(message: &Option<String>) -> Option<api::Deprecation> {
    message
        .as_ref()
        .map(|m| api::Deprecation { message: m.clone() })
}

fn api_gvk(g: &model::Gvk) -> api::GroupVersionKind {
    api::GroupVersionKind {
        group: g.group.clone(),
        version: g.version.clone(),
        kind: g.kind.clone(),
        plural: String::new(),
    }
}

/// An encoded `api.ChannelEntry`, written into `arena` without building the message
/// (prost's encoding exactly: fields in number order, empty strings left out).
fn entry_bytes(
    arena: &mut Arena,
    package: &str,
    channel: &str,
    bundle: &str,
    replaces: &str,
) -> Bytes {
    use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint};
    let fields = [(1, package), (2, channel), (3, bundle), (4, replaces)];
    let len: usize = fields
        .iter()
        .filter(|(_, s)| !s.is_empty())
        .map(|(_, s)| 1 + encoded_len_varint(s.len() as u64) + s.len())
        .sum();
    arena.write(len, |mut buf: &mut [u8]| {
        for (tag, s) in fields.iter().filter(|(_, s)| !s.is_empty()) {
            encode_key(*tag, WireType::LengthDelimited, &mut buf);
            encode_varint(s.len() as u64, &mut buf);
            bytes::BufMut::put_slice(&mut buf, s.as_bytes());
        }
    })
}

/// What index building can fail on (a bundle the model accepted but that cannot be served).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: package {package:?}, bundle {bundle:?}: {message}")]
pub struct IndexError {
    /// Where the bundle was read.
    pub location: fbc_catalog::diagnostic::Location,
    /// Package.
    pub package: String,
    /// Bundle.
    pub bundle: String,
    /// What is wrong.
    pub message: String,
}

impl Index {
    /// Builds the index (the `api.Registry` view) of a catalog's tables.
    pub fn build(catalog: &Tables) -> Result<Index, Vec<IndexError>> {
        let packages = catalog.packages();
        let mut ix = Index::default();
        let mut errors = Vec::new();
        // (channel, package, bundle, package idx, channel idx, entry idx)
        let mut order: Vec<(&str, &str, &str, usize, usize, usize)> = Vec::new();
        let mut body_of: HashMap<(usize, &str), u32> = HashMap::new();
        // Bodies (encoding, CSV assembly) are independent: build them on every core.
        // A package's parts of its bundles' synthesised CSVs are encoded once.
        let parts: Vec<Result<csv::PackageParts, String>> =
            packages.iter().map(csv::PackageParts::new).collect();
        type BodyInput<'a> = (
            &'a model::Package,
            &'a Result<csv::PackageParts, String>,
            &'a model::Bundle,
        );
        let all: Vec<BodyInput> = packages
            .iter()
            .zip(&parts)
            .flat_map(|(p, parts)| p.bundles.iter().map(move |b| (p, parts, b)))
            .collect();
        let mut built = fbc_catalog::parallel::parallel_map_with(&all, |arena, (p, parts, b)| {
            bundle_body(arena, p, parts, b)
        })
        .into_iter();
        for (pi, package) in packages.iter().enumerate() {
            for bundle in &package.bundles {
                let result = built
                    .next()
                    .flatten()
                    .unwrap_or_else(|| Err("internal error: bundle body not built".into()));
                match result {
                    Ok((body, full_size)) => {
                        if full_size > GO_CLIENT_MAX_RECEIVE {
                            ix.oversize.push(OversizeReply {
                                package: package.name.clone(),
                                bundle: bundle.name.clone(),
                                bytes: full_size,
                            });
                        }
                        body_of.insert((pi, bundle.name.as_str()), ix.bodies.len() as u32);
                        ix.bodies.push(body);
                    }
                    Err(message) => errors.push(IndexError {
                        location: (&bundle.origin).into(),
                        package: package.name.clone(),
                        bundle: bundle.name.clone(),
                        message,
                    }),
                }
            }
            for (ci, channel) in package.channels.iter().enumerate() {
                for (ei, entry) in channel.entries.iter().enumerate() {
                    order.push((&channel.name, &package.name, &entry.name, pi, ci, ei));
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        order.sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));

        let mut copy_of: HashMap<(usize, usize, usize), u32> = HashMap::new();
        // The replace and provide tables need only the model: built beside the rest.
        let tables = std::thread::scope(|scope| {
            let tables = std::thread::Builder::new()
                .spawn_scoped(scope, || replace_and_provide(packages, &order));
            // copies in ListBundles order
            for &(channel, _, bundle, pi, ci, ei) in &order {
                let entry = &packages[pi].channels[ci].entries[ei];
                let Some(&body) = body_of.get(&(pi, bundle)) else {
                    continue;
                };
                let trimmed = encode(&api::Bundle {
                    channel_name: channel.to_string(),
                    skip_range: entry.skip_range.clone(),
                    ..Default::default()
                });
                let full = encode(&api::Bundle {
                    channel_name: channel.to_string(),
                    skip_range: entry.skip_range.clone(),
                    replaces: entry.replaces.clone(),
                    skips: entry.skips.clone(),
                    ..Default::default()
                });
                copy_of.insert((pi, ci, ei), ix.copies.len() as u32);
                ix.copies.push(Copy {
                    package: pi as u32,
                    body,
                    trimmed,
                    full,
                });
            }

            for (pi, package) in packages.iter().enumerate() {
                ix.package_by_name.insert(package.name.clone(), pi as u32);
                ix.package_names.push(encode(&api::PackageName {
                    name: package.name.clone(),
                }));
                let reply = encode(&api::Package {
                    name: package.name.clone(),
                    channels: package
                        .channels
                        .iter()
                        .map(|c| api::Channel {
                            name: c.name.clone(),
                            csv_name: c.head_entry().name.clone(),
                            deprecation: deprecation(&c.deprecation),
                        })
                        .collect(),
                    default_channel_name: package.default_channel.clone(),
                    deprecation: deprecation(&package.deprecation),
                });
                let mut channels = HashMap::new();
                for (ci, channel) in package.channels.iter().enumerate() {
                    let copies: HashMap<String, u32> = channel
                        .entries
                        .iter()
                        .enumerate()
                        .filter_map(|(ei, e)| {
                            copy_of.get(&(pi, ci, ei)).map(|c| (e.name.clone(), *c))
                        })
                        .collect();
                    let head = copy_of.get(&(pi, ci, channel.head)).copied().unwrap_or(0);
                    let replacement = replacement_table(&ix, channel, &copies);
                    channels.insert(
                        channel.name.clone(),
                        ChannelIndex {
                            copies,
                            head,
                            replacement,
                        },
                    );
                }
                ix.packages.push(PackageIndex {
                    name: package.name.clone(),
                    reply,
                    default_channel: package.default_channel.clone(),
                    channels,
                });
            }
            match tables {
                Ok(handle) => handle.join(),
                // no thread could be started: build them here
                Err(_) => Ok(replace_and_provide(packages, &order)),
            }
        });
        match tables {
            Ok(t) => {
                ix.replaced_by = t.replaced_by;
                ix.providers = t.providers;
            }
            Err(payload) => {
                let why = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                return Err(vec![IndexError {
                    location: fbc_catalog::diagnostic::Location::default(),
                    package: String::new(),
                    bundle: String::new(),
                    message: format!(
                        "internal error: building the replace and provide tables panicked: {why}"
                    ),
                }]);
            }
        }

        // latest: channel heads only, in (channel, package) order
        let mut arena = Arena::new();
        let mut heads: Vec<(&str, usize, usize)> = Vec::new();
        for (pi, package) in packages.iter().enumerate() {
            for (ci, channel) in package.channels.iter().enumerate() {
                heads.push((&channel.name, pi, ci));
            }
        }
        heads.sort_unstable_by(|a, b| (a.0, &packages[a.1].name).cmp(&(b.0, &packages[b.1].name)));
        for (_, pi, ci) in heads {
            let package = &packages[pi];
            let channel = &package.channels[ci];
            let entry = channel.head_entry();
            let Some(b) = package.bundle(&entry.name) else {
                continue;
            };
            let in_channel: std::collections::HashSet<&str> =
                channel.entries.iter().map(|e| e.name.as_str()).collect();
            let distinct: std::collections::BTreeSet<&model::Gvk> = b.provided_gvks().collect();
            for gvk in distinct {
                let key = (gvk.group.clone(), gvk.version.clone(), gvk.kind.clone());
                let list = ix.latest_providers.entry(key.clone()).or_default();
                list.push(entry_bytes(
                    &mut arena,
                    &package.name,
                    &channel.name,
                    &entry.name,
                    &entry.replaces,
                ));
                for skip in &entry.skips {
                    if *skip != entry.replaces && in_channel.contains(skip.as_str()) {
                        list.push(entry_bytes(
                            &mut arena,
                            &package.name,
                            &channel.name,
                            &entry.name,
                            skip,
                        ));
                    }
                }
                // default provider: the first package (by name) whose default channel head provides it
                if channel.name == package.default_channel
                    && let Some(&copy) = copy_of.get(&(pi, ci, channel.head))
                {
                    let current = ix.default_provider.entry(key).or_insert(copy);
                    let current_pkg = &packages[ix.copies[*current as usize].package as usize].name;
                    if package.name < *current_pkg {
                        *current = copy;
                    }
                }
            }
        }

        for blob in catalog.custom() {
            // custom blobs are few and small: parsed back from their normalised JSON
            let value: serde_json::Value =
                serde_json::from_slice(&blob.json).unwrap_or(serde_json::Value::Null);
            let s = crate::index::structs::to_struct(&value);
            ix.custom
                .entry((blob.schema.clone(), blob.package.clone()))
                .or_default()
                .push(encode(&s));
        }

        let mut encoded = 0;
        encoded += ix.packages.iter().map(|p| p.reply.len()).sum::<usize>();
        encoded += ix
            .bodies
            .iter()
            .map(|b| {
                // a chunk referenced twice (the CSV) is held once
                let mut seen = std::collections::HashSet::new();
                let unique: usize = b
                    .manifests
                    .iter()
                    .filter(|c| seen.insert(c.as_ptr()))
                    .map(Bytes::len)
                    .sum();
                b.core.len() + unique
            })
            .sum::<usize>();
        encoded += ix
            .copies
            .iter()
            .map(|c| c.trimmed.len() + c.full.len())
            .sum::<usize>();
        ix.stats = Stats {
            packages: packages.len(),
            channels: packages.iter().map(|p| p.channels.len()).sum(),
            bundles: ix.bodies.len(),
            copies: ix.copies.len(),
            custom_blobs: catalog.custom().len(),
            encoded_bytes: encoded,
        };
        Ok(ix)
    }

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

    fn package(&self, name: &str) -> Result<&PackageIndex, QueryError> {
        self.package_by_name
            .get(name)
            .map(|i| &self.packages[*i as usize])
            .ok_or_else(|| QueryError::PackageNotFound(name.to_string()))
    }

    fn channel<'a>(
        &'a self,
        package: &'a PackageIndex,
        channel: &str,
    ) -> Result<&'a ChannelIndex, QueryError> {
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

/// The `GetChannelEntriesThatReplace` and `GetChannelEntriesThatProvide` tables.
struct ReplaceProvide {
    replaced_by: HashMap<String, Vec<Bytes>>,
    providers: HashMap<(String, String, String), Vec<Bytes>>,
}

/// Copies in ListBundles order: (channel, package, bundle, package idx, channel idx, entry idx).
type CopyOrder<'a> = [(&'a str, &'a str, &'a str, usize, usize, usize)];

fn replace_and_provide(packages: &[model::Package], order: &CopyOrder) -> ReplaceProvide {
    // replace and provide answers, in copy order; each entry is encoded once and
    // shared by every list it is in
    let mut arena = Arena::new();
    let mut replaced_by: HashMap<&str, Vec<Bytes>> = HashMap::new();
    let mut providers: HashMap<&model::Gvk, Vec<Bytes>> = HashMap::new();
    for &(channel, pkg, bundle, pi, ci, ei) in order {
        let package = &packages[pi];
        let entry = &package.channels[ci].entries[ei];
        let own = entry_bytes(&mut arena, pkg, channel, bundle, &entry.replaces);
        let skips = || entry.skips.iter().filter(|s| **s != entry.replaces);
        // an empty `replaces` is a key too: the reference answers csvName "" with
        // every entry that replaces nothing (opm v1.26 to v1.73)
        replaced_by
            .entry(&entry.replaces)
            .or_default()
            .push(own.clone());
        for skip in skips() {
            replaced_by.entry(skip).or_default().push(own.clone());
        }
        let Some(b) = package.bundle(bundle) else {
            continue;
        };
        let distinct: std::collections::BTreeSet<&model::Gvk> = b.provided_gvks().collect();
        if distinct.is_empty() {
            continue;
        }
        let skip_entries: Vec<Bytes> = skips()
            .map(|skip| entry_bytes(&mut arena, pkg, channel, bundle, skip))
            .collect();
        for gvk in distinct {
            let list = providers.entry(gvk).or_default();
            list.push(own.clone());
            list.extend(skip_entries.iter().cloned());
        }
    }
    let replaced_by = replaced_by
        .into_iter()
        .map(|(name, list)| (name.to_string(), list))
        .collect();
    let providers = providers
        .into_iter()
        .map(|(g, list)| ((g.group.clone(), g.version.clone(), g.kind.clone()), list))
        .collect();
    ReplaceProvide {
        replaced_by,
        providers,
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

fn replacement_table(
    ix: &Index,
    channel: &model::Channel,
    copies: &HashMap<String, u32>,
) -> HashMap<String, u32> {
    // candidates per replaced name: (replaces directly?, version, name, copy)
    let mut best: HashMap<String, (bool, &semver::Version, &str, u32)> = HashMap::new();
    for entry in &channel.entries {
        let Some(&copy) = copies.get(&entry.name) else {
            continue;
        };
        let version = &ix.bodies[ix.copies[copy as usize].body as usize].version;
        let mut offer = |target: &str, direct: bool| {
            let candidate = (direct, version, entry.name.as_str(), copy);
            match best.get(target) {
                Some(cur) if !better(&candidate, cur) => {}
                _ => {
                    best.insert(target.to_string(), candidate);
                }
            }
        };
        offer(&entry.replaces, true);
        for skip in &entry.skips {
            offer(skip, false);
        }
    }
    best.into_iter().map(|(k, v)| (k, v.3)).collect()
}

fn better(
    a: &(bool, &semver::Version, &str, u32),
    b: &(bool, &semver::Version, &str, u32),
) -> bool {
    match (a.0, b.0) {
        (true, false) => return true,
        (false, true) => return false,
        _ => {}
    }
    match a.1.cmp_precedence(b.1) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => a.2 < b.2,
    }
}

/// Encodes a bundle's shared reply fields; returns the body and its full reply size.
fn bundle_body(
    arena: &mut Arena,
    package: &model::Package,
    package_parts: &Result<csv::PackageParts, String>,
    bundle: &model::Bundle,
) -> Result<(BundleBody, usize), String> {
    // Each manifest is a list of chunks; the CSV's are shared by csvJson and its object entry.
    let mut objects: Vec<Vec<Bytes>> = bundle.objects.iter().map(|o| vec![o.clone()]).collect();
    let csv: Option<Vec<Bytes>> = match (bundle.csv_object, &bundle.csv_pieces) {
        (Some(i), _) => objects.get(i).cloned(),
        (None, Some(pieces)) => {
            let package_parts = package_parts.as_ref().map_err(Clone::clone)?;
            let csv = pieces.chunks(package_parts).to_vec();
            if objects.is_empty() {
                objects.push(csv.clone());
            }
            Some(csv)
        }
        (None, None) => None,
    };
    let mut dependencies = Vec::new();
    for p in &bundle.properties {
        match &p.parsed {
            model::property::Parsed::GvkRequired(_) => dependencies.push(api::Dependency {
                r#type: "olm.gvk".into(),
                value: p.value_json.clone(),
            }),
            model::property::Parsed::PackageRequired(r) => {
                let mut value = String::from("{\"packageName\":");
                fbc_catalog::source::json::write_string(
                    &mut value,
                    &r.package_name,
                    fbc_catalog::source::json::Html::Literal,
                );
                value.push_str(",\"version\":");
                fbc_catalog::source::json::write_string(
                    &mut value,
                    &r.version_range,
                    fbc_catalog::source::json::Html::Literal,
                );
                value.push('}');
                dependencies.push(api::Dependency {
                    r#type: "olm.package".into(),
                    value,
                });
            }
            _ => {}
        }
    }
    let core = api::Bundle {
        csv_name: bundle.name.clone(),
        package_name: package.name.clone(),
        bundle_path: bundle.image.clone(),
        provided_apis: bundle.provided_gvks().map(api_gvk).collect(),
        required_apis: bundle.required_gvks().map(api_gvk).collect(),
        version: bundle.version_text.clone(),
        dependencies,
        properties: bundle
            .properties
            .iter()
            .filter(|p| {
                p.typ != model::property::types::BUNDLE_OBJECT
                    && p.typ != model::property::types::CSV_METADATA
            })
            .map(|p| api::Property {
                r#type: p.typ.clone(),
                value: p.value_json.clone(),
            })
            .collect(),
        deprecation: deprecation(&bundle.deprecation),
        ..Default::default()
    };
    let mut chunks: Vec<Bytes> = Vec::with_capacity(2 * objects.len() + 2);
    let mut push_field = |tag: u32, payload: &[Bytes]| {
        let len: usize = payload.iter().map(Bytes::len).sum();
        let mut head = Vec::with_capacity(16);
        prost::encoding::encode_key(tag, prost::encoding::WireType::LengthDelimited, &mut head);
        prost::encoding::encode_varint(len as u64, &mut head);
        chunks.push(arena.copy(&head));
        chunks.extend(payload.iter().filter(|c| !c.is_empty()).cloned());
    };
    if let Some(csv) = csv.as_ref().filter(|c| c.iter().any(|c| !c.is_empty())) {
        push_field(4, csv);
    }
    for object in &objects {
        push_field(5, object);
    }
    let core = encode(&core);
    let manifests: Arc<[Bytes]> = chunks.into();
    let manifest_len: usize = manifests.iter().map(Bytes::len).sum();
    let full = core.len() + manifest_len + bundle.name.len() + 64;
    Ok((
        BundleBody {
            core,
            manifests,
            has_image: !bundle.image.is_empty(),
            version: bundle.version.clone(),
        },
        full,
    ))
}

#[cfg(test)]
mod tests;
