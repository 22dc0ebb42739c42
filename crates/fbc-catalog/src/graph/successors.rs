//! OLM v1's successors: the bundles an installed bundle may move to.
//!
//! In: the tables and a [`SuccessorQuery`] (package, installed bundle, version
//! range, channels, policy). Out: [`Successors`]: the candidates in v1's order with
//! the edges that allow each, the one v1 would pick, v1's message when there is
//! none, warnings, the best z-stream and y-stream candidates, and, on request, why
//! every other bundle was left out.
//!
//! The rules, as operator-controller applies them (`resolve/catalog.go`,
//! `filter/successors.go`):
//! 1. only bundles that are entries of the considered channels (all, or those
//!    named) take part, and only those channels' entries give edges;
//! 2. a version range (Masterminds grammar) applies to the version part only;
//! 3. with an installed bundle and the `CatalogProvided` policy, a candidate needs
//!    a **direct** edge: one of its entries replaces the installed bundle, skips
//!    it, or has a skipRange (blang) containing its version — or it has the
//!    installed (version, release) itself. No chain walk; skipped entries stay
//!    visible (unlike OLM v0). `SelfCertified` adds no such test, so any bundle in
//!    range is eligible, downgrades included;
//! 4. order: bundles deprecated by `olm.deprecations` last, then (version,
//!    release) highest first; the first is selected.

use super::channel_index::ChannelIndex;
use super::{Edge, EdgeKind, GraphError, find_package};
use crate::model::{Bundle, Package};
use crate::tables::Tables;
use crate::version_range::masterminds;
use crate::version_range::release::{Release, VersionRelease};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;

/// OLM v1's upgrade constraint policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Policy {
    /// Only catalog-declared edges (the default).
    #[default]
    CatalogProvided,
    /// Any version in range, downgrades included.
    SelfCertified,
}

/// How a bundle's release is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum ReleaseMode {
    /// Build metadata that parses as a release is the release (`1.0.0+2`): OLM v1's
    /// default.
    #[default]
    Legacy,
    /// The `olm.package` property's `release` field (feature gate `BundleReleaseSupport`).
    Explicit,
}

/// The installed bundle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Installed {
    /// Its name.
    pub name: String,
    /// Its version, as recorded (`1.0.0`, `1.0.0+2`).
    pub version: String,
    /// Its release, when recorded separately.
    pub release: Option<String>,
}

/// A successor question.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuccessorQuery {
    /// The package.
    pub package: String,
    /// The installed bundle, if any.
    pub installed: Option<Installed>,
    /// A Masterminds version range, if any.
    pub version_range: Option<String>,
    /// Channels to consider (empty: all).
    pub channels: Vec<String>,
    /// Upgrade constraint policy.
    pub policy: Policy,
    /// How releases are read.
    pub release_mode: ReleaseMode,
    /// Also say why every other bundle is not a candidate.
    pub explain: bool,
}

/// A bundle that qualifies, with the edges that allow it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// Bundle name.
    pub name: String,
    /// Its version (without the release).
    pub version: String,
    /// Its release, or empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub release: String,
    /// The considered channels it is an entry of.
    pub channels: Vec<String>,
    /// The edges from the installed bundle (empty without one, or under `SelfCertified`).
    pub edges: Vec<Edge>,
    /// Its `olm.deprecations` message, if deprecated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
}

/// A bundle left out, and why, in plain words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejected {
    /// Bundle name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Why it is not a candidate.
    pub reason: String,
    /// Which test it failed.
    #[serde(skip)]
    pub kind: RejectKind,
}

/// The test a bundle failed, in the order they are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RejectKind {
    /// It is not an entry of a considered channel.
    NotInChannels,
    /// Its version is outside the range.
    OutsideRange,
    /// No edge from the installed bundle leads to it.
    NoEdge,
}

/// The answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Successors {
    /// Candidates in OLM v1's order.
    pub candidates: Vec<Candidate>,
    /// The one OLM v1 picks.
    pub selected: Option<String>,
    /// OLM v1's error text when there is no candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The highest candidate with the installed major and minor version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_z_stream: Option<String>,
    /// The highest candidate with the installed major version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_y_stream: Option<String>,
    /// Things worth knowing (ignored skipRanges, unknown channels, dependencies OLM v1 refuses).
    pub warnings: Vec<String>,
    /// With `explain`: every other bundle and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Rejected>,
}

/// The installed bundle's (version, release), read as OLM v1 reads it.
fn installed_version(installed: &Installed) -> Result<InstalledVersion, GraphError> {
    let invalid =
        |e: String| GraphError::InvalidArgument(format!("error finding upgrade edges: {e}"));
    // operator-controller's words (filter/successors.go, parseInstalledBundleVersionRelease
    // and legacySuccessor), under the resolver's "error finding upgrade edges"
    let release = match &installed.release {
        Some(release) => VersionRelease::parse_explicit(&installed.version, release).map_err(|e| {
            invalid(format!(
                "failed to parse installed bundle version and release: {e}"
            ))
        }),
        None => VersionRelease::parse_legacy(&installed.version).map_err(|e| {
            invalid(format!(
                "failed to get version and release of installed bundle: {e}"
            ))
        }),
    }?;
    let strict = semver::Version::parse(&installed.version).map_err(|e| {
        invalid(format!(
            "getting successorsPredicate: error parsing installed bundle version: {e}"
        ))
    })?;
    Ok(InstalledVersion { release, strict })
}

/// A bundle's (version, release) in `mode`.
pub fn bundle_version(bundle: &Bundle, mode: ReleaseMode) -> VersionRelease {
    match (mode, &bundle.release) {
        (ReleaseMode::Explicit, Some(release)) => VersionRelease {
            version: bundle.version.clone(),
            release: Release::parse(release).unwrap_or_default(),
        },
        (ReleaseMode::Explicit, None) => VersionRelease {
            version: bundle.version.clone(),
            release: Release::default(),
        },
        (ReleaseMode::Legacy, _) => VersionRelease::from_legacy(bundle.version.clone()),
    }
}

/// The question, checked: channels resolved and indexed, range parsed,
/// installed version read, the installed bundle's edges found.
struct Prepared<'a> {
    package: &'a Package,
    channels: Vec<ChannelIndex<'a>>,
    range: Option<masterminds::Constraints>,
    installed: Option<InstalledVersion>,
    /// Bundle name → the edges from the installed bundle into its entries.
    edges: HashMap<&'a str, Vec<Edge>>,
    warnings: Vec<String>,
}

/// The installed bundle as OLM v1 compares it.
struct InstalledVersion {
    release: VersionRelease,
    /// The strict (blang) version skipRanges are checked against.
    strict: semver::Version,
}

fn prepare<'a>(tables: &'a Tables, q: &SuccessorQuery) -> Result<Prepared<'a>, GraphError> {
    let (pi, package) = find_package(tables, &q.package)?;
    let mut warnings = Vec::new();
    let chosen: Vec<usize> = if q.channels.is_empty() {
        (0..package.channels.len()).collect()
    } else {
        let mut chosen = Vec::new();
        for name in &q.channels {
            match package.channels.iter().position(|c| c.name == *name) {
                Some(ci) if !chosen.contains(&ci) => chosen.push(ci),
                Some(_) => {}
                None => warnings.push(format!(
                    "channel {name:?} is not in package {:?}: it contributes nothing",
                    package.name
                )),
            }
        }
        chosen
    };
    let channels: Vec<ChannelIndex> = chosen
        .into_iter()
        .filter_map(|ci| ChannelIndex::of(tables, pi, ci))
        .collect();
    let range = match q.version_range.as_deref().filter(|r| !r.is_empty()) {
        None => None,
        Some(r) => Some(masterminds::parse(r).map_err(|e| {
            GraphError::InvalidArgument(format!("desired version range {r:?} is invalid: {e}"))
        })?),
    };
    let installed = q.installed.as_ref().map(installed_version).transpose()?;
    let mut edges: HashMap<&str, Vec<Edge>> = HashMap::new();
    if let (Some(i), Some(iv), Policy::CatalogProvided) = (&q.installed, &installed, q.policy) {
        for index in &channels {
            for e in index.edges_from(&i.name, Some(&iv.strict)) {
                let entry = index.entry(e.entry);
                edges.entry(&entry.name).or_default().push(Edge {
                    kind: e.kind,
                    channel: index.channel.name.clone(),
                    skip_range: if e.kind == EdgeKind::SkipRange {
                        entry.skip_range.clone()
                    } else {
                        String::new()
                    },
                });
            }
            for bad in index.edges.bad_ranges() {
                let entry = index.entry(bad.entry);
                warnings.push(format!(
                    "the skipRange {:?} of {:?} in channel {:?} does not parse and is ignored: {}",
                    entry.skip_range, entry.name, index.channel.name, bad.error
                ));
            }
        }
    }
    Ok(Prepared {
        package,
        channels,
        range,
        installed,
        edges,
        warnings,
    })
}

/// OLM v1's successors of `q.installed` in `q.package` (see the module docs).
/// An installed bundle given by version only is first looked up by that
/// version ([`super::installed`]), so that its `replaces` and `skips` edges count.
pub fn successors(tables: &Tables, q: &SuccessorQuery) -> Result<Successors, GraphError> {
    let (q, note) = name_the_installed(tables, q)?;
    let q = q.as_ref();
    let mut p = prepare(tables, q)?;
    p.warnings.splice(0..0, note);
    let mut candidates: Vec<(VersionRelease, Candidate)> = Vec::new();
    let mut rejected = Vec::new();
    for bundle in &p.package.bundles {
        if !q.explain && !may_qualify(&p, q, bundle) {
            continue;
        }
        let vr = bundle_version(bundle, q.release_mode);
        match judge(&p, q, bundle, &vr) {
            Ok(candidate) => candidates.push((vr, candidate)),
            Err((kind, reason)) => rejected.push(Rejected {
                name: bundle.name.clone(),
                version: bundle.version_text.clone(),
                reason,
                kind,
            }),
        }
    }
    // Deprecated last, then (version, release) highest first; the sort is
    // stable, so ties keep the bundles' order, by name (OLM v1 keeps catalog
    // order there, which depends on how the catalog was rendered).
    candidates.sort_by(|(va, a), (vb, b)| {
        a.deprecated
            .is_some()
            .cmp(&b.deprecated.is_some())
            .then_with(|| vb.cmp(va))
    });
    let selected = candidates.first().map(|(_, c)| c.name.clone());
    if let Some(name) = &selected {
        dependency_warning(p.package, name, &mut p.warnings);
    }
    let (best_z_stream, best_y_stream) = streams(&p, &candidates);
    Ok(Successors {
        message: selected.is_none().then(|| no_bundles_message(q)),
        selected,
        best_z_stream,
        best_y_stream,
        candidates: candidates.into_iter().map(|(_, c)| c).collect(),
        warnings: p.warnings,
        rejected: if q.explain { rejected } else { Vec::new() },
    })
}

/// `q` with its installed bundle named when only its version was given (a
/// copy only then), and what the lookup found worth saying.
fn name_the_installed<'q>(
    tables: &Tables,
    q: &'q SuccessorQuery,
) -> Result<(Cow<'q, SuccessorQuery>, Option<String>), GraphError> {
    let Some(installed) = q.installed.as_ref().filter(|i| i.name.is_empty()) else {
        return Ok((Cow::Borrowed(q), None));
    };
    let (_, package) = find_package(tables, &q.package)?;
    let found = super::installed::identify(package, &installed.name, &installed.version)?;
    let mut named = q.clone();
    if let Some(i) = named.installed.as_mut() {
        i.name = found.name;
    }
    Ok((Cow::Owned(named), found.note))
}

/// Whether `bundle` can be a candidate, told cheaply: with an installed bundle
/// and catalog-provided edges, only bundles with an edge from it or its
/// major.minor.patch can. Skipping the rest (and their rejection messages)
/// keeps the answer's cost near its size in a package of thousands.
fn may_qualify(p: &Prepared, q: &SuccessorQuery, bundle: &Bundle) -> bool {
    match (&p.installed, q.policy) {
        (Some(iv), Policy::CatalogProvided) => {
            let (a, b) = (&bundle.version, &iv.release.version);
            p.edges.contains_key(bundle.name.as_str())
                || (a.major, a.minor, a.patch) == (b.major, b.minor, b.patch)
        }
        _ => true,
    }
}

/// A candidate, or why `bundle` is not one.
fn judge(
    p: &Prepared,
    q: &SuccessorQuery,
    bundle: &Bundle,
    vr: &VersionRelease,
) -> Result<Candidate, (RejectKind, String)> {
    let channels: Vec<String> = p
        .channels
        .iter()
        .filter(|index| index.find(&bundle.name).is_some())
        .map(|index| index.channel.name.clone())
        .collect();
    if channels.is_empty() {
        let names: Vec<&str> = p.channels.iter().map(|c| c.channel.name.as_str()).collect();
        return Err((
            RejectKind::NotInChannels,
            format!(
                "it is not an entry of the channels considered [{}]",
                names.join(", ")
            ),
        ));
    }
    if let (Some(range), Some(text)) = (&p.range, q.version_range.as_deref())
        && !masterminds::matches_bundle_version(range, &bundle.version)
    {
        return Err((
            RejectKind::OutsideRange,
            format!("its version {} is outside the range {text:?}", vr.version),
        ));
    }
    let edges = match (&q.installed, &p.installed, q.policy) {
        (Some(installed), Some(iv), Policy::CatalogProvided) => {
            let mut edges = p
                .edges
                .get(bundle.name.as_str())
                .cloned()
                .unwrap_or_default();
            if *vr == iv.release {
                edges.push(Edge {
                    kind: EdgeKind::SameVersion,
                    channel: String::new(),
                    skip_range: String::new(),
                });
            }
            if edges.is_empty() {
                return Err((
                    RejectKind::NoEdge,
                    no_edge_reason(p, bundle, installed, &iv.strict),
                ));
            }
            edges
        }
        _ => Vec::new(),
    };
    Ok(Candidate {
        name: bundle.name.clone(),
        version: vr.version.to_string(),
        release: vr.release.to_string(),
        channels,
        edges,
        deprecated: bundle.deprecation.clone(),
    })
}

fn no_edge_reason(
    p: &Prepared,
    bundle: &Bundle,
    installed: &Installed,
    v: &semver::Version,
) -> String {
    let ranges: Vec<String> = p
        .channels
        .iter()
        .filter_map(|index| index.find(&bundle.name).map(|i| index.entry(i)))
        .filter(|e| !e.skip_range.is_empty())
        .map(|e| format!("{:?}", e.skip_range))
        .collect();
    let mut reason = format!(
        "no upgrade edge from {:?}: no entry of it replaces or skips {:?}",
        installed.name, installed.name
    );
    if ranges.is_empty() {
        reason.push_str(", and it has no skipRange");
    } else {
        reason.push_str(&format!(
            ", and its skipRange {} does not contain {v}",
            ranges.join(", ")
        ));
    }
    reason
}

/// The highest candidates in the installed z-stream (same major.minor) and y-stream
/// (same major), other than the installed version itself.
fn streams(
    p: &Prepared,
    candidates: &[(VersionRelease, Candidate)],
) -> (Option<String>, Option<String>) {
    let Some(InstalledVersion { release: ivr, .. }) = &p.installed else {
        return (None, None);
    };
    let iv = &ivr.version;
    let best = |same_minor: bool| {
        candidates
            .iter()
            .filter(|(vr, _)| vr != ivr && vr.version.major == iv.major)
            .filter(|(vr, _)| !same_minor || vr.version.minor == iv.minor)
            .max_by(|(a, _), (b, _)| a.cmp(b))
            .map(|(_, c)| c.name.clone())
    };
    (best(true), best(false))
}

/// OLM v1 refuses a resolved bundle that declares dependencies.
fn dependency_warning(package: &Package, selected: &str, warnings: &mut Vec<String>) {
    let Some(bundle) = package.bundle(selected) else {
        return;
    };
    let declared = bundle.properties.iter().find(|p| {
        matches!(
            p.typ.as_str(),
            "olm.package.required" | "olm.gvk.required" | "olm.constraint"
        )
    });
    if let Some(p) = declared {
        warnings.push(format!(
            "bundle {:?} has a dependency declared via property {:?} which is currently not supported: OLM v1 would refuse it",
            bundle.name, p.typ
        ));
    }
}

/// OLM v1's error text when nothing qualifies.
fn no_bundles_message(q: &SuccessorQuery) -> String {
    let prefix = q
        .installed
        .as_ref()
        .map(|i| {
            format!(
                "error upgrading from currently installed version {:?}: ",
                i.version
            )
        })
        .unwrap_or_default();
    let mut message = format!("{prefix}no bundles found for package {:?}", q.package);
    if let Some(r) = q.version_range.as_deref().filter(|r| !r.is_empty()) {
        message.push_str(&format!(" matching version {r:?}"));
    }
    if !q.channels.is_empty() {
        message.push_str(&format!(" in channels [{}]", q.channels.join(" ")));
    }
    message
}
