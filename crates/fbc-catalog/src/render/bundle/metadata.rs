//! A bundle's `metadata/` documents → its annotations, dependencies and properties.
//!
//! In: the metadata documents in file name order. Out: [`Metadata`]. As opm does, each
//! document is tried as each of three files: the first that has a non-empty package,
//! channels or default channel under `annotations` is the annotations file, the first
//! with a non-empty `dependencies` list the dependencies file, the first with a
//! non-empty `properties` list the properties file. A document whose fields do not
//! have the Go types is not that file. File names do not matter.

use super::super::declcfg::{GoObject, Property};
use super::files::MetadataDocument;
use crate::source::json::{Html, Numbers, to_string};
use serde_json::Value;

/// The annotation naming the package.
pub const PACKAGE_ANNOTATION: &str = "operators.operatorframework.io.bundle.package.v1";
/// The annotation listing the channels.
pub const CHANNELS_ANNOTATION: &str = "operators.operatorframework.io.bundle.channels.v1";
/// The annotation naming the default channel.
pub const DEFAULT_CHANNEL_ANNOTATION: &str =
    "operators.operatorframework.io.bundle.channel.default.v1";

/// The three annotations opm reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    /// The package.
    pub package: String,
    /// The channels, comma-separated.
    pub channels: String,
    /// The default channel.
    pub default_channel: String,
}

/// What `metadata/` says about a bundle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    /// From the annotations file.
    pub annotations: Annotations,
    /// From the dependencies file, in order (`type`, value as JSON text).
    pub dependencies: Vec<Property>,
    /// From the properties file, in order.
    pub properties: Vec<Property>,
}

/// Finds the three files among `documents`; the error is opm's when there is no
/// annotations file.
pub fn read_metadata(documents: &[MetadataDocument]) -> Result<Metadata, String> {
    let mut annotations = None;
    let mut dependencies = None;
    let mut properties = None;
    for document in documents {
        let Some(object) = GoObject::of(&document.value) else {
            continue;
        };
        if annotations.is_none() {
            annotations = as_annotations(object).filter(|a| *a != Annotations::default());
        }
        if dependencies.is_none() {
            dependencies = typed_list(object, "dependencies").filter(|d| !d.is_empty());
        }
        if properties.is_none() {
            properties = typed_list(object, "properties").filter(|p| !p.is_empty());
        }
    }
    let Some(annotations) = annotations else {
        return Err("Could not find annotations file".into());
    };
    Ok(Metadata {
        annotations,
        dependencies: dependencies.unwrap_or_default(),
        properties: properties.unwrap_or_default(),
    })
}

fn as_annotations(object: GoObject<'_>) -> Option<Annotations> {
    let inner = object
        .object("AnnotationsFile", "annotations", "Annotations")
        .ok()??;
    Some(Annotations {
        package: inner.string("", PACKAGE_ANNOTATION).ok()?,
        channels: inner.string("", CHANNELS_ANNOTATION).ok()?,
        default_channel: inner.string("", DEFAULT_CHANNEL_ANNOTATION).ok()?,
    })
}

/// A list of `{type, value}` objects, each value as the JSON text Go's YAML-to-JSON
/// conversion gives it.
fn typed_list(object: GoObject<'_>, field: &str) -> Option<Vec<Property>> {
    let items = object.array("", field, "").ok()??;
    items
        .iter()
        .map(|item| {
            let entry = match item {
                Value::Null => {
                    return Some(Property {
                        typ: String::new(),
                        value: "null".into(),
                    });
                }
                other => GoObject::of(other)?,
            };
            let value = entry
                .0
                .iter()
                .rev()
                .find(|(k, _)| k.eq_ignore_ascii_case("value"))
                .map(|(_, v)| to_string(v, Html::Escape, Numbers::KeepIntegers))
                .unwrap_or_else(|| "null".into());
            Some(Property {
                typ: entry.string("", "type").ok()?,
                value,
            })
        })
        .collect()
}
