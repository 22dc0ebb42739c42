//! Flag values as people write them, and the flags every catalog-reading
//! command shares.
//!
//! In: flag text (`250ms`, `64MiB`, `40`). Out: durations, byte counts,
//! depths, and [`LimitArgs`] → the loader's options. A leaf: the argument
//! structs of every command use it, and it uses none of them.

use crate::snapshot::load::LoadOptions;
use fbc_catalog::source::ParseLimits;
use fbc_catalog::source::limits::DEPTH_CEILING;

/// Bounds on what a catalog can make the loader do (see `docs/security.md`).
#[derive(Clone, Debug, clap::Args)]
pub struct LimitArgs {
    /// Largest catalog file read (e.g. 512MiB, 1GB).
    #[arg(long, value_name = "SIZE", default_value = "512MiB", value_parser = parse_size)]
    pub max_file_size: u64,
    /// Largest single JSON value or YAML document.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_document_size: u64,
    /// Deepest nesting of arrays and objects in a document (at most 128).
    #[arg(long, value_name = "LEVELS", default_value_t = ParseLimits::DEFAULT_MAX_DEPTH,
          value_parser = parse_depth)]
    pub max_depth: usize,
    /// Most nodes that YAML anchors and aliases may copy into one document.
    #[arg(long, value_name = "NODES", default_value_t = ParseLimits::DEFAULT_MAX_ALIAS_NODES)]
    pub max_yaml_alias_nodes: usize,
    /// A load (at start or on reload) still running after this long fails like an
    /// invalid catalog (e.g. 2m, 90s).
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub load_timeout: std::time::Duration,
}

impl LimitArgs {
    /// The load options these flags describe.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            limits: ParseLimits {
                max_file_bytes: self.max_file_size,
                max_document_bytes: self.max_document_size,
                max_depth: self.max_depth,
                max_alias_nodes: self.max_yaml_alias_nodes,
            },
            ..LoadOptions::default()
        }
    }
}

/// Parses a duration as people write them: `250ms`, `1.5s`, `2m`, `1h30m`
/// (humantime's grammar). A bare number is milliseconds, as earlier releases read it.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse()
            .map(std::time::Duration::from_millis)
            .map_err(|e| format!("invalid duration {s:?}: {e}"));
    }
    humantime::parse_duration(s)
        .map_err(|e| format!("invalid duration {s:?}: {e} (write e.g. 250ms, 1.5s, 2m)"))
}

/// Parses `--max-depth`: 1 to [`DEPTH_CEILING`].
pub(crate) fn parse_depth(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=DEPTH_CEILING).contains(&n) => Ok(n),
        _ => Err(format!(
            "invalid depth {s:?}: a number from 1 to {DEPTH_CEILING} (the JSON parser's own ceiling)"
        )),
    }
}

/// Parses a size such as `512MiB`, `64 MB` or `1048576` (bytes).
pub fn parse_size(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<bytesize::ByteSize>()
        .map(|b| b.as_u64())
        .map_err(|e| format!("invalid size {s:?}: {e} (write e.g. 64MiB, 1GB)"))
}
