//! `fbc.v1` replies → what the graph commands print and the HTTP API serves:
//! JSON objects of the shapes the README documents, or lines for people.
//!
//! In: reply messages. Out: `serde_json::Value`s and text lines. Enum values are
//! printed by their names (`REACHED_HEAD`, `replaces`), empty fields left out.

use crate::fbc_v1 as pb;
use crate::views::graph::convert;
use serde_json::{Value, json};

/// `replaces`, `skips`, `skipRange`, `sameVersion` (as the catalog spells them).
pub fn edge_name(kind: i32) -> &'static str {
    pb::EdgeKind::try_from(kind)
        .ok()
        .and_then(convert::edge_kind_back)
        .map_or("unknown", |k| k.as_str())
}

fn non_empty(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

/// Inserts `key: value` into `object` when `value` is not empty.
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

/// `range check -o json`: `{"results":[{"version":…,"match":…},…]}`, or `{"parse_error":…}`.
pub fn range_json(r: &pb::CheckRangeResponse) -> Value {
    if !r.parse_error.is_empty() {
        return json!({ "parse_error": r.parse_error });
    }
    let results: Vec<Value> = r
        .results
        .iter()
        .map(|c| {
            let mut v = json!({ "version": c.version, "match": c.r#match });
            put(&mut v, "error", json!(c.error));
            v
        })
        .collect();
    json!({ "results": results })
}

/// `range check`, for people.
pub fn range_text(r: &pb::CheckRangeResponse) -> Vec<String> {
    if !r.parse_error.is_empty() {
        return vec![format!("range does not parse: {}", r.parse_error)];
    }
    let mut lines = vec![format!("range: {}", r.expanded)];
    for c in &r.results {
        lines.push(match non_empty(&c.error) {
            Some(e) => format!("{}\terror: {e}", c.version),
            None if c.r#match => format!("{}\tmatch", c.version),
            None => format!("{}\tno match", c.version),
        });
    }
    lines
}

fn edge_json(e: &pb::Edge) -> Value {
    let mut v = json!({ "kind": edge_name(e.kind) });
    put(&mut v, "channel", json!(e.channel));
    put(&mut v, "skipRange", json!(e.skip_range));
    v
}

/// `successors -o json`: `{"candidates":[{"name":…,"version":…},…],"selected":NAME|null}`
/// plus whatever else the answer has.
pub fn successors_json(r: &pb::GetSuccessorsResponse) -> Value {
    let candidates: Vec<Value> = r
        .candidates
        .iter()
        .map(|c| {
            let mut v = json!({ "name": c.name, "version": c.version });
            put(&mut v, "release", json!(c.release));
            put(&mut v, "channels", json!(c.channels));
            put(
                &mut v,
                "edges",
                Value::Array(c.edges.iter().map(edge_json).collect()),
            );
            if c.deprecated {
                v["deprecated"] = json!(c.deprecation_message);
            }
            v
        })
        .collect();
    let mut out = json!({ "candidates": candidates, "selected": non_empty(&r.selected) });
    put(&mut out, "message", json!(r.message));
    put(&mut out, "bestZStream", json!(r.best_z_stream));
    put(&mut out, "bestYStream", json!(r.best_y_stream));
    put(&mut out, "warnings", json!(r.warnings));
    let rejected: Vec<Value> = r
        .rejected
        .iter()
        .map(|x| json!({ "name": x.name, "version": x.version, "reason": x.reason }))
        .collect();
    put(&mut out, "rejected", Value::Array(rejected));
    out
}

/// `successors`, for people.
pub fn successors_text(r: &pb::GetSuccessorsResponse) -> Vec<String> {
    let mut lines = Vec::new();
    match non_empty(&r.selected) {
        Some(s) => lines.push(format!("selected: {s}")),
        None => lines.push(format!("no successor: {}", r.message)),
    }
    for c in &r.candidates {
        let edges: Vec<String> = c
            .edges
            .iter()
            .map(
                |e| match (non_empty(&e.channel), non_empty(&e.skip_range)) {
                    (Some(ch), Some(range)) => format!("{} {range:?} in {ch}", edge_name(e.kind)),
                    (Some(ch), None) => format!("{} in {ch}", edge_name(e.kind)),
                    _ => edge_name(e.kind).to_string(),
                },
            )
            .collect();
        let mut line = format!("  {}\t{}", c.name, c.version);
        if !edges.is_empty() {
            line.push_str(&format!("\t{}", edges.join(", ")));
        }
        if c.deprecated {
            line.push_str("\t(deprecated)");
        }
        lines.push(line);
    }
    for (label, value) in [
        ("best z-stream", &r.best_z_stream),
        ("best y-stream", &r.best_y_stream),
    ] {
        if let Some(v) = non_empty(value) {
            lines.push(format!("{label}: {v}"));
        }
    }
    lines.extend(r.warnings.iter().map(|w| format!("warning: {w}")));
    lines.extend(
        r.rejected
            .iter()
            .map(|x| format!("not {} ({}): {}", x.name, x.version, x.reason)),
    );
    lines
}

fn outcome_name(outcome: i32) -> &'static str {
    pb::Outcome::try_from(outcome).map_or("OUTCOME_UNSPECIFIED", |o| o.as_str_name())
}

/// `upgrade-path -o json`: `{"steps":[{"from":…,"to":…,"edge":…},…],"outcome":…}`.
pub fn path_json(r: &pb::GetUpgradePathResponse) -> Value {
    let steps: Vec<Value> = r
        .steps
        .iter()
        .map(|s| {
            let mut v = json!({ "from": s.from, "to": s.to, "edge": edge_name(s.edge) });
            put(&mut v, "alternatives", json!(s.alternatives));
            v
        })
        .collect();
    let mut out =
        json!({ "steps": steps, "outcome": outcome_name(r.outcome), "channel": r.channel });
    put(&mut out, "stuckReason", json!(r.stuck_reason));
    out
}

/// `upgrade-path`, for people.
pub fn path_text(r: &pb::GetUpgradePathResponse) -> Vec<String> {
    let mut lines: Vec<String> = r
        .steps
        .iter()
        .map(|s| {
            let mut line = format!("{} -> {} ({})", s.from, s.to, edge_name(s.edge));
            if !s.alternatives.is_empty() {
                line.push_str(&format!("; also offered: {}", s.alternatives.join(", ")));
            }
            line
        })
        .collect();
    let mut end = format!("{} in channel {}", outcome_name(r.outcome), r.channel);
    if let Some(reason) = non_empty(&r.stuck_reason) {
        end.push_str(&format!(": {reason}"));
    }
    lines.push(end);
    lines
}

fn severity_name(severity: i32) -> &'static str {
    match pb::Severity::try_from(severity) {
        Ok(pb::Severity::Info) => "info",
        _ => "warning",
    }
}

/// One lint finding as a line.
pub fn finding_text(f: &pb::LintFinding) -> String {
    let mut line = format!(
        "{}: {}: document {} (line {}): package {:?}",
        severity_name(f.severity),
        f.file,
        f.document,
        f.line,
        f.package
    );
    if let Some(c) = non_empty(&f.channel) {
        line.push_str(&format!(", channel {c:?}"));
    }
    if let Some(e) = non_empty(&f.entry) {
        line.push_str(&format!(", entry {e:?}"));
    }
    line.push_str(&format!(": {} [{}]", f.message, f.check));
    line
}

/// `lint -o json`: `{"findings":[…],"warnings":n,"info":n}`.
pub fn lint_json(r: &pb::LintResponse) -> Value {
    let findings: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            let mut v = json!({
                "check": f.check, "severity": severity_name(f.severity),
                "file": f.file, "document": f.document, "line": f.line, "package": f.package,
            });
            put(&mut v, "channel", json!(f.channel));
            put(&mut v, "entry", json!(f.entry));
            v["message"] = json!(f.message);
            v
        })
        .collect();
    let (warnings, info) = counts(r);
    let mut out = json!({ "findings": findings, "warnings": warnings, "info": info });
    if r.truncated {
        out["truncated"] = json!(true);
    }
    if let Some(ready) = &r.readiness {
        let rules = |list: &[pb::RuleCount]| -> Vec<Value> {
            list.iter()
                .map(|c| json!({"rule": c.rule, "weight": c.weight, "count": c.count}))
                .collect()
        };
        out["readiness"] = json!({
            "packages": ready.packages, "installablePackages": ready.installable_packages,
            "bundles": ready.bundles, "installableBundles": ready.installable_bundles,
            "headsByRule": rules(&ready.heads_by_rule), "bundlesByRule": rules(&ready.bundles_by_rule),
        });
    }
    out
}

/// `lint --target olm-v1`'s sum, for people: "n of m packages installable, by reason".
pub fn readiness_text(r: &pb::ReadinessSummary) -> String {
    let rules = |list: &[pb::RuleCount]| -> String {
        if list.is_empty() {
            return "none".into();
        }
        list.iter()
            .map(|c| format!("{} {} {}", c.rule, c.weight, c.count))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "OLM v1: {} of {} packages installable (their default channel's head; by reason: {}); {} of {} bundles (by reason: {})",
        r.installable_packages,
        r.packages,
        rules(&r.heads_by_rule),
        r.installable_bundles,
        r.bundles,
        rules(&r.bundles_by_rule)
    )
}

/// (warnings, info findings).
pub fn counts(r: &pb::LintResponse) -> (usize, usize) {
    let warnings = r
        .findings
        .iter()
        .filter(|f| f.severity == pb::Severity::Warning as i32)
        .count();
    (warnings, r.findings.len() - warnings)
}
