//! The catalog browser's view: the pages at `/`, from a snapshot's tables.
//!
//! In: [`Tables`]. Out: a [`Browser`] — one [`Card`] per package, built once per
//! snapshot, from which the search page is written — and, per request, a
//! package's page and its upgrade graph as SVG. Everything the catalog says is
//! untrusted: text is escaped, markdown sanitised, links limited to web and mail
//! addresses, and no page loads anything from another host.
//!
//! | module | in → out |
//! |---|---|
//! | [`csv`] | a bundle's CSV → what OperatorHub shows (display name, provider, …) |
//! | [`markdown`] | a description's markdown → sanitised HTML |
//! | [`svg`] | a package graph → an SVG drawing, rows by version |
//! | [`html`] | escaping, URL segments, safe links, the page shell |
//! | [`home`] | cards + a query → the search page |
//! | [`page`] | a package → its page |
//! | [`assets`] | the stylesheet and script, under content-hashed names |

pub(crate) mod assets;
pub(crate) mod csv;
pub(crate) mod home;
pub(crate) mod html;
pub(crate) mod markdown;
pub(crate) mod page;
pub(crate) mod readiness;
pub(crate) mod svg;

use csv::Listing;
use fbc_catalog::model::{Bundle, Package};
use fbc_catalog::tables::Tables;

/// Icon media types a page may show (others could make this server serve HTML).
pub const ICON_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/svg+xml",
];

/// An icon's cache key: 16 hex digits of its hash.
pub fn icon_version(data: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(data))
}

/// The icon of `package` this server serves, as its cache key.
pub fn served_icon(package: &Package) -> Option<String> {
    package
        .icon
        .as_ref()
        .filter(|i| ICON_TYPES.contains(&i.media_type.to_ascii_lowercase().as_str()))
        .map(|i| icon_version(&i.data))
}

/// What the search page shows of a package, and what a search matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// Package name.
    pub name: String,
    /// From the default channel head's CSV.
    pub listing: Listing,
    /// Its icon's cache key, when it has one this server serves.
    pub icon: Option<String>,
    /// Provided APIs of the head, as `Kind.group`.
    pub apis: Vec<String>,
    /// Its `olm.deprecations` message.
    pub deprecated: Option<String>,
    /// The default channel.
    pub default_channel: String,
    /// The default channel head's version.
    pub head_version: String,
    /// Whether OLM v1 can install the default channel's head.
    pub olm_v1: bool,
    /// Lowercase text a search looks in: name, display name, provider,
    /// keywords, categories and provided APIs.
    pub search: String,
}

impl Card {
    /// The length of its text: the strings a card holds (links and owned CRDs,
    /// small, are left out).
    fn text_bytes(&self) -> usize {
        let l = &self.listing;
        let lists = |v: &[String]| v.iter().map(String::len).sum::<usize>();
        [
            &self.name,
            &self.default_channel,
            &self.head_version,
            &self.search,
            &l.display_name,
            &l.provider,
            &l.provider_url,
            &l.summary,
            &l.description,
            &l.capability,
            &l.maturity,
            &l.container_image,
            &l.repository,
            &l.created_at,
            &l.min_kube_version,
        ]
        .iter()
        .map(|s| s.len())
        .sum::<usize>()
            + lists(&self.apis)
            + lists(&l.keywords)
            + lists(&l.categories)
            + self.icon.as_ref().map_or(0, String::len)
            + self.deprecated.as_ref().map_or(0, String::len)
    }
}

/// The browser's data for one snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Browser {
    /// One card per package, by name.
    pub cards: Vec<Card>,
}

impl Browser {
    /// Bytes the cards' text takes (their strings; the structs around them are
    /// not counted).
    pub fn held_bytes(&self) -> usize {
        self.cards.iter().map(Card::text_bytes).sum()
    }

    /// Reads every package's card.
    pub fn build(tables: &Tables) -> Browser {
        let cards = tables.packages().iter().map(|p| card(tables, p)).collect();
        Browser { cards }
    }
}

/// The head of `package`'s default channel.
pub fn default_head<'t>(tables: &'t Tables, package: &Package) -> Option<&'t Bundle> {
    let (pi, _) = tables.package(&package.name)?;
    let channel = package
        .channels
        .iter()
        .find(|c| c.name == package.default_channel)?;
    let head = channel.entries.get(channel.head)?;
    tables.bundle(tables.bundle_named(pi, &head.name)?)
}

fn card(tables: &Tables, package: &Package) -> Card {
    let head = default_head(tables, package);
    let listing = head.map(|b| Listing::of(package, b)).unwrap_or_default();
    let apis: Vec<String> = head
        .map(|b| {
            b.provided_gvks()
                .map(|g| format!("{}.{}", g.kind, g.group))
                .collect()
        })
        .unwrap_or_default();
    let search = [
        package.name.as_str(),
        &listing.display_name,
        &listing.provider,
        &listing.keywords.join(" "),
        &listing.categories.join(" "),
        &apis.join(" "),
    ]
    .join(" ")
    .to_lowercase();
    Card {
        name: package.name.clone(),
        icon: served_icon(package),
        apis,
        deprecated: package.deprecation.clone(),
        default_channel: package.default_channel.clone(),
        head_version: head.map(|b| b.version_text.clone()).unwrap_or_default(),
        olm_v1: head
            .is_some_and(|b| fbc_catalog::cluster::readiness::readiness(package, b).installable),
        listing,
        search,
    }
}

/// Whether every whitespace-separated term of `query` occurs in `search`
/// (case-insensitive; the page's script applies the same rule as you type).
pub fn matches(search: &str, query: &str) -> bool {
    query
        .split_whitespace()
        .all(|term| search.contains(&term.to_lowercase()))
}

#[cfg(test)]
mod tests;
