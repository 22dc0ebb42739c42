//! One blob decoded on its own, on the worker that parsed it.
//!
//! In: a [`Blob`] (with its parsed JSON tree). Out: a [`DecodedMeta`]: the blob's
//! meta and, for `olm.bundle` and `olm.channel` blobs, their typed contents (or
//! every problem found), so the JSON tree can be dropped before the next file.

use super::*;
use crate::model::csv::CsvPieces;
use std::collections::BTreeSet;

/// A blob after the part of model building that needs no other blob.
///
/// Bundles are decoded (properties typed, manifests decoded into an [`Arena`]) and
/// their JSON tree dropped; other blobs are kept as read. [`decode_blob`] is meant
/// to run on the worker that parsed the blob (see [`crate::source::load_dir_with`]),
/// so a catalog's trees never all exist at once.
#[derive(Debug)]
pub enum Decoded {
    /// An `olm.bundle` blob, decoded.
    Bundle(Box<DecodedBundle>),
    /// An `olm.channel` blob, its entries decoded.
    Channel(Box<DecodedChannel>),
    /// Any other blob.
    Other(Blob),
}

/// An `olm.channel` blob after decoding.
#[derive(Debug)]
pub struct DecodedChannel {
    /// The blob's envelope and origin; its value is `null`.
    pub(super) envelope: Blob,
    /// The entries that decoded; `None` when `entries` itself is not a list (the
    /// channel is then left out, and only that is reported).
    pub(super) entries: Option<Vec<Entry>>,
    /// What is wrong with the others.
    pub(super) diags: Vec<Diagnostic>,
}

/// An `olm.bundle` blob after decoding.
#[derive(Debug)]
pub struct DecodedBundle {
    /// The blob's envelope and origin; its value is `null`.
    pub(super) envelope: Blob,
    /// The bundle, when it decoded without problems.
    pub(super) bundle: Option<Bundle>,
    /// What is wrong with it.
    pub(super) diags: Vec<Diagnostic>,
}

/// Records `blob`'s meta, then decodes what can be decoded of it on its own (see
/// [`Decoded`]).
pub fn decode_blob(arena: &mut Arena, blob: Blob, limits: &ParseLimits) -> DecodedMeta {
    let meta = Meta {
        schema: blob.schema.clone(),
        package: blob.package.clone(),
        name: blob.name.clone(),
        origin: blob.origin.clone(),
    };
    DecodedMeta {
        meta,
        decoded: decode_blob_value(arena, blob, limits),
    }
}

fn decode_blob_value(arena: &mut Arena, mut blob: Blob, limits: &ParseLimits) -> Decoded {
    if blob.schema == schema::CHANNEL {
        let value = std::mem::take(&mut blob.value);
        let (entries, diags) = decode_channel_entries(&value, &blob);
        return Decoded::Channel(Box::new(DecodedChannel {
            envelope: blob,
            entries,
            diags,
        }));
    }
    if blob.schema != schema::BUNDLE {
        return Decoded::Other(blob);
    }
    let value = std::mem::take(&mut blob.value);
    let mut diags = Vec::new();
    let err = |m: String| {
        Diagnostic::at(Kind::Invalid, Some(&blob.origin), m)
            .package(&blob.package)
            .bundle(&blob.name)
    };
    let bundle = decode_bundle(value, &blob, &err, &mut diags, arena, limits);
    Decoded::Bundle(Box::new(DecodedBundle {
        bundle: bundle.filter(|_| diags.is_empty()),
        diags,
        envelope: blob,
    }))
}

/// Decodes a channel's entries; problems name the entry. (Checks that need other
/// blobs are made when the channel joins its package.)
fn decode_channel_entries(value: &Value, blob: &Blob) -> (Option<Vec<Entry>>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let err = |m: String| {
        Diagnostic::at(Kind::Invalid, Some(&blob.origin), m)
            .package(&blob.package)
            .channel(&blob.name)
    };
    let Some(obj) = value.as_object() else {
        return (None, diags);
    };
    let items = match decode::objects(obj, "entries") {
        Ok(items) => items,
        Err(e) => {
            diags.push(
                err(format!("parse channel: {e}"))
                    .kind(Kind::Decode)
                    .field("entries"),
            );
            return (None, diags);
        }
    };
    let mut entries = Vec::with_capacity(items.len());
    let mut seen = BTreeSet::new();
    for (i, item) in items.into_iter().enumerate() {
        let Some(item) = item else {
            diags.push(
                err(format!("entries[{i}] must be an object, found null"))
                    .kind(Kind::Decode)
                    .field(format!("entries[{i}]")),
            );
            continue;
        };
        let entry = (|| -> Result<Entry, String> {
            Ok(Entry {
                name: decode::string(item, "name")?,
                replaces: decode::string(item, "replaces")?,
                skips: decode::strings(item, "skips")?,
                skip_range: decode::string(item, "skipRange")?,
            })
        })();
        match entry {
            Ok(entry) => {
                if entry.name.is_empty() {
                    diags.push(
                        err(format!("entries[{i}]: name must be set"))
                            .field(format!("entries[{i}].name")),
                    );
                    continue;
                }
                if !seen.insert(entry.name.clone()) {
                    diags.push(
                        err(format!("duplicate entry {:?}", entry.name))
                            .kind(Kind::Duplicate)
                            .field(format!("entries[{i}].name")),
                    );
                    continue;
                }
                entries.push(entry);
            }
            Err(e) => diags.push(
                err(format!("parse channel: entries[{i}]: {e}"))
                    .kind(Kind::Decode)
                    .field(format!("entries[{i}]")),
            ),
        }
    }
    (Some(entries), diags)
}

/// Decodes one bundle blob step by step, collecting every problem; a step whose
/// result later steps need ends the bundle (`None`) when it fails.
struct BundleDecoder<'a> {
    blob: &'a Blob,
    err: &'a dyn Fn(String) -> Diagnostic,
    diags: &'a mut Vec<Diagnostic>,
}

fn decode_bundle(
    value: Value,
    blob: &Blob,
    err: &dyn Fn(String) -> Diagnostic,
    diags: &mut Vec<Diagnostic>,
    arena: &mut Arena,
    limits: &ParseLimits,
) -> Option<Bundle> {
    BundleDecoder { blob, err, diags }.decode(value, arena, limits)
}

impl BundleDecoder<'_> {
    fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn decode(
        mut self,
        mut value: Value,
        arena: &mut Arena,
        limits: &ParseLimits,
    ) -> Option<Bundle> {
        let obj = value.as_object_mut()?;
        let props = self.property_list(obj)?;
        let (image, related) = self.images(obj)?;
        let mut properties = self.properties(props, arena)?;
        let pp = self.package_property(&properties)?;
        self.check_images(&image, &related);
        let version = self.version(&pp)?;
        let (objects, csv_object) = match property::bundle_objects(&mut properties, arena, limits) {
            Ok(v) => v,
            Err(e) => {
                self.report((self.err)(e).kind(Kind::Decode).field("properties"));
                return None;
            }
        };
        let csv_pieces = match csv_object {
            Some(_) => None,
            None => self.synthesize_csv(&mut properties, &version, &related, arena)?,
        };
        if image.is_empty() && objects.is_empty() {
            self.report(
                (self.err)(
                    "bundle image must be set (or the bundle must carry olm.bundle.object properties)"
                        .into(),
                )
                .field("image"),
            );
        }
        Some(Bundle {
            name: self.blob.name.clone(),
            package: self.blob.package.clone(),
            image,
            properties,
            related_images: related,
            version_text: pp.version,
            version,
            release: pp.release,
            objects,
            csv_object,
            csv_pieces,
            deprecation: None,
            origin: self.blob.origin.clone(),
        })
    }

    /// `properties`, taken out of the object (absent or null: none).
    fn property_list(&mut self, obj: &mut serde_json::Map<String, Value>) -> Option<Vec<Value>> {
        match decode::take_field(obj, "properties") {
            None | Some(Value::Null) => Some(Vec::new()),
            Some(Value::Array(items)) => Some(items),
            Some(other) => {
                self.report(
                    (self.err)(format!(
                        "parse bundle: field \"properties\" must be a list, found {}",
                        crate::source::kind_of(&other)
                    ))
                    .kind(Kind::Decode)
                    .field("properties"),
                );
                None
            }
        }
    }

    /// `image` and `relatedImages`.
    fn images(
        &mut self,
        obj: &serde_json::Map<String, Value>,
    ) -> Option<(String, Vec<RelatedImage>)> {
        let decoded = (|| -> Result<_, String> {
            let image = decode::string(obj, "image")?;
            let mut related = Vec::new();
            for (i, item) in decode::objects(obj, "relatedImages")?
                .into_iter()
                .enumerate()
            {
                let Some(item) = item else { continue };
                related.push(RelatedImage {
                    name: decode::string(item, "name")
                        .map_err(|e| format!("relatedImages[{i}]: {e}"))?,
                    image: decode::string(item, "image")
                        .map_err(|e| format!("relatedImages[{i}]: {e}"))?,
                });
            }
            Ok((image, related))
        })();
        match decoded {
            Ok(v) => Some(v),
            Err(e) => {
                self.report((self.err)(format!("parse bundle: {e}")).kind(Kind::Decode));
                None
            }
        }
    }

    /// Every property, typed; `None` if any does not parse (each is reported).
    fn properties(&mut self, props: Vec<Value>, arena: &mut Arena) -> Option<Vec<Property>> {
        let mut properties = Vec::with_capacity(props.len());
        let mut ok = true;
        for (i, p) in props.into_iter().enumerate() {
            match property::parse(i, p, arena) {
                Ok(p) => properties.push(p),
                Err(e) => {
                    self.report(
                        (self.err)(format!("parse properties: {e}"))
                            .kind(Kind::Decode)
                            .field(format!("properties[{i}]")),
                    );
                    ok = false;
                }
            }
        }
        let csv_metadata_count = properties
            .iter()
            .filter(|p| matches!(p.parsed, property::Parsed::CsvMetadata(_)))
            .count();
        if ok && csv_metadata_count > 1 {
            self.report(
                (self.err)(format!(
                    "parse properties: expected at most 1 property of type \"olm.csv.metadata\", found {csv_metadata_count}"
                ))
                .field("properties"),
            );
        }
        ok.then_some(properties)
    }

    /// The one `olm.package` property, which must name the blob's package.
    fn package_property(&mut self, properties: &[Property]) -> Option<property::PackageProp> {
        let package_props: Vec<&property::PackageProp> = properties
            .iter()
            .filter_map(|p| match &p.parsed {
                property::Parsed::Package(pp) => Some(pp),
                _ => None,
            })
            .collect();
        let [pp] = package_props.as_slice() else {
            self.report(
                (self.err)(format!(
                    "must have exactly 1 \"olm.package\" property, found {}",
                    package_props.len()
                ))
                .field("properties"),
            );
            return None;
        };
        if pp.package_name != self.blob.package {
            self.report(
                (self.err)(format!(
                    "package {:?} does not match \"olm.package\" property {:?}",
                    self.blob.package, pp.package_name
                ))
                .field("package"),
            );
        }
        Some((*pp).clone())
    }

    fn check_images(&mut self, image: &str, related: &[RelatedImage]) {
        if !image.is_empty()
            && let Err(e) = image_ref::validate(image)
        {
            self.report(
                (self.err)(format!("image: invalid image pull spec {image:?}: {e}")).field("image"),
            );
        }
        for (i, r) in related.iter().enumerate() {
            if !r.image.is_empty()
                && let Err(e) = image_ref::validate(&r.image)
            {
                self.report(
                    (self.err)(format!(
                        "relatedImages[{i}].image: invalid image pull spec {:?}: {e}",
                        r.image
                    ))
                    .field(format!("relatedImages[{i}].image")),
                );
            }
        }
    }

    /// The strict semver version, and the release rules when there is one.
    fn version(&mut self, pp: &property::PackageProp) -> Option<semver::Version> {
        let version = match semver::Version::parse(&pp.version) {
            Ok(v) => v,
            Err(e) => {
                self.report(
                    (self.err)(format!(
                        "error parsing bundle version {:?}: {e}",
                        pp.version
                    ))
                    .field("properties[olm.package].version"),
                );
                return None;
            }
        };
        if let Some(release) = &pp.release {
            self.check_release(pp, &version, release);
        }
        Some(version)
    }

    fn check_release(
        &mut self,
        pp: &property::PackageProp,
        version: &semver::Version,
        release: &str,
    ) {
        if let Err(e) = property::validate_release(release) {
            self.report(
                (self.err)(format!(
                    "error parsing bundle release version {release:?}: {e}"
                ))
                .field("properties[olm.package].release"),
            );
            return;
        }
        if !version.build.is_empty() {
            self.report((self.err)(
                "cannot use build metadata in version with a release version".into(),
            ));
        }
        let expected = format!("{}-v{}-{}", self.blob.package, pp.version, release);
        if self.blob.name != expected {
            self.report(
                (self.err)(format!(
                    "name {:?} does not match normalized name {expected:?} (a bundle with a release must be named <package>-v<version>-<release>)",
                    self.blob.name
                ))
                .field("name"),
            );
        }
    }

    /// The CSV synthesised from `olm.csv.metadata`, if the bundle has one (its
    /// value is moved out of the property). `None` when synthesis fails.
    fn synthesize_csv(
        &mut self,
        properties: &mut [Property],
        version: &semver::Version,
        related: &[RelatedImage],
        arena: &mut Arena,
    ) -> Option<Option<CsvPieces>> {
        let metadata = properties.iter_mut().find_map(|p| match &mut p.parsed {
            property::Parsed::CsvMetadata(m) => Some(std::mem::take(m.as_mut())),
            _ => None,
        });
        let Some(m) = metadata else {
            return Some(None);
        };
        match CsvPieces::synthesize(&self.blob.name, version, related, m, arena) {
            Ok(pieces) => Some(Some(pieces)),
            Err(e) => {
                self.report(
                    (self.err)(e)
                        .kind(Kind::Decode)
                        .field("properties[olm.csv.metadata]"),
                );
                None
            }
        }
    }
}
