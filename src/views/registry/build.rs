//! Tables → the `api.Registry` view: every reply encoded once.
//!
//! In: a catalog's [`Tables`]. Out: an [`RegistryView`], built in steps: bundle bodies
//! (on every core), copies in ListBundles order with the package replies beside the
//! replace and provide answers (on a second thread), the latest and default
//! providers, custom-schema Structs, and the counts.

use super::body::bundle_body;
use super::to_api::{deprecation, encode};
use super::*;
use std::collections::{BTreeSet, HashSet};

/// (channel, package, bundle, package idx, channel idx, entry idx) of one copy.
type CopyKey<'a> = (&'a str, &'a str, &'a str, usize, usize, usize);

/// Copies in ListBundles order.
type CopyOrder<'a> = [CopyKey<'a>];

/// Each copy's index by (package, channel, entry) index.
type CopyIndex = HashMap<(usize, usize, usize), u32>;

impl RegistryView {
    /// Builds the index (the `api.Registry` view) of a catalog's tables.
    pub fn build(catalog: &Tables) -> Result<RegistryView, Vec<RegistryViewError>> {
        let packages = catalog.packages();
        let mut ix = RegistryView::default();
        let body_of = ix.add_bodies(packages)?;
        let order = copy_order(packages);
        let copy_of = ix.add_copies_and_packages(packages, &order, &body_of)?;
        ix.add_latest_and_default(packages, &copy_of);
        ix.add_custom(catalog);
        ix.stats = ix.count(packages, catalog);
        Ok(ix)
    }

    /// Every bundle's shared reply fields, built on every core (a package's parts
    /// of its bundles' synthesised CSVs are encoded once). Returns each body's
    /// index by (package index, bundle name).
    fn add_bodies<'a>(
        &mut self,
        packages: &'a [model::Package],
    ) -> Result<HashMap<(usize, &'a str), u32>, Vec<RegistryViewError>> {
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
        let mut errors = Vec::new();
        let mut body_of = HashMap::new();
        for (pi, package) in packages.iter().enumerate() {
            for bundle in &package.bundles {
                let result = built
                    .next()
                    .flatten()
                    .unwrap_or_else(|| Err("internal error: bundle body not built".into()));
                match result {
                    Ok((body, full_size)) => {
                        if full_size > GO_CLIENT_MAX_RECEIVE {
                            self.oversize.push(OversizeReply {
                                package: package.name.clone(),
                                bundle: bundle.name.clone(),
                                bytes: full_size,
                            });
                        }
                        body_of.insert((pi, bundle.name.as_str()), self.bodies.len() as u32);
                        self.bodies.push(body);
                    }
                    Err(message) => errors.push(RegistryViewError {
                        location: (&bundle.origin).into(),
                        package: package.name.clone(),
                        bundle: bundle.name.clone(),
                        message,
                    }),
                }
            }
        }
        if errors.is_empty() {
            Ok(body_of)
        } else {
            Err(errors)
        }
    }

    /// The copies in ListBundles order and the package replies, with the replace
    /// and provide answers built beside them on a second thread (they need only
    /// the tables). Returns each copy's index by (package, channel, entry) index.
    fn add_copies_and_packages(
        &mut self,
        packages: &[model::Package],
        order: &CopyOrder,
        body_of: &HashMap<(usize, &str), u32>,
    ) -> Result<CopyIndex, Vec<RegistryViewError>> {
        let (copy_of, side) = std::thread::scope(|scope| {
            let side = std::thread::Builder::new()
                .spawn_scoped(scope, || replace_and_provide(packages, order));
            let copy_of = self.add_copies(packages, order, body_of);
            self.add_packages(packages, &copy_of);
            let side = match side {
                Ok(handle) => handle.join(),
                // no thread could be started: build them here
                Err(_) => Ok(replace_and_provide(packages, order)),
            };
            (copy_of, side)
        });
        match side {
            Ok(t) => {
                self.replaced_by = t.replaced_by;
                self.providers = t.providers;
                Ok(copy_of)
            }
            Err(payload) => {
                let why = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(vec![RegistryViewError {
                    location: fbc_catalog::diagnostic::Location::default(),
                    package: String::new(),
                    bundle: String::new(),
                    message: format!(
                        "internal error: building the replace and provide tables panicked: {why}"
                    ),
                }])
            }
        }
    }

    /// One copy per channel entry, in ListBundles order.
    fn add_copies(
        &mut self,
        packages: &[model::Package],
        order: &CopyOrder,
        body_of: &HashMap<(usize, &str), u32>,
    ) -> CopyIndex {
        let mut copy_of = HashMap::new();
        for &(channel, _, bundle, pi, ci, ei) in order {
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
            copy_of.insert((pi, ci, ei), self.copies.len() as u32);
            self.copies.push(BundleCopy {
                package: pi as u32,
                body,
                trimmed,
                full,
            });
        }
        copy_of
    }

    /// Each package's GetPackage reply and its channels' lookup tables.
    fn add_packages(&mut self, packages: &[model::Package], copy_of: &CopyIndex) {
        for (pi, package) in packages.iter().enumerate() {
            self.package_by_name.insert(package.name.clone(), pi as u32);
            self.package_names.push(encode(&api::PackageName {
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
                    .filter_map(|(ei, e)| copy_of.get(&(pi, ci, ei)).map(|c| (e.name.clone(), *c)))
                    .collect();
                let head = copy_of.get(&(pi, ci, channel.head)).copied().unwrap_or(0);
                let replacement = replacement_table(self, channel, &copies);
                channels.insert(
                    channel.name.clone(),
                    ChannelReplies {
                        copies,
                        head,
                        replacement,
                    },
                );
            }
            self.packages.push(PackageReplies {
                name: package.name.clone(),
                reply,
                default_channel: package.default_channel.clone(),
                channels,
            });
        }
    }

    /// GetLatestChannelEntriesThatProvide (channel heads only, in (channel,
    /// package) order) and GetDefaultBundleThatProvides (the first package by name
    /// whose default channel head provides the API).
    fn add_latest_and_default(&mut self, packages: &[model::Package], copy_of: &CopyIndex) {
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
            let in_channel: HashSet<&str> =
                channel.entries.iter().map(|e| e.name.as_str()).collect();
            let distinct: BTreeSet<&model::Gvk> = b.provided_gvks().collect();
            for gvk in distinct {
                let key = (gvk.group.clone(), gvk.version.clone(), gvk.kind.clone());
                let list = self.latest_providers.entry(key.clone()).or_default();
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
                if channel.name == package.default_channel
                    && let Some(&copy) = copy_of.get(&(pi, ci, channel.head))
                {
                    let current = self.default_provider.entry(key).or_insert(copy);
                    let current_pkg =
                        &packages[self.copies[*current as usize].package as usize].name;
                    if package.name < *current_pkg {
                        *current = copy;
                    }
                }
            }
        }
    }

    /// Custom-schema blobs as `google.protobuf.Struct`s, per (schema, package).
    fn add_custom(&mut self, catalog: &Tables) {
        for blob in catalog.custom() {
            // custom blobs are few and small: parsed back from their normalised JSON
            let value: serde_json::Value =
                serde_json::from_slice(&blob.json).unwrap_or(serde_json::Value::Null);
            let s = crate::views::registry::structs::to_struct(&value);
            self.custom
                .entry((blob.schema.clone(), blob.package.clone()))
                .or_default()
                .push(encode(&s));
        }
    }

    /// Counts, and the bytes of encoded replies held (a chunk referenced twice, the
    /// CSV, counted once).
    fn count(&self, packages: &[model::Package], catalog: &Tables) -> Stats {
        let mut encoded = 0;
        encoded += self.packages.iter().map(|p| p.reply.len()).sum::<usize>();
        encoded += self
            .bodies
            .iter()
            .map(|b| {
                let mut seen = HashSet::new();
                let unique: usize = b
                    .manifests
                    .iter()
                    .filter(|c| seen.insert(c.as_ptr()))
                    .map(Bytes::len)
                    .sum();
                b.core.len() + unique
            })
            .sum::<usize>();
        encoded += self
            .copies
            .iter()
            .map(|c| c.trimmed.len() + c.full.len())
            .sum::<usize>();
        Stats {
            packages: packages.len(),
            channels: packages.iter().map(|p| p.channels.len()).sum(),
            bundles: self.bodies.len(),
            copies: self.copies.len(),
            custom_blobs: catalog.custom().len(),
            encoded_bytes: encoded,
        }
    }
}

/// Every channel entry of every package, sorted into ListBundles order:
/// (channel, package, bundle) by bytes.
fn copy_order(packages: &[model::Package]) -> Vec<CopyKey<'_>> {
    let mut order = Vec::new();
    for (pi, package) in packages.iter().enumerate() {
        for (ci, channel) in package.channels.iter().enumerate() {
            for (ei, entry) in channel.entries.iter().enumerate() {
                order.push((
                    channel.name.as_str(),
                    package.name.as_str(),
                    entry.name.as_str(),
                    pi,
                    ci,
                    ei,
                ));
            }
        }
    }
    order.sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    order
}

/// An encoded `api.ChannelEntry`, written into `arena` without building the message
/// (prost's encoding exactly: fields in number order, empty strings left out).
pub(super) fn entry_bytes(
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

/// The `GetChannelEntriesThatReplace` and `GetChannelEntriesThatProvide` tables.
struct ReplaceProvide {
    replaced_by: HashMap<String, Vec<Bytes>>,
    providers: HashMap<(String, String, String), Vec<Bytes>>,
}

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

fn replacement_table(
    ix: &RegistryView,
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
