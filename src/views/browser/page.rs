//! A package's page: `/packages/{name}`.
//!
//! In: the tables, the package's card and the catalog's name. Out: the page with
//! what OperatorHub shows (icon, display name, provider, capability level,
//! categories, the description rendered from markdown, owned CRDs, links), the
//! catalog's own facts (channels and heads, bundles, deprecations, related
//! images), the upgrade graph as SVG ([`super::svg`]), the "what next?" form
//! that the page's script answers from the successors route, and whether OLM v1
//! can install each bundle ([`super::readiness`]).

use super::home::icon;
use super::html::{Site, document, encode, escape, link};
use super::{Card, default_head, markdown, readiness, svg};
use fbc_catalog::graph::export::{self, PackageGraph};
use fbc_catalog::model::Package;
use fbc_catalog::tables::Tables;
use std::fmt::Write;

/// The page of `card`'s package, or `None` when the tables lack it.
pub fn render(tables: &Tables, card: &Card, site: &Site<'_>) -> Option<String> {
    let catalog = site.catalog;
    let (_, package) = tables.package(&card.name)?;
    let graph = export::package_graph(tables, &card.name);
    let mut main = String::with_capacity(64 * 1024);
    heading(&mut main, card, package, catalog);
    if let Ok(graph) = &graph {
        successor_form(&mut main, card, graph);
    }
    main.push_str("<section class=\"graph\"><h2>Upgrade graph</h2>");
    let api = format!(
        "/catalogs/{}/api/v1/graph?package={}",
        encode(catalog),
        encode(&card.name)
    );
    let _ = write!(
        main,
        "<p class=\"exports\">Export: <a href=\"{api}\">JSON</a> · <a href=\"{api}&amp;format=dot\">DOT</a> · <a href=\"{api}&amp;format=mermaid\">Mermaid</a> · <a href=\"{api}&amp;format=svg\">SVG</a></p>"
    );
    match graph
        .as_ref()
        .map_err(ToString::to_string)
        .and_then(|g| svg::draw(g).map_err(|e| e.to_string()))
    {
        Ok(drawing) => {
            let _ = write!(main, "<div class=\"drawing\">{drawing}</div>");
        }
        Err(why) => {
            let _ = write!(main, "<p class=\"empty\">{}</p>", escape(&why));
        }
    }
    main.push_str("</section>\n");
    if let Ok(graph) = &graph {
        channels(&mut main, graph);
        bundles(&mut main, graph);
    }
    readiness::section(&mut main, package, catalog);
    owned_crds(&mut main, card);
    description(&mut main, card);
    related_images(&mut main, tables, package);
    details(&mut main, card);
    let title = format!("{} · {catalog}", display(card));
    Some(document(&title, site, &main))
}

fn display(card: &Card) -> &str {
    if card.listing.display_name.is_empty() {
        &card.name
    } else {
        &card.listing.display_name
    }
}

fn heading(out: &mut String, card: &Card, package: &Package, catalog: &str) {
    let listing = &card.listing;
    let _ = write!(
        out,
        "<section class=\"package\" id=\"package\" data-package=\"{}\">{}<div><h1>{}</h1><p class=\"name\">{}</p>",
        escape(&card.name),
        icon(card, catalog),
        escape(display(card)),
        escape(&card.name),
    );
    if !listing.provider.is_empty() {
        let _ = write!(
            out,
            "<p class=\"provider\">by {}</p>",
            link(&listing.provider, &listing.provider_url)
        );
    }
    if !listing.summary.is_empty() {
        let _ = write!(out, "<p class=\"summary\">{}</p>", escape(&listing.summary));
    }
    out.push_str("<p class=\"tags\">");
    for (class, value) in [
        ("capability", &listing.capability),
        ("maturity", &listing.maturity),
    ] {
        if !value.is_empty() {
            let _ = write!(out, "<span class=\"tag {class}\">{}</span>", escape(value));
        }
    }
    for category in &listing.categories {
        let _ = write!(out, "<span class=\"tag\">{}</span>", escape(category));
    }
    out.push_str("</p></div></section>\n");
    if let Some(message) = &package.deprecation {
        let _ = writeln!(
            out,
            "<p class=\"warning\" role=\"note\"><strong>Deprecated package:</strong> {}</p>",
            escape(message)
        );
    }
}

fn successor_form(out: &mut String, card: &Card, graph: &PackageGraph) {
    let _ = write!(
        out,
        concat!(
            "<section class=\"next\"><h2>From version X, what next?</h2>",
            "<form id=\"successors\" data-package=\"{}\">",
            "<label>Installed version <input name=\"version\" required placeholder=\"{}\" list=\"versions\"></label>",
            "<label>Channel <select name=\"channel\"><option value=\"\">any</option>"
        ),
        escape(&card.name),
        escape(
            graph
                .nodes
                .iter()
                .find(|n| !n.missing)
                .map_or("1.0.0", |n| n.version.as_str())
        ),
    );
    for channel in &graph.channels {
        let _ = write!(out, "<option>{}</option>", escape(&channel.name));
    }
    out.push_str("</select></label><button type=\"submit\">Show successors</button></form><datalist id=\"versions\">");
    // One option per version, with the bundles that have it: the upgrade edges
    // name bundles, so the script asks about the bundle, not only the version.
    let mut versions: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for node in graph.nodes.iter().filter(|n| !n.missing) {
        let i = *at.entry(node.version.as_str()).or_insert_with(|| {
            versions.push((node.version.as_str(), Vec::new()));
            versions.len() - 1
        });
        versions[i].1.push(node.name.as_str());
    }
    for (version, bundles) in &versions {
        let bundles = serde_json::to_string(bundles).unwrap_or_default();
        let _ = write!(
            out,
            "<option value=\"{}\" data-bundles=\"{}\">",
            escape(version),
            escape(&bundles)
        );
    }
    out.push_str("</datalist><div id=\"answer\" aria-live=\"polite\"></div><p class=\"hint\">As OLM v1 decides (catalog-provided upgrade edges; deprecated bundles last).</p></section>\n");
}

fn channels(out: &mut String, graph: &PackageGraph) {
    out.push_str("<section><h2>Channels</h2><table><thead><tr><th>Channel</th><th>Head</th><th>Entries in chain</th><th>Deprecation</th></tr></thead><tbody>");
    let version = |name: &str| {
        graph
            .nodes
            .iter()
            .find(|n| n.name == name)
            .map_or("", |n| n.version.as_str())
    };
    for channel in &graph.channels {
        let default = if channel.name == graph.default_channel {
            " <span class=\"tag\">default</span>"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr><td>{}{default}</td><td>{} <span class=\"muted\">{}</span></td><td>{}</td><td>{}</td></tr>",
            escape(&channel.name),
            escape(version(&channel.head)),
            escape(&channel.head),
            channel.chain.len(),
            escape(channel.deprecated.as_deref().unwrap_or("")),
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn bundles(out: &mut String, graph: &PackageGraph) {
    let mut nodes: Vec<_> = graph.nodes.iter().filter(|n| !n.missing).collect();
    nodes.sort_by_cached_key(|n| std::cmp::Reverse(semver::Version::parse(&n.version).ok()));
    let _ = write!(
        out,
        "<section><h2>Bundles ({})</h2><table><thead><tr><th>Version</th><th>Bundle</th><th>Channels</th><th>Notes</th></tr></thead><tbody>",
        nodes.len()
    );
    for node in nodes {
        let mut notes = Vec::new();
        if !node.head_of.is_empty() {
            notes.push(format!("head of {}", node.head_of.join(", ")));
        }
        if !node.skipped_in.is_empty() {
            notes.push(format!("skipped in {}", node.skipped_in.join(", ")));
        }
        if let Some(message) = &node.deprecated {
            notes.push(format!("deprecated: {message}"));
        }
        let _ = write!(
            out,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if node.deprecated.is_some() {
                " class=\"deprecated\""
            } else {
                ""
            },
            escape(&node.version),
            escape(&node.name),
            escape(&node.channels.join(", ")),
            escape(&notes.join("; ")),
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn owned_crds(out: &mut String, card: &Card) {
    let crds = &card.listing.owned_crds;
    if crds.is_empty() {
        return;
    }
    out.push_str("<section><h2>Provided APIs (owned CRDs)</h2><table><thead><tr><th>Kind</th><th>Name</th><th>Version</th><th>Description</th></tr></thead><tbody>");
    for crd in crds {
        let _ = write!(
            out,
            "<tr><td>{}<div class=\"muted\">{}</div></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&crd.kind),
            escape(&crd.display_name),
            escape(&crd.name),
            escape(&crd.version),
            escape(&crd.description),
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn description(out: &mut String, card: &Card) {
    if card.listing.description.trim().is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section class=\"description\"><h2>Description</h2>{}</section>",
        markdown::render(&card.listing.description)
    );
}

fn related_images(out: &mut String, tables: &Tables, package: &Package) {
    let Some(head) = default_head(tables, package) else {
        return;
    };
    let _ = write!(
        out,
        "<section><h2>Images of {}</h2><table><tbody><tr><td>bundle</td><td><code>{}</code></td></tr>",
        escape(&head.name),
        escape(&head.image)
    );
    for image in &head.related_images {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td></tr>",
            escape(&image.name),
            escape(&image.image)
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn details(out: &mut String, card: &Card) {
    let listing = &card.listing;
    let mut rows: Vec<(&str, String)> = [
        ("Container image", &listing.container_image),
        ("Repository", &listing.repository),
        ("Created", &listing.created_at),
        ("Minimum Kubernetes", &listing.min_kube_version),
    ]
    .into_iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(k, v)| (k, link(v, v)))
    .collect();
    if !card.apis.is_empty() {
        rows.push(("Provided GVKs", escape(&card.apis.join(", "))));
    }
    for (label, list) in [
        ("Links", &listing.links),
        ("Maintainers", &listing.maintainers),
    ] {
        if !list.is_empty() {
            let links: Vec<String> = list.iter().map(|l| link(&l.name, &l.url)).collect();
            rows.push((label, links.join(" · ")));
        }
    }
    if rows.is_empty() {
        return;
    }
    out.push_str("<section><h2>Details</h2><dl>");
    for (label, value) in rows {
        let _ = write!(out, "<dt>{label}</dt><dd>{value}</dd>");
    }
    out.push_str("</dl></section>\n");
}
