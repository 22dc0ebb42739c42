//! opm's `declcfg` types: what `opm render` holds between reading and writing.
//!
//! In: catalog blobs ([`crate::source::Blob`]) or bundles rendered by
//! [`super::bundle`]. Out: a [`DeclarativeConfig`] whose blobs of the four known schemas are
//! decoded into Go's struct shapes (unknown fields dropped, field names matched
//! without regard to ASCII case, the last match winning) and whose other blobs are kept
//! as their normalised JSON ([`Meta`]). [`super::write`] writes it.
//!
//! A property value is kept as JSON text: Go keeps it as `json.RawMessage`, so its
//! bytes (key order, escapes, number spelling) are whatever made it.

use crate::source::Blob;
use crate::source::json::{Html, Numbers, to_string};
use base64::Engine;
use serde_json::{Map, Value};

/// A property: its type and its value as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// `type`.
    pub typ: String,
    /// `value`, as JSON text (`null` when absent).
    pub value: String,
}

/// A package icon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Icon {
    /// `base64data`, decoded.
    pub data: Vec<u8>,
    /// `mediatype`.
    pub media_type: String,
}

/// An `olm.package` blob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Package {
    /// `schema`.
    pub schema: String,
    /// `name`.
    pub name: String,
    /// `defaultChannel`.
    pub default_channel: String,
    /// `icon`.
    pub icon: Option<Icon>,
    /// `description`.
    pub description: String,
    /// `properties`.
    pub properties: Vec<Property>,
}

/// One entry of a channel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelEntry {
    /// `name`.
    pub name: String,
    /// `replaces`.
    pub replaces: String,
    /// `skips`.
    pub skips: Vec<String>,
    /// `skipRange`.
    pub skip_range: String,
}

/// An `olm.channel` blob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Channel {
    /// `schema`.
    pub schema: String,
    /// `name`.
    pub name: String,
    /// `package`.
    pub package: String,
    /// `entries`: `None` is written as `null`, as Go writes a nil slice.
    pub entries: Option<Vec<ChannelEntry>>,
    /// `properties`.
    pub properties: Vec<Property>,
}

/// A related image of a bundle.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct RelatedImage {
    /// `name`.
    pub name: String,
    /// `image`.
    pub image: String,
}

/// An `olm.bundle` blob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bundle {
    /// `schema`.
    pub schema: String,
    /// `name`.
    pub name: String,
    /// `package`.
    pub package: String,
    /// `image`.
    pub image: String,
    /// `properties`.
    pub properties: Vec<Property>,
    /// `relatedImages`.
    pub related_images: Vec<RelatedImage>,
    /// The CSV's JSON, when known (from the bundle's manifests or an `olm.bundle.object`);
    /// never written, used by the CSV-metadata migration.
    pub csv_json: Option<String>,
}

impl Bundle {
    /// The `version` of the first `olm.package` property, if it has one.
    pub fn package_version(&self) -> Option<String> {
        self.properties
            .iter()
            .find(|p| p.typ == "olm.package")
            .and_then(|p| serde_json::from_str::<Value>(&p.value).ok())
            .and_then(|v| v.get("version").and_then(Value::as_str).map(str::to_string))
    }
}

/// A reference inside a deprecation entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reference {
    /// `schema`.
    pub schema: String,
    /// `name` (omitted when empty).
    pub name: String,
}

/// One entry of an `olm.deprecations` blob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeprecationEntry {
    /// `reference`.
    pub reference: Reference,
    /// `message`.
    pub message: String,
}

/// An `olm.deprecations` blob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deprecation {
    /// `schema`.
    pub schema: String,
    /// `package`.
    pub package: String,
    /// `entries` (`None` is written as `null`).
    pub entries: Option<Vec<DeprecationEntry>>,
}

/// A blob of another schema, kept whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// `schema`.
    pub schema: String,
    /// `package`.
    pub package: String,
    /// `name`.
    pub name: String,
    /// The blob's normalised JSON (sorted keys, compact, Go numbers).
    pub blob: String,
}

/// Every blob of a render, by schema, each list in reading order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeclarativeConfig {
    /// `olm.package` blobs.
    pub packages: Vec<Package>,
    /// `olm.channel` blobs.
    pub channels: Vec<Channel>,
    /// `olm.bundle` blobs.
    pub bundles: Vec<Bundle>,
    /// `olm.deprecations` blobs.
    pub deprecations: Vec<Deprecation>,
    /// Blobs of any other schema.
    pub others: Vec<Meta>,
}

impl DeclarativeConfig {
    /// Appends every list of `other` to this one's (Go's `Merge`).
    pub fn merge(&mut self, other: DeclarativeConfig) {
        self.packages.extend(other.packages);
        self.channels.extend(other.channels);
        self.bundles.extend(other.bundles);
        self.deprecations.extend(other.deprecations);
        self.others.extend(other.others);
    }

    /// Decodes catalog blobs as opm's loader does; the error is opm's text with the
    /// blob's file and document in front.
    pub fn from_blobs(blobs: &[Blob]) -> Result<DeclarativeConfig, String> {
        let mut out = DeclarativeConfig::default();
        for blob in blobs {
            out.add_blob(blob)
                .map_err(|e| format!("{}: {e}", blob.origin))?;
        }
        for bundle in &mut out.bundles {
            bundle.csv_json =
                csv_from_bundle_objects(bundle).map_err(|e| format!("read bundle objects: {e}"))?;
        }
        Ok(out)
    }

    fn add_blob(&mut self, blob: &Blob) -> Result<(), String> {
        let Value::Object(map) = &blob.value else {
            return Err("a catalog object must be a JSON object".into());
        };
        let object = GoObject(map);
        match blob.schema.as_str() {
            "olm.package" => self
                .packages
                .push(decode_package(object).map_err(|e| format!("parse package: {e}"))?),
            "olm.channel" => self
                .channels
                .push(decode_channel(object).map_err(|e| format!("parse channel: {e}"))?),
            "olm.bundle" => self
                .bundles
                .push(decode_bundle(object).map_err(|e| format!("parse bundle: {e}"))?),
            "olm.deprecations" => self
                .deprecations
                .push(decode_deprecation(object).map_err(|e| format!("parse deprecation: {e}"))?),
            "" => {
                return Err(format!(
                    "object '{}' is missing root schema field",
                    blob.normalized_json()
                ));
            }
            _ => self.others.push(Meta {
                schema: blob.schema.clone(),
                package: blob.package.clone(),
                name: blob.name.clone(),
                blob: blob.normalized_json(),
            }),
        }
        Ok(())
    }
}

/// The CSV among a bundle's `olm.bundle.object` properties (opm's `readBundleObjects`).
fn csv_from_bundle_objects(bundle: &Bundle) -> Result<Option<String>, String> {
    let mut csv = None;
    for (i, property) in bundle.properties.iter().enumerate() {
        if property.typ != "olm.bundle.object" {
            continue;
        }
        let context = |e: String| {
            format!(
                "package {:?}, bundle {:?}: parse property at index {i} as bundle object: {e}",
                bundle.package, bundle.name
            )
        };
        let value: Value =
            serde_json::from_str(&property.value).map_err(|e| context(e.to_string()))?;
        let data = match GoObject::of(&value).and_then(|o| o.get("data")) {
            Some(Value::String(data)) => base64::engine::general_purpose::STANDARD
                .decode(data)
                .map_err(|e| context(format!("illegal base64 data: {e}")))?,
            _ => continue,
        };
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let Ok(Some(object)) = crate::source::yaml::document_to_json(text) else {
            continue;
        };
        if csv.is_none()
            && object.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion")
        {
            csv = Some(to_string(&object, Html::Escape, Numbers::KeepIntegers));
        }
    }
    Ok(csv)
}

/// A JSON object read as Go's `encoding/json` reads it into a struct.
#[derive(Clone, Copy)]
pub(crate) struct GoObject<'a>(pub(crate) &'a Map<String, Value>);

impl<'a> GoObject<'a> {
    pub(crate) fn of(value: &'a Value) -> Option<GoObject<'a>> {
        value.as_object().map(GoObject)
    }

    /// The value of the field `name`: an exact key, else the last key equal to it
    /// without regard to ASCII case (keys are visited in sorted order, as in the
    /// normalised blob Go decodes).
    pub(crate) fn get(&self, name: &str) -> Option<&'a Value> {
        let folded = self
            .0
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(name));
        folded.map(|(_, v)| v).filter(|v| !v.is_null())
    }

    pub(crate) fn string(&self, owner: &str, name: &str) -> Result<String, String> {
        match self.get(name) {
            None => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(mismatch(other, owner, name, "string")),
        }
    }

    pub(crate) fn strings(&self, owner: &str, name: &str) -> Result<Vec<String>, String> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    Value::Null => Ok(String::new()),
                    other => Err(mismatch(other, owner, name, "string")),
                })
                .collect(),
            Some(other) => Err(mismatch(other, owner, name, "[]string")),
        }
    }

    pub(crate) fn array(
        &self,
        owner: &str,
        name: &str,
        of: &str,
    ) -> Result<Option<&'a Vec<Value>>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(other) => Err(mismatch(other, owner, name, &format!("[]{of}"))),
        }
    }

    pub(crate) fn object(
        &self,
        owner: &str,
        name: &str,
        of: &str,
    ) -> Result<Option<GoObject<'a>>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(GoObject(map))),
            Some(other) => Err(mismatch(other, owner, name, of)),
        }
    }

    fn properties(&self, owner: &str) -> Result<Vec<Property>, String> {
        let Some(items) = self.array(owner, "properties", "property.Property")? else {
            return Ok(Vec::new());
        };
        items
            .iter()
            .map(|item| {
                let object = element(item, &format!("{owner}.properties"), "property.Property")?;
                Ok(Property {
                    typ: object.string(&format!("{owner}.properties"), "type")?,
                    value: match object
                        .0
                        .iter()
                        .rev()
                        .find(|(k, _)| k.eq_ignore_ascii_case("value"))
                    {
                        Some((_, v)) => crate::source::json::normalized(v),
                        None => "null".into(),
                    },
                })
            })
            .collect()
    }
}

fn element<'a>(item: &'a Value, owner: &str, of: &str) -> Result<GoObject<'a>, String> {
    match item {
        Value::Object(map) => Ok(GoObject(map)),
        Value::Null => Ok(GoObject(empty_map())),
        other => Err(format!(
            "json: cannot unmarshal {} into Go struct field {owner} of type {of}",
            kind(other)
        )),
    }
}

fn empty_map() -> &'static Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

/// Go's name for a JSON value's kind in unmarshal errors.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub(crate) fn mismatch(value: &Value, owner: &str, field: &str, of: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go struct field {owner}.{field} of type {of}",
        kind(value)
    )
}

fn decode_package(o: GoObject<'_>) -> Result<Package, String> {
    let icon = match o.object("Package", "icon", "declcfg.Icon")? {
        None => None,
        Some(icon) => {
            let data = icon.string("Package.icon", "base64data")?;
            let data = base64::engine::general_purpose::STANDARD
                .decode(data.replace(['\r', '\n'], ""))
                .map_err(|e| format!("illegal base64 data in Package.icon.base64data: {e}"))?;
            Some(Icon {
                data,
                media_type: icon.string("Package.icon", "mediatype")?,
            })
        }
    };
    Ok(Package {
        schema: o.string("Package", "schema")?,
        name: o.string("Package", "name")?,
        default_channel: o.string("Package", "defaultChannel")?,
        icon,
        description: o.string("Package", "description")?,
        properties: o.properties("Package")?,
    })
}

fn decode_channel(o: GoObject<'_>) -> Result<Channel, String> {
    let entries = match o.array("Channel", "entries", "declcfg.ChannelEntry")? {
        None => None,
        Some(items) => Some(
            items
                .iter()
                .map(|item| {
                    let e = element(item, "Channel.entries", "declcfg.ChannelEntry")?;
                    Ok(ChannelEntry {
                        name: e.string("Channel.entries", "name")?,
                        replaces: e.string("Channel.entries", "replaces")?,
                        skips: e.strings("Channel.entries", "skips")?,
                        skip_range: e.string("Channel.entries", "skipRange")?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?,
        ),
    };
    Ok(Channel {
        schema: o.string("Channel", "schema")?,
        name: o.string("Channel", "name")?,
        package: o.string("Channel", "package")?,
        entries,
        properties: o.properties("Channel")?,
    })
}

fn decode_bundle(o: GoObject<'_>) -> Result<Bundle, String> {
    let related_images = match o.array("Bundle", "relatedImages", "declcfg.RelatedImage")? {
        None => Vec::new(),
        Some(items) => items
            .iter()
            .map(|item| {
                let r = element(item, "Bundle.relatedImages", "declcfg.RelatedImage")?;
                Ok(RelatedImage {
                    name: r.string("Bundle.relatedImages", "name")?,
                    image: r.string("Bundle.relatedImages", "image")?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?,
    };
    Ok(Bundle {
        schema: o.string("Bundle", "schema")?,
        name: o.string("Bundle", "name")?,
        package: o.string("Bundle", "package")?,
        image: o.string("Bundle", "image")?,
        properties: o.properties("Bundle")?,
        related_images,
        csv_json: None,
    })
}

fn decode_deprecation(o: GoObject<'_>) -> Result<Deprecation, String> {
    let entries = match o.array("Deprecation", "entries", "declcfg.DeprecationEntry")? {
        None => None,
        Some(items) => Some(
            items
                .iter()
                .map(|item| {
                    let e = element(item, "Deprecation.entries", "declcfg.DeprecationEntry")?;
                    let reference = match e.object(
                        "Deprecation.entries",
                        "reference",
                        "declcfg.PackageScopedReference",
                    )? {
                        None => Reference::default(),
                        Some(r) => Reference {
                            schema: r.string("Deprecation.entries.reference", "schema")?,
                            name: r.string("Deprecation.entries.reference", "name")?,
                        },
                    };
                    Ok(DeprecationEntry {
                        reference,
                        message: e.string("Deprecation.entries", "message")?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?,
        ),
    };
    Ok(Deprecation {
        schema: o.string("Deprecation", "schema")?,
        package: o.string("Deprecation", "package")?,
        entries,
    })
}
