//! The browser's view over `tests/fixtures/browser`, a catalog whose text tries
//! every way into a page.

use super::*;
use fbc_catalog::load::{LoadOptions, load_model};
use html::Site;
use std::path::Path;

fn tables() -> Tables {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/browser");
    match load_model(&dir, &LoadOptions::default()) {
        Ok(loaded) => loaded.tables(&dir, Default::default()),
        Err(problems) => panic!("fixture does not validate: {problems:#?}"),
    }
}

/// Every tag of `html`, as written between `<` and `>`.
fn tags(html: &str) -> impl Iterator<Item = &str> {
    html.split('<')
        .skip(1)
        .map(|t| t.split_once('>').map_or(t, |(tag, _)| tag))
}

/// No tag in `html` that runs script, loads from elsewhere or styles inline:
/// the catalog's attempts must all have become text or gone.
fn assert_inert(html: &str) {
    for tag in tags(html) {
        let lower = tag.to_ascii_lowercase();
        let name = lower.split([' ', '/']).next().unwrap_or_default();
        let ours = name == "script" && lower.contains("src=\"/assets/");
        assert!(
            ours || !matches!(
                name,
                "script" | "iframe" | "style" | "object" | "embed" | "b" | "i"
            ),
            "<{tag}> in the page"
        );
        for attribute in [
            "onerror",
            "onclick",
            "onload",
            "javascript:",
            "style=",
            "data:",
        ] {
            assert!(!lower.contains(attribute), "<{tag}> in the page");
        }
        if name == "img" {
            assert!(
                lower.contains("src=\"/catalogs/"),
                "<{tag}> loads from elsewhere"
            );
        }
    }
}

#[test]
fn cards_read_the_default_heads_csv() {
    let browser = Browser::build(&tables());
    let names: Vec<&str> = browser.cards.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["plain-operator", "widget-operator"]);
    let widget = &browser.cards[1];
    assert_eq!(widget.listing.display_name, "Widget Operator");
    assert_eq!(widget.head_version, "2.0.0");
    assert_eq!(widget.apis, ["Widget.widgets.acme.example"]);
    assert!(widget.icon.is_some());
    assert!(matches(&widget.search, "ACME gizmo"));
    assert!(matches(&widget.search, "widget.widgets.acme"));
    assert!(!matches(&widget.search, "acme nothing"));
    let plain = &browser.cards[0];
    assert_eq!(
        plain.listing.description,
        "A plain operator. *Markdown* works here too."
    );
    assert!(plain.icon.is_none());
}

#[test]
fn with_several_catalogs_every_page_offers_the_others_and_keeps_its_own() {
    let browser = Browser::build(&tables());
    let catalogs = ["alpha".to_string(), "b<eta".to_string()];
    let site = Site {
        catalog: "b<eta",
        catalogs: &catalogs,
    };
    let home = home::render(&browser, &site, "");
    assert_inert(&home);
    assert!(home.contains("<nav class=\"catalogs\""), "{home}");
    assert!(home.contains("<a href=\"/?catalog=alpha\">alpha</a>"));
    assert!(home.contains("<a href=\"/?catalog=b%3Ceta\" aria-current=\"page\">b&lt;eta</a>"));
    assert!(home.contains("<input type=\"hidden\" name=\"catalog\" value=\"b&lt;eta\">"));
    assert_eq!(
        home.matches("?catalog=b%3Ceta\">").count(),
        2 + 1,
        "cards, brand"
    );
    let page = page::render(&tables(), &browser.cards[0], &site).expect("page");
    assert!(page.contains("<nav class=\"catalogs\""));
    let one = home::render(&browser, &Site::one("alpha"), "");
    assert!(!one.contains("<nav class=\"catalogs\"") && !one.contains("?catalog="));
}

#[test]
fn the_search_page_hides_what_a_query_does_not_match() {
    let browser = Browser::build(&tables());
    let all = home::render(&browser, &Site::one("cat\"alog"), "");
    assert_inert(&all);
    assert!(all.contains("data-catalog=\"cat&quot;alog\""));
    assert_eq!(all.matches("<li class=\"card\"").count(), 2);
    assert_eq!(
        all.matches(" hidden>").count(),
        1,
        "only the no-match note is hidden"
    );
    let gizmo = home::render(&browser, &Site::one("catalog"), "gizmo \"<");
    assert!(gizmo.contains("value=\"gizmo &quot;&lt;\""));
    assert!(gizmo.contains("0 of 2 packages"));
    let widget = home::render(&browser, &Site::one("catalog"), "Gizmo");
    assert!(widget.contains("1 of 2 packages"));
    assert_eq!(
        widget.matches(" hidden>").count(),
        2,
        "one card and the empty note"
    );
}

#[test]
fn a_package_page_shows_everything_and_runs_nothing() {
    let tables = tables();
    let browser = Browser::build(&tables);
    let html = page::render(&tables, &browser.cards[1], &Site::one("catalog")).expect("page");
    assert_inert(&html);
    for shown in [
        "<h1>Widget Operator</h1>",
        "by Acme &lt;Corp&gt;",
        "Seamless Upgrades",
        "<h1>Widget Operator</h1>\n<p>Runs <strong>widgets</strong>",
        "<table>",
        "1.0.0 loses &lt;b&gt;widgets&lt;/b&gt;; upgrade",
        "quay.io/acme/widget-operator:v2.0.0",
        "widgets.widgets.acme.example",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"",
        "<form id=\"successors\" data-package=\"widget-operator\">",
        "<option>fast</option>",
        "mailto:ops@acme.example",
        "/catalogs/catalog/api/v1/icons/widget-operator?v=",
    ] {
        assert!(html.contains(shown), "{shown:?} not in the page");
    }
    assert!(
        !html.contains("__pwned_provider"),
        "an unsafe provider URL is not linked"
    );
}

#[test]
fn a_package_without_a_csv_falls_back_to_its_description() {
    let tables = tables();
    let browser = Browser::build(&tables);
    let html = page::render(&tables, &browser.cards[0], &Site::one("catalog")).expect("page");
    assert!(html.contains("<em>Markdown</em>"), "{html}");
    assert!(html.contains("class=\"icon blank\""));
}

#[test]
fn a_huge_catalog_gets_a_bounded_page() {
    let template = Browser::build(&tables()).cards[1].clone();
    let cards = (0..home::MAX_CARDS + 10)
        .map(|i| Card {
            name: format!("p{i:05}"),
            search: if i % 2 == 0 {
                "even".into()
            } else {
                "odd".into()
            },
            ..template.clone()
        })
        .collect();
    let browser = Browser { cards };
    let all = home::render(&browser, &Site::one("catalog"), "");
    assert_eq!(all.matches("<li class=\"card\"").count(), home::MAX_CARDS);
    assert!(all.contains("data-partial=\"true\""));
    assert!(all.contains(&format!("has {} packages", home::MAX_CARDS + 10)));
    let odd = home::render(&browser, &Site::one("catalog"), "odd");
    assert_eq!(
        odd.matches("<li class=\"card\"").count(),
        (home::MAX_CARDS + 10) / 2
    );
    assert_eq!(
        odd.matches(" hidden>").count(),
        1,
        "only matches are written (and the note hidden)"
    );
}

#[test]
fn olm_v1_readiness_is_on_the_package_page_and_summed_on_home() {
    let tables = tables();
    let browser = Browser::build(&tables);
    let card = &browser.cards[1];
    let html = page::render(&tables, card, &Site::one("catalog")).expect("page");
    assert_inert(&html);
    let (_, package) = tables.package(&card.name).expect("package");
    let ready =
        fbc_catalog::cluster::readiness::catalog(&tables, Some(&card.name)).expect("readiness");
    let verdict = if ready.per_package[0].head_installable {
        "Installable: OLM v1 can install the head"
    } else {
        "Not installable: OLM v1 cannot install the head"
    };
    assert!(html.contains(verdict), "{verdict:?} not in the page");
    assert!(html.contains("<section class=\"readiness\" id=\"olm-v1\">"));
    for bundle in &package.bundles {
        assert!(
            html.contains(&format!("<tr data-bundle=\"{}\">", bundle.name)),
            "{} has no row",
            bundle.name
        );
    }
    let home = home::render(&browser, &Site::one("catalog"), "");
    let count = browser.cards.iter().filter(|c| c.olm_v1).count();
    assert!(
        home.contains(&format!(
            "OLM v1 can install {count} of {} packages",
            browser.cards.len()
        )),
        "{home}"
    );
    assert_eq!(
        home.matches("tag olm-v1").count(),
        count,
        "one badge per installable package"
    );
}
