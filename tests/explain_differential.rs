//! `explain-upgrade`'s OLM v0 answer against the reference resolver (OLM v0.25's
//! `Resolver.Resolve`, `../shared/peers/olm-oracle`), one install at a time.
//!
//! `tests/fixtures/explain-differential/cases.json` holds, for starting points on
//! the generated catalogs of `tests/fixtures/resolve-differential/gen-*/catalog/`,
//! the path OLM v0 takes a Subscription along: from the installed bundle, the
//! bundle the oracle installs for the subscription, then from that one, and so on
//! until it installs nothing (`stays`), fails (`error`), fails with a core that
//! changes between runs (`nondeterministic`), or 50 hops (`limit`). See the
//! folder's README for how it was recorded with `tools/explain-diff.py`.
//!
//! Here the same walk is made with [`explain_state`]: a cluster state holding the
//! Subscription and its CSV (the `operatorframework.io/properties` annotation
//! carries the catalog bundle's properties, as in the oracle's input), the next
//! bundle being the `next` of the explanation's `resolution`. The iterated path
//! and its ending must be the oracle's. Errors compare as sets of parts, OLM's
//! at-most-one messages as sets of bundles (their order follows Go's map order).
//! The test reads nothing outside the repository.

use fbc_catalog::cluster::explain::explain_state;
use fbc_catalog::cluster::explain::resolution::Resolution;
use fbc_catalog::cluster::state::ClusterState;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Hops after which a walk stops, as the recording tool stops.
const MAX_HOPS: usize = 50;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A catalog directory's tables, loaded as `tests/resolve_differential.rs` does.
fn tables_of(dir: &Path) -> fbc_catalog::tables::Tables {
    let options = fbc_catalog::load::LoadOptions {
        chain_rule: fbc_catalog::model::ChainRule::Legacy,
        ..Default::default()
    };
    let loaded = fbc_catalog::load::load_model(dir, &options)
        .unwrap_or_else(|p| panic!("{}: the catalog does not load: {p:?}", dir.display()));
    loaded.tables(dir, Default::default())
}

/// A catalog's bundles by name: (version, properties as the oracle's input has
/// them: all but `olm.bundle.object` and `olm.csv.metadata`).
fn bundles_of(dir: &Path) -> HashMap<String, (String, Vec<Value>)> {
    let text = std::fs::read_to_string(dir.join("catalog.json")).expect("catalog.json");
    let mut out = HashMap::new();
    for blob in serde_json::Deserializer::from_str(&text).into_iter::<Value>() {
        let blob = blob.expect("catalog.json is a JSON stream");
        if blob["schema"] != "olm.bundle" {
            continue;
        }
        let properties: Vec<Value> = blob["properties"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| {
                !matches!(
                    p["type"].as_str(),
                    Some("olm.bundle.object" | "olm.csv.metadata")
                )
            })
            .cloned()
            .collect();
        let version = properties
            .iter()
            .find(|p| p["type"] == "olm.package")
            .and_then(|p| p["value"]["version"].as_str())
            .unwrap_or_default()
            .to_owned();
        let name = blob["name"].as_str().expect("bundle name").to_owned();
        out.insert(name, (version, properties));
    }
    out
}

/// One catalog, loaded once for all its cases.
struct Catalog {
    tables: fbc_catalog::tables::Tables,
    bundles: HashMap<String, (String, Vec<Value>)>,
}

/// The cluster state of the oracle's input: Subscription `s` in `ns` on `package`
/// and `channel` with `installed` installed, and that CSV.
fn state(catalog: &Catalog, package: &str, channel: &str, installed: &str) -> ClusterState {
    let (version, properties) = catalog
        .bundles
        .get(installed)
        .unwrap_or_else(|| panic!("the catalog has no bundle {installed}"));
    let annotation = json!({ "properties": properties }).to_string();
    let list = json!({
        "kind": "List",
        "items": [
            {
                "kind": "Subscription",
                "metadata": {"name": "s", "namespace": "ns"},
                "spec": {"name": package, "channel": channel, "source": "cat", "sourceNamespace": "olm"},
                "status": {"installedCSV": installed},
            },
            {
                "kind": "ClusterServiceVersion",
                "metadata": {
                    "name": installed,
                    "namespace": "ns",
                    "annotations": {"operatorframework.io/properties": annotation},
                },
                "spec": {"version": version},
                "status": {"phase": "Succeeded"},
            },
        ],
    });
    ClusterState::read(
        "state.json",
        list.to_string().as_bytes(),
        &fbc_catalog::source::ParseLimits::default(),
    )
    .expect("the cluster state reads")
}

/// How a walk ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum End {
    Stays,
    Error(String),
    Limit,
}

/// Our walk.
struct Walk {
    /// The bundles installed one after the other.
    path: Vec<String>,
    /// How it ended.
    end: End,
    /// The first explanation's static graph path.
    graph: Vec<String>,
    /// Steps where the graph's next hop is not what resolution installs, each
    /// with whether resolution names that hop among the candidates it passed over.
    overruled: Vec<(String, bool)>,
}

/// Our walk from `from`, as the oracle's was made.
fn walk(catalog: &Catalog, package: &str, channel: &str, from: &str) -> Walk {
    let mut out = Walk {
        path: Vec::new(),
        end: End::Limit,
        graph: Vec::new(),
        overruled: Vec::new(),
    };
    let mut installed = from.to_owned();
    while out.path.len() < MAX_HOPS {
        let state = state(catalog, package, channel, &installed);
        let report = match explain_state(&catalog.tables, &state, None) {
            Ok(report) => report,
            Err(e) => {
                out.end = End::Error(format!("explain_state: {e}"));
                return out;
            }
        };
        let Some(e) = report.subscriptions.first() else {
            out.end = End::Error(format!("no explanation: {:?}", report.problems));
            return out;
        };
        if installed == from {
            out.graph = e.path.clone();
        }
        let next = match &e.resolution {
            Some(Resolution::Resolves { next, passed_over }) => {
                if let Some(hop) = e.path.first()
                    && next.as_ref() != Some(hop)
                {
                    let named = passed_over
                        .iter()
                        .any(|a| a.candidate.starts_with(hop.as_str()));
                    out.overruled.push((format!("{installed} -> {hop}"), named));
                }
                next.clone()
            }
            Some(Resolution::Fails { error }) => {
                out.end = End::Error(error.clone());
                return out;
            }
            None => {
                out.end = End::Error("no resolution".into());
                return out;
            }
        };
        let Some(next) = next else {
            out.end = End::Stays;
            return out;
        };
        out.path.push(next.clone());
        installed = next;
    }
    out
}

const PREFIX: &str = "constraints not satisfiable: ";

/// The bundles of an at-most-one message's last part (`B and C provide K (g/v)`,
/// `B and C originate from package P`).
fn at_most_one_ids(token: &str) -> Option<Vec<&str>> {
    [" provide ", " originate from package "]
        .iter()
        .find_map(|sep| {
            let (head, _) = token.split_once(sep)?;
            if *sep == " provide " && !token.ends_with(')') {
                return None;
            }
            let ids: Vec<&str> = head.split(" and ").collect();
            ids.iter()
                .all(|i| !i.is_empty() && !i.contains(' '))
                .then_some(ids)
        })
}

/// A comparison key for an error, the one `tools/explain-diff.py`'s
/// `canonical_error` computes: its parts (split at `, `) sorted, each at-most-one
/// message replaced by its bundles, sorted.
fn canonical(text: &str) -> Vec<String> {
    let Some(rest) = text.strip_prefix(PREFIX) else {
        return vec![text.to_owned()];
    };
    let mut parts: Vec<String> = Vec::new();
    let mut pending: Vec<&str> = Vec::new();
    for token in rest.split(", ") {
        if !token.is_empty() && !token.contains(' ') {
            pending.push(token);
            continue;
        }
        if let Some(ids) = at_most_one_ids(token) {
            let mut all: Vec<&str> = pending.drain(..).chain(ids).collect();
            all.sort_unstable();
            parts.push(format!("at most one of {}", all.join(", ")));
        } else {
            parts.extend(pending.drain(..).map(str::to_owned));
            parts.push(token.to_owned());
        }
    }
    parts.extend(pending.into_iter().map(str::to_owned));
    parts.sort();
    parts
}

/// Whether our ending is the oracle's recorded `case`'s.
fn same_end(case: &Value, ours: &End) -> bool {
    let same_error =
        |theirs: &str, ours: &str| theirs == ours || canonical(theirs) == canonical(ours);
    match (case["end"].as_str(), ours) {
        (Some("stays"), End::Stays) | (Some("limit"), End::Limit) => true,
        (Some("error"), End::Error(e)) => same_error(case["error"].as_str().unwrap_or_default(), e),
        (Some("nondeterministic"), End::Error(e)) => case["variants"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["error"].as_str())
            .any(|theirs| same_error(theirs, e)),
        // a subscription's own outcome that changes between runs (not seen when
        // recorded): ours must be one of them
        (Some("nondeterministic"), End::Stays) => case["variants"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|v| v["stays"] == true),
        _ => false,
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_recorded_upgrade_path_is_the_reference_resolvers() {
    let text = std::fs::read_to_string(root().join("explain-differential/cases.json"))
        .expect("cases.json");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("cases.json parses");
    assert!(cases.len() >= 500, "the corpus has {} cases", cases.len());
    let mut catalogs: HashMap<String, Catalog> = HashMap::new();
    let mut wrong = Vec::new();
    let (mut graph_same, mut graph_differs) = (0usize, Vec::new());
    let mut graph_why: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut exact_errors = 0usize;
    let mut up_to_order = Vec::new();
    for case in &cases {
        let field = |k: &str| case[k].as_str().unwrap_or_else(|| panic!("{k} in {case}"));
        let (name, package, channel, from) = (
            field("catalog"),
            field("package"),
            field("channel"),
            field("from"),
        );
        let catalog = catalogs.entry(name.to_owned()).or_insert_with(|| {
            let dir = root()
                .join("resolve-differential")
                .join(name)
                .join("catalog");
            Catalog {
                tables: tables_of(&dir),
                bundles: bundles_of(&dir),
            }
        });
        let theirs = strings(&case["path"]);
        let Walk {
            path: ours,
            end,
            graph,
            overruled,
        } = walk(catalog, package, channel, from);
        let label = format!("{name} {package}/{channel} from {from}");
        if ours != theirs || !same_end(case, &end) {
            wrong.push(format!(
                "{label}\n  ours: {ours:?} then {end:?}\n  OLM:  {theirs:?} then {} {}",
                field("end"),
                case.get("error")
                    .or(case.get("variants"))
                    .map(Value::to_string)
                    .unwrap_or_default()
            ));
        }
        if let End::Error(e) = &end {
            let recorded = case["variants"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| &v["error"]);
            if std::iter::once(&case["error"])
                .chain(recorded)
                .any(|t| t.as_str() == Some(e.as_str()))
            {
                exact_errors += 1;
            } else {
                up_to_order.push(label.clone());
            }
        }
        if graph == theirs {
            graph_same += 1;
        } else {
            // why OLM's path is not the graph's: resolution fails, or passes over
            // the graph's next hop for a dependency, or neither (a rule differs)
            let why = if matches!(end, End::Error(_)) {
                "resolution fails"
            } else if overruled.is_empty() {
                "unexplained: every hop is the graph's"
            } else if overruled.iter().all(|(_, named)| *named) {
                "a dependency rules out the graph's next hop"
            } else {
                "unexplained: resolution overrules the graph without naming why"
            };
            *graph_why.entry(why).or_default() += 1;
            graph_differs.push(format!(
                "{label}: graph {graph:?}, OLM {theirs:?} then {} ({why}: {overruled:?})",
                field("end")
            ));
        }
    }
    eprintln!(
        "explain-differential: {} of {} cases agree with OLM v0.25 ({} failures word for word, \
         {} up to map order: {up_to_order:?}); the static graph path is OLM's whole path in \
         {graph_same} of them, not in {}",
        cases.len() - wrong.len(),
        cases.len(),
        exact_errors,
        up_to_order.len(),
        graph_differs.len(),
    );
    eprintln!("  why: {graph_why:?}");
    for d in graph_differs.iter().take(6) {
        eprintln!("  {d}");
    }
    for d in graph_differs
        .iter()
        .filter(|d| d.contains("unexplained"))
        .take(10)
    {
        eprintln!("  {d}");
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn errors_compare_with_at_most_one_messages_as_sets() {
    assert_eq!(
        canonical(
            "constraints not satisfiable: cat/olm/a/x.v1, cat/olm/a/x.v2 and @existing/ns//x.v0 originate from package x, subscription s exists"
        ),
        canonical(
            "constraints not satisfiable: @existing/ns//x.v0, cat/olm/a/x.v2 and cat/olm/a/x.v1 provide X (x.io/v1), subscription s exists"
        )
    );
    assert_ne!(
        canonical("constraints not satisfiable: subscription a exists"),
        canonical("constraints not satisfiable: subscription b exists")
    );
    assert_eq!(
        canonical(
            "constraints not satisfiable: bundle a requires an operator providing an API with group: g, version: v1, kind: K, subscription s requires at least one of cat/olm/c/a.v2, cat/olm/c/a.v3 or @existing/ns//a.v1"
        ),
        [
            "bundle a requires an operator providing an API with group: g",
            "cat/olm/c/a.v3 or @existing/ns//a.v1",
            "kind: K",
            "subscription s requires at least one of cat/olm/c/a.v2",
            "version: v1",
        ]
    );
}
