//! A [`CatalogDiff`] → text for a terminal, or markdown for a pull-request comment.
//!
//! In: a diff. Out: a string. Both forms lead with the consequences (stranded
//! bundles, broken paths, bundles gone, heads moved, lost OLM v1 successors), then
//! the content changes package by package; an empty diff says so in one line. JSON
//! is the diff's own serialisation, not made here.

use super::{CatalogDiff, ChannelDiff, PackageDiff, PathKind, Summary};
use std::fmt::Write;

/// The longest list shown item by item in markdown before it is cut (the JSON has all).
const SHOWN: usize = 50;

/// Which form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Plain lines.
    Text,
    /// GitHub-flavoured markdown.
    Markdown,
}

/// `diff` in `form`.
pub fn render(diff: &CatalogDiff, form: Form) -> String {
    let mut out = String::new();
    let md = form == Form::Markdown;
    if md {
        out.push_str("## Catalog diff\n\n");
    }
    if diff.is_empty() {
        out.push_str("No differences.\n");
        return out;
    }
    summary_line(&mut out, &diff.summary(), md);
    consequences(&mut out, diff, md);
    heading(&mut out, "Changes", md);
    list(&mut out, md, "packages added", &diff.packages_added);
    list(&mut out, md, "packages removed", &diff.packages_removed);
    for p in &diff.packages {
        package(&mut out, p, md);
    }
    out
}

fn summary_line(out: &mut String, s: &Summary, md: bool) {
    let parts = [
        (s.stranded, "stranded"),
        (s.broken_paths, "broken paths"),
        (s.bundles_gone, "bundles gone"),
        (s.heads_moved, "heads moved"),
        (s.lengthened, "paths lengthened"),
        (s.shortened, "paths shortened"),
        (s.rerouted, "paths rerouted"),
        (s.successors_lost, "bundles losing an OLM v1 successor"),
        (s.packages_added, "packages added"),
        (s.packages_removed, "packages removed"),
        (s.packages_changed, "packages changed"),
        (s.bundles_added, "bundles added"),
        (s.bundles_removed, "bundles removed"),
    ];
    let shown: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    let line = shown.join(", ");
    let _ = if md {
        writeln!(out, "**{line}**\n")
    } else {
        writeln!(out, "{line}")
    };
}

fn heading(out: &mut String, title: &str, md: bool) {
    let _ = if md {
        writeln!(out, "\n### {title}\n")
    } else {
        writeln!(out, "\n{title}:")
    };
}

fn item(out: &mut String, md: bool, text: &str) {
    let _ = if md {
        writeln!(out, "- {text}")
    } else {
        writeln!(out, "  {text}")
    };
}

fn code(md: bool, s: &str) -> String {
    if md { format!("`{s}`") } else { s.to_owned() }
}

fn consequences(out: &mut String, diff: &CatalogDiff, md: bool) {
    let impact = &diff.impact;
    for kind in [
        PathKind::Stranded,
        PathKind::Broken,
        PathKind::Lengthened,
        PathKind::Shortened,
        PathKind::Rerouted,
    ] {
        let paths: Vec<_> = impact.paths.iter().filter(|p| p.kind == kind).collect();
        if paths.is_empty() {
            continue;
        }
        heading(out, &format!("OLM v0 paths {}", kind.as_str()), md);
        for p in paths.iter().take(SHOWN) {
            let arrow = |path: &[String]| match path {
                [] => "(none)".to_owned(),
                [a, b, .., y, z] if path.len() > 5 => {
                    format!("{a} → {b} → … → {y} → {z} ({} installs)", path.len())
                }
                _ => path.join(" → "),
            };
            let mut text = format!(
                "{}/{} {}: was {}; now {}",
                p.package,
                p.channel,
                code(md, &p.bundle),
                arrow(&p.old_path),
                arrow(&p.new_path)
            );
            if let Some(reason) = &p.reason {
                let _ = write!(text, " ({reason})");
            }
            item(out, md, &text);
        }
        more(out, md, paths.len());
    }
    if !impact.bundles_gone.is_empty() {
        heading(out, "Bundles gone from every channel", md);
        for b in impact.bundles_gone.iter().take(SHOWN) {
            item(
                out,
                md,
                &format!("{}: {} ({})", b.package, code(md, &b.bundle), b.version),
            );
        }
        more(out, md, impact.bundles_gone.len());
    }
    let heads: Vec<(&str, &ChannelDiff)> = diff
        .packages
        .iter()
        .flat_map(|p| p.channels.iter().map(move |c| (p.name.as_str(), c)))
        .filter(|(_, c)| c.head.is_some())
        .collect();
    if !heads.is_empty() {
        heading(out, "Channel heads moved", md);
        for (package, c) in heads.iter().take(SHOWN) {
            if let Some(h) = &c.head {
                let text = format!(
                    "{package}/{}: {} → {}",
                    c.name,
                    code(md, &h.old),
                    code(md, &h.new)
                );
                item(out, md, &text);
            }
        }
        more(out, md, heads.len());
    }
    let lost: Vec<_> = impact
        .successors
        .iter()
        .filter(|s| !s.lost.is_empty())
        .collect();
    if !lost.is_empty() {
        heading(out, "OLM v1 successors lost", md);
        for s in lost.iter().take(SHOWN) {
            let pick = s.new_selected.as_deref().unwrap_or("nothing");
            let text = format!(
                "{}: {} loses {}; OLM v1 now picks {pick}",
                s.package,
                code(md, &s.bundle),
                s.lost.join(", ")
            );
            item(out, md, &text);
        }
        more(out, md, lost.len());
    }
}

fn more(out: &mut String, md: bool, total: usize) {
    if total > SHOWN {
        item(
            out,
            md,
            &format!(
                "… and {} more (the JSON form lists every one)",
                total - SHOWN
            ),
        );
    }
}

fn list(out: &mut String, md: bool, what: &str, names: &[String]) {
    if names.is_empty() {
        return;
    }
    let shown: Vec<String> = names.iter().map(|n| code(md, n)).collect();
    item(out, md, &format!("{what}: {}", shown.join(", ")));
}

fn package(out: &mut String, p: &PackageDiff, md: bool) {
    let _ = if md {
        writeln!(out, "\n#### {}\n", p.name)
    } else {
        writeln!(out, "  {}:", p.name)
    };
    let mut lines = Vec::new();
    if let Some(d) = &p.default_channel {
        lines.push(format!("default channel {} → {}", d.old, d.new));
    }
    if let Some(d) = &p.deprecation {
        lines.push(format!("deprecation {:?} → {:?}", d.old, d.new));
    }
    let names = |v: &[String]| v.join(", ");
    if !p.channels_added.is_empty() {
        lines.push(format!("channels added: {}", names(&p.channels_added)));
    }
    if !p.channels_removed.is_empty() {
        lines.push(format!("channels removed: {}", names(&p.channels_removed)));
    }
    if !p.bundles_added.is_empty() {
        lines.push(format!("bundles added: {}", names(&p.bundles_added)));
    }
    if !p.bundles_removed.is_empty() {
        lines.push(format!("bundles removed: {}", names(&p.bundles_removed)));
    }
    for c in &p.channels {
        let mut parts = Vec::new();
        if !c.entries_added.is_empty() {
            parts.push(format!("+{} entries", c.entries_added.len()));
        }
        if !c.entries_removed.is_empty() {
            parts.push(format!("-{} entries", c.entries_removed.len()));
        }
        if !c.edges_added.is_empty() || !c.edges_removed.is_empty() {
            parts.push(format!(
                "edges +{} -{}",
                c.edges_added.len(),
                c.edges_removed.len()
            ));
        }
        if let Some(d) = &c.deprecation {
            parts.push(format!("deprecation {:?} → {:?}", d.old, d.new));
        }
        if !parts.is_empty() {
            lines.push(format!("channel {}: {}", c.name, parts.join(", ")));
        }
    }
    for b in &p.bundles {
        let mut parts = Vec::new();
        if let Some(d) = &b.image {
            parts.push(format!("image {} → {}", d.old, d.new));
        }
        if let Some(d) = &b.version {
            parts.push(format!("version {} → {}", d.old, d.new));
        }
        if let Some(d) = &b.deprecation {
            parts.push(format!("deprecation {:?} → {:?}", d.old, d.new));
        }
        let props: Vec<&str> = b
            .properties_added
            .iter()
            .chain(&b.properties_removed)
            .map(|p| p.typ.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if !props.is_empty() {
            parts.push(format!("properties changed: {}", props.join(", ")));
        }
        if !b.related_images_added.is_empty() || !b.related_images_removed.is_empty() {
            parts.push(format!(
                "related images +{} -{}",
                b.related_images_added.len(),
                b.related_images_removed.len()
            ));
        }
        lines.push(format!("bundle {}: {}", b.name, parts.join("; ")));
    }
    for line in lines {
        let _ = if md {
            writeln!(out, "- {line}")
        } else {
            writeln!(out, "    {line}")
        };
    }
}
