//! A bundle's objects → the APIs it provides and requires, and the images it names.
//!
//! In: the CSV object and the other manifest objects. Out: [`ApiKey`] sets (opm's
//! `ProvidedAPIs`, `RequiredAPIs` and its check that every owned CRD is in the
//! bundle) and the related images opm lists (`getRelatedImages`).

use super::super::declcfg::{GoObject, RelatedImage, kind, mismatch};
use serde_json::Value;
use std::collections::BTreeSet;

/// One API: opm's `APIKey`, written as its `String` method writes it and ordered as
/// Go's `fmt` orders map keys (field by field).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ApiKey {
    /// Group.
    pub group: String,
    /// Version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural name.
    pub plural: String,
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}/{} ({})",
            self.group, self.version, self.kind, self.plural
        )
    }
}

fn text(object: Option<GoObject<'_>>, field: &str) -> String {
    object
        .and_then(|o| o.get(field))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn path<'a>(value: &'a Value, fields: &[&str]) -> Option<GoObject<'a>> {
    let mut at = GoObject::of(value)?;
    for field in fields {
        at = GoObject::of(at.get(field)?)?;
    }
    Some(at)
}

/// The APIs the bundle's CRDs (every served version of v1 and v1beta1 CRDs) and the
/// CSV's owned API services provide.
pub fn provided(csv: &Value, objects: &[&Value]) -> BTreeSet<ApiKey> {
    let mut out = BTreeSet::new();
    for object in objects {
        if object.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            continue;
        }
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let version = api_version.rsplit('/').next().unwrap_or_default();
        if version != "v1" && version != "v1beta1" {
            continue;
        }
        let spec = path(object, &["spec"]);
        let names = path(object, &["spec", "names"]);
        let key = |version: String| ApiKey {
            group: text(spec, "group"),
            version,
            kind: text(names, "kind"),
            plural: text(names, "plural"),
        };
        if let Some(Value::Array(versions)) = spec.and_then(|s| s.get("versions")) {
            for v in versions {
                out.insert(key(text(GoObject::of(v), "name")));
            }
        }
        if version == "v1beta1" {
            let single = text(spec, "version");
            if !single.is_empty() {
                out.insert(key(single));
            }
        }
    }
    for api in definitions(csv, "apiservicedefinitions", "owned") {
        out.insert(api_service_key(&api));
    }
    out
}

/// The APIs the CSV requires: its required CRDs (`plural.group` names) and API services.
pub fn required(csv: &Value) -> Result<BTreeSet<ApiKey>, String> {
    let mut out = BTreeSet::new();
    for crd in definitions(csv, "customresourcedefinitions", "required") {
        out.insert(crd_key(&crd)?);
    }
    for api in definitions(csv, "apiservicedefinitions", "required") {
        out.insert(api_service_key(&api));
    }
    Ok(out)
}

/// opm's `AllProvidedAPIsInBundle`: every owned CRD of the CSV is provided.
pub fn check_owned(csv: &Value, provided: &BTreeSet<ApiKey>) -> Result<(), String> {
    let mut wanted = BTreeSet::new();
    for crd in definitions(csv, "customresourcedefinitions", "owned") {
        wanted.insert(crd_key(&crd)?);
    }
    match wanted.iter().find(|key| !provided.contains(key)) {
        None => Ok(()),
        Some(key) => {
            let found: Vec<String> = provided.iter().map(|k| format!("{k}:{{}}")).collect();
            Err(format!(
                "couldn't find {key} in bundle. found: map[{}]",
                found.join(" ")
            ))
        }
    }
}

fn definitions(csv: &Value, section: &str, which: &str) -> Vec<Value> {
    match path(csv, &["spec", section]).and_then(|s| s.get(which)) {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    }
}

fn crd_key(crd: &Value) -> Result<ApiKey, String> {
    let o = GoObject::of(crd);
    let name = text(o, "name");
    let Some((plural, group)) = name.split_once('.') else {
        return Err(format!("couldn't parse plural.group from crd name: {name}"));
    };
    Ok(ApiKey {
        group: group.to_string(),
        version: text(o, "version"),
        kind: text(o, "kind"),
        plural: plural.to_string(),
    })
}

fn api_service_key(api: &Value) -> ApiKey {
    let o = GoObject::of(api);
    ApiKey {
        group: text(o, "group"),
        version: text(o, "version"),
        kind: text(o, "kind"),
        plural: text(o, "name"),
    }
}

/// opm's `getRelatedImages`: the CSV's `spec.relatedImages`, then the bundle image
/// (unless empty or listed), then every container and init container image of the
/// CSV's deployments (unless listed). Not yet sorted.
pub fn related_images(csv: &Value, bundle_image: &str) -> Result<Vec<RelatedImage>, String> {
    let mut out = Vec::new();
    let spec = path(csv, &["spec"]);
    match spec.and_then(|s| s.get("relatedImages")) {
        None => {}
        Some(Value::Array(items)) => {
            for item in items {
                let o = match item {
                    Value::Object(_) | Value::Null => GoObject::of(item),
                    other => {
                        return Err(format!(
                            "json: cannot unmarshal {} into Go value of type declcfg.RelatedImage",
                            kind(other)
                        ));
                    }
                };
                out.push(RelatedImage {
                    name: string_field(o, "RelatedImage", "name")?,
                    image: string_field(o, "RelatedImage", "image")?,
                });
            }
        }
        Some(other) => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type []declcfg.RelatedImage",
                kind(other)
            ));
        }
    }
    let mut seen: BTreeSet<String> = out.iter().map(|r| r.image.clone()).collect();
    if !bundle_image.is_empty() && !seen.contains(bundle_image) {
        out.push(RelatedImage {
            name: String::new(),
            image: bundle_image.to_string(),
        });
    }
    for image in operator_images(csv) {
        if seen.insert(image.clone()) {
            out.push(RelatedImage {
                name: String::new(),
                image,
            });
        }
    }
    Ok(out)
}

fn string_field(o: Option<GoObject<'_>>, owner: &str, field: &str) -> Result<String, String> {
    match o.and_then(|o| o.get(field)) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(mismatch(other, owner, field, "string")),
    }
}

/// The images of the CSV's deployment install strategy, in order of appearance.
fn operator_images(csv: &Value) -> Vec<String> {
    let install = path(csv, &["spec", "install"]);
    if text(install, "strategy") != "deployment" {
        return Vec::new();
    }
    let mut out = Vec::new();
    let deployments = path(csv, &["spec", "install", "spec"]).and_then(|s| s.get("deployments"));
    for deployment in deployments.and_then(Value::as_array).into_iter().flatten() {
        let pod = path(deployment, &["spec", "template", "spec"]);
        for list in ["containers", "initContainers"] {
            for container in pod
                .and_then(|p| p.get(list))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.push(text(GoObject::of(container), "image"));
            }
        }
    }
    out
}
