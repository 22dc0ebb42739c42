//! `serve`'s memory flags → where a catalog's bytes are kept.
//!
//! In: `--spill-dir`, `--no-spill`. Out: a [`Spill`] for the server configuration.

use crate::snapshot::spill::Spill;
use std::path::PathBuf;

/// Where a loaded catalog's bytes are kept.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct MemoryArgs {
    /// After a cold load, write the catalog's index to a nameless file in this directory
    /// and serve it from there (mapped): its manifests live in the page cache, which the
    /// kernel can drop under pressure, not in the process's own memory. Default: the
    /// system's temporary directory ($TMPDIR, else /tmp) unless it is memory-backed
    /// (tmpfs), where the catalog stays in memory.
    #[arg(long, value_name = "DIR", conflicts_with = "no_spill")]
    pub spill_dir: Option<PathBuf>,
    /// Keep a catalog loaded without --cache-dir in the process's own memory (no spill
    /// file; with --cache-dir the catalog is served from the cache file it writes).
    #[arg(long)]
    pub no_spill: bool,
}

impl MemoryArgs {
    /// Where the catalog's bytes go.
    pub fn spill(&self) -> Spill {
        match (&self.spill_dir, self.no_spill) {
            (_, true) => Spill::Off,
            (Some(dir), false) => Spill::Dir(dir.clone()),
            (None, false) => Spill::Auto,
        }
    }
}
