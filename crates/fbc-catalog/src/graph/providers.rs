//! OLM v1 across catalogs: which catalog's bundle would a ClusterExtension for
//! package P (at version or range V) install, by priority, and why.
//!
//! In: the catalogs a client would consider ([`CatalogInput`]: name, priority,
//! tables) and a [`SuccessorQuery`]. Out: [`Providers`]: the bundle chosen, or
//! operator-controller's own error text, and one [`Verdict`] per catalog saying
//! what it offered and why it won or lost.
//!
//! The rule is operator-controller's `CatalogResolver.Resolve`
//! (`internal/operator-controller/resolve/catalog.go`):
//! 1. each catalog, walked in name order (the API server lists ClusterCatalogs
//!    so), offers its own first choice — [`successors`] answers that, with the
//!    same filters and order inside one catalog;
//! 2. a non-deprecated offer clears the deprecated ones kept so far, and a
//!    deprecated offer is dropped once a non-deprecated one is kept; versions are
//!    **not** compared across catalogs;
//! 3. of the offers kept, the one of highest `priority` wins when the next is
//!    lower; otherwise nothing is chosen and the error names every kept
//!    catalog ("found bundles for package … in multiple catalogs with the same
//!    priority [a b]").

use super::GraphError;
use super::successors::{SuccessorQuery, successors};
use crate::tables::Tables;
use serde::Serialize;

/// One catalog a client considers.
#[derive(Clone, Copy, Debug)]
pub struct CatalogInput<'a> {
    /// Its name (ClusterCatalog `metadata.name`).
    pub name: &'a str,
    /// Its `spec.priority` (higher wins).
    pub priority: i32,
    /// Its tables.
    pub tables: &'a Tables,
}

/// How a catalog fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Standing {
    /// Its bundle is the one installed.
    Chosen,
    /// Its offer ties with another of the same priority: nothing is chosen.
    Tied,
    /// A catalog of higher priority offers the package.
    Outranked,
    /// Its offer is deprecated and another catalog's is not.
    Deprecated,
    /// It has the package, but no bundle passes the filters.
    NoMatch,
    /// It does not have the package.
    NoPackage,
}

/// What one catalog offered and why it won or lost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// The catalog.
    pub catalog: String,
    /// Its priority.
    pub priority: i32,
    /// How it fared.
    pub standing: Standing,
    /// Its first choice, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
    /// That bundle's version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether that bundle is deprecated by `olm.deprecations`.
    pub deprecated: bool,
    /// How many of its bundles pass the filters.
    pub candidates: usize,
    /// Why, in plain words.
    pub reason: String,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Providers {
    /// The package.
    pub package: String,
    /// The catalog whose bundle would be installed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// That bundle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
    /// Its version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// operator-controller's error when nothing is chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Every catalog, by preference: the chosen (or tied) first, then the rest
    /// by priority (highest first), standing, and name.
    pub catalogs: Vec<Verdict>,
}

/// An offer kept so far (step 2 of the module docs).
struct Offer {
    verdict: usize,
    priority: i32,
}

/// Answers `q` over `catalogs` (see the module docs). Errors that do not depend
/// on a catalog (a version range that does not parse, an installed version
/// that is not semver) are returned as they are; an unknown channel or package
/// is "nothing offered" for that catalog.
pub fn providers(
    catalogs: &[CatalogInput<'_>],
    q: &SuccessorQuery,
) -> Result<Providers, GraphError> {
    // operator-controller checks the range before it looks at any catalog
    if let Some(r) = q.version_range.as_deref().filter(|r| !r.is_empty()) {
        crate::version_range::masterminds::parse(r).map_err(|e| {
            GraphError::InvalidArgument(format!("desired version range {r:?} is invalid: {e}"))
        })?;
    }
    let mut walk: Vec<&CatalogInput<'_>> = catalogs.iter().collect();
    walk.sort_by(|a, b| a.name.cmp(b.name));
    let mut verdicts = Vec::with_capacity(walk.len());
    let mut kept: Vec<Offer> = Vec::new();
    let mut kept_deprecated = false;
    for catalog in walk {
        let verdict = offer(catalog, q)?;
        let has_offer = verdict.bundle.is_some();
        let deprecated = verdict.deprecated;
        verdicts.push(verdict);
        if !has_offer {
            continue;
        }
        if !kept.is_empty() {
            if deprecated && !kept_deprecated {
                let i = verdicts.len() - 1;
                verdicts[i].standing = Standing::Deprecated;
                continue;
            }
            if !deprecated && kept_deprecated {
                for dropped in kept.drain(..) {
                    verdicts[dropped.verdict].standing = Standing::Deprecated;
                }
            }
        }
        kept_deprecated = deprecated;
        kept.push(Offer {
            verdict: verdicts.len() - 1,
            priority: catalog.priority,
        });
    }
    // Highest priority first; Go's sort.Slice is not stable, but which of equal
    // priorities comes first never changes the answer: a tie at the top is an error.
    kept.sort_by_key(|o| std::cmp::Reverse(o.priority));
    let chosen = match kept.as_slice() {
        [only] => Some(only.verdict),
        [first, second, ..] if first.priority != second.priority => Some(first.verdict),
        _ => None,
    };
    let message = match chosen {
        Some(i) => {
            verdicts[i].standing = Standing::Chosen;
            for offer in kept.iter().filter(|o| o.verdict != i) {
                verdicts[offer.verdict].standing = Standing::Outranked;
            }
            None
        }
        None => {
            for offer in &kept {
                verdicts[offer.verdict].standing = Standing::Tied;
            }
            Some(resolution_error(q, &verdicts, &kept))
        }
    };
    let winner_priority = chosen.map(|i| verdicts[i].priority);
    explain(&mut verdicts, winner_priority);
    let winner = chosen.map(|i| verdicts[i].clone());
    verdicts.sort_by(|a, b| {
        rank(a.standing)
            .cmp(&rank(b.standing))
            .then(b.priority.cmp(&a.priority))
            .then(a.catalog.cmp(&b.catalog))
    });
    Ok(Providers {
        package: q.package.clone(),
        catalog: winner.as_ref().map(|w| w.catalog.clone()),
        bundle: winner.as_ref().and_then(|w| w.bundle.clone()),
        version: winner.and_then(|w| w.version),
        message,
        catalogs: verdicts,
    })
}

/// Where a standing sorts in the answer.
fn rank(standing: Standing) -> u8 {
    match standing {
        Standing::Chosen | Standing::Tied => 0,
        Standing::Outranked => 1,
        Standing::Deprecated => 2,
        Standing::NoMatch => 3,
        Standing::NoPackage => 4,
    }
}

/// What `catalog` offers for `q`: its first choice, or why none.
fn offer(catalog: &CatalogInput<'_>, q: &SuccessorQuery) -> Result<Verdict, GraphError> {
    let mut verdict = Verdict {
        catalog: catalog.name.to_string(),
        priority: catalog.priority,
        standing: Standing::NoPackage,
        bundle: None,
        version: None,
        deprecated: false,
        candidates: 0,
        reason: String::new(),
    };
    let answer = match successors(catalog.tables, q) {
        Ok(answer) => answer,
        Err(GraphError::UnknownPackage { .. }) => {
            verdict.reason = "the catalog does not have the package".into();
            return Ok(verdict);
        }
        // A channel the catalog's package lacks filters everything out, as in operator-controller.
        Err(GraphError::UnknownChannel { .. }) => {
            verdict.standing = Standing::NoMatch;
            verdict.reason = "no bundle of the package is in the channels asked for".into();
            return Ok(verdict);
        }
        Err(other) => return Err(other),
    };
    verdict.candidates = answer.candidates.len();
    match answer.candidates.first() {
        Some(first) => {
            verdict.standing = Standing::Outranked;
            verdict.bundle = Some(first.name.clone());
            verdict.version = Some(first.version.clone());
            verdict.deprecated = first.deprecated.is_some();
        }
        None => {
            verdict.standing = Standing::NoMatch;
            verdict.reason = answer
                .message
                .unwrap_or_else(|| "no bundle passes the filters".into());
        }
    }
    Ok(verdict)
}

/// Fills in the reasons of catalogs that offered a bundle.
fn explain(verdicts: &mut [Verdict], winner_priority: Option<i32>) {
    let tied: Vec<String> = verdicts
        .iter()
        .filter(|v| v.standing == Standing::Tied)
        .map(|v| v.catalog.clone())
        .collect();
    let offers = verdicts.iter().filter(|v| v.bundle.is_some()).count();
    for v in verdicts.iter_mut() {
        let offered = format!(
            "offers {} ({} of {} candidate{})",
            v.bundle.as_deref().unwrap_or_default(),
            v.version.as_deref().unwrap_or_default(),
            v.candidates,
            if v.candidates == 1 { "" } else { "s" }
        );
        v.reason = match v.standing {
            Standing::Chosen if offers == 1 => {
                format!("{offered}; chosen: the only catalog offering it")
            }
            Standing::Chosen => format!("{offered}; chosen: the highest priority ({})", v.priority),
            Standing::Tied => format!(
                "{offered}; tied at the top with {} — operator-controller refuses to choose",
                tied.iter()
                    .filter(|c| **c != v.catalog)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Standing::Outranked => format!(
                "{offered}; outranked: priority {} is lower than {}",
                v.priority,
                winner_priority.unwrap_or(v.priority)
            ),
            Standing::Deprecated => {
                format!("{offered}; passed over: deprecated, and another catalog's offer is not")
            }
            Standing::NoMatch | Standing::NoPackage => continue,
        };
    }
}

/// operator-controller's `resolutionError` text.
fn resolution_error(q: &SuccessorQuery, verdicts: &[Verdict], kept: &[Offer]) -> String {
    let mut text = String::new();
    if let Some(installed) = &q.installed {
        text.push_str(&format!(
            "error upgrading from currently installed version {:?}: ",
            installed.version
        ));
    }
    if kept.len() > 1 {
        text.push_str(&format!("found bundles for package {:?} ", q.package));
    } else {
        text.push_str(&format!("no bundles found for package {:?} ", q.package));
    }
    if let Some(range) = q.version_range.as_deref().filter(|r| !r.is_empty()) {
        text.push_str(&format!("matching version {range:?} "));
    }
    if !q.channels.is_empty() {
        text.push_str(&format!("in channels [{}] ", q.channels.join(" ")));
    }
    let mut names: Vec<&str> = kept
        .iter()
        .map(|o| verdicts[o.verdict].catalog.as_str())
        .collect();
    names.sort_unstable();
    if names.len() > 1 {
        text.push_str(&format!(
            "in multiple catalogs with the same priority [{}] ",
            names.join(" ")
        ));
    }
    text.trim_end().to_string()
}
