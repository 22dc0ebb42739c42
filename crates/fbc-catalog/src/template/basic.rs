//! `olm.template.basic`: hand-written channels, bundles given by image.
//!
//! In: `{schema: olm.template.basic, entries: [FBC blobs…]}` (YAML or JSON). Out: the
//! entries as a catalog, each `olm.bundle` entry that has only `schema` and `image`
//! replaced by the bundle rendered from its image; every other blob as it is. A bundle
//! entry with a package, properties or related images is opm's error
//! `unexpected fields present in basic template bundle`.

use super::{Bundles, first_document};
use crate::render::declcfg::{DeclarativeConfig, GoObject};
use crate::source::Blob;

/// The bundle images a basic template names, in order.
pub fn images(text: &str) -> Result<Vec<String>, String> {
    Ok(entries(text)?
        .bundles
        .into_iter()
        .map(|b| b.image)
        .collect())
}

fn entries(text: &str) -> Result<DeclarativeConfig, String> {
    let document = first_document(text)?;
    let object = GoObject::of(&document).ok_or("a template must be an object")?;
    let schema = object.string("Template", "schema")?;
    if schema != "olm.template.basic" {
        return Err(format!(
            "template has unknown schema ({schema:?}), should be \"olm.template.basic\""
        ));
    }
    let items = object
        .array("Template", "entries", "declcfg.Meta")?
        .cloned()
        .unwrap_or_default();
    let blobs: Vec<Blob> = items
        .into_iter()
        .enumerate()
        .map(|(i, v)| super::entry_blob(i, v))
        .collect();
    DeclarativeConfig::from_blobs(&blobs)
}

/// Builds the catalog a basic template describes.
pub fn build(text: &str, bundles: &mut dyn Bundles) -> Result<DeclarativeConfig, String> {
    let mut config = entries(text)?;
    let mut out = Vec::with_capacity(config.bundles.len());
    for entry in std::mem::take(&mut config.bundles) {
        let only_image = !entry.schema.is_empty()
            && !entry.image.is_empty()
            && entry.package.is_empty()
            && entry.properties.is_empty()
            && entry.related_images.is_empty();
        if !only_image {
            return Err("unexpected fields present in basic template bundle".into());
        }
        out.extend(bundles.render(&entry.image)?);
    }
    config.bundles = out;
    Ok(config)
}
