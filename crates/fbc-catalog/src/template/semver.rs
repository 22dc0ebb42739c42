//! `olm.semver`: channels and edges from bundle versions (opm v1.32.0's semver template).
//!
//! In: `{schema: olm.semver, generateMajorChannels, generateMinorChannels,
//! defaultChannelTypePreference, candidate|fast|stable: {bundles: [{image}]}}` (unknown
//! fields refused; field names matched without regard to ASCII case) and the bundles
//! the images render to. Out: one package, its channels and bundles.
//!
//! Rules: minor channels when neither kind is asked for; channel names
//! `<archetype>-v<X>` (major) and `<archetype>-v<X>.<Y>` (minor); entries in version
//! order. Edges, per archetype and kind in version order: the highest-Z entry of each
//! `X.Y` replaces the highest-Z entry of the previous `Y` of the same `X` and skips every
//! earlier entry of that `X`; lower-Z entries get no edges. The default channel is the
//! one created by the "highest" bundle: stable over fast over candidate, then higher
//! version, then the preferred kind, then minor over major. The package has only its
//! name and default channel (newer opm also copies the head's description and icon).

use super::{Bundles, first_document};
use crate::render::declcfg::{Channel, ChannelEntry, DeclarativeConfig, GoObject, Package};
use semver::Version;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The channel archetypes, lowest priority first.
const ARCHETYPES: [&str; 3] = ["candidate", "fast", "stable"];

/// A channel kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum StreamKind {
    /// `""`: no preference given.
    Default,
    /// `major`.
    Major,
    /// `minor`.
    Minor,
}

impl StreamKind {
    fn priority(self) -> u8 {
        match self {
            StreamKind::Default => 0,
            StreamKind::Major => 1,
            StreamKind::Minor => 2,
        }
    }
}

/// A parsed semver template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    generate_major: bool,
    generate_minor: bool,
    preference: StreamKind,
    /// Bundle images by archetype, in [`ARCHETYPES`] order.
    channels: [Vec<String>; 3],
}

impl Template {
    /// Every distinct image the template names, in order.
    pub fn images(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        self.channels
            .iter()
            .flatten()
            .filter(|i| seen.insert(i.as_str()))
            .cloned()
            .collect()
    }
}

fn strict_error(message: String) -> String {
    format!("error unmarshaling JSON: while decoding JSON: {message}")
}

/// Reads a semver template; the errors are opm's (`render: unable to read file: …`).
pub fn parse(text: &str) -> Result<Template, String> {
    read(text).map_err(|e| format!("render: unable to read file: {e}"))
}

fn read(text: &str) -> Result<Template, String> {
    let document = first_document(text)?;
    let object = GoObject::of(&document).ok_or_else(|| {
        strict_error(
            "json: cannot unmarshal non-object into Go value of type semver.semverTemplate".into(),
        )
    })?;
    const FIELDS: [&str; 7] = [
        "schema",
        "generateMajorChannels",
        "generateMinorChannels",
        "defaultChannelTypePreference",
        "candidate",
        "fast",
        "stable",
    ];
    if let Some(unknown) = object
        .0
        .keys()
        .find(|k| !FIELDS.iter().any(|f| f.eq_ignore_ascii_case(k)))
    {
        return Err(strict_error(format!("json: unknown field {unknown:?}")));
    }
    let owner = "semverTemplate";
    let schema = object.string(owner, "schema").map_err(strict_error)?;
    let flag = |name: &str| match object.get(name) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(strict_error(crate::render::declcfg::mismatch(
            other, owner, name, "bool",
        ))),
    };
    let (generate_major, mut generate_minor) = (
        flag("generateMajorChannels")?,
        flag("generateMinorChannels")?,
    );
    let preference = object
        .string(owner, "defaultChannelTypePreference")
        .map_err(strict_error)?;
    let mut channels: [Vec<String>; 3] = Default::default();
    for (slot, archetype) in channels.iter_mut().zip(ARCHETYPES) {
        *slot = bundle_images(object, archetype)?;
    }
    if schema != "olm.semver" {
        return Err("readFile: input file has unknown schema, should be \"olm.semver\"".into());
    }
    if !generate_major && !generate_minor {
        generate_minor = true;
    }
    let preference = match preference.as_str() {
        "" if generate_minor => StreamKind::Minor,
        "" => StreamKind::Major,
        "minor" if !generate_minor => return Err("schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels".into()),
        "major" if !generate_major => return Err("schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels".into()),
        "minor" => StreamKind::Minor,
        "major" => StreamKind::Major,
        other => return Err(format!("unknown DefaultChannelTypePreference: {other:?}\nValid values are 'major' or 'minor'")),
    };
    Ok(Template {
        generate_major,
        generate_minor,
        preference,
        channels,
    })
}

fn bundle_images(object: GoObject<'_>, archetype: &str) -> Result<Vec<String>, String> {
    let owner = "semverTemplate";
    let Some(channel) = object
        .object(owner, archetype, "semver.semverTemplateChannelBundles")
        .map_err(strict_error)?
    else {
        return Ok(Vec::new());
    };
    if let Some(unknown) = channel
        .0
        .keys()
        .find(|k| !k.eq_ignore_ascii_case("bundles"))
    {
        return Err(strict_error(format!("json: unknown field {unknown:?}")));
    }
    let items = channel
        .array(
            "semverTemplateChannelBundles",
            "bundles",
            "semver.semverTemplateBundleEntry",
        )
        .map_err(strict_error)?
        .cloned()
        .unwrap_or_default();
    items
        .iter()
        .map(|item| {
            let entry = GoObject::of(item).ok_or_else(|| {
                strict_error(format!(
                    "json: cannot unmarshal {} into Go struct field semverTemplateChannelBundles.bundles of type semver.semverTemplateBundleEntry",
                    crate::render::declcfg::kind(item)
                ))
            })?;
            if let Some(unknown) = entry.0.keys().find(|k| !k.eq_ignore_ascii_case("image")) {
                return Err(strict_error(format!("json: unknown field {unknown:?}")));
            }
            entry.string("semverTemplateBundleEntry", "image").map_err(strict_error)
        })
        .collect()
}

/// One bundle's place: its archetype, name and version.
struct Versioned {
    name: String,
    version: Version,
}

/// Builds the catalog a semver template describes from the bundles its images render to.
pub fn build(template: &Template, bundles: &mut dyn Bundles) -> Result<DeclarativeConfig, String> {
    let mut out = DeclarativeConfig::default();
    for image in template.images() {
        out.bundles.extend(bundles.render(&image)?);
    }
    if out.bundles.is_empty() {
        return Err("render: no bundles specified or no bundles could be rendered".into());
    }
    let mut package = String::new();
    let mut by_archetype: Vec<Vec<Versioned>> = Vec::new();
    for images in &template.channels {
        let versions = versions_of(images, &out, &mut package)
            .map_err(|e| format!("render: unable to post-process bundle info: {e}"))?;
        by_archetype.push(versions);
    }
    let (channels, default_channel) = channels(template, &package, by_archetype);
    out.packages.push(Package {
        schema: "olm.package".into(),
        name: package,
        default_channel,
        ..Package::default()
    });
    out.channels = channels;
    Ok(out)
}

fn versions_of(
    images: &[String],
    config: &DeclarativeConfig,
    package: &mut String,
) -> Result<Vec<Versioned>, String> {
    let mut out: Vec<Versioned> = Vec::new();
    for image in images {
        let bundle = config
            .bundles
            .iter()
            .find(|b| &b.image == image)
            .ok_or_else(|| {
                format!("supplied bundle image name {image:?} not found in rendered bundle images")
            })?;
        let packages: Vec<Value> = bundle
            .properties
            .iter()
            .filter(|p| p.typ == "olm.package")
            .filter_map(|p| serde_json::from_str(&p.value).ok())
            .collect();
        if packages.len() != 1 {
            return Err(format!(
                "bundle {:?} has multiple \"olm.package\" properties, expected exactly 1",
                bundle.name
            ));
        }
        let field = |name: &str| {
            packages[0]
                .get(name)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let (name, version_text) = (field("packageName"), field("version"));
        let version = Version::parse(&version_text).map_err(|e| {
            format!(
                "bundle {:?} has invalid version {version_text:?}: {e}",
                bundle.name
            )
        })?;
        if package.is_empty() {
            *package = name;
        } else if *package != name {
            return Err(format!(
                "bundle {name:?} does not belong to this package: {package:?}"
            ));
        }
        if out.iter().any(|v| v.name == bundle.name) {
            return Err(format!("duplicate bundle name {:?}", bundle.name));
        }
        out.push(Versioned {
            name: bundle.name.clone(),
            version,
        });
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut conflicts = Vec::new();
    for v in &out {
        let mut stripped = v.version.clone();
        stripped.build = semver::BuildMetadata::EMPTY;
        let stripped = stripped.to_string();
        let count = seen.entry(stripped.clone()).or_default();
        *count += 1;
        if *count > 1 {
            conflicts.push(format!(
                "bundle version {:?} cannot be compared to {stripped:?}",
                v.version.to_string()
            ));
        }
    }
    if !conflicts.is_empty() {
        return Err(format!(
            "encountered bundle versions which differ only by build metadata, which cannot be ordered: [{}]",
            conflicts.join(", ")
        ));
    }
    Ok(out)
}

/// One channel entry's place, for linking.
struct Tuple {
    archetype: usize,
    kind: StreamKind,
    name: String,
    channel: String,
    version: Version,
    index: usize,
}

/// The channel a bundle's creation made, for the default-channel choice.
struct Highwater {
    archetype: usize,
    kind: StreamKind,
    version: Version,
    name: String,
}

impl Highwater {
    fn gt(&self, other: &Highwater, preference: StreamKind) -> bool {
        if self.archetype != other.archetype {
            return self.archetype > other.archetype;
        }
        if self.version.cmp_precedence(&other.version).is_ne() {
            return self.version.cmp_precedence(&other.version).is_gt();
        }
        if self.kind != other.kind {
            if self.kind == preference {
                return true;
            }
            if other.kind == preference {
                return false;
            }
            return self.kind.priority() > other.kind.priority();
        }
        false
    }
}

fn channels(
    template: &Template,
    package: &str,
    by_archetype: Vec<Vec<Versioned>>,
) -> (Vec<Channel>, String) {
    let mut highwater = Highwater {
        archetype: 0,
        kind: StreamKind::Default,
        version: Version::new(0, 0, 0),
        name: String::new(),
    };
    let mut channels: BTreeMap<String, Channel> = BTreeMap::new();
    let mut tuples = Vec::new();
    for (archetype, mut bundles) in by_archetype.into_iter().enumerate() {
        bundles.sort_by(|a, b| a.version.cmp_precedence(&b.version));
        for bundle in bundles {
            let v = &bundle.version;
            let mut names = Vec::new();
            if template.generate_major {
                names.push((
                    StreamKind::Major,
                    format!("{}-v{}", ARCHETYPES[archetype], v.major),
                ));
            }
            if template.generate_minor {
                names.push((
                    StreamKind::Minor,
                    format!("{}-v{}.{}", ARCHETYPES[archetype], v.major, v.minor),
                ));
            }
            for (kind, name) in names {
                let channel = channels.entry(name.clone()).or_insert_with(|| {
                    let candidate = Highwater {
                        archetype,
                        kind,
                        version: v.clone(),
                        name: name.clone(),
                    };
                    if candidate.gt(&highwater, template.preference) {
                        highwater = candidate;
                    }
                    Channel {
                        schema: "olm.channel".into(),
                        name: name.clone(),
                        package: package.to_string(),
                        entries: Some(Vec::new()),
                        properties: Vec::new(),
                    }
                });
                let entries = channel.entries.get_or_insert_with(Vec::new);
                entries.push(ChannelEntry {
                    name: bundle.name.clone(),
                    ..ChannelEntry::default()
                });
                tuples.push(Tuple {
                    archetype,
                    kind,
                    name: bundle.name.clone(),
                    channel: name,
                    version: v.clone(),
                    index: entries.len() - 1,
                });
            }
        }
    }
    link(&mut channels, tuples);
    (channels.into_values().collect(), highwater.name)
}

/// opm's `linkChannels`: replaces and skips, per archetype, kind and major version.
fn link(channels: &mut BTreeMap<String, Channel>, mut tuples: Vec<Tuple>) {
    if tuples.is_empty() {
        return;
    }
    tuples.sort_by(|a, b| {
        a.archetype
            .cmp(&b.archetype)
            .then(a.kind.priority().cmp(&b.kind.priority()))
            .then(a.version.cmp_precedence(&b.version))
    });
    let mut previous_max = String::new();
    let mut skips: BTreeSet<String> = BTreeSet::new();
    let finish = |channels: &mut BTreeMap<String, Channel>,
                  t: &Tuple,
                  replaces: &str,
                  skips: &BTreeSet<String>| {
        let entry = channels
            .get_mut(&t.channel)
            .and_then(|c| c.entries.as_mut())
            .and_then(|e| e.get_mut(t.index));
        if let Some(entry) = entry {
            entry.replaces = replaces.to_string();
            entry.skips = skips
                .iter()
                .filter(|s| s.as_str() != replaces)
                .cloned()
                .collect();
        }
    };
    for i in 1..tuples.len() {
        let (prev, cur) = (&tuples[i - 1], &tuples[i]);
        let arch_change = cur.archetype != prev.archetype;
        let kind_change = cur.kind != prev.kind;
        let x_change = cur.version.major != prev.version.major;
        let y_change = x_change || cur.version.minor != prev.version.minor;
        if arch_change || kind_change || x_change || y_change {
            finish(channels, prev, &previous_max, &skips);
        }
        if arch_change || kind_change || x_change {
            skips.clear();
            previous_max.clear();
        } else {
            if y_change {
                previous_max = prev.name.clone();
            }
            skips.insert(prev.name.clone());
        }
    }
    if let Some(last) = tuples.last() {
        finish(channels, last, &previous_max, &skips);
    }
}
