//! A registry+v1 bundle (its `manifests/` and `metadata/`) → the `olm.bundle` blob
//! `opm render` writes for it.
//!
//! In: [`BundleFiles`] (read from a directory by [`files`], or from an unpacked bundle
//! image by the caller) and the image reference to record (empty for a directory).
//! Out: a [`Bundle`] with opm v1.32.0's properties, related images and CSV JSON, or
//! opm's error text.
//!
//! Rules (operator-registry v1.32.0 `pkg/registry/parse.go`, `registry_to_model.go`,
//! `alpha/action/render.go`):
//! 1. Only the first ClusterServiceVersion among the manifests is kept; the bundle is
//!    named after it; its package is the annotations' package.
//! 2. Properties: the properties file's, the `olm.package` of the annotations, the
//!    CSV's `olm.properties` annotation, one `olm.gvk` per provided API (CRD versions,
//!    owned API services), one `olm.gvk.required` per required API and dependency, an
//!    `olm.package.required` per package dependency, other dependencies as they are;
//!    deduplicated, sorted by type then value text.
//! 3. With an image, the CSV becomes one `olm.csv.metadata`; without one, every
//!    manifest becomes an `olm.bundle.object`. Either goes last.
//! 4. Related images ([`apis::related_images`]) sorted by image with Go's unstable
//!    `sort.Slice` ([`super::go_sort`]), so equal images come out in opm's order.

pub mod apis;
pub mod files;
pub mod metadata;

use super::declcfg::{Bundle, GoObject, Property, RelatedImage};
use crate::source::json::{Html, Numbers, to_string};
use base64::Engine;
pub use files::{BundleFiles, is_bundle_dir, read_bundle_dir};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The property types that carry manifests and go last.
pub const OBJECT_TYPES: [&str; 2] = ["olm.bundle.object", "olm.csv.metadata"];

/// How a rendered bundle carries its manifests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectForm {
    /// opm v1.32.0: with an image, the CSV as one `olm.csv.metadata`; without one,
    /// every manifest as an `olm.bundle.object`.
    CsvMetadataWithImage,
    /// opm since v1.46 without a migration: every manifest as an `olm.bundle.object`.
    BundleObjects,
}

/// Renders one bundle; `image` is recorded as the bundle's image (empty for a
/// directory rendered without one).
pub fn render_bundle(files: &BundleFiles, image: &str, form: ObjectForm) -> Result<Bundle, String> {
    let mut csv_seen = false;
    let objects: Vec<&Value> = files
        .manifests
        .iter()
        .map(|m| &m.object)
        .filter(|o| {
            let is_csv = is_csv(o);
            let keep = !(is_csv && csv_seen);
            csv_seen |= is_csv;
            keep
        })
        .collect();
    let csv = *objects
        .iter()
        .find(|o| is_csv(o))
        .ok_or("no csv in bundle")?;
    let name = csv
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let provided = apis::provided(csv, &objects);
    apis::check_owned(csv, &provided)
        .map_err(|e| format!("error checking provided apis in bundle {name}: {e}"))?;
    let metadata = metadata::read_metadata(&files.metadata)?;
    let package = metadata.annotations.package.clone();
    let version = csv_version(csv).map_err(|e| format!("failed to derive properties: {e}"))?;

    let properties = bundle_properties(csv, &metadata, &package, &version, &provided)
        .map_err(|e| format!("get properties for bundle {name:?}: {e}"))?;
    let (object_properties, csv_json) = object_properties(&objects, image, form);
    let mut all = properties;
    all.extend(object_properties);
    all.sort_by(|a, b| a.typ.cmp(&b.typ).then_with(|| a.value.cmp(&b.value)));
    let related_images = apis::related_images(csv, image)
        .map_err(|e| format!("get related images for bundle {name:?}: {e}"))?;
    let mut bundle = Bundle {
        schema: "olm.bundle".into(),
        name,
        package,
        image: image.to_string(),
        properties: all,
        related_images,
        csv_json: Some(csv_json),
    };
    finish(&mut bundle);
    Ok(bundle)
}

/// What opm's render does to every bundle it outputs: properties that carry manifests
/// last, related images sorted by image.
pub fn finish(bundle: &mut Bundle) {
    let (objects, others): (Vec<Property>, Vec<Property>) = std::mem::take(&mut bundle.properties)
        .into_iter()
        .partition(|p| OBJECT_TYPES.contains(&p.typ.as_str()));
    bundle.properties = others;
    bundle.properties.extend(objects);
    super::go_sort::slice(&mut bundle.related_images, |a: &RelatedImage, b| {
        a.image < b.image
    });
}

fn is_csv(object: &Value) -> bool {
    object.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion")
}

fn csv_version(csv: &Value) -> Result<String, String> {
    match csv
        .get("spec")
        .and_then(GoObject::of)
        .and_then(|s| s.0.get("version"))
    {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(v)) => Ok(v.clone()),
        Some(other) => Err(format!(
            "json: cannot unmarshal {} into Go value of type string",
            super::declcfg::kind(other)
        )),
    }
}

/// Go's `json.Marshal`: what manifests become (HTML characters escaped).
fn marshal(value: &Value) -> String {
    to_string(value, Html::Escape, Numbers::KeepIntegers)
}

/// opm's `property.Build`: an encoder with HTML characters left alone.
fn build(value: &Value) -> String {
    to_string(value, Html::Literal, Numbers::KeepIntegers)
}

fn gvk(group: &str, kind: &str, version: &str) -> String {
    build(&json!({"group": group, "kind": kind, "version": version}))
}

/// The properties before the manifest-carrying ones, sorted (opm's
/// `ObjectsAndPropertiesFromBundle` over the parsed bundle's properties).
fn bundle_properties(
    csv: &Value,
    metadata: &metadata::Metadata,
    package: &str,
    version: &str,
    provided: &BTreeSet<apis::ApiKey>,
) -> Result<Vec<Property>, String> {
    // The parsed bundle's properties: the properties file's, then the derived ones.
    let mut derived = Vec::new();
    if !package.is_empty() {
        let value = marshal(&json!({"packageName": package, "version": version}));
        derived.push(Property {
            typ: "olm.package".into(),
            value,
        });
    }
    derived.extend(csv_annotation_properties(csv));
    derived.extend(provided.iter().map(|k| Property {
        typ: "olm.gvk".into(),
        value: gvk(&k.group, &k.kind, &k.version),
    }));
    let mut parsed = metadata.properties.clone();
    parsed.extend(dedup(derived));
    let parsed = dedup(parsed);

    let mut provided_gvks = BTreeSet::new();
    let mut required_gvks = BTreeSet::new();
    let mut package_property = None;
    let mut others = Vec::new();
    for (i, p) in parsed.iter().enumerate() {
        match p.typ.as_str() {
            "olm.gvk" => {
                provided_gvks.insert(decode_gvk(i, p)?);
            }
            "olm.package" => {
                let (name, version) = decode_package(i, p)?;
                package_property = Some(build(&json!({"packageName": name, "version": version})));
            }
            _ => others.push(p.clone()),
        }
    }
    let mut package_required = Vec::new();
    for (i, d) in metadata.dependencies.iter().enumerate() {
        match d.typ.as_str() {
            "olm.gvk" => {
                required_gvks.insert(decode_gvk(i, d)?);
            }
            "olm.package" => {
                let (name, range) = decode_package(i, d)?;
                let value = build(&json!({"packageName": name, "versionRange": range}));
                package_required.push(Property {
                    typ: "olm.package.required".into(),
                    value,
                });
            }
            _ => others.push(d.clone()),
        }
    }
    for k in provided {
        provided_gvks.insert((k.group.clone(), k.kind.clone(), k.version.clone()));
    }
    for k in apis::required(csv).map_err(|e| format!("get required apis: {e}"))? {
        required_gvks.insert((k.group, k.kind, k.version));
    }
    let package_value = package_property
        .unwrap_or_else(|| build(&json!({"packageName": package, "version": version})));
    let mut out = vec![Property {
        typ: "olm.package".into(),
        value: package_value,
    }];
    out.extend(provided_gvks.iter().map(|(g, k, v)| Property {
        typ: "olm.gvk".into(),
        value: gvk(g, k, v),
    }));
    out.extend(required_gvks.iter().map(|(g, k, v)| Property {
        typ: "olm.gvk.required".into(),
        value: gvk(g, k, v),
    }));
    out.extend(package_required);
    out.extend(others);
    out.sort_by(|a, b| a.typ.cmp(&b.typ).then_with(|| a.value.cmp(&b.value)));
    Ok(out)
}

/// The properties listed in the CSV's `olm.properties` annotation (a JSON array); an
/// annotation that does not parse adds none (opm warns).
fn csv_annotation_properties(csv: &Value) -> Vec<Property> {
    let annotation = csv
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get("olm.properties"))
        .and_then(Value::as_str);
    let Some(text) = annotation else {
        return Vec::new();
    };
    type Raw = std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>;
    let Ok(items) = serde_json::from_str::<Vec<Raw>>(text) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|item| {
            let field = |name: &str| {
                item.iter()
                    .rev()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
            };
            let typ = field("type")
                .and_then(|(_, v)| serde_json::from_str::<String>(v.get()).ok())
                .unwrap_or_default();
            let value = field("value")
                .map(|(_, v)| v.get().to_string())
                .unwrap_or_else(|| "null".into());
            Property { typ, value }
        })
        .collect()
}

/// Drops repeated properties (same type and value text), keeping the first.
fn dedup(properties: Vec<Property>) -> Vec<Property> {
    let mut seen = BTreeSet::new();
    properties
        .into_iter()
        .filter(|p| seen.insert((p.typ.clone(), p.value.clone())))
        .collect()
}

fn parse_error(i: usize, p: &Property, e: impl std::fmt::Display) -> String {
    format!("parse property[{i}] of type {:?}: {e}", p.typ)
}

fn decode_value(i: usize, p: &Property) -> Result<Value, String> {
    serde_json::from_str(&p.value).map_err(|e| parse_error(i, p, e))
}

fn field_of(
    i: usize,
    p: &Property,
    value: &Value,
    owner: &str,
    name: &str,
) -> Result<String, String> {
    match GoObject::of(value) {
        Some(o) => o.string(owner, name).map_err(|e| parse_error(i, p, e)),
        None if value.is_null() => Ok(String::new()),
        None => Err(parse_error(
            i,
            p,
            format!(
                "json: cannot unmarshal {} into Go value of type property.{owner}",
                super::declcfg::kind(value)
            ),
        )),
    }
}

fn decode_gvk(i: usize, p: &Property) -> Result<(String, String, String), String> {
    let v = decode_value(i, p)?;
    Ok((
        field_of(i, p, &v, "GVK", "group")?,
        field_of(i, p, &v, "GVK", "kind")?,
        field_of(i, p, &v, "GVK", "version")?,
    ))
}

fn decode_package(i: usize, p: &Property) -> Result<(String, String), String> {
    let v = decode_value(i, p)?;
    Ok((
        field_of(i, p, &v, "Package", "packageName")?,
        field_of(i, p, &v, "Package", "version")?,
    ))
}

/// The manifest-carrying properties and the CSV's JSON: with no image, one
/// `olm.bundle.object` per object; with one, an `olm.csv.metadata` for the CSV (an
/// `olm.bundle.object` if the CSV's fields do not have Go's types).
fn object_properties(objects: &[&Value], image: &str, form: ObjectForm) -> (Vec<Property>, String) {
    let mut out = Vec::new();
    let mut csv_json = String::new();
    for object in objects {
        let data = marshal(object);
        let as_object = || Property {
            typ: "olm.bundle.object".into(),
            value: build(&json!({"data": base64::engine::general_purpose::STANDARD.encode(&data)})),
        };
        if image.is_empty() || form == ObjectForm::BundleObjects {
            out.push(as_object());
        } else if is_csv(object) {
            match crate::model::csv::csv_metadata_value(object) {
                Ok(value) => out.push(Property {
                    typ: "olm.csv.metadata".into(),
                    value,
                }),
                Err(_) => out.push(as_object()),
            }
        }
        if is_csv(object) {
            csv_json = data;
        }
    }
    (out, csv_json)
}

#[cfg(test)]
mod tests;
