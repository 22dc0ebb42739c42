//! The package page's "OLM v1" section: can OLM v1 install each bundle, and why not.
//!
//! In: a package. Out: HTML — the default channel head's verdict in a sentence,
//! then a table of every bundle (newest first) with its reasons by rule, each
//! marked as a refusal, a feature gate or something only the bundle image shows.
//! The rules are [`fbc_catalog::cluster::readiness`]'s.

use super::html::{encode, escape};
use fbc_catalog::cluster::readiness::{Weight, readiness};
use fbc_catalog::model::Package;
use std::fmt::Write;

/// The words for a reason's weight.
fn weight(w: Weight) -> &'static str {
    match w {
        Weight::Refused => "refused",
        Weight::NeedsGate => "needs a feature gate",
        Weight::Unknown => "not in the catalog",
    }
}

/// Writes the section for `package` of `catalog`.
pub fn section(out: &mut String, package: &Package, catalog: &str) {
    let mut rows: Vec<_> = package
        .bundles
        .iter()
        .map(|b| (b, readiness(package, b)))
        .collect();
    rows.sort_by(|(a, _), (b, _)| b.version.cmp(&a.version).then_with(|| a.name.cmp(&b.name)));
    let installable = rows.iter().filter(|(_, r)| r.installable).count();
    let head = package
        .channels
        .iter()
        .find(|c| c.name == package.default_channel)
        .map(|c| c.head_entry().name.as_str())
        .unwrap_or_default();
    let head_ready = rows.iter().any(|(b, r)| b.name == head && r.installable);
    let _ = write!(
        out,
        "<section class=\"readiness\" id=\"olm-v1\"><h2>OLM v1</h2><p class=\"verdict {}\">{}: OLM v1 {} install the head of channel {} ({}). {installable} of {} bundles are installable. <a href=\"/catalogs/{}/api/v1/readiness?package={}\">JSON</a></p>",
        if head_ready { "yes" } else { "no" },
        if head_ready {
            "Installable"
        } else {
            "Not installable"
        },
        if head_ready { "can" } else { "cannot" },
        escape(&package.default_channel),
        escape(head),
        rows.len(),
        encode(catalog),
        encode(&package.name),
    );
    out.push_str(
        "<table><thead><tr><th>Bundle</th><th>OLM v1</th><th>Reasons</th></tr></thead><tbody>",
    );
    for (bundle, r) in &rows {
        let reasons: String = r
            .reasons
            .iter()
            .map(|x| {
                format!(
                    "<li class=\"{}\"><span class=\"rule\">{}</span> ({}): {}</li>",
                    match x.weight {
                        Weight::Refused => "refused",
                        Weight::NeedsGate => "gate",
                        Weight::Unknown => "unknown",
                    },
                    x.rule,
                    weight(x.weight),
                    escape(&x.message)
                )
            })
            .collect();
        let _ = write!(
            out,
            "<tr data-bundle=\"{}\"><td>{}</td><td>{}</td><td><ul>{reasons}</ul></td></tr>",
            escape(&bundle.name),
            escape(&bundle.name),
            if r.installable {
                "installable"
            } else {
                "refused"
            },
        );
    }
    out.push_str("</tbody></table></section>\n");
}
