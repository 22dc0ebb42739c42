//! The cluster commands: what a catalog means for a cluster's installed operators.
//!
//! In: a catalog (directory, image or `--addr` server) and cluster-state files
//! (`--cluster-state FILE|-`, as `kubectl get … -o yaml` prints them). Out: the
//! `fbc.v1` answer ([`crate::grpc::graph::cluster`], here or on the server),
//! printed as text or JSON.
//!
//! | module | command |
//! |---|---|
//! | [`explain`] | `explain-upgrade`: why each operator moves or not, and the fix |
//! | [`upgrade`] | `cluster-upgrade`: what blocks the next OpenShift minor |

pub(crate) mod explain;
pub(crate) mod upgrade;

use crate::cli::graph::args::Output;
use crate::cli::graph::emit;
use crate::fbc_v1 as pb;
use fbc_catalog::source::ParseLimits;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints an answer as `json` or as `lines`; exit 2 when `attention` (something
/// stuck or blocking), else 0.
pub(crate) fn print(
    output: Output,
    json: serde_json::Value,
    lines: Vec<String>,
    attention: bool,
) -> ExitCode {
    match output {
        Output::Json => emit(&format!("{json}\n")),
        Output::Text => emit(&lines.iter().map(|l| format!("{l}\n")).collect::<String>()),
    }
    if attention {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// The cluster-state files as a request carries them, each read whole and
/// bounded by `--max-file-size` (standard input too: one byte past the limit
/// tells a stream that is too large from one that fits).
pub(crate) fn state_files(
    paths: &[PathBuf],
    limits: &ParseLimits,
) -> Result<Vec<pb::ClusterStateFile>, String> {
    paths.iter().map(|path| state_file(path, limits)).collect()
}

fn state_file(
    path: &std::path::Path,
    limits: &ParseLimits,
) -> Result<pb::ClusterStateFile, String> {
    let mut content = Vec::new();
    if path.as_os_str() == "-" {
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::io::stdin(), limits.max_file_bytes.saturating_add(1)),
            &mut content,
        )
        .map_err(|e| format!("standard input: {e}"))?;
        if content.len() as u64 > limits.max_file_bytes {
            return Err(format!(
                "standard input: larger than {} bytes (limit --max-file-size)",
                limits.max_file_bytes
            ));
        }
        return Ok(pb::ClusterStateFile {
            name: "<stdin>".into(),
            content,
        });
    }
    fbc_catalog::source::read::read_regular(path, limits.max_file_bytes, &mut content)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(pb::ClusterStateFile {
        name: path.display().to_string(),
        content,
    })
}
