//! `filter --images FILE`: every image the filtered catalog references.
//!
//! In: the output's tables. Out: a file listing each bundle image and related
//! image once, sorted: one reference per line (a plain list `skopeo`, `oc image
//! mirror` loops and `xargs` take; references not pinned by digest are named on
//! stderr), or, when FILE ends in `.json`, an array of `{"image", "pinned",
//! "kinds", "bundles"}` objects for tools that want the flags in the data.

use fbc_catalog::tables::Tables;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One referenced image.
#[derive(Debug, Default, Serialize)]
struct ImageUse {
    image: String,
    /// Pinned by digest (`@sha256:…`).
    pinned: bool,
    /// `bundle`, `related`, or both, sorted.
    kinds: BTreeSet<&'static str>,
    /// `package/bundle` of each bundle that references it, sorted.
    bundles: BTreeSet<String>,
}

/// Whether `reference` names its image by digest.
pub fn pinned(reference: &str) -> bool {
    reference
        .split_once('@')
        .is_some_and(|(_, digest)| digest.contains(':'))
}

/// The images of `tables`, by reference.
fn images(tables: &Tables) -> Vec<ImageUse> {
    let mut by_ref: BTreeMap<String, ImageUse> = BTreeMap::new();
    let mut add = |image: &str, kind: &'static str, bundle: String| {
        if image.is_empty() {
            return;
        }
        let entry = by_ref.entry(image.to_string()).or_default();
        entry.kinds.insert(kind);
        entry.bundles.insert(bundle);
    };
    for p in tables.packages() {
        for b in &p.bundles {
            let name = format!("{}/{}", p.name, b.name);
            add(&b.image, "bundle", name.clone());
            for r in &b.related_images {
                add(&r.image, "related", name.clone());
            }
        }
    }
    by_ref
        .into_iter()
        .map(|(image, mut u)| {
            u.pinned = pinned(&image);
            u.image = image;
            u
        })
        .collect()
}

/// Writes the list to `path` (see the module docs).
pub fn write(path: &Path, tables: &Tables) -> Result<(), String> {
    let list = images(tables);
    for u in list.iter().filter(|u| !u.pinned) {
        let first = u
            .bundles
            .iter()
            .next()
            .map(String::as_str)
            .unwrap_or_default();
        eprintln!(
            "warning: image {} (of {first}) is not pinned by digest",
            u.image
        );
    }
    let text = if path.extension().is_some_and(|e| e == "json") {
        let mut json = serde_json::to_vec_pretty(&list).map_err(|e| e.to_string())?;
        json.push(b'\n');
        json
    } else {
        list.iter()
            .flat_map(|u| format!("{}\n", u.image).into_bytes())
            .collect()
    };
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::pinned;

    #[test]
    fn only_a_digest_pins_an_image() {
        assert!(pinned("quay.io/a/b@sha256:0123"));
        assert!(pinned("quay.io/a/b:v1@sha256:0123"));
        assert!(!pinned("quay.io/a/b:v1"));
        assert!(!pinned("localhost:5000/a/b"));
    }
}
