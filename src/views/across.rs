//! Questions across catalogs: "which packages match this term, in every
//! catalog?" and "which catalog would provide package P?".
//!
//! In: each catalog's name, priority, tables and browser cards (a [`Shelf`]),
//! and a query. Out: [`SearchHit`]s — per (catalog, package): channels with
//! their heads, versions, provider, provided APIs and what matched, never icons
//! (shaped for kubectl-operator's search) — or
//! [`fbc_catalog::graph::providers::Providers`] (OLM v1's choice by priority,
//! and why), both serialisable as the HTTP API and the CLI print them.
//!
//! Order is defined: hits whose package name equals the query come first, then
//! those whose name holds every term, then the rest; within each, by package
//! name, then catalog priority (highest first), then catalog name.

use super::browser::Card;
use fbc_catalog::graph::GraphError;
use fbc_catalog::graph::providers::{CatalogInput, Providers, providers};
use fbc_catalog::graph::successors::SuccessorQuery;
use fbc_catalog::model::Package;
use fbc_catalog::tables::Tables;
use serde::Serialize;

/// One catalog, as the questions across catalogs read it.
#[derive(Clone, Copy, Debug)]
pub struct Shelf<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its priority (higher first).
    pub priority: i32,
    /// Its tables.
    pub tables: &'a Tables,
    /// Its browser cards, one per package in package order.
    pub cards: &'a [Card],
}

/// Where a search term was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Field {
    /// The package name.
    Name,
    /// The CSV's display name.
    DisplayName,
    /// `spec.keywords`.
    Keyword,
    /// `spec.provider.name`.
    Provider,
    /// A provided API (`Kind.group`).
    Api,
    /// The `categories` annotation.
    Category,
}

/// A channel of a found package.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelHit {
    /// Its name.
    pub name: String,
    /// Its head bundle.
    pub head: String,
    /// The head's version.
    pub version: String,
    /// Whether `olm.deprecations` deprecates the channel.
    pub deprecated: bool,
}

/// A package found in one catalog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The catalog.
    pub catalog: String,
    /// Its priority.
    pub priority: i32,
    /// The package.
    pub package: String,
    /// The default channel head's display name.
    pub display_name: String,
    /// The default channel head's provider.
    pub provider: String,
    /// The one-line description.
    pub description: String,
    /// The default channel.
    pub default_channel: String,
    /// Every channel, by name.
    pub channels: Vec<ChannelHit>,
    /// Every bundle version, highest first.
    pub versions: Vec<String>,
    /// APIs the default channel head provides, as `Kind.group`.
    pub apis: Vec<String>,
    /// `spec.keywords`.
    pub keywords: Vec<String>,
    /// Whether the package is deprecated.
    pub deprecated: bool,
    /// Where the terms were found (empty for an empty query).
    pub matched: Vec<Field>,
}

/// Longest query accepted, in bytes.
pub const MAX_QUERY: usize = 256;

/// Packages of every shelf matching every whitespace-separated term of `query`
/// (case-insensitive, in any of the [`Field`]s); an empty query lists them all.
pub fn search(shelves: &[Shelf<'_>], query: &str) -> Vec<SearchHit> {
    let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut found: Vec<(u8, SearchHit)> = Vec::new();
    for shelf in shelves {
        for (package, card) in shelf.tables.packages().iter().zip(shelf.cards) {
            let Some(matched) = matches(card, &terms) else {
                continue;
            };
            let name = package.name.to_lowercase();
            let tier = if !terms.is_empty() && name == terms.join(" ") {
                0
            } else if terms.iter().all(|t| name.contains(t.as_str())) {
                1
            } else {
                2
            };
            found.push((tier, hit(shelf, package, card, matched)));
        }
    }
    found.sort_by(|(ta, a), (tb, b)| {
        ta.cmp(tb)
            .then_with(|| a.package.cmp(&b.package))
            .then(b.priority.cmp(&a.priority))
            .then_with(|| a.catalog.cmp(&b.catalog))
    });
    found.into_iter().map(|(_, hit)| hit).collect()
}

/// The fields where the terms occur, when every term occurs somewhere.
fn matches(card: &Card, terms: &[String]) -> Option<Vec<Field>> {
    let listing = &card.listing;
    let fields: [(Field, Vec<&str>); 6] = [
        (Field::Name, vec![card.name.as_str()]),
        (Field::DisplayName, vec![listing.display_name.as_str()]),
        (
            Field::Keyword,
            listing.keywords.iter().map(String::as_str).collect(),
        ),
        (Field::Provider, vec![listing.provider.as_str()]),
        (Field::Api, card.apis.iter().map(String::as_str).collect()),
        (
            Field::Category,
            listing.categories.iter().map(String::as_str).collect(),
        ),
    ];
    let mut matched = Vec::new();
    for term in terms {
        let mut any = false;
        for (field, texts) in &fields {
            if texts
                .iter()
                .any(|t| t.to_lowercase().contains(term.as_str()))
            {
                any = true;
                if !matched.contains(field) {
                    matched.push(*field);
                }
            }
        }
        if !any {
            return None;
        }
    }
    matched.sort_unstable();
    Some(matched)
}

fn hit(shelf: &Shelf<'_>, package: &Package, card: &Card, matched: Vec<Field>) -> SearchHit {
    let channels = package
        .channels
        .iter()
        .map(|c| {
            let head = c.head_entry().name.clone();
            let version = package
                .bundle(&head)
                .map(|b| b.version_text.clone())
                .unwrap_or_default();
            ChannelHit {
                name: c.name.clone(),
                head,
                version,
                deprecated: c.deprecation.is_some(),
            }
        })
        .collect();
    let mut versions: Vec<(&semver::Version, &str)> = package
        .bundles
        .iter()
        .map(|b| (&b.version, b.version_text.as_str()))
        .collect();
    versions.sort_by(|a, b| b.0.cmp(a.0).then_with(|| a.1.cmp(b.1)));
    versions.dedup_by(|a, b| a.1 == b.1);
    SearchHit {
        catalog: shelf.name.to_string(),
        priority: shelf.priority,
        package: package.name.clone(),
        display_name: card.listing.display_name.clone(),
        provider: card.listing.provider.clone(),
        description: card.listing.summary.clone(),
        default_channel: package.default_channel.clone(),
        channels,
        versions: versions.into_iter().map(|(_, t)| t.to_string()).collect(),
        apis: card.apis.clone(),
        keywords: card.listing.keywords.clone(),
        deprecated: package.deprecation.is_some(),
        matched,
    }
}

/// OLM v1's choice of catalog for `q` over `shelves` (see
/// [`fbc_catalog::graph::providers`]).
pub fn provider(shelves: &[Shelf<'_>], q: &SuccessorQuery) -> Result<Providers, GraphError> {
    let inputs: Vec<CatalogInput<'_>> = shelves
        .iter()
        .map(|s| CatalogInput {
            name: s.name,
            priority: s.priority,
            tables: s.tables,
        })
        .collect();
    providers(&inputs, q)
}

#[cfg(test)]
mod tests;
