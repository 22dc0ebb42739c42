//! A package's upgrade graph, as data and as pictures.
//!
//! In: the tables and a package. Out: a [`PackageGraph`]: its bundles (nodes:
//! version, channels, heads, deprecations, whether OLM v0 hides them), its edges by
//! kind and channel (from the bundle upgraded from to the bundle upgraded to), and
//! each channel's chain in OLM v0 order; rendered as JSON, Graphviz DOT or Mermaid.
//!
//! Edges: `replaces` and `skips` as the entries declare them; `skipRange` from every
//! entry of the same channel whose version the range contains. A `replaces` or
//! `skips` naming a bundle the package does not have gets a node marked missing.

use super::channel_index::ChannelIndex;
use super::{EdgeKind, GraphError, find_package};
use crate::model::Package;
use crate::tables::{ChannelRef, Tables};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A bundle in the graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// Bundle name.
    pub name: String,
    /// Its version, or empty for a missing bundle.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Channels it is an entry of.
    pub channels: Vec<String>,
    /// Channels it is the head of.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub head_of: Vec<String>,
    /// Its `olm.deprecations` message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
    /// Channels in which another entry skips it (OLM v0 never offers it there).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_in: Vec<String>,
    /// Named by an edge but not a bundle of the package.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
}

/// An upgrade edge: a bundle on `from` may move to `to`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphEdge {
    /// The bundle upgraded from.
    pub from: String,
    /// The bundle upgraded to (whose entry declares the edge).
    pub to: String,
    /// How.
    pub kind: EdgeKind,
    /// The channel whose entry declares it.
    pub channel: String,
}

/// A channel: its head and its chain in OLM v0 order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelGraph {
    /// Channel name.
    pub name: String,
    /// Its head.
    pub head: String,
    /// Head first along `replaces`, skipped entries left out.
    pub chain: Vec<String>,
    /// Its `olm.deprecations` message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
}

/// One package's graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageGraph {
    /// Package name.
    pub package: String,
    /// Its default channel.
    pub default_channel: String,
    /// Its `olm.deprecations` message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
    /// Channels by name.
    pub channels: Vec<ChannelGraph>,
    /// Bundles by name (missing ones last).
    pub nodes: Vec<Node>,
    /// Edges ordered by (from, to, kind, channel).
    pub edges: Vec<GraphEdge>,
}

/// Most edges one package's graph may have. Real packages have hundreds; a
/// skipRange like `>=0.0.0` on every entry of a 10,000-entry channel would make
/// 50 million, gigabytes of answer.
pub const MAX_GRAPH_EDGES: usize = 200_000;

/// The graph of package `name`.
pub fn package_graph(tables: &Tables, name: &str) -> Result<PackageGraph, GraphError> {
    let (pi, package) = find_package(tables, name)?;
    graph_of(tables, pi, package)
}

/// The graphs of every package, by name.
pub fn all_graphs(tables: &Tables) -> Result<Vec<PackageGraph>, GraphError> {
    tables
        .packages()
        .iter()
        .enumerate()
        .map(|(pi, p)| graph_of(tables, pi as u32, p))
        .collect()
}

/// Refuses a package whose graph would have more than [`MAX_GRAPH_EDGES`] edges,
/// counting before building.
fn check_size(tables: &Tables, pi: u32, package: &Package) -> Result<(), GraphError> {
    let edges: usize = (0..package.channels.len())
        .filter_map(|ci| ChannelIndex::of(tables, pi, ci))
        .map(|index| {
            let declared: usize = index
                .channel
                .entries
                .iter()
                .map(|e| usize::from(!e.replaces.is_empty()) + e.skips.len())
                .sum();
            let covered: usize = index
                .edges
                .ranges()
                .map(|(i, _)| index.edges.covered_count(i))
                .sum();
            declared + covered
        })
        .sum();
    if edges > MAX_GRAPH_EDGES {
        return Err(GraphError::TooLarge {
            package: package.name.clone(),
            edges,
            limit: MAX_GRAPH_EDGES,
        });
    }
    Ok(())
}

fn graph_of(tables: &Tables, pi: u32, package: &Package) -> Result<PackageGraph, GraphError> {
    check_size(tables, pi, package)?;
    let mut edges = BTreeSet::new();
    let mut channels = Vec::new();
    for (ci, channel) in package.channels.iter().enumerate() {
        let Some(index) = ChannelIndex::of(tables, pi, ci) else {
            continue;
        };
        channel_edges(&index, &mut edges);
        let chain = tables.chain(ChannelRef {
            package: pi,
            channel: ci as u32,
        });
        channels.push(ChannelGraph {
            name: channel.name.clone(),
            head: channel.head_entry().name.clone(),
            chain: chain
                .iter()
                .map(|&i| channel.entries[i as usize].name.clone())
                .collect(),
            deprecated: channel.deprecation.clone(),
        });
    }
    let edges: Vec<GraphEdge> = edges.into_iter().collect();
    Ok(PackageGraph {
        package: package.name.clone(),
        default_channel: package.default_channel.clone(),
        deprecated: package.deprecation.clone(),
        nodes: nodes(package, &edges),
        channels,
        edges,
    })
}

fn channel_edges(index: &ChannelIndex, edges: &mut BTreeSet<GraphEdge>) {
    let channel = index.channel;
    let edge = |from: &str, to: &str, kind| GraphEdge {
        from: from.to_string(),
        to: to.to_string(),
        kind,
        channel: channel.name.clone(),
    };
    for e in &channel.entries {
        if !e.replaces.is_empty() {
            edges.insert(edge(&e.replaces, &e.name, EdgeKind::Replaces));
        }
        for s in e.skips.iter().filter(|s| !s.is_empty()) {
            edges.insert(edge(s, &e.name, EdgeKind::Skips));
        }
    }
    for (i, _) in index.edges.ranges() {
        let to = index.entry(i);
        for other in index.edges.covered_by_range_of(i) {
            let other = index.entry(other);
            if other.name != to.name {
                edges.insert(edge(&other.name, &to.name, EdgeKind::SkipRange));
            }
        }
    }
}

fn nodes(package: &Package, edges: &[GraphEdge]) -> Vec<Node> {
    let mut by_name: BTreeMap<&str, Node> = BTreeMap::new();
    for b in &package.bundles {
        by_name.insert(
            &b.name,
            Node {
                name: b.name.clone(),
                version: b.version_text.clone(),
                channels: Vec::new(),
                head_of: Vec::new(),
                deprecated: b.deprecation.clone(),
                skipped_in: Vec::new(),
                missing: false,
            },
        );
    }
    for c in &package.channels {
        let skipped: BTreeSet<&str> = c
            .entries
            .iter()
            .flat_map(|e| e.skips.iter().map(String::as_str))
            .collect();
        for e in &c.entries {
            if let Some(n) = by_name.get_mut(e.name.as_str()) {
                n.channels.push(c.name.clone());
                if skipped.contains(e.name.as_str()) {
                    n.skipped_in.push(c.name.clone());
                }
            }
        }
        if let Some(n) = by_name.get_mut(c.head_entry().name.as_str()) {
            n.head_of.push(c.name.clone());
        }
    }
    let mut missing: BTreeSet<&str> = BTreeSet::new();
    for e in edges {
        if !by_name.contains_key(e.from.as_str()) {
            missing.insert(&e.from);
        }
    }
    let mut out: Vec<Node> = by_name.into_values().collect();
    out.extend(missing.into_iter().map(|name| Node {
        name: name.to_string(),
        version: String::new(),
        channels: Vec::new(),
        head_of: Vec::new(),
        deprecated: None,
        skipped_in: Vec::new(),
        missing: true,
    }));
    out
}

/// Graphviz DOT of `graphs`: one cluster per package, heads in bold,
/// `replaces` solid, `skips` dashed, `skipRange` dotted; deprecated bundles
/// filled grey, bundles OLM v0 hides dashed, missing ones grey text. Renders
/// with `dot -Tsvg`.
pub fn to_dot(graphs: &[PackageGraph]) -> String {
    let mut out = String::from(
        "digraph catalog {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n",
    );
    for (gi, g) in graphs.iter().enumerate() {
        out.push_str(&format!(
            "  subgraph cluster_{gi} {{\n    label={};\n",
            dot_quote(&g.package)
        ));
        for n in &g.nodes {
            let mut style = Vec::new();
            if n.deprecated.is_some() {
                style.push("filled");
            }
            if !n.skipped_in.is_empty() {
                style.push("dashed");
            }
            if !n.head_of.is_empty() {
                style.push("bold");
            }
            let label = if n.version.is_empty() {
                n.name.clone()
            } else {
                format!("{}\\n{}", n.name, n.version)
            };
            let mut attrs = vec![format!("label={}", dot_quote_label(&label))];
            if !style.is_empty() {
                attrs.push(format!("style=\"{}\"", style.join(",")));
            }
            if n.deprecated.is_some() {
                attrs.push("fillcolor=\"#dddddd\"".into());
            }
            if n.missing {
                attrs.push("fontcolor=\"#888888\", color=\"#888888\"".into());
            }
            out.push_str(&format!(
                "    {} [{}];\n",
                dot_quote(&node_id(g, &n.name)),
                attrs.join(", ")
            ));
        }
        out.push_str("  }\n");
        for e in &g.edges {
            let style = match e.kind {
                EdgeKind::Replaces | EdgeKind::SameVersion => "solid",
                EdgeKind::Skips => "dashed",
                EdgeKind::SkipRange => "dotted",
            };
            out.push_str(&format!(
                "  {} -> {} [label={}, style={style}];\n",
                dot_quote(&node_id(g, &e.from)),
                dot_quote(&node_id(g, &e.to)),
                dot_quote(&format!("{} ({})", e.kind.as_str(), e.channel)),
            ));
        }
    }
    out.push_str("}\n");
    out
}

/// Node IDs are per package, so two packages' bundles never merge.
fn node_id(g: &PackageGraph, name: &str) -> String {
    format!("{}/{}", g.package, name)
}

/// A DOT double-quoted ID: `"` and `\` escaped, line breaks as spaces.
fn dot_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Like [`dot_quote`], but keeps the `\n` line-break escapes of a label.
fn dot_quote_label(s: &str) -> String {
    dot_quote(&s.replace("\\n", "\u{1}")).replace('\u{1}', "\\n")
}

/// A Mermaid flowchart of `graphs` (one subgraph per package): `replaces` as
/// `-->`, `skips` as `-.->`, `skipRange` as `==>`; heads, deprecated, hidden and
/// missing bundles styled by class.
pub fn to_mermaid(graphs: &[PackageGraph]) -> String {
    let mut out = String::from("flowchart LR\n");
    out.push_str("  classDef head stroke-width:3px\n  classDef deprecated fill:#ddd,color:#555\n  classDef skipped stroke-dasharray:4 3\n  classDef missing color:#888,stroke:#888\n");
    for (gi, g) in graphs.iter().enumerate() {
        let ids: BTreeMap<&str, String> = g
            .nodes
            .iter()
            .enumerate()
            .map(|(ni, n)| (n.name.as_str(), format!("p{gi}n{ni}")))
            .collect();
        out.push_str(&format!(
            "  subgraph p{gi}[\"{}\"]\n",
            mermaid_text(&g.package)
        ));
        for n in &g.nodes {
            let label = if n.version.is_empty() {
                mermaid_text(&n.name)
            } else {
                format!("{}<br/>{}", mermaid_text(&n.name), mermaid_text(&n.version))
            };
            out.push_str(&format!("    {}[\"{label}\"]\n", ids[n.name.as_str()]));
        }
        out.push_str("  end\n");
        for e in &g.edges {
            let arrow = match e.kind {
                EdgeKind::Replaces | EdgeKind::SameVersion => "-->",
                EdgeKind::Skips => "-.->",
                EdgeKind::SkipRange => "==>",
            };
            let (Some(from), Some(to)) = (ids.get(e.from.as_str()), ids.get(e.to.as_str())) else {
                continue;
            };
            out.push_str(&format!(
                "  {from} {arrow}|\"{} ({})\"| {to}\n",
                e.kind.as_str(),
                mermaid_text(&e.channel)
            ));
        }
        for n in &g.nodes {
            let id = &ids[n.name.as_str()];
            for (class, on) in [
                ("head", !n.head_of.is_empty()),
                ("deprecated", n.deprecated.is_some()),
                ("skipped", !n.skipped_in.is_empty()),
                ("missing", n.missing),
            ] {
                if on {
                    out.push_str(&format!("  class {id} {class}\n"));
                }
            }
        }
    }
    out
}

/// Text inside a Mermaid quoted label: quotes and markup characters as entities.
fn mermaid_text(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '"' => "#quot;".to_string(),
            '<' => "#lt;".to_string(),
            '>' => "#gt;".to_string(),
            '#' => "#35;".to_string(),
            '\n' | '\r' => " ".to_string(),
            c => c.to_string(),
        })
        .collect()
}
