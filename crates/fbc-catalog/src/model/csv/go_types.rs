//! The Go types of a ClusterServiceVersion that synthesis fills in: serde
//! mirrors of operators.coreos.com/v1alpha1's structs, in Go's field order, with
//! Go's `omitempty` rules.
//!
//! In: an `olm.csv.metadata` value ([`CsvMetadata::from_value`]). Out: the
//! values the parent module writes as JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

pub(super) fn is_empty_str(s: &str) -> bool {
    s.is_empty()
}

pub(super) fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// `olm.csv.metadata` as `opm render` writes it (Go's `property.CSVMetadata`): the
/// three struct-typed fields are always written, the others only when not empty.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CsvMetadataOut {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) annotations: BTreeMap<String, String>,
    pub(super) api_service_definitions: ApiServiceDefinitions,
    #[serde(rename = "crdDescriptions")]
    pub(super) crd_descriptions: CrdDefinitions,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) description: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) display_name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) install_modes: Vec<InstallMode>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) keywords: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) links: Vec<AppLink>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) maintainers: Vec<Maintainer>,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) maturity: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) min_kube_version: String,
    #[serde(rename = "nativeAPIs", skip_serializing_if = "Vec::is_empty")]
    pub(super) native_apis: Vec<GroupVersionKind>,
    pub(super) provider: AppLink,
}

impl From<CsvMetadata> for CsvMetadataOut {
    fn from(m: CsvMetadata) -> Self {
        CsvMetadataOut {
            annotations: m.annotations.unwrap_or_default(),
            api_service_definitions: m.api_service_definitions.unwrap_or_default(),
            crd_descriptions: m.crd_descriptions.unwrap_or_default(),
            description: m.description.unwrap_or_default(),
            display_name: m.display_name.unwrap_or_default(),
            install_modes: m.install_modes.unwrap_or_default(),
            keywords: m.keywords.unwrap_or_default(),
            labels: m.labels.unwrap_or_default(),
            links: m.links.unwrap_or_default(),
            maintainers: m.maintainers.unwrap_or_default(),
            maturity: m.maturity.unwrap_or_default(),
            min_kube_version: m.min_kube_version.unwrap_or_default(),
            native_apis: m.native_apis.unwrap_or_default(),
            provider: m.provider.unwrap_or_default(),
        }
    }
}

/// `olm.csv.metadata` as the reference reads it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CsvMetadata {
    pub(super) annotations: Option<BTreeMap<String, String>>,
    pub(super) api_service_definitions: Option<ApiServiceDefinitions>,
    #[serde(rename = "crdDescriptions")]
    pub(super) crd_descriptions: Option<CrdDefinitions>,
    pub(super) description: Option<String>,
    pub(super) display_name: Option<String>,
    pub(super) install_modes: Option<Vec<InstallMode>>,
    pub(super) keywords: Option<Vec<String>>,
    pub(super) labels: Option<BTreeMap<String, String>>,
    pub(super) links: Option<Vec<AppLink>>,
    pub(super) maintainers: Option<Vec<Maintainer>>,
    pub(super) maturity: Option<String>,
    pub(super) min_kube_version: Option<String>,
    #[serde(rename = "nativeAPIs")]
    pub(super) native_apis: Option<Vec<GroupVersionKind>>,
    pub(super) provider: Option<AppLink>,
}

impl CsvMetadata {
    /// Decodes a metadata value, moving its strings; the error names the offending field.
    pub fn from_value(value: Value) -> Result<Self, String> {
        Self::deserialize(value).map_err(|e| format!("invalid olm.csv.metadata: {e}"))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(super) struct CrdDefinitions {
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) owned: Vec<CrdDescription>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) required: Vec<CrdDescription>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(super) struct ApiServiceDefinitions {
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) owned: Vec<ApiServiceDescription>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) required: Vec<ApiServiceDescription>,
}

pub(super) fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CrdDescription {
    #[serde(default, deserialize_with = "nullable")]
    pub(super) name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) version: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) kind: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) display_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) description: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) resources: Vec<ApiResourceReference>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) status_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) spec_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) action_descriptors: Vec<Descriptor>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ApiServiceDescription {
    #[serde(default, deserialize_with = "nullable")]
    pub(super) name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) group: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) version: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) kind: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) deployment_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "nullable"
    )]
    pub(super) container_port: i32,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) display_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) description: String,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) resources: Vec<ApiResourceReference>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) status_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) spec_descriptors: Vec<Descriptor>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) action_descriptors: Vec<Descriptor>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(super) struct ApiResourceReference {
    #[serde(default, deserialize_with = "nullable")]
    pub(super) name: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) kind: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) version: String,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Descriptor {
    #[serde(default, deserialize_with = "nullable")]
    pub(super) path: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) display_name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) description: String,
    #[serde(
        rename = "x-descriptors",
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub(super) x_descriptors: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "go_raw"
    )]
    pub(super) value: Option<Value>,
}

/// `json.RawMessage`: written as the normalised JSON text of the value.
pub(super) fn go_raw<S: serde::Serializer>(value: &Option<Value>, s: S) -> Result<S::Ok, S::Error> {
    let text = crate::source::json::normalized(value.as_ref().unwrap_or(&Value::Null));
    let raw = RawValue::from_string(text).map_err(serde::ser::Error::custom)?;
    raw.serialize(s)
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(super) struct InstallMode {
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub(super) typ: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) supported: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(super) struct AppLink {
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) url: String,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(super) struct Maintainer {
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) name: String,
    #[serde(
        default,
        skip_serializing_if = "is_empty_str",
        deserialize_with = "nullable"
    )]
    pub(super) email: String,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(super) struct GroupVersionKind {
    #[serde(default, deserialize_with = "nullable")]
    pub(super) group: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) version: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) kind: String,
}

#[derive(Serialize)]
pub(super) struct Install {
    pub(super) strategy: &'static str,
    pub(super) spec: InstallSpec,
}

#[derive(Serialize)]
pub(super) struct InstallSpec {
    pub(super) deployments: Option<()>,
}

#[derive(Serialize)]
pub(super) struct Icon {
    pub(super) base64data: String,
    pub(super) mediatype: String,
}

#[derive(Serialize)]
pub(super) struct RelatedImage<'a> {
    pub(super) name: &'a str,
    pub(super) image: &'a str,
}

#[derive(Serialize)]
pub(super) struct Cleanup {
    pub(super) enabled: bool,
}

/// `spec` up to `displayName`; then come the description (the metadata's or the
/// package's), [`SpecMiddle`], the package icon and [`SpecTail`].
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SpecHead {
    pub(super) install: Install,
    pub(super) version: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) maturity: String,
    pub(super) customresourcedefinitions: CrdDefinitions,
    pub(super) apiservicedefinitions: ApiServiceDefinitions,
    #[serde(rename = "nativeAPIs", skip_serializing_if = "Vec::is_empty")]
    pub(super) native_apis: Vec<GroupVersionKind>,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) min_kube_version: String,
    pub(super) display_name: String,
}

#[derive(Serialize)]
pub(super) struct SpecMiddle {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) keywords: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) maintainers: Vec<Maintainer>,
    pub(super) provider: AppLink,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) links: Vec<AppLink>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SpecTail<'a> {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) install_modes: Vec<InstallMode>,
    pub(super) cleanup: Cleanup,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) related_images: Vec<RelatedImage<'a>>,
}
