//! The catalog plan: the run's configuration ([`Cfg`]), package names, groups and
//! provided kinds, and what a package's bundles need to know ([`Pkg`]).

use crate::args::Format;
use crate::rng::{Rng, S_KINDS};
use std::path::PathBuf;

const KINDS: &[&str] = &[
    "Widget",
    "Gadget",
    "Backup",
    "Instance",
    "Database",
    "Gateway",
    "Cluster",
    "Pipeline",
    "Monitor",
    "Tenant",
    "Bucket",
    "Certificate",
    "Queue",
    "Cache",
];
pub(crate) const CHANNEL_NAMES: [&str; 4] = ["stable", "fast", "candidate", "stable-v2"];

pub(crate) struct Cfg {
    pub(crate) seed: u64,
    pub(crate) packages: usize,
    pub(crate) bundles: usize,
    pub(crate) object_bytes: usize,
    pub(crate) format: Format,
    pub(crate) corpus: String,
    pub(crate) out: PathBuf,
}

pub(crate) fn pkg_name(i: usize) -> String {
    format!("pkg-{i:04}")
}

pub(crate) fn pkg_group(i: usize) -> String {
    format!("pkg{i:04}.example.com")
}

/// The kinds a package provides (its own stream, so other packages can require them).
pub(crate) fn pkg_kinds(seed: u64, i: usize) -> Vec<&'static str> {
    let mut rng = Rng::mix(&[seed, S_KINDS, i as u64]);
    let n = rng.range(1, 3);
    let mut kinds: Vec<&'static str> = Vec::with_capacity(n);
    while kinds.len() < n {
        let k = *rng.pick(KINDS);
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

pub(crate) fn plural(kind: &str) -> String {
    format!("{}s", kind.to_ascii_lowercase())
}

/// Everything about one package that its bundles need.
pub(crate) struct Pkg {
    pub(crate) name: String,
    pub(crate) group: String,
    pub(crate) display: String,
    pub(crate) kinds: Vec<&'static str>,
    pub(crate) shared: bool,
    pub(crate) objects: bool,
    pub(crate) max_ocp: bool,
    /// (package, group, kind, index of the first bundle that requires it, version range)
    pub(crate) dep: Option<(String, String, &'static str, usize, &'static str)>,
    pub(crate) maturity: &'static str,
}
