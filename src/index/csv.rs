//! ClusterServiceVersion synthesis for bundles that carry `olm.csv.metadata`
//! instead of an embedded CSV.
//!
//! In: the bundle, its package and its `olm.csv.metadata` value. Out: the CSV JSON
//! that the reference writes (Go `encoding/json` of an operators.coreos.com/v1alpha1
//! ClusterServiceVersion): fields in Go struct order, `omitempty` honoured, maps
//! sorted, `<`, `>`, `&` escaped, a stub `deployment` install strategy so OLM's
//! packageserver can read it, the package icon, and the package description when
//! the metadata has none. Unknown metadata keys are dropped. Metadata field names
//! are matched exactly (the reference also accepts other letter cases).

use crate::model::{Bundle, Package};
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

fn is_empty_str(s: &str) -> bool {
    s.is_empty()
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// `olm.csv.metadata` as the reference reads it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CsvMetadata {
    annotations: Option<BTreeMap<String, String>>,
    api_service_definitions: Option<ApiServiceDefinitions>,
    #[serde(rename = "crdDescriptions")]
    crd_descriptions: Option<CrdDefinitions>,
    description: Option<String>,
    display_name: Option<String>,
    install_modes: Option<Vec<InstallMode>>,
    keywords: Option<Vec<String>>,
    labels: Option<BTreeMap<String, String>>,
    links: Option<Vec<AppLink>>,
    maintainers: Option<Vec<Maintainer>>,
    maturity: Option<String>,
    min_kube_version: Option<String>,
    #[serde(rename = "nativeAPIs")]
    native_apis: Option<Vec<GroupVersionKind>>,
    provider: Option<AppLink>,
}

impl CsvMetadata {
    /// Decodes a metadata value; the error names the offending field.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        Self::deserialize(value).map_err(|e| format!("invalid olm.csv.metadata: {e}"))
    }
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct CrdDefinitions {
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    owned: Vec<CrdDescription>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    required: Vec<CrdDescription>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct ApiServiceDefinitions {
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    owned: Vec<ApiServiceDescription>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    required: Vec<ApiServiceDescription>,
}

fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct CrdDescription {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    #[serde(default, deserialize_with = "nullable")]
    version: String,
    #[serde(default, deserialize_with = "nullable")]
    kind: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    display_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    description: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    resources: Vec<ApiResourceReference>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    status_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    spec_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    action_descriptors: Vec<Descriptor>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiServiceDescription {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    #[serde(default, deserialize_with = "nullable")]
    group: String,
    #[serde(default, deserialize_with = "nullable")]
    version: String,
    #[serde(default, deserialize_with = "nullable")]
    kind: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    deployment_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "nullable"
    )]
    container_port: i32,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    display_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    description: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    resources: Vec<ApiResourceReference>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    status_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    spec_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    action_descriptors: Vec<Descriptor>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct ApiResourceReference {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    #[serde(default, deserialize_with = "nullable")]
    kind: String,
    #[serde(default, deserialize_with = "nullable")]
    version: String,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    #[serde(default, deserialize_with = "nullable")]
    path: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    display_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    description: String,
    #[serde(
        rename = "x-descriptors",
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    x_descriptors: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "go_raw"
    )]
    value: Option<Value>,
}

/// `json.RawMessage`: written as the normalised JSON text of the value.
fn go_raw<S: serde::Serializer>(value: &Option<Value>, s: S) -> Result<S::Ok, S::Error> {
    let text = crate::source::json::normalized(value.as_ref().unwrap_or(&Value::Null));
    let raw = RawValue::from_string(text).map_err(serde::ser::Error::custom)?;
    raw.serialize(s)
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct InstallMode {
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    typ: String,
    #[serde(default, deserialize_with = "nullable")]
    supported: bool,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct AppLink {
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    url: String,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct Maintainer {
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    email: String,
}

#[derive(Debug, Default, Deserialize, Serialize)]
struct GroupVersionKind {
    #[serde(default, deserialize_with = "nullable")]
    group: String,
    #[serde(default, deserialize_with = "nullable")]
    version: String,
    #[serde(default, deserialize_with = "nullable")]
    kind: String,
}

#[derive(Serialize)]
struct Csv<'a> {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    metadata: Metadata<'a>,
    spec: Spec<'a>,
    status: Status,
}

#[derive(Serialize)]
struct Metadata<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "map_is_empty")]
    labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "map_is_empty")]
    annotations: BTreeMap<String, String>,
}

fn map_is_empty(m: &BTreeMap<String, String>) -> bool {
    m.is_empty()
}

#[derive(Serialize)]
struct Install {
    strategy: &'static str,
    spec: InstallSpec,
}

#[derive(Serialize)]
struct InstallSpec {
    deployments: Option<()>,
}

#[derive(Serialize)]
struct Icon {
    base64data: String,
    mediatype: String,
}

#[derive(Serialize)]
struct RelatedImage<'a> {
    name: &'a str,
    image: &'a str,
}

#[derive(Serialize)]
struct Cleanup {
    enabled: bool,
}

#[derive(Serialize)]
struct Status {
    cleanup: Empty,
}

#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Spec<'a> {
    install: Install,
    version: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    maturity: String,
    customresourcedefinitions: CrdDefinitions,
    apiservicedefinitions: ApiServiceDefinitions,
    #[serde(rename = "nativeAPIs", skip_serializing_if = "Vec::is_empty")]
    native_apis: Vec<GroupVersionKind>,
    #[serde(skip_serializing_if = "str::is_empty")]
    min_kube_version: String,
    display_name: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    keywords: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    maintainers: Vec<Maintainer>,
    provider: AppLink,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    links: Vec<AppLink>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    icon: Vec<Icon>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    install_modes: Vec<InstallMode>,
    cleanup: Cleanup,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_images: Vec<RelatedImage<'a>>,
}

/// Builds the CSV JSON for `bundle` from its `olm.csv.metadata`.
pub fn synthesize(bundle: &Bundle, package: &Package, metadata: &Value) -> Result<String, String> {
    let m = CsvMetadata::from_value(metadata)?;
    let description = m
        .description
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| package.description.clone());
    let icon = package
        .icon
        .iter()
        .map(|i| Icon {
            base64data: base64::engine::general_purpose::STANDARD.encode(&i.data),
            mediatype: i.media_type.clone(),
        })
        .collect();
    let csv = Csv {
        kind: "ClusterServiceVersion",
        api_version: "operators.coreos.com/v1alpha1",
        metadata: Metadata {
            name: &bundle.name,
            labels: m.labels.unwrap_or_default(),
            annotations: m.annotations.unwrap_or_default(),
        },
        spec: Spec {
            install: Install {
                strategy: "deployment",
                spec: InstallSpec { deployments: None },
            },
            version: bundle.version.to_string(),
            maturity: m.maturity.unwrap_or_default(),
            customresourcedefinitions: m.crd_descriptions.unwrap_or_default(),
            apiservicedefinitions: m.api_service_definitions.unwrap_or_default(),
            native_apis: m.native_apis.unwrap_or_default(),
            min_kube_version: m.min_kube_version.unwrap_or_default(),
            display_name: m.display_name.unwrap_or_default(),
            description,
            keywords: m.keywords.unwrap_or_default(),
            maintainers: m.maintainers.unwrap_or_default(),
            provider: m.provider.unwrap_or_default(),
            links: m.links.unwrap_or_default(),
            icon,
            install_modes: m.install_modes.unwrap_or_default(),
            cleanup: Cleanup { enabled: false },
            related_images: bundle
                .related_images
                .iter()
                .map(|r| RelatedImage {
                    name: &r.name,
                    image: &r.image,
                })
                .collect(),
        },
        status: Status { cleanup: Empty {} },
    };
    let text = serde_json::to_string(&csv).map_err(|e| format!("encode synthesised CSV: {e}"))?;
    Ok(go_html_escape(&text))
}

/// Applies Go's `json.Marshal` escaping to serde_json output: `<`, `>`, `&`,
/// U+2028 and U+2029 can only occur inside strings, so a plain replacement is exact.
fn go_html_escape(text: &str) -> String {
    if !text.contains(['<', '>', '&', '\u{2028}', '\u{2029}']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}
