//! The cluster answers (`explain-upgrade`, `cluster-upgrade`) as `fbc.v1`
//! messages, and those messages as the JSON and text the CLI prints.
//!
//! In: [`fbc_catalog::cluster`]'s reports and verdicts, or `fbc.v1` replies.
//! Out: `fbc.v1` messages, or `serde_json` values and text lines. The JSON keeps
//! the field names the library's answers serialize with (camelCase).

use crate::fbc_v1 as pb;
use crate::views::graph::convert;
use fbc_catalog::cluster::explain::resolution::Resolution;
use fbc_catalog::cluster::explain::{Explanation, ExtensionExplanation, Report};
use fbc_catalog::cluster::upgrade::{MaxSource, Olm, Verdict, WayOut};
use serde_json::{Value, json};

/// An `explain-upgrade` report.
pub fn report(r: Report) -> pb::ExplainUpgradeResponse {
    pb::ExplainUpgradeResponse {
        snapshot: None,
        stuck: r.stuck(),
        subscriptions: r.subscriptions.into_iter().map(subscription).collect(),
        extensions: r.extensions.into_iter().map(extension).collect(),
        problems: r.problems,
    }
}

fn subscription(e: Explanation) -> pb::SubscriptionExplanation {
    pb::SubscriptionExplanation {
        subscription: e.subscription,
        package: e.package,
        channel: e.channel,
        installed: e.installed,
        head: e.head,
        path: e.path,
        summary: e.summary,
        fixes: e.fixes,
        findings: e.findings.into_iter().map(convert::lint_finding).collect(),
        deprecations: e.deprecations,
        resolution: e.resolution.map(|r| match r {
            Resolution::Resolves { next, passed_over } => pb::NamespaceResolution {
                outcome: "resolves".into(),
                next: next.unwrap_or_default(),
                error: String::new(),
                passed_over: passed_over.into_iter().map(convert::passed_over).collect(),
            },
            Resolution::Fails { error } => pb::NamespaceResolution {
                outcome: "fails".into(),
                error,
                ..pb::NamespaceResolution::default()
            },
        }),
    }
}

fn extension(e: ExtensionExplanation) -> pb::ExtensionExplanation {
    pb::ExtensionExplanation {
        extension: e.extension,
        package: e.package,
        installed: e.installed,
        installed_version: e.installed_version,
        path: e.path,
        summary: e.summary,
        left_out: e
            .left_out
            .into_iter()
            .map(|r| pb::LeftOut {
                name: r.name,
                version: r.version,
                reason: r.reason,
            })
            .collect(),
        fixes: e.fixes,
        warnings: e.warnings,
    }
}

/// A `cluster-upgrade` verdict.
pub fn verdict(v: Verdict) -> pb::UpgradeVerdict {
    let i = v.installed;
    let mut out = pb::UpgradeVerdict {
        owner: i.owner,
        package: i.package,
        bundle: i.bundle,
        channel: i.channel,
        olm: match i.olm {
            Olm::V0 => "v0",
            Olm::V1 => "v1",
        }
        .into(),
        max: v.max.map(|m| m.to_string()).unwrap_or_default(),
        error: v.error.unwrap_or_default(),
        read_from: match v.read_from {
            MaxSource::Cluster => "cluster",
            MaxSource::Catalog => "catalog",
            MaxSource::Unknown => "unknown",
        }
        .into(),
        blocks: v.blocks,
        ..pb::UpgradeVerdict::default()
    };
    match v.way_out {
        WayOut::None => out.way_out = "none".into(),
        WayOut::Upgrade { path, max } => {
            out.way_out = "upgrade".into();
            out.path = path;
            out.path_max = max.map(|m| m.to_string()).unwrap_or_default();
        }
        WayOut::Uninstall { reason } => {
            out.way_out = "uninstall".into();
            out.uninstall_reason = reason;
        }
    }
    out
}

/// Inserts `key: value` into `object` unless `value` is an empty string or list.
fn put(object: &mut Value, key: &str, value: Value) {
    let empty = match &value {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Null => true,
        _ => false,
    };
    if let (false, Value::Object(map)) = (empty, object) {
        map.insert(key.to_string(), value);
    }
}

/// `explain-upgrade -o json`.
pub fn report_json(r: &pb::ExplainUpgradeResponse) -> Value {
    let subscriptions: Vec<Value> = r.subscriptions.iter().map(subscription_json).collect();
    let extensions: Vec<Value> = r.extensions.iter().map(extension_json).collect();
    json!({
        "subscriptions": subscriptions,
        "extensions": extensions,
        "problems": r.problems,
        "stuck": r.stuck,
    })
}

fn subscription_json(e: &pb::SubscriptionExplanation) -> Value {
    let mut v = json!({
        "subscription": e.subscription, "package": e.package, "channel": e.channel,
        "installed": e.installed, "head": e.head, "path": e.path,
        "summary": e.summary, "fixes": e.fixes,
    });
    let findings: Vec<Value> = e
        .findings
        .iter()
        .map(|f| json!({"check": f.check, "channel": f.channel, "entry": f.entry, "message": f.message}))
        .collect();
    put(&mut v, "findings", json!(findings));
    put(&mut v, "deprecations", json!(e.deprecations));
    if let Some(r) = &e.resolution {
        let mut resolution = json!({"outcome": r.outcome});
        put(&mut resolution, "next", json!(r.next));
        put(&mut resolution, "error", json!(r.error));
        let passed: Vec<Value> = r
            .passed_over
            .iter()
            .map(|p| {
                let reasons: Vec<Value> = p
                    .reasons
                    .iter()
                    .map(|x| json!({"olm": x.olm, "plain": x.plain}))
                    .collect();
                json!({"candidate": p.candidate, "reasons": reasons})
            })
            .collect();
        put(&mut resolution, "passedOver", json!(passed));
        put(&mut v, "resolution", resolution);
    }
    v
}

fn extension_json(e: &pb::ExtensionExplanation) -> Value {
    let mut v = json!({
        "extension": e.extension, "package": e.package, "installed": e.installed,
        "installedVersion": e.installed_version, "path": e.path,
        "summary": e.summary, "fixes": e.fixes, "warnings": e.warnings,
    });
    let left: Vec<Value> = e
        .left_out
        .iter()
        .map(|l| json!({"name": l.name, "version": l.version, "reason": l.reason}))
        .collect();
    put(&mut v, "leftOut", json!(left));
    v
}

/// `explain-upgrade`, for people: a paragraph per object.
pub fn report_text(r: &pb::ExplainUpgradeResponse) -> Vec<String> {
    let mut lines = Vec::new();
    for e in &r.subscriptions {
        let installed = if e.installed.is_empty() {
            "nothing installed"
        } else {
            &e.installed
        };
        lines.push(format!(
            "Subscription {} (package {}, OLM v0): {installed}; channel {:?}, head {}",
            e.subscription, e.package, e.channel, e.head
        ));
        lines.push(format!("  {}", e.summary));
        if e.path.len() > 1 {
            lines.push(format!("  path: {}", e.path.join(" -> ")));
        }
        lines.extend(e.deprecations.iter().map(|d| format!("  deprecated: {d}")));
        lines.extend(e.fixes.iter().map(|f| format!("  fix: {f}")));
        lines.extend(
            e.findings
                .iter()
                .map(|f| format!("  lint: {}", crate::views::graph::json::finding_text(f))),
        );
    }
    for e in &r.extensions {
        let installed = if e.installed.is_empty() {
            "nothing installed"
        } else {
            &e.installed
        };
        lines.push(format!(
            "ClusterExtension {} (package {}, OLM v1): {installed}",
            e.extension, e.package
        ));
        lines.push(format!("  {}", e.summary));
        if e.path.len() > 1 {
            lines.push(format!("  path: {}", e.path.join(" -> ")));
        }
        lines.extend(
            e.left_out
                .iter()
                .skip(1)
                .take(5)
                .map(|l| format!("  also left out: {} ({})", l.name, l.reason)),
        );
        lines.extend(e.fixes.iter().map(|f| format!("  fix: {f}")));
        lines.extend(e.warnings.iter().map(|w| format!("  warning: {w}")));
    }
    lines.extend(r.problems.iter().map(|p| format!("cannot explain: {p}")));
    if r.subscriptions.is_empty() && r.extensions.is_empty() && r.problems.is_empty() {
        lines.push("the cluster state has no Subscription and no ClusterExtension".into());
    }
    lines
}

/// `cluster-upgrade -o json`.
pub fn verdicts_json(r: &pb::CheckClusterUpgradeResponse) -> Value {
    let verdicts: Vec<Value> = r
        .verdicts
        .iter()
        .map(|v| {
            let installed = json!({
                "owner": v.owner, "package": v.package, "bundle": v.bundle,
                "channel": v.channel, "olm": v.olm.to_uppercase(),
            });
            let way_out = match v.way_out.as_str() {
                "upgrade" => {
                    let mut w = json!({"kind": "upgrade", "path": v.path});
                    put(&mut w, "max", json!(v.path_max));
                    w
                }
                "uninstall" => json!({"kind": "uninstall", "reason": v.uninstall_reason}),
                _ => json!({"kind": "none"}),
            };
            let mut out = json!({
                "installed": installed, "readFrom": v.read_from,
                "blocks": v.blocks, "wayOut": way_out,
            });
            put(&mut out, "max", json!(v.max));
            put(&mut out, "error", json!(v.error));
            out
        })
        .collect();
    json!({"to": r.to, "verdicts": verdicts, "notes": r.notes, "blocked": r.blocked})
}

/// `cluster-upgrade`, for people: a line per installed bundle, then the notes.
pub fn verdicts_text(r: &pb::CheckClusterUpgradeResponse) -> Vec<String> {
    let mut lines: Vec<String> = r.verdicts.iter().map(verdict_line).collect();
    lines.extend(r.notes.iter().map(|n| format!("note: {n}")));
    lines
}

fn verdict_line(v: &pb::UpgradeVerdict) -> String {
    let max = match (v.max.as_str(), v.error.as_str(), v.read_from.as_str()) {
        // OLM v1 joins several errors with line breaks; one line per bundle here
        (_, e, _) if !e.is_empty() => {
            format!("invalid olm.maxOpenShiftVersion ({})", e.replace('\n', "; "))
        }
        (_, _, "unknown") => "max OpenShift version unknown (the catalog has no such bundle and the cluster state no CSV for it)".into(),
        ("", _, _) => "no olm.maxOpenShiftVersion".into(),
        (m, _, from) => format!("max OpenShift {m} (read from the {from})"),
    };
    let what = match v.way_out.as_str() {
        "upgrade" => format!("BLOCKS: upgrade first, through {}", v.path.join(" -> ")),
        "uninstall" => format!("BLOCKS: uninstall it ({})", v.uninstall_reason),
        _ => "does not block".to_owned(),
    };
    format!(
        "{} {} (OLM {}, {}): {max}: {what}",
        v.package, v.bundle, v.olm, v.owner
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn olm_v1_errors_of_several_lines_stay_on_their_bundle_s_line() {
        let v = pb::UpgradeVerdict {
            owner: "ClusterExtension/argocd".into(),
            package: "argocd".into(),
            bundle: "argocd.v0.9.0".into(),
            olm: "v1".into(),
            error: "first error\nsecond error".into(),
            blocks: true,
            way_out: "uninstall".into(),
            uninstall_reason: "no newer bundle".into(),
            ..Default::default()
        };
        let line = verdict_line(&v);
        assert!(!line.contains('\n'), "{line}");
        assert!(
            line.contains("invalid olm.maxOpenShiftVersion (first error; second error)"),
            "{line}"
        );
    }
}
