//! Target profiles for `lint --target` and `validate --target`: is this catalog
//! right for a given consumer?
//!
//! In: a catalog's tables (all packages, or one) and a [`Target`]. Out: lint
//! findings, each with the file, document and line of the blob at fault, in lint's
//! order. The targets:
//! - `olm-v1`: can OLM v1 install each bundle ([`super::readiness`]);
//! - `console`: what the OpenShift console needs from any catalog — a CSV for
//!   every channel head (`olm.bundle.object` or `olm.csv.metadata`; both is
//!   flagged), images pinned by digest (advised), an icon the console can show;
//! - `ocp-4.Y`: the console's needs on that release — the metadata form the
//!   release requires (≤ 4.16: `olm.bundle.object` only; ≥ 4.17, and 5.x:
//!   `olm.csv.metadata` only), images pinned by digest (mirroring needs them),
//!   and `olm.maxOpenShiftVersion` values that a 4.Y cluster would trip on.
//!
//! Deprecation entries that name no real object, and malformed image references
//! or digests, are not checked here: loading refuses the catalog for them (as opm
//! does), naming the entry.

use super::openshift::{MinorVersion, Reader};
use super::readiness;
use super::upgrade::catalog_max;
use crate::graph::lint::{LintWarning, Severity};
use crate::graph::{GraphError, find_package};
use crate::model::{Bundle, Package};
use crate::tables::Tables;
use std::collections::BTreeSet;

/// Whom the catalog is checked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// OLM v1 (operator-controller).
    OlmV1,
    /// The OpenShift console, any release.
    Console,
    /// OpenShift at this minor version.
    Ocp(MinorVersion),
}

/// The icon media types the console shows.
const ICON_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/svg+xml"];
/// An icon larger than this is flagged: every package list the console loads carries it.
pub const ICON_ADVISED_BYTES: usize = 100 * 1024;

impl Target {
    /// `olm-v1`, `console` or `ocp-4.Y`.
    pub fn parse(text: &str) -> Result<Target, String> {
        match text {
            "olm-v1" => Ok(Target::OlmV1),
            "console" => Ok(Target::Console),
            other => match other.strip_prefix("ocp-") {
                Some(version) => MinorVersion::parse_target(version).map(Target::Ocp),
                None => Err(format!(
                    "unknown target {:?}: known targets: olm-v1, console, ocp-4.Y",
                    other.chars().take(64).collect::<String>()
                )),
            },
        }
    }

    /// Whether OpenShift at this release wants `olm.csv.metadata` (≥ 4.17, and 5.x;
    /// Konflux's check classes 5.0 with ≤ 4.16, which is its bug, not the rule).
    fn wants_csv_metadata(self) -> Option<bool> {
        match self {
            Target::Ocp(v) => Some((v.major, v.minor) >= (4, 17)),
            _ => None,
        }
    }
}

/// The findings of `target` for every package (or the one named).
pub fn lint(
    tables: &Tables,
    package: Option<&str>,
    target: Target,
) -> Result<Vec<LintWarning>, GraphError> {
    if target == Target::OlmV1 {
        return readiness::lint(tables, package);
    }
    let packages: Vec<&Package> = match package {
        Some(name) => vec![find_package(tables, name)?.1],
        None => tables.packages().iter().collect(),
    };
    let mut out = Vec::new();
    for p in packages {
        icon(p, &mut out);
        let heads: BTreeSet<&str> = p
            .channels
            .iter()
            .map(|c| c.head_entry().name.as_str())
            .collect();
        for b in &p.bundles {
            metadata_form(p, b, heads.contains(b.name.as_str()), target, &mut out);
            images(p, b, target, &mut out);
            if let Target::Ocp(version) = target {
                max_openshift(p, b, version, &mut out);
            }
        }
    }
    out.sort_by(|a, b| {
        (&a.package, &a.entry, a.check, &a.message)
            .cmp(&(&b.package, &b.entry, b.check, &b.message))
    });
    Ok(out)
}

/// A finding about bundle `b` of `p`.
fn about(
    p: &Package,
    b: &Bundle,
    check: &'static str,
    severity: Severity,
    message: String,
) -> LintWarning {
    LintWarning {
        check,
        severity,
        file: b.origin.file.to_string(),
        document: b.origin.document,
        line: b.origin.line,
        package: p.name.clone(),
        channel: String::new(),
        entry: b.name.clone(),
        message,
    }
}

/// The CSV the console reads: the form the target needs, and a CSV for every head.
fn metadata_form(p: &Package, b: &Bundle, head: bool, target: Target, out: &mut Vec<LintWarning>) {
    let has = |typ: &str| b.properties.iter().any(|x| x.typ == typ);
    let (object, metadata) = (has("olm.bundle.object"), has("olm.csv.metadata"));
    let mut say =
        |severity, message: String| out.push(about(p, b, "metadataForm", severity, message));
    match target.wants_csv_metadata() {
        Some(wants_metadata) => {
            let Target::Ocp(v) = target else { return };
            let (needed, refused) = if wants_metadata {
                ("olm.csv.metadata", "olm.bundle.object")
            } else {
                ("olm.bundle.object", "olm.csv.metadata")
            };
            let (has_needed, has_refused) = if wants_metadata {
                (metadata, object)
            } else {
                (object, metadata)
            };
            if has_refused {
                say(Severity::Warning, format!(
                    "{refused} bundle properties are not permitted in a FBC fragment for OCP version {v}. Fragments must move to {needed} bundle metadata."
                ));
            }
            if !has_needed {
                say(Severity::Warning, format!(
                    "every olm.bundle object in the fragment must have a corresponding {needed} bundle property (OCP {v})"
                ));
            }
        }
        None if !object && !metadata && head => say(
            Severity::Warning,
            "neither olm.csv.metadata nor olm.bundle.object: it heads a channel, and the console drops a channel whose head has no CSV".into(),
        ),
        None if !object && !metadata => say(
            Severity::Info,
            "neither olm.csv.metadata nor olm.bundle.object: the console shows nothing of it should it head a channel".into(),
        ),
        None if object && metadata => say(
            Severity::Info,
            "both olm.bundle.object and olm.csv.metadata: opm serves the olm.bundle.object CSV, and Konflux's FBC check refuses the pair for every OpenShift release".into(),
        ),
        None => {}
    }
}

/// The bundle image and related images: pinned by digest.
fn images(p: &Package, b: &Bundle, target: Target, out: &mut Vec<LintWarning>) {
    let named = std::iter::once(("image", b.image.as_str()))
        .filter(|(_, image)| !image.is_empty())
        .chain(
            b.related_images
                .iter()
                .map(|r| ("related image", r.image.as_str())),
        );
    let pinned_needed = matches!(target, Target::Ocp(_));
    // loading has refused malformed references and digests already (as opm does)
    for (what, image) in named {
        if !image.contains('@') {
            out.push(about(
                p,
                b,
                "imageDigest",
                if pinned_needed { Severity::Warning } else { Severity::Info },
                format!(
                    "{what} {image:?} is not pinned by digest: a mirror (oc-mirror, an ImageDigestMirrorSet) maps digests only, so a disconnected cluster cannot pull it"
                ),
            ));
        }
    }
}

/// The package icon: a type the console shows, bytes of that type, a sensible size.
fn icon(p: &Package, out: &mut Vec<LintWarning>) {
    let Some(icon) = &p.icon else { return };
    let mut say = |severity, message: String| {
        out.push(LintWarning {
            check: "icon",
            severity,
            file: p.origin.file.to_string(),
            document: p.origin.document,
            line: p.origin.line,
            package: p.name.clone(),
            channel: String::new(),
            entry: String::new(),
            message,
        })
    };
    let media = icon.media_type.to_ascii_lowercase();
    if !ICON_TYPES.contains(&media.as_str()) {
        say(
            Severity::Warning,
            format!(
                "icon mediatype {:?} is not one the console shows ({})",
                icon.media_type,
                ICON_TYPES.join(", ")
            ),
        );
    } else if let Some(found) = sniff(&icon.data).filter(|found| *found != media) {
        say(
            Severity::Warning,
            format!(
                "icon mediatype is {:?} but its data is {found}",
                icon.media_type
            ),
        );
    }
    if icon.data.is_empty() {
        say(Severity::Warning, "icon has no data".into());
    } else if icon.data.len() > ICON_ADVISED_BYTES {
        say(
            Severity::Info,
            format!(
                "icon is {} bytes, more than {ICON_ADVISED_BYTES}: every package list the console loads carries it",
                icon.data.len()
            ),
        );
    }
}

/// The image type `data` starts like, when it is one of the console's.
fn sniff(data: &[u8]) -> Option<&'static str> {
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if data.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if data.starts_with(b"GIF87a") || data.starts_with(b"GIF89a") {
        Some("image/gif")
    } else {
        let head = String::from_utf8_lossy(&data[..data.len().min(512)]).to_ascii_lowercase();
        head.contains("<svg").then_some("image/svg+xml")
    }
}

/// `olm.maxOpenShiftVersion` as OLM v0 reads it, against the target release.
fn max_openshift(p: &Package, b: &Bundle, target: MinorVersion, out: &mut Vec<LintWarning>) {
    match catalog_max(b, Reader::V0) {
        Err(e) => out.push(about(p, b, "maxOpenShiftVersion", Severity::Warning, format!(
            "olm.maxOpenShiftVersion does not read ({e}): installed, it blocks every OpenShift minor upgrade"
        ))),
        Ok(Some(max)) if max.blocks(target) => out.push(about(p, b, "maxOpenShiftVersion", Severity::Warning, format!(
            "olm.maxOpenShiftVersion {max} is below OpenShift {target}: a {target} cluster reports it incompatible, and it blocks that cluster's next minor upgrade"
        ))),
        Ok(Some(max)) if max.normalized() == target.normalized() => out.push(about(p, b, "maxOpenShiftVersion", Severity::Info, format!(
            "olm.maxOpenShiftVersion {max}: installed on OpenShift {target}, it blocks the upgrade to the next minor"
        ))),
        Ok(_) => {}
    }
}

#[cfg(test)]
mod tests;
