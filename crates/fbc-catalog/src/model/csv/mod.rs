//! ClusterServiceVersion synthesis for bundles that carry `olm.csv.metadata`
//! instead of an embedded CSV.
//!
//! In: the bundle, its package and its `olm.csv.metadata` value. Out: the CSV JSON
//! that the reference writes (Go `encoding/json` of an operators.coreos.com/v1alpha1
//! ClusterServiceVersion): fields in Go struct order, `omitempty` honoured, maps
//! sorted, `<`, `>`, `&` escaped, a stub `deployment` install strategy so OLM's
//! packageserver can read it, the package icon, and the package description when
//! the metadata has none. Unknown metadata keys are dropped. Metadata field names
//! are matched exactly (the reference also accepts other letter cases). The Go
//! structs being filled in are in [`go_types`]; this module writes them.

use crate::arena::Arena;
use crate::model::Package;
use crate::source::json::{Html, write_string};
use base64::Engine;
use bytes::Bytes;
use serde::Serialize;
use std::collections::BTreeMap;

mod go_types;
pub use go_types::CsvMetadata;
use go_types::{Cleanup, Icon, Install, InstallSpec, RelatedImage, SpecHead, SpecMiddle, SpecTail};

/// A bundle's CSV, synthesised from its `olm.csv.metadata` when the bundle is
/// decoded, minus the parts its package supplies ([`PackageParts`]): the package
/// may be read later, and its parts are the same for all its bundles.
/// [`CsvPieces::chunks`] puts the two together; the CSV is their concatenation.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvPieces {
    /// From the start up to and including `spec.displayName`.
    head: Bytes,
    /// `,"description":…` when the metadata has a description of its own.
    description: Option<Bytes>,
    /// `keywords` up to and including `links`.
    middle: Bytes,
    /// `installModes` to the end.
    tail: Bytes,
}

/// What a package contributes to the CSVs synthesised for its bundles.
#[derive(Clone, Debug, PartialEq)]
pub struct PackageParts {
    /// `,"description":…`, or empty when the package has no description.
    description: Bytes,
    /// `,"icon":[…]`, or empty when the package has no icon.
    icon: Bytes,
}

impl PackageParts {
    /// The parts of `package`.
    pub fn new(package: &Package) -> Result<PackageParts, String> {
        let description = Self::description(package);
        let icon: Vec<Icon> = package
            .icon
            .iter()
            .map(|i| Icon {
                base64data: base64::engine::general_purpose::STANDARD.encode(&i.data),
                mediatype: i.media_type.clone(),
            })
            .collect();
        let icon = if icon.is_empty() {
            Bytes::new()
        } else {
            format!(",\"icon\":{}", json(&icon)?).into()
        };
        Ok(PackageParts { description, icon })
    }

    /// The parts of `package` without its icon: for readers of the CSV's text
    /// (the catalog browser), which would otherwise base64-encode every icon.
    pub fn without_icon(package: &Package) -> PackageParts {
        PackageParts {
            description: Self::description(package),
            icon: Bytes::new(),
        }
    }

    fn description(package: &Package) -> Bytes {
        if package.description.is_empty() {
            Bytes::new()
        } else {
            description_field(&package.description).into()
        }
    }
}

/// The JSON text of `bundle`'s CSV: its `olm.bundle.object` CSV, or the one
/// synthesised from `olm.csv.metadata` (without the package icon, which no reader
/// of the text needs); `None` when it has neither.
pub fn csv_json(package: &Package, bundle: &crate::model::Bundle) -> Option<Vec<u8>> {
    match (bundle.csv_object, &bundle.csv_pieces) {
        (Some(i), _) => bundle.objects.get(i).map(|o| o.to_vec()),
        (None, Some(pieces)) => Some(pieces.chunks(&PackageParts::without_icon(package)).concat()),
        (None, None) => None,
    }
}

/// Writes `metadata` as Go does (annotations, `alm-examples` above all, are most
/// of a CSV's text: written with the fast string writer, not through serde).
fn write_metadata(
    out: &mut String,
    name: &str,
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
) {
    out.push_str("{\"name\":");
    write_string(out, name, Html::Escape);
    for (key, map) in [("labels", labels), ("annotations", annotations)] {
        if map.is_empty() {
            continue;
        }
        out.push_str(",\"");
        out.push_str(key);
        out.push_str("\":{");
        for (i, (k, v)) in map.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(out, k, Html::Escape);
            out.push(':');
            write_string(out, v, Html::Escape);
        }
        out.push('}');
    }
    out.push('}');
}

/// `,"description":"…"`, the field a CSV's description is written as (the
/// metadata's own, or its package's).
fn description_field(description: &str) -> String {
    let mut text = String::from(",\"description\":");
    write_string(&mut text, description, Html::Escape);
    text
}

/// Go-compatible JSON text of `value` (see [`go_html_escape`]).
fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    serde_json::to_string(value)
        .map(go_html_escape)
        .map_err(|e| format!("encode synthesised CSV: {e}"))
}

/// The `olm.csv.metadata` value `opm render` derives from a ClusterServiceVersion
/// object (Go's `property.MustBuildCSVMetadata`, then `json.Marshal`): the CSV's
/// metadata annotations and labels and the listed `spec` fields, in Go's field order. The error says which field does not have Go's type (opm
/// then keeps the CSV as an `olm.bundle.object`).
pub fn csv_metadata_value(csv: &serde_json::Value) -> Result<String, String> {
    use serde_json::Value;
    let empty = serde_json::Map::new();
    let section = |name: &str| csv.get(name).and_then(Value::as_object).unwrap_or(&empty);
    let (meta, spec) = (section("metadata"), section("spec"));
    let mut fields = serde_json::Map::new();
    let mut copy = |from: &serde_json::Map<String, Value>, key: &str, to: &str| {
        if let Some(v) = from.get(key).filter(|v| !v.is_null()) {
            fields.insert(to.to_string(), v.clone());
        }
    };
    copy(meta, "annotations", "annotations");
    copy(meta, "labels", "labels");
    copy(spec, "apiservicedefinitions", "apiServiceDefinitions");
    copy(spec, "customresourcedefinitions", "crdDescriptions");
    for key in [
        "description",
        "displayName",
        "installModes",
        "keywords",
        "links",
        "maintainers",
        "maturity",
        "minKubeVersion",
        "nativeAPIs",
        "provider",
    ] {
        copy(spec, key, key);
    }
    let metadata = CsvMetadata::from_value(Value::Object(fields))?;
    // opm's property.Build: an encoder that leaves HTML characters alone but, as every
    // Go encoder, escapes U+2028 and U+2029.
    serde_json::to_string(&go_types::CsvMetadataOut::from(metadata))
        .map(|text| {
            text.replace('\u{2028}', "\\u2028")
                .replace('\u{2029}', "\\u2029")
        })
        .map_err(|e| format!("encode olm.csv.metadata: {e}"))
}

/// The fields of a JSON object's text, without the braces.
fn fields_of(object: &str) -> &str {
    object
        .strip_prefix('{')
        .and_then(|o| o.strip_suffix('}'))
        .unwrap_or(object)
}

impl CsvPieces {
    /// Pieces read back from an index cache (see [`CsvPieces::parts`]).
    pub fn from_parts(head: Bytes, description: Option<Bytes>, middle: Bytes, tail: Bytes) -> Self {
        CsvPieces {
            head,
            description,
            middle,
            tail,
        }
    }

    /// The pieces: head, own description, middle, tail.
    pub fn parts(&self) -> (&Bytes, Option<&Bytes>, &Bytes, &Bytes) {
        (
            &self.head,
            self.description.as_ref(),
            &self.middle,
            &self.tail,
        )
    }

    /// Synthesises the CSV of bundle `name` (see the module docs). Pieces are
    /// written into `arena`.
    pub fn synthesize(
        name: &str,
        version: &semver::Version,
        related_images: &[crate::model::RelatedImage],
        m: CsvMetadata,
        arena: &mut Arena,
    ) -> Result<CsvPieces, String> {
        let spec_head = SpecHead {
            install: Install {
                strategy: "deployment",
                spec: InstallSpec { deployments: None },
            },
            version: version.to_string(),
            maturity: m.maturity.unwrap_or_default(),
            customresourcedefinitions: m.crd_descriptions.unwrap_or_default(),
            apiservicedefinitions: m.api_service_definitions.unwrap_or_default(),
            native_apis: m.native_apis.unwrap_or_default(),
            min_kube_version: m.min_kube_version.unwrap_or_default(),
            display_name: m.display_name.unwrap_or_default(),
        };
        let middle = SpecMiddle {
            keywords: m.keywords.unwrap_or_default(),
            maintainers: m.maintainers.unwrap_or_default(),
            provider: m.provider.unwrap_or_default(),
            links: m.links.unwrap_or_default(),
        };
        let tail = SpecTail {
            install_modes: m.install_modes.unwrap_or_default(),
            cleanup: Cleanup { enabled: false },
            related_images: related_images
                .iter()
                .map(|r| RelatedImage {
                    name: &r.name,
                    image: &r.image,
                })
                .collect(),
        };
        let mut head = String::from(
            "{\"kind\":\"ClusterServiceVersion\",\"apiVersion\":\"operators.coreos.com/v1alpha1\",\"metadata\":",
        );
        write_metadata(
            &mut head,
            name,
            &m.labels.unwrap_or_default(),
            &m.annotations.unwrap_or_default(),
        );
        head.push_str(",\"spec\":{");
        head.push_str(fields_of(&json(&spec_head)?));
        let description = m
            .description
            .filter(|d| !d.is_empty())
            .map(|d| arena.copy(description_field(&d).as_bytes()));
        let middle = format!(",{}", fields_of(&json(&middle)?));
        let tail = format!(
            ",{}}},\"status\":{{\"cleanup\":{{}}}}}}",
            fields_of(&json(&tail)?)
        );
        Ok(CsvPieces {
            head: arena.copy(head.as_bytes()),
            description,
            middle: arena.copy(middle.as_bytes()),
            tail: arena.copy(tail.as_bytes()),
        })
    }

    /// The CSV's text as chunks, with `package`'s parts filled in.
    pub fn chunks(&self, package: &PackageParts) -> [Bytes; 5] {
        [
            self.head.clone(),
            self.description
                .clone()
                .unwrap_or_else(|| package.description.clone()),
            self.middle.clone(),
            package.icon.clone(),
            self.tail.clone(),
        ]
    }
}

/// Applies Go's `json.Marshal` escaping to serde_json output: `<`, `>`, `&`,
/// U+2028 and U+2029 can only occur inside strings, so a plain replacement is exact.
fn go_html_escape(text: String) -> String {
    let bytes = text.as_bytes();
    // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
    let next_html =
        |from: usize| memchr::memchr3(b'<', b'>', b'&', &bytes[from..]).map(|i| i + from);
    let next_e2 = |from: usize| memchr::memchr(0xE2, &bytes[from..]).map(|i| i + from);
    let (mut html, mut e2) = (next_html(0), next_e2(0));
    if html.is_none() && e2.is_none() {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut copied = 0;
    loop {
        let at = match (html, e2) {
            (None, None) => break,
            (Some(h), Some(e)) => h.min(e),
            (Some(h), None) => h,
            (None, Some(e)) => e,
        };
        let (escape, len) = match &bytes[at..] {
            [b'<', ..] => ("\\u003c", 1),
            [b'>', ..] => ("\\u003e", 1),
            [b'&', ..] => ("\\u0026", 1),
            [0xE2, 0x80, 0xA8, ..] => ("\\u2028", 3),
            [0xE2, 0x80, 0xA9, ..] => ("\\u2029", 3),
            _ => ("", 0),
        };
        if len > 0 {
            out.push_str(&text[copied..at]);
            out.push_str(escape);
            copied = at + len;
        }
        let after = at + len.max(1);
        if html.is_some_and(|h| h < after) {
            html = next_html(after);
        }
        if e2.is_some_and(|e| e < after) {
            e2 = next_e2(after);
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::go_html_escape;
    use proptest::prelude::*;

    /// The obvious definition, one character at a time.
    fn escape_by_char(text: &str) -> String {
        let mut out = String::new();
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

    #[test]
    fn escapes_what_go_escapes() {
        assert_eq!(
            go_html_escape("a<b>&\u{2028}\u{2029}\u{2027}€".into()),
            "a\\u003cb\\u003e\\u0026\\u2028\\u2029\u{2027}€"
        );
        assert_eq!(go_html_escape("plain".into()), "plain");
    }

    proptest! {
        #[test]
        fn equals_the_character_by_character_definition(
            text in "[a<>&\u{2028}\u{2029}\u{2027}\u{20ac}\u{e000} ]{0,40}"
        ) {
            prop_assert_eq!(go_html_escape(text.clone()), escape_by_char(&text));
        }
    }
}
