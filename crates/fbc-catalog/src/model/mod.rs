//! Blobs → a validated catalog model.
//!
//! In: the blobs of one catalog ([`crate::source::Loaded`]). Out: a [`Model`] —
//! packages, channels, bundles and deprecations, decoded and cross-checked — or
//! every [`Diagnostic`] found. Pure: no I/O.
//!
//! Every invariant the reference enforces is checked (see `validate.rs` for the
//! graph rules), but unlike the reference, which stops at the first error of a
//! random package, all errors are reported in a stable order (packages by name,
//! then in the order of the checks), each naming the file and document it comes from.
//!
//! Deliberate differences from the reference:
//! - the check that every channel entry has an `olm.bundle` blob covers every
//!   channel (the reference checks only the last channel it processed);
//! - a `defaultChannel` naming no channel is reported as such, not as an empty
//!   synthesised channel.

pub mod csv;
mod decode;
pub mod image_ref;
pub mod property;
mod validate;

use crate::arena::Arena;
pub use crate::diagnostic::{Diagnostic, Kind};
use crate::model::csv::CsvPieces;
use crate::source::{Blob, Loaded, Origin, ParseLimits};
pub use property::{Gvk, PackageRequired, Property};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Schema names with a fixed meaning.
pub mod schema {
    /// A package.
    pub const PACKAGE: &str = "olm.package";
    /// A channel.
    pub const CHANNEL: &str = "olm.channel";
    /// A bundle.
    pub const BUNDLE: &str = "olm.bundle";
    /// A package's deprecations.
    pub const DEPRECATIONS: &str = "olm.deprecations";
}

/// A package icon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Icon {
    /// Decoded image bytes.
    pub data: bytes::Bytes,
    /// Media type, e.g. `image/svg+xml`.
    pub media_type: String,
}

/// A validated catalog.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Packages sorted by name.
    pub packages: Vec<Package>,
    /// Blobs of other schemas, in walk order.
    pub custom: Vec<Blob>,
    /// Every blob of every schema, in walk order: its envelope and origin.
    pub metas: Vec<Meta>,
}

/// One catalog object ("meta"): its envelope and where it was read. Its JSON is
/// not kept at load (that would hold a second copy of the catalog); see
/// [`crate::tables::metas`] for how it is produced when asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The `schema` field.
    pub schema: String,
    /// The `package` field, or empty.
    pub package: String,
    /// The `name` field, or empty.
    pub name: String,
    /// Where it was read.
    pub origin: Origin,
}

/// A blob after [`decode_blob`]: its meta and what was decoded of it.
#[derive(Debug)]
pub struct DecodedMeta {
    /// The blob's envelope and origin.
    pub meta: Meta,
    /// What was decoded.
    pub decoded: Decoded,
}

/// A package with its channels and bundles.
#[derive(Clone, Debug)]
pub struct Package {
    /// Name (an RFC 1123 label).
    pub name: String,
    /// The default channel's name.
    pub default_channel: String,
    /// Description, or empty.
    pub description: String,
    /// Icon, if any.
    pub icon: Option<Icon>,
    /// Channels sorted by name.
    pub channels: Vec<Channel>,
    /// Bundles sorted by name.
    pub bundles: Vec<Bundle>,
    /// The package-level deprecation message.
    pub deprecation: Option<String>,
    /// Where the `olm.package` blob was read.
    pub origin: Origin,
}

impl Package {
    /// Finds a bundle by name.
    pub fn bundle(&self, name: &str) -> Option<&Bundle> {
        self.bundles
            .binary_search_by(|b| b.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.bundles[i])
    }

    /// Finds a channel by name.
    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.channels
            .binary_search_by(|c| c.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.channels[i])
    }
}

/// A channel: its entries in catalog order and its head.
#[derive(Clone, Debug)]
pub struct Channel {
    /// Name.
    pub name: String,
    /// Entries in the order the catalog lists them.
    pub entries: Vec<Entry>,
    /// Index into `entries` of the channel head (the entry nothing replaces or skips).
    pub head: usize,
    /// The channel-level deprecation message.
    pub deprecation: Option<String>,
    /// Where the `olm.channel` blob was read.
    pub origin: Origin,
}

impl Channel {
    /// The head entry.
    pub fn head_entry(&self) -> &Entry {
        &self.entries[self.head]
    }
}

/// A channel entry: one bundle's place in one channel's upgrade graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Bundle name.
    pub name: String,
    /// The bundle this one replaces, or empty.
    pub replaces: String,
    /// Bundles this one skips.
    pub skips: Vec<String>,
    /// blang range of versions this one skips, or empty.
    pub skip_range: String,
}

/// A bundle image reference with a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelatedImage {
    /// Name, may be empty.
    pub name: String,
    /// Image reference.
    pub image: String,
}

/// A bundle.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// Name (conventionally the CSV name).
    pub name: String,
    /// Package name.
    pub package: String,
    /// Bundle image, may be empty when the bundle carries its objects.
    pub image: String,
    /// Every property in catalog order.
    pub properties: Vec<Property>,
    /// Related images.
    pub related_images: Vec<RelatedImage>,
    /// `olm.package` version as written.
    pub version_text: String,
    /// Parsed version.
    pub version: semver::Version,
    /// `olm.package` release, if any.
    pub release: Option<String>,
    /// Manifests from `olm.bundle.object` properties, as JSON text, in property order.
    pub objects: Vec<bytes::Bytes>,
    /// Index into `objects` of the ClusterServiceVersion, if there is one.
    pub csv_object: Option<usize>,
    /// The CSV synthesised from `olm.csv.metadata`, when there is no CSV object.
    pub csv_pieces: Option<CsvPieces>,
    /// The deprecation message, if deprecated.
    pub deprecation: Option<String>,
    /// Where the `olm.bundle` blob was read.
    pub origin: Origin,
}

impl Bundle {
    /// `olm.gvk` properties in order.
    pub fn provided_gvks(&self) -> impl Iterator<Item = &Gvk> {
        self.properties.iter().filter_map(|p| match &p.parsed {
            property::Parsed::Gvk(g) => Some(g),
            _ => None,
        })
    }

    /// `olm.gvk.required` properties in order.
    pub fn required_gvks(&self) -> impl Iterator<Item = &Gvk> {
        self.properties.iter().filter_map(|p| match &p.parsed {
            property::Parsed::GvkRequired(g) => Some(g),
            _ => None,
        })
    }
}

/// What model building produced: the model when there are no diagnostics.
pub type BuildResult = Result<Model, Vec<Diagnostic>>;

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
    envelope: Blob,
    /// The entries that decoded; `None` when `entries` itself is not a list (the
    /// channel is then left out, and only that is reported).
    entries: Option<Vec<Entry>>,
    /// What is wrong with the others.
    diags: Vec<Diagnostic>,
}

/// An `olm.bundle` blob after decoding.
#[derive(Debug)]
pub struct DecodedBundle {
    /// The blob's envelope and origin; its value is `null`.
    envelope: Blob,
    /// The bundle, when it decoded without problems.
    bundle: Option<Bundle>,
    /// What is wrong with it.
    diags: Vec<Diagnostic>,
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

/// Builds and validates the model of a loaded catalog. Load errors are turned into
/// diagnostics first, so a caller gets one list.
pub fn build(loaded: Loaded) -> BuildResult {
    let mut arena = Arena::new();
    build_decoded(Loaded {
        blobs: loaded
            .blobs
            .into_iter()
            .map(|b| decode_blob(&mut arena, b, &ParseLimits::default()))
            .collect(),
        errors: loaded.errors,
        files: loaded.files,
    })
}

/// [`build`] from blobs already passed through [`decode_blob`].
pub fn build_decoded(loaded: Loaded<DecodedMeta>) -> BuildResult {
    let mut diags: Vec<Diagnostic> = loaded.errors.iter().map(Diagnostic::from).collect();
    let (metas, decoded): (Vec<Meta>, Vec<Decoded>) = loaded
        .blobs
        .into_iter()
        .map(|d| (d.meta, d.decoded))
        .unzip();
    let mut model = Builder::default().build(decoded, &mut diags);
    model.metas = metas;
    // Stable: problems without a package first, then packages by name, each in check order.
    diags.sort_by(|a, b| a.package.cmp(&b.package));
    if diags.is_empty() {
        Ok(model)
    } else {
        Err(diags)
    }
}

/// Matches `^[a-zA-Z0-9][a-zA-Z0-9._-]*$`, the rule for custom schema and package keys.
pub fn is_valid_meta_key(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// RFC 1123 DNS label: lowercase alphanumerics and `-`, alphanumeric at both ends, ≤ 63.
fn dns_label_problem(name: &str) -> Option<String> {
    let b = name.as_bytes();
    if b.len() > 63 {
        return Some("must be no more than 63 characters".into());
    }
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    if !b.iter().all(|c| alnum(c) || *c == b'-')
        || !b.first().is_some_and(alnum)
        || !b.last().is_some_and(alnum)
    {
        return Some(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', \
             and must start and end with an alphanumeric character"
                .into(),
        );
    }
    None
}

#[derive(Default)]
struct Builder {
    packages: BTreeMap<String, PackageDraft>,
}

struct PackageDraft {
    package: Option<Package>,
    channels: BTreeMap<String, Channel>,
    bundles: BTreeMap<String, Bundle>,
    /// Bundle names with a blob that failed to decode (so entries referring to them
    /// do not also report a missing blob).
    broken_bundles: BTreeSet<String>,
    deprecations: Option<Origin>,
    bundle_deprecations: HashMap<String, String>,
    channel_deprecations: HashMap<String, String>,
}

impl PackageDraft {
    fn new() -> Self {
        PackageDraft {
            package: None,
            channels: BTreeMap::new(),
            bundles: BTreeMap::new(),
            broken_bundles: BTreeSet::new(),
            deprecations: None,
            bundle_deprecations: HashMap::new(),
            channel_deprecations: HashMap::new(),
        }
    }
}

impl Builder {
    fn build(mut self, blobs: Vec<Decoded>, diags: &mut Vec<Diagnostic>) -> Model {
        let mut custom = Vec::new();
        let mut channels = Vec::new();
        let mut bundles = Vec::new();
        let mut deprecations = Vec::new();
        for decoded in blobs {
            let blob = match decoded {
                Decoded::Bundle(b) => {
                    bundles.push(b);
                    continue;
                }
                Decoded::Channel(c) => {
                    channels.push(*c);
                    continue;
                }
                Decoded::Other(blob) => blob,
            };
            match blob.schema.as_str() {
                schema::PACKAGE => self.add_package(&blob, diags),
                schema::DEPRECATIONS => deprecations.push(blob),
                _ => {
                    if let Some(d) = custom_meta_problem(&blob) {
                        diags.push(d);
                    } else {
                        custom.push(blob);
                    }
                }
            }
        }
        for channel in channels {
            self.add_channel(channel, diags);
        }
        for blob in bundles {
            self.add_bundle(blob, diags);
        }
        for blob in &deprecations {
            self.add_deprecations(blob, diags);
        }
        let mut packages = Vec::new();
        for (name, draft) in std::mem::take(&mut self.packages) {
            if let Some(p) = validate::finish_package(&name, draft, diags) {
                packages.push(p);
            }
        }
        Model {
            packages,
            custom,
            metas: Vec::new(),
        }
    }

    fn add_package(&mut self, blob: &Blob, diags: &mut Vec<Diagnostic>) {
        let origin = Some(&blob.origin);
        let Some(obj) = blob.value.as_object() else {
            return;
        };
        let decoded = (|| -> Result<(String, String, Option<Icon>), String> {
            let default_channel = decode::string(obj, "defaultChannel")?;
            let description = decode::string(obj, "description")?;
            let icon = match decode::object(obj, "icon")? {
                None => None,
                Some(icon) => {
                    let data = decode::string(icon, "base64data")?;
                    let data = property::decode_go_base64(&data)
                        .map_err(|e| format!("icon.base64data: illegal base64 data: {e}"))?;
                    Some(Icon {
                        data: bytes::Bytes::from(data),
                        media_type: decode::string(icon, "mediatype")?,
                    })
                }
            };
            Ok((default_channel, description, icon))
        })();
        let name = blob.name.clone();
        if name.is_empty() {
            diags.push(
                Diagnostic::at(Kind::Envelope, origin, "olm.package blob has no name")
                    .field("name"),
            );
            return;
        }
        let (default_channel, description, icon) = match decoded {
            Ok(d) => d,
            Err(e) => {
                diags.push(
                    Diagnostic::at(Kind::Decode, origin, format!("parse package: {e}"))
                        .package(&name),
                );
                self.packages.entry(name).or_insert_with(PackageDraft::new);
                return;
            }
        };
        if let Some(problem) = dns_label_problem(&name) {
            diags.push(
                Diagnostic::at(
                    Kind::Invalid,
                    origin,
                    format!("invalid package name {name:?}: {problem}"),
                )
                .package(&name)
                .field("name"),
            );
        }
        let draft = self
            .packages
            .entry(name.clone())
            .or_insert_with(PackageDraft::new);
        if let Some(first) = &draft.package {
            diags.push(
                Diagnostic::at(
                    Kind::Duplicate,
                    origin,
                    format!(
                        "duplicate package {name:?} (first defined at {})",
                        first.origin
                    ),
                )
                .package(&name),
            );
            return;
        }
        draft.package = Some(Package {
            name,
            default_channel,
            description,
            icon,
            channels: Vec::new(),
            bundles: Vec::new(),
            deprecation: None,
            origin: blob.origin.clone(),
        });
    }

    fn draft_for(
        &mut self,
        blob: &Blob,
        what: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<&mut PackageDraft> {
        let origin = Some(&blob.origin);
        if blob.package.is_empty() {
            diags.push(
                Diagnostic::at(
                    Kind::Invalid,
                    origin,
                    format!("package name must be set for {what} {:?}", blob.name),
                )
                .field("package"),
            );
            return None;
        }
        match self.packages.get_mut(&blob.package) {
            Some(d) if d.package.is_some() => Some(d),
            // the olm.package blob exists but failed to decode: already reported
            Some(_) => None,
            None => {
                diags.push(
                    Diagnostic::at(Kind::Reference,
                        origin,
                        format!("unknown package {:?} for {what} {:?}: no olm.package blob has that name", blob.package, blob.name),
                    )
                    .package(&blob.package)
                    .field("package"),
                );
                None
            }
        }
    }

    fn add_channel(&mut self, decoded: DecodedChannel, diags: &mut Vec<Diagnostic>) {
        let DecodedChannel {
            envelope: blob,
            entries,
            diags: entry_diags,
        } = decoded;
        let origin = Some(&blob.origin);
        let package = blob.package.clone();
        let Some(draft) = self.draft_for(&blob, "channel", diags) else {
            return;
        };
        if blob.name.is_empty() {
            diags.push(
                Diagnostic::at(Kind::Envelope, origin, "channel has no name")
                    .package(&package)
                    .field("name"),
            );
            return;
        }
        let name = blob.name.clone();
        if let Some(first) = draft.channels.get(&name) {
            diags.push(
                Diagnostic::at(
                    Kind::Duplicate,
                    origin,
                    format!(
                        "duplicate channel {name:?} (first defined at {})",
                        first.origin
                    ),
                )
                .package(&package)
                .channel(&name),
            );
            return;
        }
        diags.extend(entry_diags);
        let Some(entries) = entries else {
            return;
        };
        draft.channels.insert(
            name.clone(),
            Channel {
                name,
                entries,
                head: 0,
                deprecation: None,
                origin: blob.origin,
            },
        );
    }

    fn add_bundle(&mut self, decoded: Box<DecodedBundle>, diags: &mut Vec<Diagnostic>) {
        let DecodedBundle {
            envelope: blob,
            bundle,
            diags: bundle_diags,
        } = *decoded;
        let origin = Some(&blob.origin);
        let package = blob.package.clone();
        let name = blob.name.clone();
        let Some(draft) = self.draft_for(&blob, "bundle", diags) else {
            return;
        };
        let err = |m: String| {
            Diagnostic::at(Kind::Invalid, origin, m)
                .package(&package)
                .bundle(&name)
        };
        if name.is_empty() {
            diags.push(
                Diagnostic::at(Kind::Envelope, origin, "bundle has no name")
                    .package(&package)
                    .field("name"),
            );
            return;
        }
        if let Some(first) = draft.bundles.get(&name) {
            diags.push(
                err(format!(
                    "duplicate bundle {name:?} (first defined at {})",
                    first.origin
                ))
                .kind(Kind::Duplicate),
            );
            return;
        }
        diags.extend(bundle_diags);
        match bundle {
            Some(b) => {
                draft.bundles.insert(name, b);
            }
            None => {
                draft.broken_bundles.insert(name);
            }
        }
    }

    fn add_deprecations(&mut self, blob: &Blob, diags: &mut Vec<Diagnostic>) {
        let origin = Some(&blob.origin);
        let package = blob.package.clone();
        if package.is_empty() {
            diags.push(
                Diagnostic::at(
                    Kind::Invalid,
                    origin,
                    "package name must be set for olm.deprecations",
                )
                .field("package"),
            );
            return;
        }
        let Some(draft) = self
            .packages
            .get_mut(&package)
            .filter(|d| d.package.is_some())
        else {
            diags.push(
                Diagnostic::at(
                    Kind::Reference,
                    origin,
                    format!("cannot apply deprecations to an unknown package {package:?}"),
                )
                .package(&package),
            );
            return;
        };
        let err = |m: String| Diagnostic::at(Kind::Invalid, origin, m).package(&package);
        if let Some(first) = &draft.deprecations {
            diags.push(
                err(format!(
                    "expected a maximum of one deprecation per package: {package:?} (first at {first})"
                ))
                .kind(Kind::Duplicate),
            );
            return;
        }
        draft.deprecations = Some(blob.origin.clone());
        let Some(obj) = blob.value.as_object() else {
            return;
        };
        let items = match decode::objects(obj, "entries") {
            Ok(items) => items,
            Err(e) => {
                diags.push(
                    err(format!("parse deprecation: {e}"))
                        .kind(Kind::Decode)
                        .field("entries"),
                );
                return;
            }
        };
        let mut seen = BTreeSet::new();
        for (j, item) in items.into_iter().enumerate() {
            let parsed = (|| -> Result<(String, String, String), String> {
                let Some(item) = item else {
                    return Ok(Default::default());
                };
                let reference = decode::object(item, "reference")?;
                let (schema, name) = match reference {
                    Some(r) => (decode::string(r, "schema")?, decode::string(r, "name")?),
                    None => (String::new(), String::new()),
                };
                Ok((schema, name, decode::string(item, "message")?))
            })();
            let (schema, name, message) = match parsed {
                Ok(p) => p,
                Err(e) => {
                    diags.push(
                        err(format!("parse deprecation: entries[{j}]: {e}"))
                            .kind(Kind::Decode)
                            .field(format!("entries[{j}]")),
                    );
                    continue;
                }
            };
            if schema.is_empty() {
                diags.push(
                    err(format!("schema must be set for deprecation entry [{j}]"))
                        .field(format!("entries[{j}].reference.schema")),
                );
                continue;
            }
            if !seen.insert((schema.clone(), name.clone())) {
                diags.push(
                    err(format!("duplicate deprecation entry for {schema} {name:?}"))
                        .kind(Kind::Duplicate)
                        .field(format!("entries[{j}].reference")),
                );
                continue;
            }
            if message.is_empty() {
                diags.push(
                    err(format!(
                        "invalid deprecation: entry [{j}] ({schema} {name:?}): message must be set"
                    ))
                    .field(format!("entries[{j}].message")),
                );
                continue;
            }
            match schema.as_str() {
                schema::BUNDLE => {
                    if draft.bundles.contains_key(&name) || draft.broken_bundles.contains(&name) {
                        draft.bundle_deprecations.insert(name, message);
                    } else {
                        diags.push(
                            err(format!(
                                "cannot deprecate bundle {name:?}: bundle not found"
                            ))
                            .kind(Kind::Reference)
                            .field(format!("entries[{j}].reference.name")),
                        );
                    }
                }
                schema::CHANNEL => {
                    if draft.channels.contains_key(&name) {
                        draft.channel_deprecations.insert(name, message);
                    } else {
                        diags.push(
                            err(format!(
                                "cannot deprecate channel {name:?}: channel not found"
                            ))
                            .kind(Kind::Reference)
                            .field(format!("entries[{j}].reference.name")),
                        );
                    }
                }
                schema::PACKAGE => {
                    if !name.is_empty() {
                        diags.push(
                            err(format!(
                                "package name must be empty for deprecated package {package:?} (specified {name:?})"
                            ))
                            .field(format!("entries[{j}].reference.name")),
                        );
                    } else if let Some(p) = draft.package.as_mut() {
                        p.deprecation = Some(message);
                    }
                }
                other => diags.push(
                    err(format!(
                        "cannot deprecate object {other} {name:?}: object schema unknown"
                    ))
                    .field(format!("entries[{j}].reference.schema")),
                ),
            }
        }
    }
}

fn custom_meta_problem(blob: &Blob) -> Option<Diagnostic> {
    let rule = "must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$";
    let message = if blob.schema.is_empty() {
        "invalid custom schema meta: invalid schema: must not be empty (every catalog object needs a \"schema\")".to_string()
    } else if !is_valid_meta_key(&blob.schema) {
        format!(
            "invalid custom schema meta: invalid schema {:?}: {rule}",
            blob.schema
        )
    } else if !blob.package.is_empty() && !is_valid_meta_key(&blob.package) {
        format!(
            "invalid custom schema meta: invalid package {:?}: {rule}",
            blob.package
        )
    } else {
        return None;
    };
    let field = if blob.schema.is_empty() || !is_valid_meta_key(&blob.schema) {
        "schema"
    } else {
        "package"
    };
    Some(
        Diagnostic::at(Kind::Invalid, Some(&blob.origin), message)
            .package(&blob.package)
            .field(field),
    )
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

fn decode_bundle(
    mut value: Value,
    blob: &Blob,
    err: &dyn Fn(String) -> Diagnostic,
    diags: &mut Vec<Diagnostic>,
    arena: &mut Arena,
    limits: &ParseLimits,
) -> Option<Bundle> {
    let obj = value.as_object_mut()?;
    let props = match decode::take_field(obj, "properties") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            diags.push(
                err(format!(
                    "parse bundle: field \"properties\" must be a list, found {}",
                    crate::source::kind_of(&other)
                ))
                .kind(Kind::Decode)
                .field("properties"),
            );
            return None;
        }
    };
    let obj = &*obj;
    let (image, related) = match (|| -> Result<_, String> {
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
    })() {
        Ok(v) => v,
        Err(e) => {
            diags.push(err(format!("parse bundle: {e}")).kind(Kind::Decode));
            return None;
        }
    };
    let mut properties = Vec::with_capacity(props.len());
    let mut ok = true;
    for (i, p) in props.into_iter().enumerate() {
        match property::parse(i, p, arena) {
            Ok(p) => properties.push(p),
            Err(e) => {
                diags.push(
                    err(format!("parse properties: {e}"))
                        .kind(Kind::Decode)
                        .field(format!("properties[{i}]")),
                );
                ok = false;
            }
        }
    }
    if !ok {
        return None;
    }
    let csv_metadata_count = properties
        .iter()
        .filter(|p| matches!(p.parsed, property::Parsed::CsvMetadata(_)))
        .count();
    if csv_metadata_count > 1 {
        diags.push(
            err(format!(
                "parse properties: expected at most 1 property of type \"olm.csv.metadata\", found {csv_metadata_count}"
            ))
            .field("properties"),
        );
    }
    let package_props: Vec<&property::PackageProp> = properties
        .iter()
        .filter_map(|p| match &p.parsed {
            property::Parsed::Package(pp) => Some(pp),
            _ => None,
        })
        .collect();
    let [pp] = package_props.as_slice() else {
        diags.push(
            err(format!(
                "must have exactly 1 \"olm.package\" property, found {}",
                package_props.len()
            ))
            .field("properties"),
        );
        return None;
    };
    if pp.package_name != blob.package {
        diags.push(
            err(format!(
                "package {:?} does not match \"olm.package\" property {:?}",
                blob.package, pp.package_name
            ))
            .field("package"),
        );
    }
    if !image.is_empty()
        && let Err(e) = image_ref::validate(&image)
    {
        diags.push(err(format!("image: invalid image pull spec {image:?}: {e}")).field("image"));
    }
    for (i, r) in related.iter().enumerate() {
        if !r.image.is_empty()
            && let Err(e) = image_ref::validate(&r.image)
        {
            diags.push(
                err(format!(
                    "relatedImages[{i}].image: invalid image pull spec {:?}: {e}",
                    r.image
                ))
                .field(format!("relatedImages[{i}].image")),
            );
        }
    }
    let version = match semver::Version::parse(&pp.version) {
        Ok(v) => v,
        Err(e) => {
            diags.push(
                err(format!(
                    "error parsing bundle version {:?}: {e}",
                    pp.version
                ))
                .field("properties[olm.package].version"),
            );
            return None;
        }
    };
    if let Some(release) = &pp.release {
        if let Err(e) = property::validate_release(release) {
            diags.push(
                err(format!(
                    "error parsing bundle release version {release:?}: {e}"
                ))
                .field("properties[olm.package].release"),
            );
        } else {
            if !version.build.is_empty() {
                diags.push(err(
                    "cannot use build metadata in version with a release version".into(),
                ));
            }
            let expected = format!("{}-v{}-{}", blob.package, pp.version, release);
            if blob.name != expected {
                diags.push(
                    err(format!(
                        "name {:?} does not match normalized name {expected:?} (a bundle with a release must be named <package>-v<version>-<release>)",
                        blob.name
                    ))
                    .field("name"),
                );
            }
        }
    }
    let version_text = pp.version.clone();
    let release = pp.release.clone();
    let (objects, csv_object) = match property::bundle_objects(&mut properties, arena, limits) {
        Ok(v) => v,
        Err(e) => {
            diags.push(err(e).kind(Kind::Decode).field("properties"));
            return None;
        }
    };

    let csv_pieces = match csv_object {
        Some(_) => None,
        None => match properties.iter_mut().find_map(|p| match &mut p.parsed {
            property::Parsed::CsvMetadata(m) => Some(std::mem::take(m.as_mut())),
            _ => None,
        }) {
            None => None,
            Some(m) => match CsvPieces::synthesize(&blob.name, &version, &related, m, arena) {
                Ok(pieces) => Some(pieces),
                Err(e) => {
                    diags.push(
                        err(e)
                            .kind(Kind::Decode)
                            .field("properties[olm.csv.metadata]"),
                    );
                    return None;
                }
            },
        },
    };
    if image.is_empty() && objects.is_empty() {
        diags.push(
            err(
                "bundle image must be set (or the bundle must carry olm.bundle.object properties)"
                    .into(),
            )
            .field("image"),
        );
    }
    Some(Bundle {
        name: blob.name.clone(),
        package: blob.package.clone(),
        image,
        properties,
        related_images: related,
        version_text,
        version,
        release,
        objects,
        csv_object,
        csv_pieces,
        deprecation: None,
        origin: blob.origin.clone(),
    })
}

#[cfg(test)]
mod tests;
