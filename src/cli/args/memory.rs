//! `serve`'s memory flags → where a catalog's bytes are kept.
//!
//! In: `--spill-dir`, `--no-spill`, `--memory-target`. Out: a [`Spill`] for the
//! server configuration, and the target for [`crate::snapshot::budget`].

use crate::cli::values::parse_size;
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
    /// Keep the views built for HTTP, GraphQL and the browser within this many bytes
    /// (e.g. 16MiB): the least recently used are dropped and built again when next
    /// asked for, and no gzip is kept (each gzipped answer is compressed for its
    /// request). The api.Registry replies are not views and do not count. Default: the
    /// GOMEMLIMIT that OLM sets for a CatalogSource's spec.grpcPodConfig.memoryTarget,
    /// else no target (every view built is kept for the life of its catalog).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_target: Option<u64>,
}

/// The memory target in force, and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryTarget {
    /// Bytes the kept views may hold.
    pub bytes: u64,
    /// `--memory-target` or `GOMEMLIMIT`.
    pub from: &'static str,
}

impl MemoryArgs {
    /// `--memory-target`, else `GOMEMLIMIT` (Go's spelling: bytes with an optional
    /// `B`, `KiB`, `MiB`, `GiB` or `TiB`; `off` or a value that does not parse: none).
    pub fn target(&self) -> Option<MemoryTarget> {
        if let Some(bytes) = self.memory_target {
            return Some(MemoryTarget {
                bytes,
                from: "--memory-target",
            });
        }
        let limit = std::env::var("GOMEMLIMIT").ok()?;
        let Some(bytes) = go_memory_limit(&limit) else {
            if limit.trim() != "off" {
                tracing::warn!(
                    GOMEMLIMIT = %limit,
                    "GOMEMLIMIT is not a size Go reads (bytes with an optional B, KiB, MiB, GiB or TiB): no memory target; --memory-target sets one"
                );
            }
            return None;
        };
        Some(MemoryTarget {
            bytes,
            from: "GOMEMLIMIT",
        })
    }

    /// Where the catalog's bytes go.
    pub fn spill(&self) -> Spill {
        match (&self.spill_dir, self.no_spill) {
            (_, true) => Spill::Off,
            (Some(dir), false) => Spill::Dir(dir.clone()),
            (None, false) => Spill::Auto,
        }
    }
}

/// A `GOMEMLIMIT` value in bytes (`None` for `off` and what Go would reject).
fn go_memory_limit(value: &str) -> Option<u64> {
    let value = value.trim();
    let split = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (digits, unit) = value.split_at(split);
    let number: u64 = digits.parse().ok()?;
    let scale: u64 = match unit {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        _ => return None,
    };
    number.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::go_memory_limit;

    #[test]
    fn gomemlimit_is_read_as_go_reads_it() {
        assert_eq!(go_memory_limit("536870912B"), Some(536_870_912));
        assert_eq!(go_memory_limit("512MiB"), Some(512 << 20));
        assert_eq!(go_memory_limit("2GiB"), Some(2 << 30));
        assert_eq!(go_memory_limit("1024"), Some(1024));
        for rejected in [
            "off",
            "",
            "MiB",
            "12MB",
            "-1",
            "1.5GiB",
            "99999999999999999999TiB",
        ] {
            assert_eq!(go_memory_limit(rejected), None, "{rejected}");
        }
    }
}
