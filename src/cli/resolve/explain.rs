//! `resolve --explain` output: the reply's [`pb::Explanation`] as JSON (the
//! field names of `fbc_catalog::resolve::explain`) and as text for people.

use crate::fbc_v1 as pb;
use serde_json::{Value, json};

fn reason(r: &pb::Reason) -> Value {
    json!({"olm": r.olm, "plain": r.plain})
}

/// `{"minimal_unsat_constraints": [...]}` or `{"choices": [...]}`.
pub fn json(e: &pb::Explanation) -> Value {
    let mut out = serde_json::Map::new();
    if !e.minimal_unsat_constraints.is_empty() {
        out.insert(
            "minimal_unsat_constraints".into(),
            e.minimal_unsat_constraints.iter().map(reason).collect(),
        );
    }
    if !e.choices.is_empty() {
        let choices = e.choices.iter().map(|c| {
            let mut v = json!({
                "operator": c.operator, "package": c.package, "channel": c.channel,
                "because": c.because.as_ref().map(reason), "rank": c.rank, "candidates": c.candidates,
            });
            if !c.passed_over.is_empty() {
                v["passed_over"] = c
                    .passed_over
                    .iter()
                    .map(|p| {
                        let mut o = json!({"candidate": p.candidate,
                            "reasons": p.reasons.iter().map(reason).collect::<Vec<_>>()});
                        if !p.given_choices.is_empty() {
                            o["given_choices"] = json!(p.given_choices);
                        }
                        o
                    })
                    .collect();
            }
            if !c.less_preferred.is_empty() {
                v["less_preferred"] = json!(c.less_preferred);
            }
            v
        });
        out.insert("choices".into(), choices.collect());
    }
    Value::Object(out)
}

/// The explanation as indented lines, plain words first.
pub fn text(e: &pb::Explanation) -> Vec<String> {
    let mut out = Vec::new();
    if !e.minimal_unsat_constraints.is_empty() {
        out.push(String::new());
        out.push("why (no constraint below can be dropped):".into());
        for r in &e.minimal_unsat_constraints {
            out.push(format!("  - {}", r.plain));
            out.push(format!("    OLM: {}", r.olm));
        }
    }
    for c in &e.choices {
        out.push(String::new());
        out.push(format!("why {} ({}/{}):", c.operator, c.package, c.channel));
        if let Some(b) = &c.because {
            out.push(format!("  {}", b.plain));
            out.push(format!("  OLM: {}", b.olm));
        }
        for p in &c.passed_over {
            out.push(format!("  passed over {}:", p.candidate));
            for r in &p.reasons {
                out.push(format!("    - {}", r.plain));
                out.push(format!("      OLM: {}", r.olm));
            }
            if !p.given_choices.is_empty() {
                out.push(format!("    given: {}", p.given_choices.join(", ")));
            }
        }
        if !c.less_preferred.is_empty() {
            out.push(format!("  not needed: {}", c.less_preferred.join(", ")));
        }
    }
    out
}
