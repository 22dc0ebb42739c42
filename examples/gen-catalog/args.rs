//! The command line: [`Args`] and the output [`Format`].

use clap::{Parser, ValueEnum};
use std::path::PathBuf;

/// Syntax of the generated files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Every package in `catalog.yaml`.
    Yaml,
    /// Every package in `catalog.json`.
    Json,
    /// About half of each, chosen per package.
    Mixed,
}

/// Generate a synthetic, valid OLM file-based catalog.
#[derive(Debug, Parser)]
#[command(name = "gen-catalog")]
pub(crate) struct Args {
    /// Number of packages (`pkg-0001` …).
    #[arg(long)]
    pub(crate) packages: usize,
    /// Bundles per package.
    #[arg(long)]
    pub(crate) bundles_per_package: usize,
    /// Approximate size of each bundle's CSV payload in bytes (0: small csv metadata only).
    #[arg(long, default_value_t = 0)]
    pub(crate) object_bytes: usize,
    /// Seed of the pseudo-random generator.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Syntax of the files.
    #[arg(long, value_enum, default_value_t = Format::Mixed)]
    pub(crate) format: Format,
    /// Write into OUT even if it is not empty: each package's catalog file is replaced,
    /// other files (e.g. packages of a larger earlier run) are left alone.
    #[arg(long)]
    pub(crate) force: bool,
    /// Output directory, created if missing.
    pub(crate) out: PathBuf,
}
