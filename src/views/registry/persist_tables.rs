//! The typed tables in the index cache, and back.
//!
//! In: [`Tables`]. Out: a protobuf message whose large byte strings (manifests,
//! CSV pieces, icons, custom blobs, metas' JSON) are (offset, length) spans into
//! the cache file's shared data section, so a warm start decodes only rows and
//! names and maps the rest. Derived indexes (chains, providers, parsed
//! requirements, lookups) are rebuilt from the rows by [`Tables::new`], which
//! parses no catalog text beyond the few dependency property values.

use super::data_section::{DataSection, DecodeError, Spans};
use bytes::Bytes;
use fbc_catalog::model::csv::CsvPieces;
use fbc_catalog::model::property::{PackageProp, PackageRequired, Parsed};
use fbc_catalog::model::{
    Bundle, Channel, Entry, Gvk, Icon, Meta, Package, Property, RelatedImage,
};
use fbc_catalog::source::{FileDigest, Origin};
use fbc_catalog::tables::metas::{CatalogFiles, MetaTable};
use fbc_catalog::tables::{CustomMeta, Tables};
use std::sync::Arc;

use super::persist_table_messages::*;

/// Writes rows into messages and large byte strings into the data section.
struct Writer<'a> {
    data: &'a mut DataSection,
    files: Vec<PFile>,
    file_ids: std::collections::HashMap<Arc<str>, u32>,
}

impl Writer<'_> {
    fn span(&mut self, bytes: &Bytes) -> Vec<u64> {
        vec![self.data.place(bytes), bytes.len() as u64]
    }

    fn add_file(&mut self, f: PFile) -> u32 {
        let next = self.files.len() as u32;
        let id = *self
            .file_ids
            .entry(Arc::from(f.rel.as_str()))
            .or_insert(next);
        if id == next {
            self.files.push(f);
        }
        id
    }

    fn origin(&mut self, o: &Origin) -> Option<POrigin> {
        let file = self.add_file(PFile {
            rel: o.file.to_string(),
            ..PFile::default()
        });
        Some(POrigin {
            file,
            document: o.document as u64,
            line: o.line as u64,
        })
    }

    fn package(&mut self, p: &Package) -> PPackage {
        PPackage {
            name: p.name.clone(),
            default_channel: p.default_channel.clone(),
            description: p.description.clone(),
            icon: p
                .icon
                .as_ref()
                .map(|i| self.span(&i.data))
                .unwrap_or_default(),
            icon_media_type: p
                .icon
                .as_ref()
                .map(|i| i.media_type.clone())
                .unwrap_or_default(),
            deprecation: p.deprecation.clone(),
            origin: self.origin(&p.origin),
            channels: p.channels.iter().map(|c| self.channel(c)).collect(),
            bundles: p.bundles.iter().map(|b| self.bundle(b)).collect(),
        }
    }

    fn channel(&mut self, c: &Channel) -> PChannel {
        PChannel {
            name: c.name.clone(),
            entries: c
                .entries
                .iter()
                .map(|e| PEntry {
                    name: e.name.clone(),
                    replaces: e.replaces.clone(),
                    skips: e.skips.clone(),
                    skip_range: e.skip_range.clone(),
                })
                .collect(),
            head: c.head as u64,
            deprecation: c.deprecation.clone(),
            origin: self.origin(&c.origin),
        }
    }

    fn bundle(&mut self, b: &Bundle) -> PBundle {
        let mut csv_pieces = Vec::new();
        let mut csv_has_description = false;
        if let Some(pieces) = &b.csv_pieces {
            let (head, description, middle, tail) = pieces.parts();
            csv_has_description = description.is_some();
            for piece in [head, description.unwrap_or(&Bytes::new()), middle, tail] {
                csv_pieces.extend(self.span(piece));
            }
        }
        PBundle {
            name: b.name.clone(),
            image: b.image.clone(),
            properties: b.properties.iter().map(property).collect(),
            related_images: b
                .related_images
                .iter()
                .flat_map(|r| [r.name.clone(), r.image.clone()])
                .collect(),
            version_text: b.version_text.clone(),
            release: b.release.clone(),
            objects: b.objects.iter().flat_map(|o| self.span(o)).collect(),
            csv_object: b.csv_object.map(|i| i as u64),
            csv_pieces,
            csv_has_description,
            deprecation: b.deprecation.clone(),
            origin: self.origin(&b.origin),
        }
    }
}

fn property(p: &Property) -> PProperty {
    let (kind, fields, release) = match &p.parsed {
        Parsed::Package(pp) => (
            kind::PACKAGE,
            vec![pp.package_name.clone(), pp.version.clone()],
            pp.release.clone(),
        ),
        Parsed::PackageRequired(r) => (
            kind::PACKAGE_REQUIRED,
            vec![r.package_name.clone(), r.version_range.clone()],
            None,
        ),
        Parsed::Gvk(g) => (kind::GVK, gvk_fields(g), None),
        Parsed::GvkRequired(g) => (kind::GVK_REQUIRED, gvk_fields(g), None),
        Parsed::BundleObject(_) => (kind::BUNDLE_OBJECT, Vec::new(), None),
        Parsed::CsvMetadata(_) => (kind::CSV_METADATA, Vec::new(), None),
        Parsed::Channel(c) => (kind::CHANNEL, vec![c.clone()], None),
        Parsed::Other => (kind::OTHER, Vec::new(), None),
    };
    PProperty {
        typ: p.typ.clone(),
        value_json: p.value_json.clone(),
        kind,
        fields,
        release,
    }
}

fn gvk_fields(g: &Gvk) -> Vec<String> {
    vec![g.group.clone(), g.version.clone(), g.kind.clone()]
}

impl PTables {
    /// The tables as a message; byte strings go into `data`. The metas' JSON is
    /// included when the tables can produce it.
    pub(super) fn from_tables(t: &Tables, data: &mut DataSection) -> PTables {
        let mut w = Writer {
            data,
            files: Vec::new(),
            file_ids: Default::default(),
        };
        // every catalog file first, in walk order, with its hash
        for f in t
            .metas()
            .files()
            .map(|c| c.files.as_slice())
            .unwrap_or_default()
        {
            w.add_file(PFile {
                rel: f.rel.clone(),
                size: f.size,
                hash_low: f.hash as u64,
                hash_high: (f.hash >> 64) as u64,
            });
        }
        let packages = t.packages().iter().map(|p| w.package(p)).collect();
        let custom = t
            .custom()
            .iter()
            .map(|c| PCustom {
                schema: c.schema.clone(),
                package: c.package.clone(),
                json: w.span(&c.json),
            })
            .collect();
        let metas = t
            .metas()
            .rows()
            .iter()
            .map(|m| PMeta {
                schema: m.schema.clone(),
                package: m.package.clone(),
                name: m.name.clone(),
                origin: w.origin(&m.origin),
            })
            .collect();
        PTables {
            files: w.files,
            packages,
            custom,
            metas,
        }
    }

    /// The tables, their byte strings sliced from `spans`' data section. The metas'
    /// JSON is read again from the files under `root` when asked for (see
    /// [`fbc_catalog::tables::metas`]).
    pub(super) fn into_tables(
        self,
        spans: &Spans,
        root: &std::path::Path,
        limits: fbc_catalog::source::ParseLimits,
    ) -> Result<Tables, DecodeError> {
        let digests: Vec<FileDigest> = self
            .files
            .iter()
            .filter(|f| f.hash_low != 0 || f.hash_high != 0 || f.size != 0)
            .map(|f| FileDigest {
                rel: f.rel.clone(),
                size: f.size,
                hash: (u128::from(f.hash_high) << 64) | u128::from(f.hash_low),
                modified: None,
            })
            .collect();
        let reader = Reader {
            spans,
            files: self.files.into_iter().map(|f| Arc::from(f.rel)).collect(),
        };
        let packages = self
            .packages
            .into_iter()
            .map(|p| reader.package(p))
            .collect::<Result<Vec<_>, _>>()?;
        let custom = self
            .custom
            .into_iter()
            .map(|c| {
                Ok(CustomMeta {
                    schema: c.schema,
                    package: c.package,
                    json: spans.one(&c.json)?,
                })
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        let rows = self
            .metas
            .into_iter()
            .map(|m| {
                Ok(Meta {
                    schema: m.schema,
                    package: m.package,
                    name: m.name,
                    origin: reader.origin(m.origin)?,
                })
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        let files = CatalogFiles {
            root: root.to_path_buf(),
            files: digests,
            limits,
        };
        Ok(Tables::new(packages, custom, MetaTable::new(rows, files)))
    }
}

struct Reader<'a> {
    spans: &'a Spans,
    files: Vec<Arc<str>>,
}

impl Reader<'_> {
    fn origin(&self, o: Option<POrigin>) -> Result<Origin, DecodeError> {
        let o = o.ok_or_else(|| DecodeError::new("an origin is missing"))?;
        let file = self
            .files
            .get(o.file as usize)
            .ok_or_else(|| DecodeError::new("an origin names a missing file"))?;
        Ok(Origin {
            file: file.clone(),
            document: o.document as usize,
            line: o.line as usize,
        })
    }

    fn package(&self, p: PPackage) -> Result<Package, DecodeError> {
        let name = p.name;
        let icon = if p.icon.is_empty() {
            None
        } else {
            Some(Icon {
                data: self.spans.one(&p.icon)?,
                media_type: p.icon_media_type,
            })
        };
        let mut bundles: Vec<Bundle> = p
            .bundles
            .into_iter()
            .map(|b| self.bundle(b))
            .collect::<Result<_, _>>()?;
        for b in &mut bundles {
            b.package = name.clone();
        }
        Ok(Package {
            name,
            default_channel: p.default_channel,
            description: p.description,
            icon,
            channels: p
                .channels
                .into_iter()
                .map(|c| self.channel(c))
                .collect::<Result<_, _>>()?,
            bundles,
            deprecation: p.deprecation,
            origin: self.origin(p.origin)?,
        })
    }

    fn channel(&self, c: PChannel) -> Result<Channel, DecodeError> {
        let entries: Vec<Entry> = c
            .entries
            .into_iter()
            .map(|e| Entry {
                name: e.name,
                replaces: e.replaces,
                skips: e.skips,
                skip_range: e.skip_range,
            })
            .collect();
        let head = c.head as usize;
        if head >= entries.len() {
            return Err(DecodeError::new("a channel head is out of range"));
        }
        Ok(Channel {
            name: c.name,
            entries,
            head,
            deprecation: c.deprecation,
            origin: self.origin(c.origin)?,
        })
    }

    fn bundle(&self, b: PBundle) -> Result<Bundle, DecodeError> {
        let objects = self.spans.many(&b.objects)?;
        let csv_pieces = match self.spans.many(&b.csv_pieces)?.as_slice() {
            [] => None,
            [head, description, middle, tail] => Some(CsvPieces::from_parts(
                head.clone(),
                b.csv_has_description.then(|| description.clone()),
                middle.clone(),
                tail.clone(),
            )),
            _ => return Err(DecodeError::new("CSV pieces come in fours")),
        };
        if !b.related_images.len().is_multiple_of(2) {
            return Err(DecodeError::new(
                "related images come in (name, image) pairs",
            ));
        }
        Ok(Bundle {
            properties: b
                .properties
                .into_iter()
                .map(read_property)
                .collect::<Result<_, _>>()?,
            related_images: b
                .related_images
                .chunks_exact(2)
                .map(|p| RelatedImage {
                    name: p[0].clone(),
                    image: p[1].clone(),
                })
                .collect(),
            version: semver::Version::parse(&b.version_text)
                .map_err(|e| DecodeError::new(&format!("version {:?}: {e}", b.version_text)))?,
            version_text: b.version_text,
            release: b.release,
            csv_object: b
                .csv_object
                .map(|i| i as usize)
                .filter(|i| *i < objects.len()),
            objects,
            csv_pieces,
            deprecation: b.deprecation,
            origin: self.origin(b.origin)?,
            package: String::new(),
            image: b.image,
            name: b.name,
        })
    }
}

fn read_property(p: PProperty) -> Result<Property, DecodeError> {
    let field = |i: usize| p.fields.get(i).cloned().unwrap_or_default();
    let gvk = || Gvk {
        group: field(0),
        version: field(1),
        kind: field(2),
    };
    let parsed = match p.kind {
        kind::PACKAGE => Parsed::Package(PackageProp {
            package_name: field(0),
            version: field(1),
            release: p.release.clone(),
        }),
        kind::PACKAGE_REQUIRED => Parsed::PackageRequired(PackageRequired {
            package_name: field(0),
            version_range: field(1),
        }),
        kind::GVK => Parsed::Gvk(gvk()),
        kind::GVK_REQUIRED => Parsed::GvkRequired(gvk()),
        kind::BUNDLE_OBJECT => Parsed::BundleObject(Bytes::new()),
        kind::CSV_METADATA => Parsed::CsvMetadata(Box::default()),
        kind::CHANNEL => Parsed::Channel(field(0)),
        kind::OTHER => Parsed::Other,
        _ => return Err(DecodeError::new("unknown property kind")),
    };
    Ok(Property {
        typ: p.typ,
        value_json: p.value_json,
        parsed,
    })
}
