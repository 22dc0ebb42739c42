//! Writes a synthetic, valid file-based catalog (FBC) of realistic shape, for load
//! tests and benchmarks:
//!
//! ```sh
//! cargo run --release --example gen-catalog -- \
//!     --packages 200 --bundles-per-package 50 --object-bytes 50000 /tmp/big-catalog
//! target/release/fbc-registry validate /tmp/big-catalog
//! ```
//!
//! Each package `pkg-NNNN` gets its own directory with one `catalog.yaml` (YAML
//! documents, keys sorted as `opm render` writes them) or `catalog.json` (a stream of
//! pretty-printed JSON objects), holding:
//!
//! - an `olm.package` blob (default channel, description, a small SVG icon on some);
//! - 1–4 channels (`stable`, `fast`, `candidate`, `stable-v2`), each a contiguous run of
//!   the package's bundles, ordered by version, forming a valid upgrade graph: a
//!   `replaces` chain; sometimes `skips` of the entry before the previous one (third
//!   entry only), a "pulled" bundle (entry `i` replaces `i-2` and skips `i-1`), a tail
//!   that replaces/skips bundles outside the channel, and blang `skipRange`s;
//! - `M` bundles `pkg-NNNN.vX.Y.Z` with increasing versions, 1–3 provided kinds in group
//!   `pkgNNNN.example.com` (and `shared.example.com/v1 Common` on some packages), some
//!   with `olm.gvk.required` / `olm.package.required` on another package, 2–5 related
//!   images, some pinned by `@sha256:` digest.
//!
//! With `--object-bytes B > 0`, about half the packages carry their CSV as
//! `olm.bundle.object` properties (a CRD and a ClusterServiceVersion of about `B` bytes,
//! base64 of compact JSON) and the others as `olm.csv.metadata` with a description of
//! about `B/2` bytes; YAML output writes some `createdAt` annotations as unquoted YAML
//! timestamps. With `B = 0` every bundle has a small `olm.csv.metadata`.
//!
//! Output depends only on the arguments (`--seed`, default 1), not on thread
//! scheduling: every package draws from its own splitmix64 stream. `--format` only
//! changes the syntax of each file, not its content. A one-line summary goes to stderr.
//!
//! Modules: [`args`] (the command line), [`rng`] (splitmix64 streams), [`plan`]
//! (configuration, package names and kinds), [`channel`] (upgrade graphs),
//! [`package`] (one package's file), [`bundle`] (one bundle's document),
//! [`manifest`] (CSV and CRD payloads), [`text`] (filler text), [`doc`] (the
//! document tree and its YAML and JSON writers).

mod args;
mod bundle;
mod channel;
mod doc;
mod manifest;
mod package;
mod plan;
mod rng;
mod text;

use args::Args;
use clap::Parser;
use package::{Stats, gen_package};
use plan::Cfg;
use std::fs;
use std::io;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use text::{CORPUS_WINDOW, build_corpus};

fn prepare_out(out: &Path, force: bool) -> Result<(), String> {
    match fs::read_dir(out) {
        Ok(mut rd) => {
            if rd.next().is_some() && !force {
                return Err(format!(
                    "{} is not empty (use --force to write into it anyway)",
                    out.display()
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(out).map_err(|e| format!("create {}: {e}", out.display()))
        }
        Err(e) => Err(format!("{}: {e}", out.display())),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.packages == 0 || args.bundles_per_package == 0 {
        eprintln!("gen-catalog: --packages and --bundles-per-package must be at least 1");
        return ExitCode::from(2);
    }
    if let Err(e) = prepare_out(&args.out, args.force) {
        eprintln!("gen-catalog: {e}");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let cfg = Cfg {
        seed: args.seed,
        packages: args.packages,
        bundles: args.bundles_per_package,
        object_bytes: args.object_bytes,
        format: args.format,
        corpus: build_corpus(
            args.seed,
            CORPUS_WINDOW + args.object_bytes.max(4096) + 8192,
        ),
        out: args.out.clone(),
    };
    let next = AtomicUsize::new(1);
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(4)
        .min(args.packages);
    let results: Vec<io::Result<Stats>> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                sc.spawn(|| {
                    let mut st = Stats::default();
                    let mut buf = String::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i > cfg.packages {
                            return Ok(st);
                        }
                        st.add(gen_package(&cfg, i, &mut buf)?);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("worker panicked"))
            .collect()
    });
    let mut total = Stats::default();
    for r in results {
        match r {
            Ok(st) => total.add(st),
            Err(e) => {
                eprintln!("gen-catalog: {}: {e}", args.out.display());
                return ExitCode::FAILURE;
            }
        }
    }
    eprintln!(
        "gen-catalog: {} packages, {} channels, {} bundles, {} channel entries, {} bytes \
         ({:.1} MiB) written to {} in {:.2}s",
        total.packages,
        total.channels,
        total.bundles,
        total.entries,
        total.bytes,
        total.bytes as f64 / (1024.0 * 1024.0),
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
