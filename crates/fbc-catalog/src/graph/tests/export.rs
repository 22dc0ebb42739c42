//! Graph export: nodes, edges by kind, chains, and the DOT and Mermaid texts.

use super::super::EdgeKind;
use super::super::export::{GraphEdge, all_graphs, package_graph, to_dot, to_mermaid};
use super::*;

fn edge(from: &str, to: &str, kind: EdgeKind) -> GraphEdge {
    GraphEdge {
        from: from.into(),
        to: to.into(),
        kind,
        channel: "stable".into(),
    }
}

#[test]
fn the_divergence_graph_has_every_edge_the_entries_declare() {
    let t = divergence();
    let g = package_graph(&t, "p").expect("graph");
    assert_eq!(
        g.edges,
        [
            edge("p.v1", "p.v2", EdgeKind::Replaces),
            edge("p.v2", "p.v3", EdgeKind::Replaces),
            edge("p.v2", "p.v3", EdgeKind::Skips),
        ]
    );
    let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        ["p.v2", "p.v3", "p.v1"],
        "bundles by name, then the missing"
    );
    assert!(g.nodes[2].missing);
    assert_eq!(g.nodes[0].skipped_in, ["stable"], "OLM v0 hides p.v2");
    assert_eq!(g.nodes[1].head_of, ["stable"]);
    assert_eq!(g.channels[0].chain, ["p.v3"]);
}

#[test]
fn skip_range_edges_come_from_the_entries_whose_versions_the_range_contains() {
    let t = seed_001();
    let g = package_graph(&t, "p").expect("graph");
    assert_eq!(
        g.edges,
        [edge("example.v2.0.0", "example.v3.0.0", EdgeKind::Skips)],
        "1.0.0 is not an entry"
    );
    let t = tables(&one_channel(
        &[
            "{name: p.v3, replaces: p.v2, skipRange: '>=1.0.0 <3.0.0'}",
            "{name: p.v2, replaces: p.v1}",
            "{name: p.v1}",
        ],
        &[("p.v1", "1.0.0"), ("p.v2", "2.0.0"), ("p.v3", "3.0.0")],
    ));
    let g = package_graph(&t, "p").expect("graph");
    assert!(g.edges.contains(&edge("p.v1", "p.v3", EdgeKind::SkipRange)));
    assert!(g.edges.contains(&edge("p.v2", "p.v3", EdgeKind::SkipRange)));
    assert_eq!(g.edges.len(), 4);
}

#[test]
fn dot_and_mermaid_name_every_node_and_edge_and_escape_quotes() {
    let t = divergence();
    let graphs = all_graphs(&t).expect("graphs");
    let dot = to_dot(&graphs);
    assert!(dot.starts_with("digraph catalog {"), "{dot}");
    assert!(
        dot.contains(r#""p/p.v2" -> "p/p.v3" [label="skips (stable)", style=dashed];"#),
        "{dot}"
    );
    assert!(
        dot.contains(r##""p/p.v1" [label="p.v1", fontcolor="#888888", color="#888888"];"##),
        "{dot}"
    );
    assert_eq!(dot.matches(" -> ").count(), 3);
    let mermaid = to_mermaid(&graphs);
    assert!(mermaid.starts_with("flowchart LR\n"));
    assert!(
        mermaid.contains(r#"p0n0 -.->|"skips (stable)"| p0n1"#),
        "{mermaid}"
    );
    assert!(mermaid.contains("class p0n2 missing"), "{mermaid}");
}

#[test]
fn hostile_names_cannot_break_out_of_the_dot_or_mermaid_quotes() {
    let mut g = package_graph(&divergence(), "p").expect("graph");
    g.package = "evil\"];\n x -> y [label=\"".into();
    g.nodes[0].name = "a\\\"<b>#".into();
    let dot = to_dot(std::slice::from_ref(&g));
    assert!(
        dot.contains(r#"label="evil\"];  x -> y [label=\"";"#),
        "{dot}"
    );
    assert!(!dot.contains("\n x -> y"));
    let mermaid = to_mermaid(std::slice::from_ref(&g));
    assert!(mermaid.contains("a\\#quot;#lt;b#gt;#35;"), "{mermaid}");
}

#[test]
fn a_graph_over_the_edge_limit_is_refused_before_it_is_built() {
    // 500 entries, each replacing the one before with skipRange ">=0.0.0":
    // 499 replaces and 499 ranges counted as covering all 500 entries.
    let names: Vec<String> = (0..500).map(|i| format!("p.v{i}")).collect();
    let entries: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| match i {
            0 => format!("{{name: {n}}}"),
            _ => format!(
                "{{name: {n}, replaces: {}, skipRange: '>=0.0.0'}}",
                names[i - 1]
            ),
        })
        .collect();
    let entry_refs: Vec<&str> = entries.iter().map(String::as_str).collect();
    let versions: Vec<String> = (0..500).map(|i| format!("{i}.0.0")).collect();
    let bundles: Vec<(&str, &str)> = names
        .iter()
        .zip(&versions)
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let t = tables(&one_channel(&entry_refs, &bundles));
    let err = package_graph(&t, "p").expect_err("too large");
    assert!(
        err.to_string()
            .starts_with("the graph of package \"p\" has 249999 edges, more than the 200000"),
        "{err}"
    );
    assert!(all_graphs(&t).is_err());
}
