//! Graph tests: the seed documents' examples and OLM's rules, over catalogs
//! written here. Fixture helpers in this file, one file per module below.

mod export;
mod installed;
mod lint;
mod property;
mod providers;
mod successors;
mod upgrade_path;

use crate::tables::{Tables, testing};

/// The tables of a catalog made of `docs` (YAML documents), in one file.
pub(super) fn tables(docs: &[String]) -> Tables {
    match testing::from_text("catalog.yaml", &docs.join("---\n")) {
        Ok(tables) => tables,
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

/// An `olm.package` blob.
pub(super) fn package(name: &str, default_channel: &str) -> String {
    format!("schema: olm.package\nname: {name}\ndefaultChannel: {default_channel}\n")
}

/// An `olm.channel` blob; `entries` is YAML flow or block list text, indented by two.
pub(super) fn channel(package: &str, name: &str, entries: &[&str]) -> String {
    let mut out = format!("schema: olm.channel\npackage: {package}\nname: {name}\nentries:\n");
    for e in entries {
        out.push_str(&format!("  - {e}\n"));
    }
    out
}

/// An `olm.bundle` blob with version `version` and extra property lines.
pub(super) fn bundle_with(package: &str, name: &str, version: &str, extra: &[&str]) -> String {
    let mut out = format!(
        "schema: olm.bundle\npackage: {package}\nname: {name}\nimage: quay.io/{package}:{}\nproperties:\n  - {{type: olm.package, value: {{packageName: {package}, version: \"{version}\"}}}}\n",
        version.replace('+', "_")
    );
    for p in extra {
        out.push_str(&format!("  - {p}\n"));
    }
    out
}

/// An `olm.bundle` blob.
pub(super) fn bundle(package: &str, name: &str, version: &str) -> String {
    bundle_with(package, name, version, &[])
}

/// The documents of package `p` with default channel `stable`: the channel's
/// entries, and one bundle per (name, version).
pub(super) fn one_channel(entries: &[&str], bundles: &[(&str, &str)]) -> Vec<String> {
    let mut docs = vec![package("p", "stable"), channel("p", "stable", entries)];
    docs.extend(bundles.iter().map(|(n, v)| bundle("p", n, v)));
    docs
}

/// Seed 001's example (OLM v1 docs): `v3.0.0 skips [v2.0.0]`, `v2.0.0 skipRange
/// >=1.0.0 <2.0.0`; 1.0.0 is installed but no longer in the catalog.
pub(super) fn seed_001() -> Tables {
    tables(&one_channel(
        &[
            "{name: example.v3.0.0, skips: [example.v2.0.0]}",
            "{name: example.v2.0.0, skipRange: '>=1.0.0 <2.0.0'}",
        ],
        &[("example.v2.0.0", "2.0.0"), ("example.v3.0.0", "3.0.0")],
    ))
}

/// OLM v0's divergence example (operator-lifecycle-manager's replaces/skips tests): `v3 replaces v2, skips [v2]`,
/// `v2 replaces v1`, v1 not in the catalog.
pub(super) fn divergence() -> Tables {
    tables(&one_channel(
        &[
            "{name: p.v2, replaces: p.v1}",
            "{name: p.v3, replaces: p.v2, skips: [p.v2]}",
        ],
        &[("p.v2", "2.0.0"), ("p.v3", "3.0.0")],
    ))
}
