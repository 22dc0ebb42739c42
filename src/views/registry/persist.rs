//! The index as one contiguous buffer, and back.
//!
//! In: an [`RegistryView`]. Out: protobuf bytes, which decode into an `RegistryView` whose reply
//! chunks are zero-copy slices of one buffer. The on-disk index cache
//! (`--cache-dir`) stores it, so a warm start is a file read (a mapping, in fact).
//!
//! Layout: the tables first, then one `data` field holding every bundle's encoded
//! fields and manifests, which the tables refer to by (offset, length). Decoding
//! reads only the tables, so a mapped cache file is faulted in only where the
//! tables are: the manifests stay on disk (in the page cache) until a reply
//! needs them.
//!
//! Maps are written in key order, so the same index always encodes to the same
//! bytes. A chunk shared by several fields or bundles (a CSV under `csvJson` and
//! `object`, a package's description in its bundles' CSVs) is stored once.

use super::data_section::{DataSection, DecodeError};
use super::persist_index_messages::*;
use super::*;

fn sorted<K: Ord + Clone, V>(map: &HashMap<K, V>) -> Vec<(&K, &V)> {
    let mut v: Vec<(&K, &V)> = map.iter().collect();
    v.sort_unstable_by(|a, b| a.0.cmp(b.0));
    v
}

fn named_copies(map: &HashMap<String, u32>) -> Vec<PNamedCopy> {
    sorted(map)
        .into_iter()
        .map(|(name, copy)| PNamedCopy {
            name: name.clone(),
            copy: *copy,
        })
        .collect()
}

fn gvk_lists(map: &HashMap<(String, String, String), Vec<Bytes>>) -> Vec<PGvkList> {
    sorted(map)
        .into_iter()
        .map(|((g, v, k), items)| PGvkList {
            group: g.clone(),
            version: v.clone(),
            kind: k.clone(),
            items: items.clone(),
            copy: 0,
        })
        .collect()
}

/// What an index cache file holds.
#[derive(Debug)]
pub struct CachedViews {
    /// The typed tables, decoded when first asked for.
    pub tables: super::lazy_tables::SnapshotTables,
    /// The `api.Registry` view.
    pub index: RegistryView,
}

/// Writes `tables` and `index` as one cache image to `out`, without assembling
/// it in memory first: the index's message, then the tables' field, then the data
/// section's key and length, then its chunks (shared chunks written once) — the
/// bytes prost would write for the whole message, fields in tag order.
pub fn write_cache(
    out: &mut (impl std::io::Write + ?Sized),
    tables: &fbc_catalog::tables::Tables,
    index: &RegistryView,
) -> std::io::Result<()> {
    // One part at a time, each freed before the next is made: this runs at the end of
    // a load, beside the catalog it writes, and at scale each part is tens of MiB.
    // The tables are written as their own field rather than set in the message,
    // whose encoding would copy them once more.
    let mut data = DataSection::default();
    let message = index.to_message(&mut data).encode_to_vec();
    out.write_all(&message)?;
    drop(message);
    let encoded =
        super::persist_table_messages::PTables::from_tables(tables, &mut data).encode_to_vec();
    write_field_head(out, TABLES_TAG, encoded.len() as u64)?;
    out.write_all(&encoded)?;
    drop(encoded);
    write_data(out, &data)
}

fn write_message(
    out: &mut (impl std::io::Write + ?Sized),
    message: &PIndex,
    data: &DataSection,
) -> std::io::Result<()> {
    out.write_all(&message.encode_to_vec())?;
    write_data(out, data)
}

/// The data section: its key and length, then its chunks (nothing when empty).
fn write_data(out: &mut (impl std::io::Write + ?Sized), data: &DataSection) -> std::io::Result<()> {
    if !data.is_empty() {
        write_field_head(out, DATA_TAG, data.len())?;
        for chunk in data.chunks() {
            out.write_all(chunk)?;
        }
    }
    Ok(())
}

/// The key and length of length-delimited field `tag` holding `len` bytes.
fn write_field_head(
    out: &mut (impl std::io::Write + ?Sized),
    tag: u32,
    len: u64,
) -> std::io::Result<()> {
    let mut key = Vec::with_capacity(16);
    prost::encoding::encode_key(tag, prost::encoding::WireType::LengthDelimited, &mut key);
    prost::encoding::encode_varint(len, &mut key);
    out.write_all(&key)
}

/// Reads a cache image written by [`write_cache`]; byte strings are slices of
/// `buf` (no copy). The tables' metas are read again from the catalog at `root`
/// when their JSON is asked for.
pub fn read_cache(
    buf: Bytes,
    root: &std::path::Path,
    limits: fbc_catalog::source::ParseLimits,
) -> Result<CachedViews, DecodeError> {
    let mut message = PIndex::decode(buf).map_err(|e| DecodeError::new(&e.to_string()))?;
    let tables = message
        .tables
        .take()
        .ok_or_else(|| DecodeError::new("the cache holds no tables"))?;
    let tables = super::lazy_tables::SnapshotTables::cached(super::lazy_tables::TablesImage {
        encoded: tables,
        data: message.data.clone(),
        root: root.to_path_buf(),
        limits,
    });
    Ok(CachedViews {
        tables,
        index: RegistryView::from_message(message)?,
    })
}

impl RegistryView {
    /// Encodes the whole index.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // writing to a Vec cannot fail
        let _ = self.write_to(&mut out);
        out
    }

    /// Writes the encoded index to `out` without assembling it in memory first:
    /// the tables, then the `data` field's key and length, then its chunks.
    pub fn write_to(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        let mut data = DataSection::default();
        let message = self.to_message(&mut data);
        write_message(out, &message, &data)
    }

    // Long by nature: one statement per message field, in the message's order.
    fn to_message(&self, data: &mut DataSection) -> PIndex {
        let s = &self.stats;
        PIndex {
            packages: self
                .packages
                .iter()
                .map(|pk| PPackage {
                    name: pk.name.clone(),
                    reply: pk.reply.clone(),
                    default_channel: pk.default_channel.clone(),
                    channels: sorted(&pk.channels)
                        .into_iter()
                        .map(|(name, c)| PChannel {
                            name: name.clone(),
                            copies: named_copies(&c.copies),
                            head: c.head,
                            replacement: named_copies(&c.replacement),
                        })
                        .collect(),
                })
                .collect(),
            package_names: self.package_names.clone(),
            bodies: self
                .bodies
                .iter()
                .map(|b| {
                    let mut manifests = Vec::with_capacity(2 * b.manifests.len());
                    for chunk in b.manifests.iter() {
                        manifests.push(data.place(chunk));
                        manifests.push(chunk.len() as u64);
                    }
                    PBody {
                        core_at: data.place(&b.core),
                        core_len: b.core.len() as u64,
                        manifests,
                        has_image: b.has_image,
                        version: b.version.to_string(),
                    }
                })
                .collect(),
            copies: self
                .copies
                .iter()
                .map(|c| PCopy {
                    package: c.package,
                    body: c.body,
                    trimmed: c.trimmed.clone(),
                    full: c.full.clone(),
                })
                .collect(),
            replaced_by: sorted(&self.replaced_by)
                .into_iter()
                .map(|(name, items)| PNamedList {
                    name: name.clone(),
                    items: items.clone(),
                })
                .collect(),
            providers: gvk_lists(&self.providers),
            latest_providers: gvk_lists(&self.latest_providers),
            default_provider: sorted(&self.default_provider)
                .into_iter()
                .map(|((g, v, k), copy)| PGvkList {
                    group: g.clone(),
                    version: v.clone(),
                    kind: k.clone(),
                    items: Vec::new(),
                    copy: *copy,
                })
                .collect(),
            custom: sorted(&self.custom)
                .into_iter()
                .map(|((schema, package), items)| PCustom {
                    schema: schema.clone(),
                    package: package.clone(),
                    items: items.clone(),
                })
                .collect(),
            oversize: self
                .oversize
                .iter()
                .map(|o| POversize {
                    package: o.package.clone(),
                    bundle: o.bundle.clone(),
                    bytes: o.bytes as u64,
                })
                .collect(),
            stats: [
                s.packages,
                s.channels,
                s.bundles,
                s.copies,
                s.custom_blobs,
                s.encoded_bytes,
            ]
            .iter()
            .map(|n| *n as u64)
            .collect(),
            tables: None,
            data: Bytes::new(),
        }
    }

    /// Decodes an index; every reply chunk is a slice of `buf` (no copy).
    pub fn from_bytes(buf: Bytes) -> Result<RegistryView, DecodeError> {
        RegistryView::from_message(
            PIndex::decode(buf).map_err(|e| DecodeError::new(&e.to_string()))?,
        )
    }

    // Long by nature: one statement per message field, each checked, in order.
    fn from_message(p: PIndex) -> Result<RegistryView, DecodeError> {
        let bad = |what: &str| DecodeError::new(what);
        let n_copies = p.copies.len() as u32;
        let n_bodies = p.bodies.len() as u32;
        let check_copy = |c: u32| {
            if c < n_copies {
                Ok(c)
            } else {
                Err(bad("copy index out of range"))
            }
        };
        let mut ix = RegistryView::default();
        for (i, pk) in p.packages.into_iter().enumerate() {
            let mut channels = HashMap::with_capacity(pk.channels.len());
            for c in pk.channels {
                let copies = c
                    .copies
                    .into_iter()
                    .map(|nc| check_copy(nc.copy).map(|copy| (nc.name, copy)))
                    .collect::<Result<_, _>>()?;
                let replacement = c
                    .replacement
                    .into_iter()
                    .map(|nc| check_copy(nc.copy).map(|copy| (nc.name, copy)))
                    .collect::<Result<_, _>>()?;
                channels.insert(
                    c.name,
                    ChannelReplies {
                        copies,
                        head: check_copy(c.head)?,
                        replacement,
                    },
                );
            }
            ix.package_by_name.insert(pk.name.clone(), i as u32);
            ix.packages.push(PackageReplies {
                name: pk.name,
                reply: pk.reply,
                default_channel: pk.default_channel,
                channels,
            });
        }
        ix.package_names = p.package_names;
        let data = p.data;
        let span = |at: u64, len: u64| -> Result<Bytes, DecodeError> {
            let end = at.checked_add(len).filter(|end| *end <= data.len() as u64);
            match end {
                Some(end) => Ok(data.slice(at as usize..end as usize)),
                None => Err(bad("a chunk lies outside the data section")),
            }
        };
        for b in p.bodies {
            if b.manifests.len() % 2 != 0 {
                return Err(bad("manifest spans come in (offset, length) pairs"));
            }
            let manifests = b
                .manifests
                .chunks_exact(2)
                .map(|pair| span(pair[0], pair[1]))
                .collect::<Result<Vec<Bytes>, _>>()?;
            ix.bodies.push(BundleBody {
                core: span(b.core_at, b.core_len)?,
                manifests: manifests.into(),
                has_image: b.has_image,
                version: semver::Version::parse(&b.version)
                    .map_err(|e| DecodeError::new(&format!("version: {e}")))?,
            });
        }
        let n_packages = ix.packages.len() as u32;
        for c in p.copies {
            if c.package >= n_packages || c.body >= n_bodies {
                return Err(bad("copy refers to a missing package or bundle"));
            }
            ix.copies.push(BundleCopy {
                package: c.package,
                body: c.body,
                trimmed: c.trimmed,
                full: c.full,
            });
        }
        ix.replaced_by = p
            .replaced_by
            .into_iter()
            .map(|l| (l.name, l.items))
            .collect();
        ix.providers = p
            .providers
            .into_iter()
            .map(|l| ((l.group, l.version, l.kind), l.items))
            .collect();
        ix.latest_providers = p
            .latest_providers
            .into_iter()
            .map(|l| ((l.group, l.version, l.kind), l.items))
            .collect();
        ix.default_provider = p
            .default_provider
            .into_iter()
            .map(|l| check_copy(l.copy).map(|c| ((l.group, l.version, l.kind), c)))
            .collect::<Result<_, _>>()?;
        ix.custom = p
            .custom
            .into_iter()
            .map(|c| ((c.schema, c.package), c.items))
            .collect();
        ix.oversize = p
            .oversize
            .into_iter()
            .map(|o| OversizeReply {
                package: o.package,
                bundle: o.bundle,
                bytes: o.bytes as usize,
            })
            .collect();
        let [
            packages,
            channels,
            bundles,
            copies,
            custom_blobs,
            encoded_bytes,
        ] = p.stats[..]
        else {
            return Err(bad("stats"));
        };
        ix.stats = Stats {
            packages: packages as usize,
            channels: channels as usize,
            bundles: bundles as usize,
            copies: copies as usize,
            custom_blobs: custom_blobs as usize,
            encoded_bytes: encoded_bytes as usize,
        };
        Ok(ix)
    }
}

#[cfg(test)]
mod tests;
