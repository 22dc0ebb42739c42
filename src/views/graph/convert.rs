//! Library answers ⇄ `fbc.v1` messages.
//!
//! In: the graph library's typed answers ([`fbc_catalog::graph`],
//! [`fbc_catalog::version_range::check`]). Out: the `fbc.v1` reply messages, field
//! for field; and back, for a package graph, so the CLI renders DOT and Mermaid
//! from a server's answer with the library's own renderers.

use crate::fbc_v1 as pb;
use fbc_catalog::graph::export::{ChannelGraph, GraphEdge, Node, PackageGraph};
use fbc_catalog::graph::lint::{LintWarning, Severity};
use fbc_catalog::graph::successors::{Candidate, Rejected, Successors};
use fbc_catalog::graph::upgrade_path::{Outcome, Step, UpgradePath};
use fbc_catalog::graph::{Edge, EdgeKind};
use fbc_catalog::resolve::explain::{Alternative, Explanation, Reason};
use fbc_catalog::version_range::check::RangeCheck;

/// The proto edge kind.
pub fn edge_kind(kind: EdgeKind) -> pb::EdgeKind {
    match kind {
        EdgeKind::Replaces => pb::EdgeKind::Replaces,
        EdgeKind::Skips => pb::EdgeKind::Skips,
        EdgeKind::SkipRange => pb::EdgeKind::SkipRange,
        EdgeKind::SameVersion => pb::EdgeKind::SameVersion,
    }
}

/// The library edge kind (`None` for an unspecified one).
pub fn edge_kind_back(kind: pb::EdgeKind) -> Option<EdgeKind> {
    match kind {
        pb::EdgeKind::Replaces => Some(EdgeKind::Replaces),
        pb::EdgeKind::Skips => Some(EdgeKind::Skips),
        pb::EdgeKind::SkipRange => Some(EdgeKind::SkipRange),
        pb::EdgeKind::SameVersion => Some(EdgeKind::SameVersion),
        pb::EdgeKind::Unspecified => None,
    }
}

fn edge(e: Edge) -> pb::Edge {
    pb::Edge {
        kind: edge_kind(e.kind) as i32,
        channel: e.channel,
        skip_range: e.skip_range,
    }
}

/// A range check.
pub fn range_check(r: RangeCheck) -> pb::CheckRangeResponse {
    pb::CheckRangeResponse {
        parse_error: String::new(),
        expanded: r.expanded,
        results: r
            .results
            .into_iter()
            .map(|c| pb::RangeResult {
                version: c.version,
                r#match: c.matches,
                error: c.error.unwrap_or_default(),
            })
            .collect(),
        snapshot: None,
    }
}

/// A successors answer; `images` finds a candidate's image by name.
pub fn successors(s: Successors, image: impl Fn(&str) -> String) -> pb::GetSuccessorsResponse {
    let candidate = |c: Candidate| pb::Candidate {
        image: image(&c.name),
        name: c.name,
        version: c.version,
        release: c.release,
        channels: c.channels,
        edges: c.edges.into_iter().map(edge).collect(),
        deprecated: c.deprecated.is_some(),
        deprecation_message: c.deprecated.unwrap_or_default(),
    };
    let rejected = |r: Rejected| pb::Rejected {
        name: r.name,
        version: r.version,
        reason: r.reason,
    };
    pb::GetSuccessorsResponse {
        snapshot: None,
        candidates: s.candidates.into_iter().map(candidate).collect(),
        selected: s.selected.unwrap_or_default(),
        message: s.message.unwrap_or_default(),
        best_z_stream: s.best_z_stream.unwrap_or_default(),
        best_y_stream: s.best_y_stream.unwrap_or_default(),
        warnings: s.warnings,
        rejected: s.rejected.into_iter().map(rejected).collect(),
    }
}

/// An upgrade path.
pub fn upgrade_path(p: UpgradePath) -> pb::GetUpgradePathResponse {
    let outcome = match p.outcome {
        Outcome::ReachedHead => pb::Outcome::ReachedHead,
        Outcome::ReachedTarget => pb::Outcome::ReachedTarget,
        Outcome::AlreadyAtHead => pb::Outcome::AlreadyAtHead,
        Outcome::Stuck => pb::Outcome::Stuck,
    };
    let step = |s: Step| pb::Step {
        from: s.from,
        to: s.to,
        edge: edge_kind(s.edge) as i32,
        alternatives: s.alternatives,
    };
    pb::GetUpgradePathResponse {
        snapshot: None,
        channel: p.channel,
        steps: p.steps.into_iter().map(step).collect(),
        outcome: outcome as i32,
        stuck_reason: p.stuck_reason.unwrap_or_default(),
    }
}

/// A package graph.
pub fn package_graph(g: PackageGraph) -> pb::PackageGraph {
    let channel = |c: ChannelGraph| pb::ChannelGraph {
        name: c.name,
        head: c.head,
        chain: c.chain,
        deprecated: c.deprecated.is_some(),
        deprecation_message: c.deprecated.unwrap_or_default(),
    };
    let node = |n: Node| pb::Node {
        name: n.name,
        version: n.version,
        channels: n.channels,
        head_of: n.head_of,
        deprecated: n.deprecated.is_some(),
        deprecation_message: n.deprecated.unwrap_or_default(),
        skipped_in: n.skipped_in,
        missing: n.missing,
    };
    let edge = |e: GraphEdge| pb::GraphEdge {
        from: e.from,
        to: e.to,
        kind: edge_kind(e.kind) as i32,
        channel: e.channel,
    };
    pb::PackageGraph {
        package: g.package,
        default_channel: g.default_channel,
        deprecated: g.deprecated.is_some(),
        deprecation_message: g.deprecated.unwrap_or_default(),
        channels: g.channels.into_iter().map(channel).collect(),
        nodes: g.nodes.into_iter().map(node).collect(),
        edges: g.edges.into_iter().map(edge).collect(),
    }
}

/// A deprecation message back: present when the flag says so.
fn deprecation(flag: bool, message: String) -> Option<String> {
    flag.then_some(message)
}

/// A package graph back from a server's reply.
pub fn package_graph_back(g: pb::PackageGraph) -> PackageGraph {
    let channel = |c: pb::ChannelGraph| ChannelGraph {
        name: c.name,
        head: c.head,
        chain: c.chain,
        deprecated: deprecation(c.deprecated, c.deprecation_message),
    };
    let node = |n: pb::Node| Node {
        name: n.name,
        version: n.version,
        channels: n.channels,
        head_of: n.head_of,
        deprecated: deprecation(n.deprecated, n.deprecation_message),
        skipped_in: n.skipped_in,
        missing: n.missing,
    };
    let edges = g
        .edges
        .into_iter()
        .filter_map(|e| {
            let kind = edge_kind_back(pb::EdgeKind::try_from(e.kind).ok()?)?;
            Some(GraphEdge {
                from: e.from,
                to: e.to,
                kind,
                channel: e.channel,
            })
        })
        .collect();
    PackageGraph {
        package: g.package,
        default_channel: g.default_channel,
        deprecated: deprecation(g.deprecated, g.deprecation_message),
        channels: g.channels.into_iter().map(channel).collect(),
        nodes: g.nodes.into_iter().map(node).collect(),
        edges,
    }
}

/// A lint finding.
pub fn lint_finding(w: LintWarning) -> pb::LintFinding {
    pb::LintFinding {
        check: w.check.to_string(),
        severity: match w.severity {
            Severity::Warning => pb::Severity::Warning,
            Severity::Info => pb::Severity::Info,
        } as i32,
        file: w.file,
        document: u32::try_from(w.document).unwrap_or(u32::MAX),
        line: u32::try_from(w.line).unwrap_or(u32::MAX),
        package: w.package,
        channel: w.channel,
        entry: w.entry,
        message: w.message,
    }
}

/// One constraint in OLM's and plain words.
pub fn reason(r: Reason) -> pb::Reason {
    pb::Reason {
        olm: r.olm,
        plain: r.plain,
    }
}

/// A preferred candidate the resolution passed over.
pub fn passed_over(p: Alternative) -> pb::PassedOver {
    pb::PassedOver {
        candidate: p.candidate,
        reasons: p.reasons.into_iter().map(reason).collect(),
        given_choices: p.given_choices,
    }
}

/// Why a resolution came out as it did.
pub fn resolve_explanation(e: Explanation) -> pb::Explanation {
    pb::Explanation {
        minimal_unsat_constraints: e
            .minimal_unsat_constraints
            .into_iter()
            .map(reason)
            .collect(),
        choices: e
            .choices
            .into_iter()
            .map(|c| pb::ResolveChoice {
                operator: c.operator,
                package: c.package,
                channel: c.channel,
                because: Some(reason(c.because)),
                rank: c.rank as u32,
                candidates: c.candidates as u32,
                passed_over: c.passed_over.into_iter().map(passed_over).collect(),
                less_preferred: c.less_preferred,
            })
            .collect(),
    }
}

/// A catalog's OLM v1 readiness, summed.
pub fn readiness_summary(
    r: &fbc_catalog::cluster::readiness::CatalogReadiness,
) -> pb::ReadinessSummary {
    use fbc_catalog::cluster::readiness::{RuleCount, Weight};
    let count = |c: &RuleCount| pb::RuleCount {
        rule: c.rule.to_string(),
        weight: match c.weight {
            Weight::Refused => "refused",
            Weight::NeedsGate => "needsGate",
            Weight::Unknown => "unknown",
        }
        .into(),
        count: u32::try_from(c.bundles).unwrap_or(u32::MAX),
    };
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    pb::ReadinessSummary {
        packages: n(r.packages),
        installable_packages: n(r.installable_packages),
        bundles: n(r.bundles.bundles),
        installable_bundles: n(r.bundles.installable),
        heads_by_rule: r.heads.by_rule.iter().map(count).collect(),
        bundles_by_rule: r.bundles.by_rule.iter().map(count).collect(),
    }
}
