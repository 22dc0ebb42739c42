//! The filter against catalog-filter's recorded answers: `tests/fixtures/filter-differential/`
//! holds, per catalog of this repository and per case, what catalog-filter (oc-mirror's
//! filter, built from source by `tools/catalog-filter/build.sh`) kept, and every difference
//! from ours with why (recorded by `tools/filter-diff.py --record`; see its README). A case
//! the two agreed on must still agree; a case they differed on must differ in exactly the
//! recorded ways; a case one side refused must still be refused by the same side.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fbc_catalog::filter::{self, FilterOptions, config};
use fbc_catalog::model::ChainRule;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The catalog a recorded folder is named after.
fn catalog_dir(name: &str) -> PathBuf {
    match name {
        "example" => root().join("catalogs/example"),
        other => root().join("tests/fixtures").join(other),
    }
}

/// `{package: {defaultChannel, channels: {name: [entries]}}}`, as the recorder shapes it.
type Shape = BTreeMap<String, (String, BTreeMap<String, BTreeSet<String>>)>;

fn shape_of_json(v: &Value) -> Shape {
    let mut out = Shape::new();
    for (pkg, p) in v.as_object().into_iter().flatten() {
        let channels = p["channels"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(c, entries)| {
                let names = entries
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str().map(str::to_owned))
                    .collect();
                (c.clone(), names)
            })
            .collect();
        let default = p["defaultChannel"].as_str().unwrap_or_default().to_owned();
        out.insert(pkg.clone(), (default, channels));
    }
    out
}

fn shape_of_tables(t: &fbc_catalog::tables::Tables) -> Shape {
    t.packages()
        .iter()
        .map(|p| {
            let channels = p
                .channels
                .iter()
                .map(|c| {
                    let names = c.entries.iter().map(|e| e.name.clone()).collect();
                    (c.name.clone(), names)
                })
                .collect();
            (p.name.clone(), (p.default_channel.clone(), channels))
        })
        .collect()
}

/// The differences as (kind, what), kind being the recorded label up to its first comma.
fn differences(ours: &Shape, theirs: &Shape) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let packages: BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
    for pkg in packages {
        let (Some(o), Some(t)) = (ours.get(pkg), theirs.get(pkg)) else {
            let who = if ours.contains_key(pkg) {
                "fbc-registry"
            } else {
                "catalog-filter"
            };
            out.insert((format!("package only in {who}"), pkg.clone()));
            continue;
        };
        if o.0 != t.0 {
            out.insert((
                "default channel".into(),
                format!("{pkg}: {} → {}", t.0, o.0),
            ));
        }
        let channels: BTreeSet<&String> = o.1.keys().chain(t.1.keys()).collect();
        for ch in channels {
            let (Some(oe), Some(te)) = (o.1.get(ch), t.1.get(ch)) else {
                let who = if o.1.contains_key(ch) {
                    "fbc-registry"
                } else {
                    "catalog-filter"
                };
                out.insert((format!("channel only in {who}"), format!("{pkg}/{ch}")));
                continue;
            };
            for b in oe.difference(te) {
                out.insert(("fbc-registry keeps".into(), format!("{pkg}/{ch}/{b}")));
            }
            for b in te.difference(oe) {
                out.insert(("catalog-filter keeps".into(), format!("{pkg}/{ch}/{b}")));
            }
        }
    }
    out
}

#[test]
fn the_filter_differs_from_catalog_filter_only_where_recorded() {
    let recorded = root().join("tests/fixtures/filter-differential");
    let mut checked = 0;
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&recorded)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let tables = fbc_catalog::tables::testing::from_dir(&catalog_dir(&name))
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let case: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let at = format!("{name}/{}", case["case"].as_str().unwrap());
            let full = if case["full"] == true {
                "full: true\n"
            } else {
                ""
            };
            let text = format!(
                "apiVersion: {}\nkind: {}\n{full}{}",
                config::API_VERSION,
                config::KIND,
                case["config"].as_str().unwrap()
            );
            let ours = config::parse("filter.yaml", &text)
                .map_err(|e| e.to_string())
                .and_then(|c| {
                    filter::filter(&tables, &c, &FilterOptions::default(), ChainRule::Current)
                        .map_err(|e| e.to_string())
                });
            let outcome = case["outcome"].as_str().unwrap();
            let we_refuse = matches!(outcome, "both refuse" | "only fbc-registry refuses");
            assert_eq!(
                ours.is_err(),
                we_refuse,
                "{at}: {outcome}, ours: {:?}",
                ours.as_ref().err()
            );
            let (Ok(ours), Some(theirs)) = (ours, case.get("theirs").filter(|t| !t.is_null()))
            else {
                checked += 1;
                continue;
            };
            let found = differences(&shape_of_tables(&ours.output), &shape_of_json(theirs));
            let expected: BTreeSet<(String, String)> = case["differences"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    let label = d["label"].as_str().unwrap();
                    let kind = label.split(',').next().unwrap().to_owned();
                    (kind, d["what"].as_str().unwrap().to_owned())
                })
                .collect();
            assert_eq!(found, expected, "{at}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} recorded cases");
}
