//! The search page at `/`.
//!
//! In: the snapshot's cards, the catalog's name, the `q` of the request. Out: the
//! page listing every package, those not matching `q` hidden — so a search works
//! without script, and with it the page's script filters as you type by the
//! same rule ([`super::matches`]). Over [`MAX_CARDS`] packages the page holds
//! only matching cards and the search goes back to the server.

use super::html::{Site, document, encode, escape};
use super::{Browser, Card, matches};
use std::fmt::Write;

/// Most cards one page holds. A catalog with more (none real comes close: the
/// largest has about a thousand packages) gets the matching cards only, up to
/// this many, and searches go to the server.
pub const MAX_CARDS: usize = 3_000;

/// The search page for `query`.
pub fn render(browser: &Browser, site: &Site<'_>, query: &str) -> String {
    let catalog = site.catalog;
    let hits: Vec<bool> = browser
        .cards
        .iter()
        .map(|c| matches(&c.search, query))
        .collect();
    let shown = hits.iter().filter(|hit| **hit).count();
    let total = browser.cards.len();
    let mut main = String::with_capacity(600 * total + 1024);
    let _ = write!(
        main,
        concat!(
            "<form class=\"search\" method=\"get\" action=\"/\" role=\"search\">{keep}",
            "<input id=\"q\" name=\"q\" type=\"search\" value=\"{query}\" autocomplete=\"off\" ",
            "placeholder=\"Search {total} packages by name, provider, keyword or API kind\" ",
            "aria-label=\"Search packages\">",
            "<output id=\"count\" data-total=\"{total}\">{count}</output></form>\n",
            "<p id=\"readiness\" class=\"hint\">OLM v1 can install {ready} of {count_all} ",
            "(the head of each default channel; ",
            "<a href=\"/catalogs/{api}/api/v1/readiness\">every bundle and reason</a>).</p>\n",
            "<ul id=\"packages\" class=\"cards\"{partial}>\n"
        ),
        ready = browser.cards.iter().filter(|c| c.olm_v1).count(),
        count_all = count_text(total, total),
        api = encode(catalog),
        query = escape(query),
        keep = if site.catalogs.len() > 1 {
            format!(
                "<input type=\"hidden\" name=\"catalog\" value=\"{}\">",
                escape(catalog)
            )
        } else {
            String::new()
        },
        total = total,
        count = count_text(shown, total),
        partial = if total > MAX_CARDS {
            " data-partial=\"true\""
        } else {
            ""
        },
    );
    let partial = total > MAX_CARDS;
    let mut written = 0;
    for (card, &hit) in browser.cards.iter().zip(&hits) {
        if partial && !hit {
            continue;
        }
        if written == MAX_CARDS {
            break;
        }
        write_card(&mut main, card, site, hit);
        written += 1;
    }
    let _ = write!(
        main,
        "</ul>\n<p id=\"none\" class=\"empty\"{}>No package matches.</p>\n",
        if shown == 0 { "" } else { " hidden" }
    );
    if partial {
        let _ = writeln!(
            main,
            "<p id=\"partial\" class=\"hint\">This catalog has {total} packages; the list holds the first {written} that match. Search to narrow it.</p>"
        );
    }
    document(&format!("{catalog} · catalog"), site, &main)
}

/// "12 packages", or "3 of 12 packages" while a search hides some.
fn count_text(shown: usize, total: usize) -> String {
    let noun = if total == 1 { "package" } else { "packages" };
    if shown == total {
        format!("{total} {noun}")
    } else {
        format!("{shown} of {total} {noun}")
    }
}

fn write_card(out: &mut String, card: &Card, site: &Site<'_>, shown: bool) {
    let listing = &card.listing;
    let title = if listing.display_name.is_empty() {
        &card.name
    } else {
        &listing.display_name
    };
    let _ = write!(
        out,
        "<li class=\"card\" data-search=\"{}\"{}><a class=\"title\" href=\"/packages/{}{}\">{}<span class=\"display\">{}</span><span class=\"name\">{}</span></a>",
        escape(&card.search),
        if shown { "" } else { " hidden" },
        encode(&card.name),
        site.suffix(),
        icon(card, site.catalog),
        escape(title),
        escape(&card.name),
    );
    if !listing.provider.is_empty() {
        let _ = write!(
            out,
            "<p class=\"provider\">by {}</p>",
            escape(&listing.provider)
        );
    }
    if !listing.summary.is_empty() {
        let _ = write!(out, "<p class=\"summary\">{}</p>", escape(&listing.summary));
    }
    out.push_str("<p class=\"tags\">");
    if card.deprecated.is_some() {
        out.push_str("<span class=\"tag deprecated\">deprecated</span>");
    }
    if card.olm_v1 {
        out.push_str("<span class=\"tag olm-v1\" title=\"OLM v1 can install its default channel's head\">OLM v1</span>");
    }
    if !card.head_version.is_empty() {
        let _ = write!(
            out,
            "<span class=\"tag version\">{} · {}</span>",
            escape(&card.default_channel),
            escape(&card.head_version)
        );
    }
    if !listing.capability.is_empty() {
        let _ = write!(
            out,
            "<span class=\"tag capability\">{}</span>",
            escape(&listing.capability)
        );
    }
    for category in &listing.categories {
        let _ = write!(out, "<span class=\"tag\">{}</span>", escape(category));
    }
    out.push_str("</p></li>\n");
}

/// The package's icon, loaded lazily from the icon route, or its initial.
pub fn icon(card: &Card, catalog: &str) -> String {
    match &card.icon {
        Some(version) => format!(
            "<img class=\"icon\" src=\"/catalogs/{}/api/v1/icons/{}?v={version}\" alt=\"\" width=\"48\" height=\"48\" loading=\"lazy\">",
            encode(catalog),
            encode(&card.name),
        ),
        None => format!(
            "<span class=\"icon blank\" aria-hidden=\"true\">{}</span>",
            escape(
                &card
                    .name
                    .chars()
                    .next()
                    .map(|c| c.to_uppercase().to_string())
                    .unwrap_or_default()
            )
        ),
    }
}
