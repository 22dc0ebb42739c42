//! The `near-known-name` check: property types and CSV annotations a letter or
//! two away from the ones OLM reads (`olm.skiprange`), which OLM then ignores.
//!
//! In: a package's bundles. Out: findings pushed onto the lint's list.

use super::{LintWarning, Severity, finding};
use crate::model::{Bundle, Package};

/// Property types OLM knows.
const KNOWN_PROPERTIES: &[&str] = &[
    "olm.bundle.mediatype",
    "olm.package",
    "olm.package.required",
    "olm.gvk",
    "olm.gvk.required",
    "olm.bundle.object",
    "olm.csv.metadata",
    "olm.constraint",
    "olm.label",
    "olm.label.required",
    "olm.channel",
    "olm.deprecated",
    "olm.maxOpenShiftVersion",
    "olm.substitutesFor",
];

/// CSV annotations OLM reads.
const KNOWN_ANNOTATIONS: &[&str] = &[
    "olm.skipRange",
    "olm.substitutesFor",
    "olm.properties",
    "olm.maxOpenShiftVersion",
    "olm.operatorGroup",
    "olm.targetNamespaces",
];

pub(super) fn name_checks(p: &Package, b: &Bundle, out: &mut Vec<LintWarning>) {
    for prop in &b.properties {
        if let Some(known) = near_known(&prop.typ, KNOWN_PROPERTIES) {
            out.push(finding(
                "near-known-name",
                Severity::Warning,
                &b.origin,
                p,
                "",
                &b.name,
                format!(
                    "property type {:?} is not one OLM knows; did you mean {known:?}?",
                    prop.typ
                ),
            ));
        }
    }
    for key in annotation_keys(p, b) {
        if let Some(known) = near_known(&key, KNOWN_ANNOTATIONS) {
            out.push(finding(
                "near-known-name",
                Severity::Warning,
                &b.origin,
                p,
                "",
                &b.name,
                format!("CSV annotation {key:?} is not one OLM reads; did you mean {known:?}?"),
            ));
        }
    }
}

/// The annotation keys of a bundle's CSV (embedded, or synthesised from `olm.csv.metadata`).
fn annotation_keys(p: &Package, b: &Bundle) -> Vec<String> {
    let csv: Option<serde_json::Value> =
        crate::model::csv::csv_json(p, b).and_then(|j| serde_json::from_slice(&j).ok());
    csv.as_ref()
        .and_then(|c| c.pointer("/metadata/annotations"))
        .and_then(|a| a.as_object())
        .map(|a| a.keys().cloned().collect())
        .unwrap_or_default()
}

/// The known name `name` is one or two edits (or only letter case) away from.
fn near_known(name: &str, known: &[&'static str]) -> Option<&'static str> {
    if known.contains(&name) {
        return None;
    }
    known.iter().copied().find(|k| {
        k.eq_ignore_ascii_case(name)
            || (name.len() > 4
                && k.len().abs_diff(name.len()) <= 2
                && super::super::edit_distance(name, k) <= 2)
    })
}
