//! `cargo bench --bench load`: load + validate + index of real catalogs, beside a
//! baseline that only parses the same files with serde_json / serde_yaml into
//! `IgnoredAny` (single-threaded; fbc-registry parses files on all cores).
//!
//! Catalogs come from `FBC_SHARED_CATALOGS` (e.g. `../shared/catalogs`); without
//! it the benchmark prints a note and measures nothing.

use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize;
use serde::de::IgnoredAny;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != ".indexignore") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Reads and parses every file, building nothing.
fn bare_parse(paths: &[PathBuf]) -> usize {
    let mut docs = 0;
    for p in paths {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        if text.trim_start().starts_with('{') {
            for v in serde_json::Deserializer::from_str(&text).into_iter::<IgnoredAny>() {
                if v.is_ok() {
                    docs += 1;
                }
            }
        } else {
            for doc in serde_yaml::Deserializer::from_str(&text) {
                if IgnoredAny::deserialize(doc).is_ok() {
                    docs += 1;
                }
            }
        }
    }
    docs
}

fn bench(c: &mut Criterion) {
    let Some(root) = std::env::var_os("FBC_SHARED_CATALOGS").map(PathBuf::from) else {
        eprintln!("FBC_SHARED_CATALOGS is not set: nothing to measure");
        return;
    };
    for name in ["community-v4.16", "community-v4.20"] {
        let dir = root.join(name);
        let paths = files(&dir);
        let mut group = c.benchmark_group(name);
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(8));
        group.bench_function("baseline_parse_ignored_any", |b| {
            b.iter(|| bare_parse(&paths))
        });
        group.bench_function("load_validate_index", |b| {
            b.iter(|| {
                fbc_registry::catalog::load(&dir)
                    .map(|(ix, _)| ix.stats().copies)
                    .unwrap_or(0)
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
