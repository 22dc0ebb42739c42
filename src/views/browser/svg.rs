//! A package's upgrade graph drawn as SVG.
//!
//! In: a [`PackageGraph`]. Out: an SVG document (styled by presentation attributes
//! only, so it renders the same inline under the page's CSP and on its own).
//!
//! The layout is written here rather than taken from a layered-layout crate
//! (layout-rs and the like) on purpose: an upgrade graph has a natural order,
//! the version, and a reader looks for a version. Bundles are rows, newest on
//! top; `replaces` and `skips` are arcs on the right, wider the more rows they
//! span; each bundle's `skipRange` is one bracket on the left covering the rows it
//! accepts upgrades from, so a range that admits hundreds of bundles costs one
//! shape, not hundreds of edges. A crossing-minimising layout would reorder
//! versions and is superlinear on the dense graphs skipRanges make; this one is
//! linear in nodes plus declared edges and the same for the same graph.

use super::html::escape;
use fbc_catalog::graph::EdgeKind;
use fbc_catalog::graph::export::{Node, PackageGraph};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// Most bundles drawn; a larger graph is refused (DOT and JSON still export it).
pub const MAX_NODES: usize = 2_000;

const ROW: u32 = 26;
const TOP: u32 = 34;
const BOX_W: u32 = 330;
const BOX_H: u32 = 20;
const LANE: u32 = 7;
const MAX_LANES: u32 = 16;
const LEGEND_WIDTH: u32 = 720;
const NAME_CHARS: usize = 38;

/// The graph cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{nodes} bundles are too many to draw (at most {MAX_NODES}); export it as DOT instead")]
pub struct TooLarge {
    /// Its bundles.
    pub nodes: usize,
}

/// Draws `graph`.
pub fn draw(graph: &PackageGraph) -> Result<String, TooLarge> {
    if graph.nodes.len() > MAX_NODES {
        return Err(TooLarge {
            nodes: graph.nodes.len(),
        });
    }
    let order = rows(&graph.nodes);
    let row: HashMap<&str, u32> = order
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i as u32))
        .collect();
    let arcs = arcs(graph, &row);
    let brackets = brackets(graph, &row);
    let lanes = brackets.iter().map(|b| b.lane + 1).max().unwrap_or(0);
    let left = 14 + LANE * lanes;
    let reach = arcs.iter().map(|a| a.width).max().unwrap_or(0);
    let width = (left + BOX_W + reach + 30).max(LEGEND_WIDTH);
    let height = TOP + order.len() as u32 * ROW + 8;
    let mut svg = String::with_capacity(400 * order.len() + 200 * arcs.len() + 512);
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" font-size="12" role="img" aria-label="upgrade graph of {}">"##,
        escape(&graph.package)
    );
    svg.push_str(concat!(
        r##"<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">"##,
        r##"<path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>"##
    ));
    legend(&mut svg);
    for bracket in &brackets {
        bracket.draw(&mut svg, left);
    }
    for arc in &arcs {
        arc.draw(&mut svg, left);
    }
    for (i, node) in order.iter().enumerate() {
        draw_node(&mut svg, node, i as u32, left);
    }
    svg.push_str("</svg>\n");
    Ok(svg)
}

/// Nodes newest first; bundles whose version does not parse, then missing ones, last.
fn rows(nodes: &[Node]) -> Vec<&Node> {
    let mut order: Vec<&Node> = nodes.iter().collect();
    order.sort_by_cached_key(|n| {
        let version = semver::Version::parse(&n.version).ok();
        (
            n.missing,
            std::cmp::Reverse(version),
            std::cmp::Reverse(n.name.clone()),
        )
    });
    order
}

fn y(row: u32) -> u32 {
    TOP + row * ROW + BOX_H / 2
}

/// A `replaces` or `skips` edge, merged over the channels declaring it.
struct Arc {
    from: u32,
    to: u32,
    kind: EdgeKind,
    channels: Vec<String>,
    width: u32,
}

fn arcs(graph: &PackageGraph, row: &HashMap<&str, u32>) -> Vec<Arc> {
    let mut merged: BTreeMap<(u32, u32, bool), Vec<String>> = BTreeMap::new();
    for e in graph.edges.iter().filter(|e| e.kind != EdgeKind::SkipRange) {
        if let (Some(&from), Some(&to)) = (row.get(e.from.as_str()), row.get(e.to.as_str())) {
            let skips = e.kind == EdgeKind::Skips;
            merged
                .entry((from, to, skips))
                .or_default()
                .push(e.channel.clone());
        }
    }
    merged
        .into_iter()
        .map(|((from, to, skips), channels)| Arc {
            from,
            to,
            kind: if skips {
                EdgeKind::Skips
            } else {
                EdgeKind::Replaces
            },
            channels,
            // A skips arc is drawn wider than a replaces arc between the same rows.
            width: (24 + 12 * from.abs_diff(to)).min(360) + if skips { 10 } else { 0 },
        })
        .collect()
}

impl Arc {
    fn draw(&self, svg: &mut String, left: u32) {
        let x = left + BOX_W;
        let (y0, y1) = (y(self.from), y(self.to));
        let reach = x + self.width;
        let (color, dash) = match self.kind {
            EdgeKind::Skips => ("#c8691c", r#" stroke-dasharray="6 4""#),
            _ => ("#2a62c9", ""),
        };
        let _ = write!(
            svg,
            r##"<path class="edge {}" d="M{x},{y0} C{reach},{y0} {reach},{y1} {},{y1}" fill="none" stroke="{color}" stroke-width="1.4"{dash} marker-end="url(#arrow)"><title>{} ({})</title></path>"##,
            self.kind.as_str(),
            x + 2,
            self.kind.as_str(),
            escape(&self.channels.join(", ")),
        );
    }
}

/// The rows a bundle's skipRange admits upgrades from, over all its channels.
struct Bracket {
    to: u32,
    low: u32,
    high: u32,
    count: usize,
    lane: u32,
}

fn brackets(graph: &PackageGraph, row: &HashMap<&str, u32>) -> Vec<Bracket> {
    let mut froms: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for e in graph.edges.iter().filter(|e| e.kind == EdgeKind::SkipRange) {
        if let (Some(&from), Some(&to)) = (row.get(e.from.as_str()), row.get(e.to.as_str())) {
            froms.entry(to).or_default().push(from);
        }
    }
    // Lanes by interval colouring, top to bottom: each bracket takes the first
    // lane free over its span (the last lane is shared when all are taken).
    let mut lane_ends: Vec<u32> = Vec::new();
    let mut out: Vec<Bracket> = froms
        .into_iter()
        .map(|(to, mut rows)| {
            rows.sort_unstable();
            rows.dedup();
            let low = rows.first().copied().unwrap_or(to).min(to);
            let high = rows.last().copied().unwrap_or(to).max(to);
            Bracket {
                to,
                low,
                high,
                count: rows.len(),
                lane: 0,
            }
        })
        .collect();
    out.sort_by_key(|b| (b.low, b.high));
    for bracket in &mut out {
        let free = lane_ends.iter().position(|&end| end < bracket.low);
        let lane = match free {
            Some(lane) => lane,
            None if (lane_ends.len() as u32) < MAX_LANES => {
                lane_ends.push(0);
                lane_ends.len() - 1
            }
            None => MAX_LANES as usize - 1,
        };
        lane_ends[lane] = bracket.high;
        bracket.lane = lane as u32;
    }
    out
}

impl Bracket {
    fn draw(&self, svg: &mut String, left: u32) {
        let x = left - 8 - self.lane * LANE;
        let (top, bottom, target) = (y(self.low) - 6, y(self.high) + 6, y(self.to));
        let plural = if self.count == 1 { "" } else { "s" };
        let _ = write!(
            svg,
            r##"<g class="edge skipRange" stroke="#2f8a3b" stroke-width="1.4" fill="none"><title>skipRange: upgrades from {} bundle{plural}</title><path d="M{},{top} H{x} V{bottom} H{}" stroke-dasharray="2 3"/><path d="M{x},{target} H{}" marker-end="url(#arrow)"/></g>"##,
            self.count,
            x + 4,
            x + 4,
            left - 2,
        );
    }
}

fn legend(svg: &mut String) {
    svg.push_str(concat!(
        r##"<g class="legend" font-size="11" fill="#333">"##,
        r##"<path d="M10,12 H34" stroke="#2a62c9" stroke-width="1.4"/><text x="40" y="16">replaces</text>"##,
        r##"<path d="M110,12 H134" stroke="#c8691c" stroke-width="1.4" stroke-dasharray="6 4"/><text x="140" y="16">skips</text>"##,
        r##"<path d="M190,12 H214" stroke="#2f8a3b" stroke-width="1.4" stroke-dasharray="2 3"/><text x="220" y="16">skipRange (bracket: the versions it admits)</text>"##,
        r##"<rect x="490" y="5" width="14" height="12" fill="#fff" stroke="#222" stroke-width="2.4"/><text x="510" y="16">head</text>"##,
        r##"<rect x="550" y="5" width="14" height="12" fill="#e2e2e2" stroke="#666"/><text x="570" y="16">deprecated</text>"##,
        r##"<rect x="640" y="5" width="14" height="12" fill="#fff" stroke="#666" stroke-dasharray="4 2"/><text x="660" y="16">skipped</text>"##,
        "</g>"
    ));
}

fn draw_node(svg: &mut String, node: &Node, row: u32, left: u32) {
    let top = TOP + row * ROW;
    let head = !node.head_of.is_empty();
    let fill = if node.deprecated.is_some() {
        "#e2e2e2"
    } else if node.missing {
        "none"
    } else {
        "#fff"
    };
    let stroke = if node.missing { "#999" } else { "#222" };
    let width = if head { "2.4" } else { "1" };
    let dash = if node.skipped_in.is_empty() && !node.missing {
        ""
    } else {
        r#" stroke-dasharray="4 2""#
    };
    let version = if node.version.is_empty() {
        "missing"
    } else {
        &node.version
    };
    let _ = write!(
        svg,
        r##"<g class="node" data-name="{}"><title>{}</title><rect x="{left}" y="{top}" width="{BOX_W}" height="{BOX_H}" rx="3" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/><text x="{}" y="{}" font-weight="{}" fill="{}">{}</text><text x="{}" y="{}" fill="#666">{}</text></g>"##,
        escape(&node.name),
        escape(&tooltip(node)),
        left + 6,
        top + 14,
        if head { "bold" } else { "normal" },
        if node.missing { "#888" } else { "#111" },
        escape(version),
        left + 92,
        top + 14,
        escape(&shorten(&node.name)),
    );
}

fn tooltip(node: &Node) -> String {
    let mut lines = vec![node.name.clone()];
    if node.missing {
        lines.push("named by an edge, not a bundle of the package".into());
    } else {
        lines.push(format!("version {}", node.version));
        lines.push(format!("channels: {}", node.channels.join(", ")));
    }
    if !node.head_of.is_empty() {
        lines.push(format!("head of {}", node.head_of.join(", ")));
    }
    if !node.skipped_in.is_empty() {
        lines.push(format!("skipped in {}", node.skipped_in.join(", ")));
    }
    if let Some(message) = &node.deprecated {
        lines.push(format!("deprecated: {message}"));
    }
    lines.join("\n")
}

fn shorten(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        return name.to_string();
    }
    let kept: String = name.chars().take(NAME_CHARS - 1).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests;
