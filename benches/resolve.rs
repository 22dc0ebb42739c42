//! `cargo bench --bench resolve`: OLM v0 resolution time for 1, 10 and 50
//! subscriptions, median and p99 of repeated runs, through the function the
//! `Resolve` RPC runs (`fbc_catalog::resolve::resolve`, request already parsed;
//! the catalog is loaded once, as a server holds it).
//!
//! In: `FBC_SHARED_CATALOGS` (its community-v4.16) and `FBC_BENCH_CATALOGS`
//! (`:`-separated roots, e.g. a 10,000-bundle catalog from
//! `examples/gen-catalog`); without either nothing is measured. The
//! subscriptions are to the first packages by name that resolve on their own,
//! each on its default channel, with nothing installed. `FBC_BENCH_WRITE=DIR`
//! also writes each request there (`<catalog>-<n>.json`, with `catalog.fbc`
//! set) for `tools/resolve-bench-oracle.sh` to time the reference resolver on.
//!
//! Out: one line per (catalog, n, with or without explaining): runs, median,
//! p99, operators installed.

use fbc_catalog::load::{LoadOptions, load_model};
use fbc_catalog::resolve::{Limits, Outcome, request, resolve, resolve_explained};
use fbc_catalog::tables::Tables;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const COUNTS: [usize; 3] = [1, 10, 50];
const RUNS: usize = 60;

fn catalogs() -> Vec<(String, PathBuf)> {
    let mut roots = Vec::new();
    if let Some(shared) = std::env::var_os("FBC_SHARED_CATALOGS").map(PathBuf::from) {
        roots.push((
            "community-v4.16".to_string(),
            shared.join("community-v4.16"),
        ));
    }
    if let Some(extra) = std::env::var_os("FBC_BENCH_CATALOGS") {
        for p in std::env::split_paths(&extra) {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            roots.push((name, p));
        }
    }
    roots
}

fn request_text(root: &Path, packages: &[(String, String)]) -> String {
    let subs: Vec<serde_json::Value> = packages
        .iter()
        .map(|(p, c)| serde_json::json!({"package": p, "channel": c}))
        .collect();
    serde_json::json!({"catalog": {"name": "bench", "namespace": "olm", "fbc": root},
        "subscriptions": subs})
    .to_string()
}

fn run(t: &Tables, text: &str, explain: bool) -> (Duration, usize) {
    let r = request::parse(text).expect("request");
    let start = Instant::now();
    let outcome = if explain {
        resolve_explained(&[t], &r, &Limits::default()).map(|(o, _)| o)
    } else {
        resolve(&[t], &r, &Limits::default())
    }
    .expect("resolves");
    let took = start.elapsed();
    match outcome {
        Outcome::Resolved(ops) => (took, ops.len()),
        Outcome::Unsatisfiable { .. } => (took, 0),
    }
}

/// Packages (with their default channel) that resolve on their own, by name.
fn resolvable(t: &Tables, root: &Path, want: usize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in t.packages() {
        let one = vec![(p.name.clone(), p.default_channel.clone())];
        if run(t, &request_text(root, &one), false).1 > 0 {
            out.extend(one);
        }
        if out.len() == want {
            break;
        }
    }
    out
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let write = std::env::var_os("FBC_BENCH_WRITE").map(PathBuf::from);
    for (name, root) in catalogs() {
        let loaded = load_model(&root, &LoadOptions::default()).expect("catalog loads");
        let t = loaded.tables(&root, Default::default());
        let pool = resolvable(&t, &root, *COUNTS.iter().max().unwrap_or(&1));
        for n in COUNTS.into_iter().filter(|&n| n <= pool.len()) {
            let text = request_text(&root, &pool[..n]);
            if let Some(dir) = &write {
                std::fs::write(dir.join(format!("{name}-{n}.json")), &text).expect("write request");
            }
            for explain in [false, true] {
                let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
                let mut installed = 0;
                for _ in 0..RUNS {
                    let (took, ops) = run(&t, &text, explain);
                    times.push(took);
                    installed = ops;
                }
                times.sort();
                let median = times[RUNS / 2];
                let p99 = times[(RUNS * 99).div_ceil(100) - 1];
                let mode = if explain { " --explain" } else { "" };
                println!(
                    "{name}: {n} subscriptions{mode}: {RUNS} runs, median {median:?}, p99 {p99:?}, {installed} operators"
                );
            }
        }
        if pool.len() < *COUNTS.iter().max().unwrap_or(&1) {
            println!("{name}: only {} packages resolve on their own", pool.len());
        }
    }
}
