//! The layers import one way: source → model/validate → tables → views →
//! services → app → cli. This test reads every source file of both crates, finds
//! the modules each one names (`crate::x`, `fbc_catalog::x`, `super::x` at the
//! top level of a module), and fails on any reference to a module that is not
//! strictly below it in [`LAYERS`] — an upward import, or a cycle. Test files are
//! left out (a test of a low layer may drive a higher one).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every top-level module of the two crates, lowest first. A module may use only
/// modules listed before it.
const LAYERS: &[&str] = &[
    // fbc-catalog, the library
    "parallel",
    "arena",
    "version_range",
    "source",
    "diagnostic",
    "model",
    "tables",
    "graph",
    "resolve",
    "load",
    "catalogd",
    // fbc-registry, the server
    "api",
    "index",
    "http_view",
    "graphql",
    "browser",
    "catalog",
    "snapshot",
    "metrics",
    "tls",
    "cache",
    "deadline",
    "service",
    "server",
    "http",
    "reload",
    "app",
    "cli",
    "main",
];

/// The library's modules: the server crate names them as `fbc_catalog::x`.
const LIBRARY: &[&str] = &[
    "parallel",
    "arena",
    "version_range",
    "source",
    "diagnostic",
    "model",
    "tables",
    "graph",
    "resolve",
    "load",
    "catalogd",
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|m| *m == module)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/index/persist.rs` → `index`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The top-level modules `text` names through `prefix` (`crate::`, `fbc_catalog::`),
/// ignoring lines that are comments.
fn referenced(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            let after = &rest[at + prefix.len()..];
            rest = after;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // part of a longer identifier
            }
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
        // `use crate::{a, b}` groups
        if let Some(group) = code
            .strip_prefix("use ")
            .or_else(|| code.strip_prefix("pub use "))
            .and_then(|u| u.strip_prefix(prefix))
            .and_then(|u| u.strip_prefix('{'))
        {
            for part in group.split([',', '}', ';']) {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    found.insert(name);
                }
            }
        }
    }
    found
}

/// Every violation in one crate: (file, its module, the module it names).
fn violations(src: &Path, library: bool) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files.iter().filter(|f| !is_test_file(f)) {
        let Some(module) = module_of(src, file) else {
            continue;
        };
        if module == "lib" {
            continue;
        }
        let Some(own) = rank(&module) else {
            out.push(format!(
                "{}: module {module} is not in LAYERS",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        let mut names = referenced(text, "crate::");
        if !library {
            names.extend(
                referenced(text, "fbc_catalog::")
                    .into_iter()
                    .filter(|n| LIBRARY.contains(&n.as_str())),
            );
        }
        for name in names {
            let Some(other) = rank(&name) else {
                continue; // an item of lib.rs (the generated `api`, constants)
            };
            if other >= own && name != module {
                out.push(format!(
                    "{}: `{module}` uses `{name}`, which is not below it",
                    file.display()
                ));
            }
        }
    }
    out
}

#[test]
fn every_import_goes_down_the_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = violations(&root.join("crates/fbc-catalog/src"), true);
    found.extend(violations(&root.join("src"), false));
    assert!(
        found.is_empty(),
        "upward or circular imports:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_library_names_no_server_module_and_no_network_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/fbc-catalog");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("manifest");
    let dependencies = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|d| d.split("[dev-dependencies]").next())
        .unwrap_or_default();
    for banned in ["tokio", "tonic", "hyper", "prost", "h2", "tower", "axum"] {
        assert!(
            !dependencies
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{banned} "))
                    || l.trim_start().starts_with(&format!("{banned}="))),
            "the library depends on {banned}"
        );
    }
}

#[test]
fn the_check_catches_an_upward_import() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = dir.path();
    std::fs::create_dir_all(src.join("index")).expect("mkdir");
    std::fs::write(
        src.join("index/mod.rs"),
        "use crate::service::wire::Reply;\n",
    )
    .expect("write");
    std::fs::write(src.join("service.rs"), "use crate::{index, snapshot};\n").expect("write");
    let found = violations(src, false);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`index` uses `service`"), "{found:?}");
}
