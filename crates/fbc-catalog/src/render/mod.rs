//! `opm render` without the network: bundles and catalogs → one FBC stream.
//!
//! In: bundle directories (or unpacked bundle images), catalog blobs, a migration
//! level and an output format. Out: the bytes opm v1.32.0 prints for the same input.
//! Pulling images is the caller's (the server crate, through `fbc-pull`); this module
//! only reads files.
//!
//! | module | in → out |
//! |---|---|
//! | [`bundle`] | a bundle's `manifests/` and `metadata/` → one `olm.bundle` |
//! | [`declcfg`] | catalog blobs → opm's typed blobs; the [`DeclarativeConfig`] they make |
//! | [`migrate`] | a config → the same with `olm.bundle.object` turned into `olm.csv.metadata` |
//! | [`write`] | a config → opm's JSON or YAML text, in opm's order |
//! | [`indent`] | JSON text → Go's compact and indented layouts |
//! | [`go_sort`] | a slice → the order Go's unstable `sort.Slice` leaves it in |
//! | [`mermaid`] | a config's channels → opm's Mermaid graph |
//! | [`go_yaml`] | JSON text → the YAML sigs.k8s.io/yaml (go-yaml v2) writes |

pub mod bundle;
pub mod declcfg;
pub mod go_sort;
pub mod go_yaml;
pub mod indent;
pub mod mermaid;
pub mod migrate;
pub mod write;

pub use bundle::{ObjectForm, render_bundle};
pub use declcfg::DeclarativeConfig;
pub use migrate::{MigrateLevel, migrate};
pub use write::{Output, write};

/// What opm's render does to each rendered reference before merging: properties that
/// carry manifests last, related images sorted by image.
pub fn finish(config: &mut DeclarativeConfig) {
    for b in &mut config.bundles {
        bundle::finish(b);
    }
}
