use super::*;
use fbc_catalog::graph::export::GraphEdge;
use proptest::prelude::*;

fn node(name: &str, version: &str) -> Node {
    Node {
        name: name.into(),
        version: version.into(),
        channels: vec!["stable".into()],
        head_of: vec![],
        deprecated: None,
        skipped_in: vec![],
        missing: false,
    }
}

fn edge(from: &str, to: &str, kind: EdgeKind, channel: &str) -> GraphEdge {
    GraphEdge {
        from: from.into(),
        to: to.into(),
        kind,
        channel: channel.into(),
    }
}

fn graph(nodes: Vec<Node>, edges: Vec<GraphEdge>) -> PackageGraph {
    PackageGraph {
        package: "p".into(),
        default_channel: "stable".into(),
        deprecated: None,
        channels: vec![],
        nodes,
        edges,
    }
}

#[test]
fn rows_are_newest_first_and_edges_merge_over_channels() {
    let mut head = node("p.v2", "2.0.0");
    head.head_of = vec!["stable".into()];
    let g = graph(
        vec![node("p.v1", "1.0.0"), node("p.v1.5", "1.5.0"), head],
        vec![
            edge("p.v1", "p.v2", EdgeKind::Replaces, "fast"),
            edge("p.v1", "p.v2", EdgeKind::Replaces, "stable"),
            edge("p.v1.5", "p.v2", EdgeKind::Skips, "stable"),
            edge("p.v1", "p.v2", EdgeKind::SkipRange, "stable"),
            edge("p.v1.5", "p.v2", EdgeKind::SkipRange, "stable"),
        ],
    );
    let svg = draw(&g).unwrap();
    let v2 = svg.find(r#"data-name="p.v2""#).unwrap();
    let v15 = svg.find(r#"data-name="p.v1.5""#).unwrap();
    let v1 = svg.find(r#"data-name="p.v1""#).unwrap();
    assert!(v2 < v15 && v15 < v1, "{svg}");
    assert_eq!(svg.matches(r#"class="edge replaces""#).count(), 1);
    assert!(
        svg.contains("<title>replaces (fast, stable)</title>"),
        "{svg}"
    );
    assert_eq!(svg.matches(r#"class="edge skips""#).count(), 1);
    assert_eq!(svg.matches(r#"class="edge skipRange""#).count(), 1);
    assert!(svg.contains("upgrades from 2 bundles"), "{svg}");
    assert!(svg.contains(r#"font-weight="bold""#), "the head is bold");
}

#[test]
fn too_many_bundles_are_refused() {
    let nodes = (0..=MAX_NODES)
        .map(|i| node(&format!("p.v{i}"), &format!("{i}.0.0")))
        .collect();
    assert_eq!(
        draw(&graph(nodes, vec![])),
        Err(TooLarge {
            nodes: MAX_NODES + 1
        })
    );
}

#[test]
fn brackets_share_lanes_only_when_they_do_not_overlap() {
    let nodes: Vec<Node> = (0..6)
        .map(|i| node(&format!("p.v{i}"), &format!("{i}.0.0")))
        .collect();
    let edges = vec![
        edge("p.v0", "p.v1", EdgeKind::SkipRange, "s"),
        edge("p.v2", "p.v3", EdgeKind::SkipRange, "s"),
        edge("p.v0", "p.v5", EdgeKind::SkipRange, "s"),
    ];
    let g = graph(nodes, edges);
    let order = rows(&g.nodes);
    let row: HashMap<&str, u32> = order
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i as u32))
        .collect();
    let lanes: Vec<(u32, u32)> = brackets(&g, &row).iter().map(|b| (b.to, b.lane)).collect();
    // Rows: v5=0 … v0=5. v1←v0 spans 4..5, v3←v2 spans 2..3, v5←v0 spans 0..5.
    assert_eq!(lanes, vec![(0, 0), (2, 1), (4, 1)]);
}

proptest! {
    /// Any graph, whatever its names, draws every bundle once and escapes every name.
    #[test]
    fn every_bundle_is_drawn_once(
        names in proptest::collection::btree_set("[a-z<>&\"' .]{1,12}", 1..30),
        picks in proptest::collection::vec((0usize..30, 0usize..30, 0u8..3), 0..60),
    ) {
        let names: Vec<String> = names.into_iter().collect();
        let nodes: Vec<Node> = names
            .iter()
            .enumerate()
            .map(|(i, n)| node(n, &format!("{}.{}.0", i % 4, i)))
            .collect();
        let kinds = [EdgeKind::Replaces, EdgeKind::Skips, EdgeKind::SkipRange];
        let edges = picks
            .iter()
            .map(|&(a, b, k)| edge(&names[a % names.len()], &names[b % names.len()], kinds[k as usize], "c"))
            .collect();
        let svg = draw(&graph(nodes, edges)).unwrap();
        prop_assert_eq!(svg.matches(r#"<g class="node""#).count(), names.len());
        prop_assert_eq!(svg.matches("<g").count(), svg.matches("</g>").count());
        for name in &names {
            let attribute = format!("data-name=\"{}\"", escape(name));
            prop_assert_eq!(svg.matches(&attribute).count(), 1);
        }
        let text: String = svg.split('<').skip(1).map(|t| t.split_once('>').map_or("", |(_, rest)| rest)).collect();
        prop_assert!(!text.contains('>'), "unescaped > in text");
    }
}
