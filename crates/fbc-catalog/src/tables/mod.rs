//! Validated model → immutable typed tables: what every view of a catalog reads.
//!
//! In: a validated [`Model`] and where it was read. Out: [`Tables`]:
//!
//! - packages by name, each with its channels (by name; entries in catalog order,
//!   plus the **chain order** OLM v0 walks: head first along `replaces`, entries
//!   some entry skips left out) and its bundles (by name: version, properties,
//!   manifests, the CSV, deprecation);
//! - GVK providers: the bundles whose `olm.gvk` properties name each API;
//! - each bundle's dependency requirements parsed into values, a broken one a
//!   per-bundle error value ([`requirements`]);
//! - per channel, an edge index (chain positions, replaced-by, skipped-by,
//!   parsed skipRanges), built for a package when a graph question first needs
//!   it ([`edges`]);
//! - the raw metas of every schema in walk order, addressable by (schema,
//!   package, name) ([`metas`]);
//! - `olm.deprecations`, applied to packages, channels and bundles.
//!
//! The tables are built once per snapshot and never change. Views (the
//! `api.Registry` replies, graph indexes, resolver input, catalogd's HTTP bytes)
//! are built from them; an index cache persists them, so a warm start has them too.

pub mod edges;
pub mod metas;
pub mod requirements;
pub mod summary;
#[cfg(any(test, feature = "test-util"))]
pub mod testing;
#[cfg(test)]
mod tests;

use crate::model::{Bundle, Channel, Gvk, Meta, Model, Package};
use crate::source::Blob;
use edges::ChannelEdges;
use metas::MetaTable;
use requirements::RequirementResult;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

/// A bundle, by package index and bundle index within the package.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BundleRef {
    /// Index into [`Tables::packages`].
    pub package: u32,
    /// Index into that package's `bundles`.
    pub bundle: u32,
}

/// A channel, by package index and channel index within the package.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChannelRef {
    /// Index into [`Tables::packages`].
    pub package: u32,
    /// Index into that package's `channels`.
    pub channel: u32,
}

/// A custom-schema blob (any schema but the four OLM defines), kept as its
/// normalised JSON for the views that serve it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomMeta {
    /// The `schema` field.
    pub schema: String,
    /// The `package` field, or empty.
    pub package: String,
    /// The normalised JSON.
    pub json: bytes::Bytes,
}

/// The typed tables of one catalog (see the module docs).
#[derive(Debug)]
pub struct Tables {
    packages: Vec<Package>,
    custom: Vec<CustomMeta>,
    metas: MetaTable,
    package_by_name: HashMap<String, u32>,
    /// Per package, per channel: entry indices in chain order.
    chains: Vec<Vec<Vec<u32>>>,
    providers: BTreeMap<Gvk, Vec<BundleRef>>,
    /// Per package, per bundle.
    requirements: Vec<Vec<Vec<RequirementResult>>>,
    /// Per package, per channel: the edge index, built when first asked for.
    edges: Vec<OnceLock<Vec<ChannelEdges>>>,
}

impl Tables {
    /// The tables of a validated model whose metas are `metas`.
    pub fn new(packages: Vec<Package>, custom: Vec<CustomMeta>, metas: MetaTable) -> Tables {
        let package_by_name = packages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i as u32))
            .collect();
        let chains = packages
            .iter()
            .map(|p| p.channels.iter().map(chain_order).collect())
            .collect();
        let requirements = packages
            .iter()
            .map(|p| {
                p.bundles
                    .iter()
                    .map(|b| requirements::requirements(&b.properties))
                    .collect()
            })
            .collect();
        let providers = providers(&packages);
        let edges = packages.iter().map(|_| OnceLock::new()).collect();
        Tables {
            edges,
            packages,
            custom,
            metas,
            package_by_name,
            chains,
            providers,
            requirements,
        }
    }

    /// As [`Tables::from_model`], with each meta's JSON at hand (see
    /// [`MetaTable::with_files_and_json`]).
    pub fn from_model_with_json(
        model: Model,
        files: metas::CatalogFiles,
        json: Vec<bytes::Bytes>,
    ) -> Tables {
        Self::with_metas(model, |metas| {
            MetaTable::with_files_and_json(metas, files, json)
        })
    }

    /// The tables of `model`, whose metas' JSON is read from `files` when asked for.
    pub fn from_model(model: Model, files: metas::CatalogFiles) -> Tables {
        Self::with_metas(model, |metas| MetaTable::new(metas, files))
    }

    /// The tables of `model`, its metas made into a table by `metas`.
    fn with_metas(model: Model, metas: impl FnOnce(Vec<Meta>) -> MetaTable) -> Tables {
        let custom = model.custom.iter().map(custom_meta).collect();
        Tables::new(model.packages, custom, metas(model.metas))
    }

    /// A catalog with nothing in it (a catalog a question names but nobody serves).
    pub fn empty() -> Tables {
        Tables::new(Vec::new(), Vec::new(), MetaTable::detached(Vec::new()))
    }

    /// The tables of a catalog held in memory as one stream of documents (`file` names
    /// it in diagnostics and decides JSON or YAML), parsed under `limits`, built and
    /// validated under `rule`; detached (see [`Tables::detached`]).
    pub fn from_stream(
        file: &str,
        stream: &[u8],
        rule: crate::model::ChainRule,
        limits: &crate::source::ParseLimits,
    ) -> Result<Tables, Vec<crate::diagnostic::Diagnostic>> {
        let parsed = crate::source::parse_file_with(file, stream, limits);
        let mut arena = crate::arena::Arena::new();
        let loaded = crate::source::Loaded {
            blobs: parsed
                .blobs
                .into_iter()
                .map(|b| crate::model::decode_blob(&mut arena, b, limits))
                .collect(),
            errors: parsed.errors,
            files: Vec::new(),
        };
        crate::model::build_decoded_with(loaded, rule).map(|built| Tables::detached(built.model))
    }

    /// The tables of a model built from text in memory: as [`Tables::from_model`],
    /// but the metas' JSON cannot be produced (see [`MetaTable::detached`]).
    pub fn detached(model: Model) -> Tables {
        Self::with_metas(model, MetaTable::detached)
    }

    /// Packages, sorted by name.
    pub fn packages(&self) -> &[Package] {
        &self.packages
    }

    /// A package by name, with its index.
    pub fn package(&self, name: &str) -> Option<(u32, &Package)> {
        let i = *self.package_by_name.get(name)?;
        self.packages.get(i as usize).map(|p| (i, p))
    }

    /// The channel `r` points at.
    pub fn channel(&self, r: ChannelRef) -> Option<&Channel> {
        self.packages
            .get(r.package as usize)?
            .channels
            .get(r.channel as usize)
    }

    /// The bundle `r` points at.
    pub fn bundle(&self, r: BundleRef) -> Option<&Bundle> {
        self.packages
            .get(r.package as usize)?
            .bundles
            .get(r.bundle as usize)
    }

    /// A bundle of package `package` by name.
    pub fn bundle_named(&self, package: u32, name: &str) -> Option<BundleRef> {
        let p = self.packages.get(package as usize)?;
        let i = p
            .bundles
            .binary_search_by(|b| b.name.as_str().cmp(name))
            .ok()?;
        Some(BundleRef {
            package,
            bundle: i as u32,
        })
    }

    /// The entries of channel `r` in OLM v0's chain order (head first, following
    /// `replaces`, entries that any entry of the channel skips left out), as
    /// indices into the channel's `entries`.
    pub fn chain(&self, r: ChannelRef) -> &[u32] {
        self.chains
            .get(r.package as usize)
            .and_then(|c| c.get(r.channel as usize))
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The edge indexes of package `package`'s channels (by channel index),
    /// built on the first call for the package.
    pub fn channel_edges(&self, package: u32) -> &[ChannelEdges] {
        let Some(slot) = self.edges.get(package as usize) else {
            return &[];
        };
        slot.get_or_init(|| {
            let p = &self.packages[package as usize];
            p.channels
                .iter()
                .enumerate()
                .map(|(ci, c)| {
                    let chain = self.chain(ChannelRef {
                        package,
                        channel: ci as u32,
                    });
                    ChannelEdges::new(c, chain, |name| p.bundle(name).map(|b| &b.version))
                })
                .collect()
        })
    }

    /// The bundles whose `olm.gvk` properties name `gvk`, in (package, bundle) order.
    pub fn providers(&self, gvk: &Gvk) -> &[BundleRef] {
        self.providers
            .get(gvk)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Every provided API with its providers, ordered by (group, version, kind).
    pub fn all_providers(&self) -> impl Iterator<Item = (&Gvk, &[BundleRef])> {
        self.providers.iter().map(|(g, b)| (g, b.as_slice()))
    }

    /// The dependency requirements of bundle `r`, in property order.
    pub fn requirements(&self, r: BundleRef) -> &[RequirementResult] {
        self.requirements
            .get(r.package as usize)
            .and_then(|p| p.get(r.bundle as usize))
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Custom-schema blobs, in walk order.
    pub fn custom(&self) -> &[CustomMeta] {
        &self.custom
    }

    /// Every meta.
    pub fn metas(&self) -> &MetaTable {
        &self.metas
    }
}

fn custom_meta(blob: &Blob) -> CustomMeta {
    CustomMeta {
        schema: blob.schema.clone(),
        package: blob.package.clone(),
        json: bytes::Bytes::from(blob.normalized_json()),
    }
}

fn providers(packages: &[Package]) -> BTreeMap<Gvk, Vec<BundleRef>> {
    let mut providers: BTreeMap<Gvk, Vec<BundleRef>> = BTreeMap::new();
    for (pi, p) in packages.iter().enumerate() {
        for (bi, b) in p.bundles.iter().enumerate() {
            let distinct: BTreeSet<&Gvk> = b.provided_gvks().collect();
            for gvk in distinct {
                providers.entry(gvk.clone()).or_default().push(BundleRef {
                    package: pi as u32,
                    bundle: bi as u32,
                });
            }
        }
    }
    providers
}

/// OLM v0's `sortChannel` order of a valid channel: from the head along
/// `replaces`, leaving out every entry that some entry skips.
pub fn chain_order(channel: &Channel) -> Vec<u32> {
    let skipped: BTreeSet<&str> = channel
        .entries
        .iter()
        .flat_map(|e| e.skips.iter().map(String::as_str))
        .collect();
    let index: HashMap<&str, usize> = channel
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    let mut chain = Vec::new();
    let mut seen = BTreeSet::new();
    let mut cur = Some(channel.head);
    while let Some(i) = cur {
        let Some(e) = channel.entries.get(i) else {
            break;
        };
        if !seen.insert(i) {
            break; // a cycle: validation rejects these; stop rather than loop
        }
        if !skipped.contains(e.name.as_str()) {
            chain.push(i as u32);
        }
        cur = index.get(e.replaces.as_str()).copied();
    }
    chain
}
