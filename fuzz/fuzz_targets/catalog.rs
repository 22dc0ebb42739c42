//! A catalog file, JSON or YAML (the first byte chooses), read with limits, built
//! into a model and tables, then asked every whole-catalog question: graph lint,
//! OLM v1 readiness, the console and ocp-4.17 profiles, each channel's upgrade
//! paths under both OLMs. Holds: no panic; time and memory bounded by the limits.
#![no_main]
use fbc_catalog::cluster::{profile, readiness};
use fbc_catalog::graph::lint;
use fbc_catalog::graph::upgrade_path::{PathQuery, Semantics, upgrade_path};
use fbc_catalog::source::{self, Loaded};
use fbc_catalog::tables::Tables;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let file = if first % 2 == 0 {
        "catalog.json"
    } else {
        "catalog.yaml"
    };
    let parsed = source::parse_file_with(file, bytes, &fbc_fuzz::LIMITS);
    let loaded = Loaded {
        blobs: parsed.blobs,
        errors: parsed.errors,
        files: Vec::new(),
    };
    let Ok(model) = fbc_catalog::model::build(loaded) else {
        return;
    };
    let tables = Tables::detached(model);
    let _ = lint::lint(&tables, None);
    let _ = readiness::catalog(&tables, None);
    for target in ["console", "ocp-4.17"] {
        if let Ok(target) = profile::Target::parse(target) {
            let _ = profile::lint(&tables, None, target);
        }
    }
    for package in tables.packages() {
        for channel in &package.channels {
            for semantics in [Semantics::V0, Semantics::V1] {
                let query = PathQuery {
                    package: package.name.clone(),
                    channel: channel.name.clone(),
                    from: channel
                        .entries
                        .first()
                        .map(|e| e.name.clone())
                        .unwrap_or_default(),
                    semantics,
                    ..PathQuery::default()
                };
                let _ = upgrade_path(&tables, &query);
            }
        }
    }
});
