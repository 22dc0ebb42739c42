//! `ExplainUpgrade` and `CheckClusterUpgrade`: the cluster questions, answered
//! from a catalog's tables — shared by the server and the offline CLI.
//!
//! In: [`Tables`] and the decoded request (cluster-state files as bytes). Out: the
//! reply without its snapshot info, or INVALID_ARGUMENT naming the file, document
//! and field that does not read, the target that does not parse, or the limit
//! passed. The rules are [`fbc_catalog::cluster`]'s.

use crate::fbc_v1 as pb;
use crate::views::graph::cluster as view;
use fbc_catalog::cluster::explain;
use fbc_catalog::cluster::inventory;
use fbc_catalog::cluster::openshift::MinorVersion;
use fbc_catalog::cluster::state::ClusterState;
use fbc_catalog::cluster::upgrade;
use fbc_catalog::source::ParseLimits;
use fbc_catalog::tables::Tables;
use std::time::Instant;
use tonic::Status;

/// Most cluster-state files, and installed names, one request may carry.
pub const MAX_FILES: usize = 100;

/// All the files of a request, read into one state.
fn read_state(
    files: &[pb::ClusterStateFile],
    limits: &ParseLimits,
) -> Result<ClusterState, Status> {
    if files.len() > MAX_FILES {
        return Err(Status::invalid_argument(format!(
            "cluster_state has {} files; at most {MAX_FILES} are accepted",
            files.len()
        )));
    }
    let mut state = ClusterState::default();
    for (i, f) in files.iter().enumerate() {
        let name = if f.name.is_empty() {
            format!("cluster_state[{i}]")
        } else {
            f.name.chars().take(256).collect()
        };
        if f.content.len() as u64 > limits.max_file_bytes {
            return Err(Status::invalid_argument(format!(
                "{name}: {} bytes, more than the limit of {}",
                f.content.len(),
                limits.max_file_bytes
            )));
        }
        state.extend(
            ClusterState::read(&name, &f.content, limits)
                .map_err(|e| Status::invalid_argument(e.to_string()))?,
        );
    }
    Ok(state)
}

/// `ExplainUpgrade`: resolutions stop at `deadline`.
pub fn explain_upgrade(
    tables: &Tables,
    r: &pb::ExplainUpgradeRequest,
    limits: &ParseLimits,
    deadline: Option<Instant>,
) -> Result<pb::ExplainUpgradeResponse, Status> {
    let state = read_state(&r.cluster_state, limits)?;
    let report =
        explain::explain_state(tables, &state, deadline).map_err(Status::invalid_argument)?;
    Ok(view::report(report))
}

/// `CheckClusterUpgrade`.
pub fn check_cluster_upgrade(
    tables: &Tables,
    r: &pb::CheckClusterUpgradeRequest,
    limits: &ParseLimits,
) -> Result<pb::CheckClusterUpgradeResponse, Status> {
    let target = MinorVersion::parse_target(&r.to).map_err(Status::invalid_argument)?;
    if r.cluster_state.is_empty() && r.installed.is_empty() {
        return Err(Status::invalid_argument(
            "say what is installed: cluster_state (--cluster-state FILE|-) or installed (--installed NAME)",
        ));
    }
    if r.installed.len() > MAX_FILES * 100 {
        return Err(Status::invalid_argument(format!(
            "installed has {} names; at most {} are accepted",
            r.installed.len(),
            MAX_FILES * 100
        )));
    }
    let state = read_state(&r.cluster_state, limits)?;
    let (mut installed, notes) = inventory::from_state(tables, &state);
    for name in &r.installed {
        installed.push(inventory::named(tables, name).map_err(Status::invalid_argument)?);
    }
    let verdicts = upgrade::check(tables, &installed, target);
    Ok(pb::CheckClusterUpgradeResponse {
        snapshot: None,
        to: r.to.clone(),
        blocked: verdicts.iter().any(|v| v.blocks),
        verdicts: verdicts.into_iter().map(view::verdict).collect(),
        notes,
    })
}
