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

mod blob;
mod builder;
pub mod csv;
mod decode;
pub mod image_ref;
pub mod property;
mod validate;

use crate::arena::Arena;
pub use crate::diagnostic::{Diagnostic, Kind};
use crate::model::csv::CsvPieces;
use crate::source::{Blob, Loaded, Origin, ParseLimits};
pub use blob::{Decoded, DecodedBundle, DecodedChannel, decode_blob};
use builder::Builder;
pub use property::{Gvk, PackageRequired, Property};
use serde_json::Value;

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

/// Builds and validates the model of a loaded catalog. Load errors are turned into
/// diagnostics first, so a caller gets one list.
pub fn build(loaded: Loaded) -> BuildResult {
    build_with(loaded, ChainRule::Current).map(|built| built.model)
}

/// [`build`] under `rule`.
pub fn build_with(loaded: Loaded, rule: ChainRule) -> Result<Built, Vec<Diagnostic>> {
    let mut arena = Arena::new();
    let decoded = Loaded {
        blobs: loaded
            .blobs
            .into_iter()
            .map(|b| decode_blob(&mut arena, b, &ParseLimits::default()))
            .collect(),
        errors: loaded.errors,
        files: loaded.files,
    };
    build_decoded_with(decoded, rule)
}

/// [`build`] from blobs already passed through [`decode_blob`].
pub fn build_decoded(loaded: Loaded<DecodedMeta>) -> BuildResult {
    build_decoded_with(loaded, ChainRule::Current).map(|built| built.model)
}

/// Which replaces-chain rule a channel must pass (see `validate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChainRule {
    /// Today's opm: the chain walk stops at a skipped entry, and entries below
    /// it are stranded — an error.
    #[default]
    Current,
    /// opm before v1.58.0: the walk goes on through skipped entries; a channel
    /// only today's rule refuses is accepted, with a warning.
    Legacy,
}

/// A valid model, and the problems its chain rule accepted.
#[derive(Debug)]
pub struct Built {
    /// The model.
    pub model: Model,
    /// Accepted problems (only under [`ChainRule::Legacy`]), by package.
    pub warnings: Vec<Diagnostic>,
}

/// [`build_decoded`] under `rule`.
pub fn build_decoded_with(
    loaded: Loaded<DecodedMeta>,
    rule: ChainRule,
) -> Result<Built, Vec<Diagnostic>> {
    let mut diags: Vec<Diagnostic> = loaded.errors.iter().map(Diagnostic::from).collect();
    let (metas, decoded): (Vec<Meta>, Vec<Decoded>) = loaded
        .blobs
        .into_iter()
        .map(|d| (d.meta, d.decoded))
        .unzip();
    let mut builder = Builder::default();
    builder.chain_rule = rule;
    let mut model = builder.build(decoded, &mut diags);
    model.metas = metas;
    // Stable: problems without a package first, then packages by name, each in check order.
    diags.sort_by(|a, b| a.package.cmp(&b.package));
    let mut warnings = builder.warnings;
    warnings.sort_by(|a, b| a.package.cmp(&b.package));
    if diags.is_empty() {
        Ok(Built { model, warnings })
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

#[cfg(test)]
mod tests;
