//! `cluster-upgrade CATALOG --to 4.Y`: which installed bundles block that OpenShift
//! upgrade through `olm.maxOpenShiftVersion`, and the way out of each.
//!
//! In: the catalog (a directory, an image, or a server by `--addr`), the installed
//! bundles — from cluster state (`--cluster-state FILE|-`: Subscriptions with their
//! CSVs, ClusterExtensions, as `kubectl get -o yaml` prints them) or named
//! (`--installed NAME`) — and the target. Out: a line per installed bundle (or one
//! JSON object), exit 0 when nothing blocks, 2 when something does, 1 on errors.
//! The rules are `fbc_catalog::cluster::{openshift, upgrade}`'s.

use crate::cli::graph::args::{Output, SourceArgs};
use crate::cli::graph::source::Source;
use crate::fbc_v1 as pb;
use crate::views::graph::cluster as view;
use std::path::PathBuf;
use std::process::ExitCode;

/// `cluster-upgrade`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ClusterUpgradeArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The OpenShift version to reach: 4.Y or 4.Y.Z (only the minor counts).
    #[arg(long, value_name = "4.Y[.Z]")]
    pub to: String,
    /// Cluster state: a YAML or JSON file (`-` for standard input) of Subscriptions,
    /// ClusterServiceVersions and ClusterExtensions; repeatable.
    #[arg(long, value_name = "FILE|-")]
    pub cluster_state: Vec<PathBuf>,
    /// An installed bundle, by name (as OLM v0 installs it); repeatable.
    #[arg(long, value_name = "NAME")]
    pub installed: Vec<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// Runs `cluster-upgrade`.
pub fn run(a: &ClusterUpgradeArgs) -> ExitCode {
    let limits = a.source.limits.load_options().limits;
    if let Err(e) = fbc_catalog::cluster::openshift::MinorVersion::parse_target(&a.to) {
        return fail(&e);
    }
    if a.cluster_state.is_empty() && a.installed.is_empty() {
        return fail("say what is installed: --cluster-state FILE|- or --installed NAME");
    }
    let cluster_state = match super::state_files(&a.cluster_state, &limits) {
        Ok(files) => files,
        Err(e) => return fail(&e),
    };
    // an invalid catalog is reported as the graph commands report it: every problem
    let mut source = match Source::open(&a.source) {
        Ok(source) => source,
        Err(e) => return crate::cli::graph::failed(e, a.output),
    };
    let request = pb::CheckClusterUpgradeRequest {
        to: a.to.clone(),
        cluster_state,
        installed: a.installed.clone(),
        ..pb::CheckClusterUpgradeRequest::default()
    };
    match source.check_cluster_upgrade(request, &limits) {
        Ok(reply) => super::print(
            a.output,
            view::verdicts_json(&reply),
            view::verdicts_text(&reply),
            reply.blocked,
        ),
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("cluster-upgrade: {message}");
    ExitCode::FAILURE
}
