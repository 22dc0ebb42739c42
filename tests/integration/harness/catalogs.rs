//! Catalogs generated for tests that need size rather than content.

use std::path::Path;

/// A catalog of `bundles` image-less bundles whose ListBundles messages carry about
/// `pad` bytes of manifest each.
pub fn big_catalog(dir: &Path, bundles: usize, pad: usize) {
    use base64::Engine as _;
    let mut docs = vec![
        serde_json::json!({"schema": "olm.package", "name": "big", "defaultChannel": "stable"}),
    ];
    let entries: Vec<_> = (0..bundles)
        .map(|i| match i {
            0 => serde_json::json!({"name": "big.v0.0.0"}),
            _ => serde_json::json!({"name": format!("big.v0.0.{i}"), "replaces": format!("big.v0.0.{}", i - 1)}),
        })
        .collect();
    docs.push(serde_json::json!({"schema": "olm.channel", "name": "stable", "package": "big", "entries": entries}));
    for i in 0..bundles {
        let object = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("pad-{i}")}, "data": {"pad": "x".repeat(pad)}});
        let data = base64::engine::general_purpose::STANDARD.encode(object.to_string());
        docs.push(serde_json::json!({"schema": "olm.bundle", "name": format!("big.v0.0.{i}"),
            "package": "big", "image": "", "properties": [
                {"type": "olm.package", "value": {"packageName": "big", "version": format!("0.0.{i}")}},
                {"type": "olm.bundle.object", "value": {"data": data}}]}));
    }
    let text: Vec<String> = docs.iter().map(|d| d.to_string()).collect();
    std::fs::write(dir.join("catalog.json"), text.join("\n")).expect("write catalog");
}
