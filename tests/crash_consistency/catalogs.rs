//! The catalogs the crash tests serve: the shared catalog or a generated one of its size,
//! and the package a reload adds or removes.

use std::path::{Path, PathBuf};

/// The shared catalog the cache-write test uses when `FBC_SHARED_CATALOGS` is set: one
/// 2.1 MB JSON file whose index cache is 3.4 MB (a write of 15–40 ms here), and a cold start
/// short enough (0.3 s) for two hundred of them.
const SHARED: &str = "rhoai-3.5-v4.22";

/// The catalog of the cache-write and disk tests, in `dir/catalog`: the shared catalog when
/// `FBC_SHARED_CATALOGS` is set, else [`generated_catalog`]; and what it is.
pub fn base_catalog(dir: &Path) -> (PathBuf, String) {
    let root = dir.join("catalog");
    if let Some(shared) = std::env::var_os("FBC_SHARED_CATALOGS") {
        let source = PathBuf::from(shared).join(SHARED);
        if source.is_dir() {
            copy_tree(&source, &root);
            return (root, format!("shared catalog {SHARED}"));
        }
    }
    generated_catalog(dir)
}

/// A generated catalog in `dir/catalog` of about the shared one's size (2 MB of JSON, a
/// 2.2 MB index cache) that loads in a fraction of its time (40 files of plain JSON), so
/// the reload and image tests, whose runs each load it twice, keep within CI's budget;
/// and what it is.
pub fn generated_catalog(dir: &Path) -> (PathBuf, String) {
    let root = dir.join("catalog");
    generate(&root, 40, 10, 4_000);
    (
        root,
        "a generated catalog (40 packages × 10 bundles, 2 MB of JSON)".to_owned(),
    )
}

/// Copies the tree `from` into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let path = entry.expect("a directory entry").path();
        let target = to.join(path.file_name().expect("a file name"));
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target)
                .unwrap_or_else(|e| panic!("copy {}: {e}", path.display()));
        }
    }
}

/// A valid catalog of `packages` packages (`pkg-NNN/catalog.json`), each with one channel
/// of `bundles` bundles in a replaces chain, each bundle carrying a CSV description of
/// about `pad` bytes.
pub fn generate(root: &Path, packages: usize, bundles: usize, pad: usize) {
    for p in 0..packages {
        let name = format!("pkg-{p:03}");
        let dir = root.join(&name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("catalog.json"),
            package_json(&name, bundles, pad, p),
        )
        .expect("write a generated package");
    }
}

/// One package's file: package, channel `stable`, bundles.
pub fn package_json(name: &str, bundles: usize, pad: usize, salt: usize) -> String {
    use serde_json::json;
    let words = [
        "operator", "catalog", "cluster", "upgrade", "channel", "bundle", "replica", "storage",
    ];
    let mut docs = vec![json!({
        "schema": "olm.package",
        "name": name,
        "defaultChannel": "stable",
        "description": format!("{name}: a generated package"),
    })];
    let entries: Vec<_> = (0..bundles)
        .map(|b| {
            let mut entry = json!({ "name": format!("{name}.v{b}.0.0") });
            if b > 0 {
                entry["replaces"] = json!(format!("{name}.v{}.0.0", b - 1));
            }
            entry
        })
        .collect();
    docs.push(json!({
        "schema": "olm.channel", "package": name, "name": "stable", "entries": entries,
    }));
    for b in 0..bundles {
        let mut description = String::with_capacity(pad + 16);
        let mut i = salt * 31 + b * 7;
        while description.len() < pad {
            description.push_str(words[i % words.len()]);
            description.push(' ');
            i = i.wrapping_mul(17).wrapping_add(b + 3);
        }
        docs.push(json!({
            "schema": "olm.bundle",
            "package": name,
            "name": format!("{name}.v{b}.0.0"),
            "image": format!("quay.io/example/{name}-bundle:v{b}.0.0"),
            "properties": [
                {"type": "olm.package", "value": {"packageName": name, "version": format!("{b}.0.0")}},
                {"type": "olm.gvk", "value": {"group": format!("{name}.example.com"), "kind": "Widget", "version": "v1"}},
                {"type": "olm.csv.metadata", "value": {
                    "description": description,
                    "displayName": name,
                    "installModes": [{"type": "AllNamespaces", "supported": true}],
                    "provider": {"name": "Example Org"},
                }},
            ],
            "relatedImages": [{"name": "controller", "image": format!("quay.io/example/{name}:v{b}.0.0")}],
        }));
    }
    docs.iter()
        .map(|d| serde_json::to_string_pretty(d).expect("JSON"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// A change that alters every answer: one more package, in a file of its own.
pub const EXTRA: &str = "zz-extra/catalog.json";

/// Adds or removes [`EXTRA`] in `root` atomically (written beside the catalog, renamed
/// in), as an editor or a ConfigMap update does: the catalog on disk is always whole.
pub fn set_extra(root: &Path, present: bool) {
    let path = root.join(EXTRA);
    if present {
        let staged = root.with_file_name("extra.staged");
        std::fs::write(&staged, package_json("zz-extra", 3, 200, 7)).expect("stage the extra");
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::rename(&staged, &path).expect("rename the extra package in");
    } else {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("remove {}: {e}", path.display()),
        }
    }
}
