//! One bundle's shared reply fields, encoded once for all its copies.
//!
//! In: a bundle, its package and the package's CSV parts. Out: a [`BundleBody`]:
//! the core fields encoded, and `csvJson` and `object` as chunk lists in which the
//! CSV's payload is shared by both fields.

use super::to_api::{api_gvk, deprecation, encode};
use super::*;

/// Encodes a bundle's shared reply fields; returns the body and its full reply size.
pub(super) fn bundle_body(
    arena: &mut Arena,
    package: &model::Package,
    package_parts: &Result<csv::PackageParts, String>,
    bundle: &model::Bundle,
) -> Result<(BundleBody, usize), String> {
    // Each manifest is a list of chunks; the CSV's are shared by csvJson and its object entry.
    let mut objects: Vec<Vec<Bytes>> = bundle.objects.iter().map(|o| vec![o.clone()]).collect();
    let csv: Option<Vec<Bytes>> = match (bundle.csv_object, &bundle.csv_pieces) {
        (Some(i), _) => objects.get(i).cloned(),
        (None, Some(pieces)) => {
            let package_parts = package_parts.as_ref().map_err(Clone::clone)?;
            let csv = pieces.chunks(package_parts).to_vec();
            if objects.is_empty() {
                objects.push(csv.clone());
            }
            Some(csv)
        }
        (None, None) => None,
    };
    let dependencies = dependencies(bundle);
    let core = api::Bundle {
        csv_name: bundle.name.clone(),
        package_name: package.name.clone(),
        bundle_path: bundle.image.clone(),
        provided_apis: bundle.provided_gvks().map(api_gvk).collect(),
        required_apis: bundle.required_gvks().map(api_gvk).collect(),
        version: bundle.version_text.clone(),
        dependencies,
        properties: bundle
            .properties
            .iter()
            .filter(|p| {
                p.typ != model::property::types::BUNDLE_OBJECT
                    && p.typ != model::property::types::CSV_METADATA
            })
            .map(|p| api::Property {
                r#type: p.typ.clone(),
                value: p.value_json.clone(),
            })
            .collect(),
        deprecation: deprecation(&bundle.deprecation),
        ..Default::default()
    };
    let mut chunks: Vec<Bytes> = Vec::with_capacity(2 * objects.len() + 2);
    let mut push_field = |tag: u32, payload: &[Bytes]| {
        let len: usize = payload.iter().map(Bytes::len).sum();
        let mut head = Vec::with_capacity(16);
        prost::encoding::encode_key(tag, prost::encoding::WireType::LengthDelimited, &mut head);
        prost::encoding::encode_varint(len as u64, &mut head);
        chunks.push(arena.copy(&head));
        chunks.extend(payload.iter().filter(|c| !c.is_empty()).cloned());
    };
    if let Some(csv) = csv.as_ref().filter(|c| c.iter().any(|c| !c.is_empty())) {
        push_field(4, csv);
    }
    for object in &objects {
        push_field(5, object);
    }
    let core = encode(&core);
    let manifests: Arc<[Bytes]> = chunks.into();
    let manifest_len: usize = manifests.iter().map(Bytes::len).sum();
    let full = core.len() + manifest_len + bundle.name.len() + 64;
    Ok((
        BundleBody {
            core,
            manifests,
            has_image: !bundle.image.is_empty(),
            version: bundle.version.clone(),
        },
        full,
    ))
}

/// The reference's `dependencies`: one per `olm.gvk.required` (its value as is)
/// and `olm.package.required` (re-keyed `{packageName, version}`), in property order.
fn dependencies(bundle: &model::Bundle) -> Vec<api::Dependency> {
    let mut dependencies = Vec::new();
    for p in &bundle.properties {
        match &p.parsed {
            model::property::Parsed::GvkRequired(_) => dependencies.push(api::Dependency {
                r#type: "olm.gvk".into(),
                value: p.value_json.clone(),
            }),
            model::property::Parsed::PackageRequired(r) => {
                let mut value = String::from("{\"packageName\":");
                fbc_catalog::source::json::write_string(
                    &mut value,
                    &r.package_name,
                    fbc_catalog::source::json::Html::Literal,
                );
                value.push_str(",\"version\":");
                fbc_catalog::source::json::write_string(
                    &mut value,
                    &r.version_range,
                    fbc_catalog::source::json::Html::Literal,
                );
                value.push('}');
                dependencies.push(api::Dependency {
                    r#type: "olm.package".into(),
                    value,
                });
            }
            _ => {}
        }
    }
    dependencies
}
