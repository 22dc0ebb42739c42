//! Digest of every bundle and package reply a catalog yields, to check that a
//! change to loading or indexing leaves what clients receive byte for byte the same.
//!
//! ```text
//! cargo run --release --example reply-digest -- CATALOG_DIR [--cache-dir DIR | --spill-dir DIR]
//! ```
//!
//! With `--cache-dir`, the index is loaded through the cache: built and written if
//! needed, then read back warm, and the warm index is the one digested. With
//! `--spill-dir`, the index is built, spilled to a nameless file there and mapped (as
//! `serve` does after a cold load), and the mapped index is the one digested.
//!
//! Hashes, in order: for each ListBundles message, the message, the GetBundle reply
//! of the same (package, channel, bundle), the GetBundleThatReplaces and
//! GetChannelEntriesThatReplace answers for its `replaces` and `skips`, and the
//! provide answers (all, latest, default) of each API it provides; then each
//! GetPackage reply. Errors are hashed as their messages. Run it on a build before
//! and after a change; the lines must be equal.

use prost::Message;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: reply-digest CATALOG_DIR");
        return ExitCode::from(2);
    };
    let root = std::path::Path::new(&dir);
    let mut spill = None;
    let cache_dir = match std::env::args_os().nth(2) {
        Some(flag) if flag == "--cache-dir" || flag == "--spill-dir" => {
            match std::env::args_os().nth(3) {
                Some(d) if flag == "--spill-dir" => {
                    spill = Some(std::path::PathBuf::from(d));
                    None
                }
                Some(d) => Some(std::path::PathBuf::from(d)),
                None => {
                    eprintln!("{} needs a directory", flag.to_string_lossy());
                    return ExitCode::from(2);
                }
            }
        }
        Some(other) => {
            eprintln!("unknown argument {other:?}");
            return ExitCode::from(2);
        }
        None => None,
    };
    let loaded = match &cache_dir {
        None => fbc_registry::snapshot::load::load(root, &Default::default())
            .and_then(|loaded| {
                let Some(dir) = &spill else {
                    return Ok(loaded.registry);
                };
                let how = fbc_registry::snapshot::spill::Spill::Dir(dir.clone());
                match fbc_registry::snapshot::spill::spill(loaded, &how, root, Default::default()) {
                    (loaded, fbc_registry::snapshot::spill::Spilled::Mapped { .. }) => {
                        Ok(loaded.registry)
                    }
                    (_, other) => Err(vec![fbc_catalog::diagnostic::Diagnostic::new(
                        fbc_catalog::diagnostic::Kind::Io,
                        fbc_catalog::diagnostic::Location::default(),
                        format!("not spilled: {other:?}"),
                    )]),
                }
            })
            .map_err(|errors| errors.iter().map(ToString::to_string).collect()),
        Some(dir) => {
            let cfg = fbc_registry::snapshot::cache::CacheConfig {
                dir: dir.clone(),
                enforce_integrity: false,
                must_write: true,
            };
            // the first load may build and write the cache; the second reads it
            let options = Default::default();
            fbc_registry::snapshot::cache::load(root, &cfg, &options)
                .and_then(|_| fbc_registry::snapshot::cache::load(root, &cfg, &options))
                .map_err(|e| {
                    e.diagnostics()
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                })
                .and_then(|cached| match cached.outcome {
                    fbc_registry::snapshot::cache::Outcome::Warm => Ok(cached.catalog.registry),
                    _ => Err(vec!["the cache was not read back warm".to_string()]),
                })
        }
    };
    let index = match loaded {
        Ok(loaded) => loaded,
        Err(errors) => {
            for e in errors {
                eprintln!("{e}");
            }
            return ExitCode::FAILURE;
        }
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut bytes = 0usize;
    let mut add = |reply: &[u8]| {
        hasher.update(&(reply.len() as u64).to_le_bytes());
        hasher.update(reply);
        bytes += reply.len();
    };
    for i in 0..index.copy_count() {
        let Some(item) = index.list_bundles_item(i) else {
            eprintln!("ListBundles item {i} is missing");
            return ExitCode::FAILURE;
        };
        let item = item.to_bytes();
        add(&item);
        let bundle = match fbc_registry::api::Bundle::decode(item) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("ListBundles item {i} does not decode: {e}");
                return ExitCode::FAILURE;
            }
        };
        match index.bundle(&bundle.package_name, &bundle.channel_name, &bundle.csv_name) {
            Ok(reply) => add(&reply.to_bytes()),
            Err(e) => {
                eprintln!("GetBundle of ListBundles item {i}: {e}");
                return ExitCode::FAILURE;
            }
        }
        for name in std::iter::once(&bundle.replaces).chain(&bundle.skips) {
            match index.bundle_that_replaces(name, &bundle.package_name, &bundle.channel_name) {
                Ok(reply) => add(&reply.to_bytes()),
                Err(e) => add(e.to_string().as_bytes()),
            }
            match index.entries_that_replace(name) {
                Ok(entries) => entries.iter().for_each(|e| add(e)),
                Err(e) => add(e.to_string().as_bytes()),
            }
        }
        for api in &bundle.provided_apis {
            let (g, v, k) = (&api.group, &api.version, &api.kind);
            match index.entries_that_provide(g, v, k) {
                Ok(entries) => entries.iter().for_each(|e| add(e)),
                Err(e) => add(e.to_string().as_bytes()),
            }
            match index.latest_entries_that_provide(g, v, k) {
                Ok(entries) => entries.iter().for_each(|e| add(e)),
                Err(e) => add(e.to_string().as_bytes()),
            }
            match index.default_bundle_that_provides(g, v, k) {
                Ok(reply) => add(&reply.to_bytes()),
                Err(e) => add(e.to_string().as_bytes()),
            }
        }
    }
    for name in index.package_names() {
        let Ok(name) = fbc_registry::api::PackageName::decode(name.clone()) else {
            eprintln!("a ListPackages item does not decode");
            return ExitCode::FAILURE;
        };
        match index.package_reply(&name.name) {
            Ok(reply) => add(&reply.to_bytes()),
            Err(e) => {
                eprintln!("GetPackage {}: {e}", name.name);
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "copies={} packages={} reply_bytes={bytes} xxh3={:016x}",
        index.copy_count(),
        index.package_names().len(),
        hasher.digest()
    );
    ExitCode::SUCCESS
}
