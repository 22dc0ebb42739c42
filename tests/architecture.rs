//! The structure holds: layers import one way, no module circle at any depth,
//! and the library's and the image crate's whole dependency trees have no network crate
//! (registry access is `fbc-pull`'s alone).
//!
//! The module tree of each crate is read as rustc would (`scan`): every
//! `mod` declaration followed, `#[path]` included, and every path a module's
//! code names (`use` trees, inline `crate::`/`super::`/`self::` paths)
//! resolved to the module it names. A reference between two modules counts
//! between the two siblings under their nearest common ancestor (a module
//! naming its own parent or child is not an edge):
//!
//! - under a crate root, siblings are the top-level modules, ranked in
//!   [`LAYERS`]: each may name only modules ranked below it;
//! - under any other module, its children may name each other, but never in a
//!   circle (`views::registry::body` → `views::registry::build` → `views::registry::body`).
//!
//! Test code (`#[cfg(test)]` modules and items) is held to the same rules and
//! reported apart, so a test that reaches up a layer is named as such.

#[path = "architecture/scan.rs"]
mod scan;

use scan::{Module, Reference};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every top-level module of the four crates, lowest first. A module may use only
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
    "filter",
    "diff",
    "cluster",
    "render",
    "template",
    "load",
    "catalogd",
    // fbc-image, catalog images (above the library, beside the server)
    "digest",
    "limits",
    "spec",
    "testing",
    "reference",
    "manifest",
    "unpack",
    "layout",
    "build",
    "store",
    // fbc-pull, the registry client (above fbc-image, beside the server)
    "credentials",
    "error",
    "connect",
    "retry",
    "pull",
    "push",
    // fbc-registry, the server
    "api",
    "fbc_v1",
    "metrics",
    "views",
    "snapshot",
    "fleet",
    "transport",
    "grpc",
    "http",
    "app",
    "cli",
    // the fuzz targets' entry points (feature `fuzzing`): above everything they reach
    "fuzzing",
    "main",
];

/// Crates the library may not depend on at any depth: it has no network code.
const NETWORK_CRATES: &[&str] = &[
    "tokio",
    "tonic",
    "hyper",
    "hyper-util",
    "h2",
    "prost",
    "tower",
    "axum",
    "mio",
    "socket2",
    "reqwest",
    "rustls",
    "tokio-rustls",
    "oci-client",
    "ureq",
    "curl",
];

/// What the rules found, test code apart.
#[derive(Debug, Default)]
struct Findings {
    code: Vec<String>,
    tests: Vec<String>,
}

/// Modules whose code may not name a runtime crate: the views are built once per
/// snapshot and serve any protocol, so they stay plain data and functions.
const RUNTIME_FREE: &[&str] = &["views"];

/// Crates a [`RUNTIME_FREE`] module's code may not name.
const RUNTIME_CRATES: &[&str] = &["tokio", "tonic", "hyper", "axum", "tower", "h2"];

/// A module edge between siblings, with the first place that makes it.
type Edges = BTreeMap<(String, String), (PathBuf, usize)>;

/// Every crate root of `src` (`lib.rs`, and `main.rs` as module `main`).
fn crate_modules(src: &Path) -> Vec<Module> {
    let mut all = scan::modules(&src.join("lib.rs"), Vec::new());
    if src.join("main.rs").is_file() {
        all.extend(scan::modules(&src.join("main.rs"), vec!["main".into()]));
    }
    all
}

/// Lines of non-test code in a [`RUNTIME_FREE`] module that name a runtime crate.
fn runtime_in_views(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for m in crate_modules(src) {
        let free = m
            .path
            .first()
            .is_some_and(|top| RUNTIME_FREE.contains(&top.as_str()));
        if !free || m.test || m.inline {
            continue;
        }
        let text = std::fs::read_to_string(&m.file).unwrap_or_default();
        // Test modules sit at a file's end; their runtime use is theirs.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            if let Some(name) = RUNTIME_CRATES
                .iter()
                .find(|c| line.contains(&format!("{c}::")) && !line.contains(&format!("_{c}::")))
            {
                found.push(format!(
                    "{}:{}: `{}` names `{name}`",
                    m.file.display(),
                    n + 1,
                    m.path.join("::")
                ));
            }
        }
    }
    found
}

/// The rules checked over the crate at `src` (see the module docs).
fn check(src: &Path) -> Findings {
    let modules = crate_modules(src);
    let known: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    // A file holds its inline modules too: it is read once, as its file's module.
    let refs: Vec<Reference> = modules
        .iter()
        .filter(|m| !m.inline)
        .flat_map(|m| scan::references(m, &known, &["fbc_registry"]))
        .collect();
    let mut found = Findings::default();
    let mut code: BTreeMap<Vec<String>, Edges> = BTreeMap::new();
    let mut all: BTreeMap<Vec<String>, Edges> = BTreeMap::new();
    for r in &refs {
        let common = r.from.iter().zip(&r.to).take_while(|(a, b)| a == b).count();
        if common == r.from.len() || common == r.to.len() {
            continue; // a module and its ancestor or descendant
        }
        let (a, b) = (r.from[common].clone(), r.to[common].clone());
        let parent = r.from[..common].to_vec();
        if parent.is_empty() {
            if let Some(problem) = layer_problem(&a, &b) {
                let text = format!("{}:{}: {problem}", r.file.display(), r.line);
                if r.test {
                    &mut found.tests
                } else {
                    &mut found.code
                }
                .push(text);
            }
            continue;
        }
        let place = (r.file.clone(), r.line);
        if !r.test {
            code.entry(parent.clone())
                .or_default()
                .entry((a.clone(), b.clone()))
                .or_insert(place.clone());
        }
        all.entry(parent)
            .or_default()
            .entry((a, b))
            .or_insert(place);
    }
    let in_code: BTreeSet<String> = code.iter().flat_map(|(p, e)| circles(p, e)).collect();
    found.code.extend(in_code.iter().cloned());
    for (parent, edges) in &all {
        found.tests.extend(
            circles(parent, edges)
                .into_iter()
                .filter(|c| !in_code.contains(c)),
        );
    }
    found
}

/// Why top-level module `a` may not name `b`, if it may not.
fn layer_problem(a: &str, b: &str) -> Option<String> {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    match (rank(a), rank(b)) {
        (None, _) => Some(format!("module `{a}` is not in LAYERS")),
        (_, None) => Some(format!("module `{b}` is not in LAYERS")),
        (Some(x), Some(y)) if y >= x => Some(format!("`{a}` uses `{b}`, which is not below it")),
        _ => None,
    }
}

/// The circles among `parent`'s children: each set of children that reach
/// each other, with the edges that close it.
fn circles(parent: &[String], edges: &Edges) -> Vec<String> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        next.entry(a.as_str()).or_default().push(b.as_str());
    }
    let reaches = |from: &str, to: &str| {
        let (mut stack, mut seen) = (vec![from], BTreeSet::new());
        while let Some(n) = stack.pop() {
            for &m in next.get(n).into_iter().flatten() {
                if m == to {
                    return true;
                }
                if seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        false
    };
    let mut groups: BTreeSet<BTreeSet<&str>> = BTreeSet::new();
    for node in next.keys() {
        let group: BTreeSet<&str> = next
            .keys()
            .copied()
            .filter(|other| other == node || (reaches(node, other) && reaches(other, node)))
            .collect();
        if group.len() > 1 {
            groups.insert(group);
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let how: Vec<String> = edges
                .iter()
                .filter(|((a, b), _)| group.contains(a.as_str()) && group.contains(b.as_str()))
                .map(|((a, b), (file, line))| format!("{a} → {b} ({}:{line})", file.display()))
                .collect();
            format!("circle in `{}`: {}", parent.join("::"), how.join(", "))
        })
        .collect()
}

/// The network crates in `tree`, `cargo tree --prefix none` output.
fn network_crates(tree: &str) -> BTreeSet<String> {
    tree.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| NETWORK_CRATES.contains(name))
        .map(str::to_string)
        .collect()
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn assert_none(what: &str, found: &[String]) {
    assert!(found.is_empty(), "{what}:\n{}", found.join("\n"));
}

const CRATES: [&str; 4] = [
    "crates/fbc-catalog/src",
    "crates/fbc-image/src",
    "crates/fbc-pull/src",
    "src",
];

#[test]
fn every_import_goes_down_the_layers_and_no_modules_form_a_circle() {
    let found: Vec<String> = CRATES
        .iter()
        .flat_map(|src| check(&root().join(src)).code)
        .collect();
    assert_none("upward imports and circles", &found);
}

#[test]
fn the_views_name_no_runtime_crate() {
    assert_none(
        "runtime crates in the views",
        &runtime_in_views(&root().join("src")),
    );
}

#[test]
fn the_runtime_check_catches_tokio_in_a_view() {
    let dir = planted(&[
        ("lib.rs", "pub mod views;\n"),
        ("views/mod.rs", "pub mod page;\n"),
        (
            "views/page.rs",
            "// tokio::spawn is named in a comment only\nuse tokio::sync::watch;\n",
        ),
    ]);
    let found = runtime_in_views(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("page.rs:2: `views::page` names `tokio`"),
        "{found:?}"
    );
}

/// Files that break the two test placements (inline `mod tests`, or
/// `module/tests.rs` with its own submodules): a `#[path]` sibling or a
/// `*_tests.rs` file name.
fn misplaced_tests(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for m in crate_modules(src).iter().filter(|m| !m.inline) {
        let name = m
            .file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with("_tests.rs") {
            found.push(format!("{}: a `_tests.rs` sibling", m.file.display()));
        }
        let text = std::fs::read_to_string(&m.file).unwrap_or_default();
        if let Some(n) = text
            .lines()
            .position(|l| l.trim_start().starts_with("#[path"))
        {
            found.push(format!(
                "{}:{}: a `#[path]` module",
                m.file.display(),
                n + 1
            ));
        }
    }
    found
}

#[test]
fn tests_sit_inline_or_in_the_module_folder() {
    for src in CRATES {
        assert_none("misplaced tests", &misplaced_tests(&root().join(src)));
    }
}

#[test]
fn the_placement_check_catches_a_path_sibling() {
    let dir = planted(&[
        ("lib.rs", "pub mod views;\n"),
        (
            "views.rs",
            "#[cfg(test)]\n#[path = \"views_tests.rs\"]\nmod tests;\n",
        ),
        ("views_tests.rs", "#[test]\nfn t() {}\n"),
    ]);
    let found = misplaced_tests(dir.path());
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("views.rs:2: a `#[path]` module"),
        "{found:?}"
    );
    assert!(
        found[1].contains("views_tests.rs: a `_tests.rs` sibling"),
        "{found:?}"
    );
}

#[test]
fn test_code_keeps_the_same_rules() {
    let found: Vec<String> = CRATES
        .iter()
        .flat_map(|src| check(&root().join(src)).tests)
        .collect();
    assert_none("upward imports and circles in test code", &found);
}

#[test]
fn the_library_and_the_image_crate_have_no_network_crate_in_their_whole_dependency_trees() {
    for package in ["fbc-catalog", "fbc-image"] {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = std::process::Command::new(cargo)
            .current_dir(root())
            .args([
                "tree",
                "-p",
                package,
                "--edges",
                "normal,build",
                "--prefix",
                "none",
            ])
            .args(["--locked", "--offline"])
            .output()
            .expect("cargo tree runs");
        let tree = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && tree.starts_with(&format!("{package} ")),
            "cargo tree: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let found = network_crates(&tree);
        assert!(
            found.is_empty(),
            "{package} depends on {found:?} (see `cargo tree -p {package} -i NAME`)"
        );
    }
}

/// Writes `files` (path, text) under a fresh directory; its path.
fn planted(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

#[test]
fn the_check_catches_an_upward_import() {
    let dir = planted(&[
        ("lib.rs", "mod views;\nmod grpc;\n"),
        ("views/mod.rs", "use crate::grpc::wire::Reply;\n"),
        ("grpc.rs", "use crate::{views, snapshot};\n"),
    ]);
    let found = check(dir.path()).code;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`views` uses `grpc`"), "{found:?}");
}

#[test]
fn the_check_catches_a_circle_two_levels_down_and_one_through_a_test() {
    let dir = planted(&[
        ("lib.rs", "pub mod views;\n"),
        ("views/mod.rs", "mod room;\nmod other;\n"),
        (
            "views/room/mod.rs",
            "mod body;\nmod build;\nmod persist;\nmod lazy;\n",
        ),
        ("views/room/body.rs", "use super::build::Builder;\n"),
        (
            "views/room/build.rs",
            "pub fn f() { crate::views::room::body::g() }\n",
        ),
        (
            "views/room/persist.rs",
            "use super::lazy::L;\n#[cfg(test)]\n#[path = \"persist_tests.rs\"]\nmod tests;\n",
        ),
        (
            "views/room/persist_tests.rs",
            "use super::super::lazy::L;\n",
        ),
        (
            "views/room/lazy.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::views::room::persist::P;\n}\n",
        ),
        ("views/other.rs", "pub struct O;\n"),
    ]);
    let found = check(dir.path());
    assert_eq!(found.code.len(), 1, "{found:?}");
    assert!(
        found.code[0].starts_with("circle in `views::room`: body → build"),
        "{found:?}"
    );
    assert_eq!(found.tests.len(), 1, "{found:?}");
    assert!(
        found.tests[0].contains("lazy → persist") && found.tests[0].contains("persist → lazy"),
        "{found:?}"
    );
}

#[test]
fn the_tree_check_catches_a_network_crate_deep_in_the_tree() {
    let tree = "fbc-catalog v0.1.0 (/x)\nserde v1.0.0\nsome-helper v0.3.0\ntokio v1.48.0\nbytes v1.0.0 (*)\n";
    assert_eq!(network_crates(tree), BTreeSet::from(["tokio".to_string()]));
    assert!(network_crates("fbc-catalog v0.1.0\nserde v1.0.0\n").is_empty());
}
