//! `explain-upgrade CATALOG --cluster-state FILE|-`: for each Subscription (OLM
//! v0) and ClusterExtension (OLM v1) of the cluster state, what is installed and
//! where it sits, what OLM does next, and — when nothing moves — the exact reason
//! and the smallest catalog or spec change that would fix it.
//!
//! In: the catalog (a directory, an image, or a server by `--addr`) and the
//! cluster state. Out: a paragraph per object (or one JSON object); exit 0 when
//! everything can move or is up to date, 2 when something is stuck (or could not
//! be explained), 1 on errors. The rules are `fbc_catalog::cluster::explain`'s.

use crate::cli::graph::args::{Output, SourceArgs};
use crate::cli::graph::source::Source;
use crate::cli::values::parse_duration;
use crate::fbc_v1 as pb;
use crate::views::graph::cluster as view;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// `explain-upgrade`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExplainUpgradeArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Cluster state: a YAML or JSON file (`-` for standard input) of Subscriptions,
    /// ClusterServiceVersions and ClusterExtensions; repeatable.
    #[arg(long, value_name = "FILE|-")]
    pub cluster_state: Vec<PathBuf>,
    /// Give up resolving after this long (e.g. 10s; a server caps it at 30s).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// Runs `explain-upgrade`.
pub fn run(a: &ExplainUpgradeArgs) -> ExitCode {
    let limits = a.source.limits.load_options().limits;
    if a.cluster_state.is_empty() {
        return fail("say what the cluster has: --cluster-state FILE|- (repeatable)");
    }
    let cluster_state = match super::state_files(&a.cluster_state, &limits) {
        Ok(files) => files,
        Err(e) => return fail(&e),
    };
    let mut source = match Source::open(&a.source) {
        Ok(source) => source,
        Err(e) => return crate::cli::graph::failed(e, a.output),
    };
    let request = pb::ExplainUpgradeRequest {
        cluster_state,
        ..pb::ExplainUpgradeRequest::default()
    };
    match source.explain_upgrade(request, &limits, a.timeout) {
        Ok(reply) => super::print(
            a.output,
            view::report_json(&reply),
            view::report_text(&reply),
            reply.stuck,
        ),
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("explain-upgrade: {message}");
    ExitCode::FAILURE
}
