//! The filter on small catalogs: what it keeps, why, and that the output holds.

use super::config::{self, FilterConfig};
use super::{FilterError, FilterOptions, Filtered, Keep, Verdict, filter};
use crate::model::ChainRule;
use crate::tables::Tables;
use crate::tables::testing::from_dir;

/// A package `p` with channel `stable`: 1.0.0 ← 1.1.0 ← 1.2.0 ← 1.3.0 (replaces),
/// and channel `fast` whose head 2.0.0 skips 1.3.0 and replaces 1.2.0.
const LINEAR: &str = r#"
{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{"schema":"olm.channel","package":"p","name":"stable","entries":[
  {"name":"p.v1.0.0"},
  {"name":"p.v1.1.0","replaces":"p.v1.0.0"},
  {"name":"p.v1.2.0","replaces":"p.v1.1.0"},
  {"name":"p.v1.3.0","replaces":"p.v1.2.0"}]}
{"schema":"olm.channel","package":"p","name":"fast","entries":[
  {"name":"p.v1.2.0"},
  {"name":"p.v1.3.0","replaces":"p.v1.2.0"},
  {"name":"p.v2.0.0","replaces":"p.v1.2.0","skips":["p.v1.3.0"]}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.0.0","image":"r/p:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.1.0","image":"r/p:1.1.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.1.0"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.2.0","image":"r/p:1.2.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.2.0"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.3.0","image":"r/p:1.3.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.3.0"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v2.0.0","image":"r/p:2.0.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"2.0.0"}},{"type":"olm.gvk.required","value":{"group":"d.io","version":"v1","kind":"D"}}]}
{"schema":"olm.deprecations","package":"p","entries":[{"reference":{"schema":"olm.bundle","name":"p.v1.0.0"},"message":"old"},{"reference":{"schema":"olm.channel","name":"fast"},"message":"fast is fast"}]}
{"schema":"olm.package","name":"d","defaultChannel":"stable"}
{"schema":"olm.channel","package":"d","name":"stable","entries":[{"name":"d.v1.0.0"},{"name":"d.v1.1.0","replaces":"d.v1.0.0"}]}
{"schema":"olm.bundle","package":"d","name":"d.v1.0.0","image":"r/d:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"d","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"d.io","version":"v1","kind":"D"}}]}
{"schema":"olm.bundle","package":"d","name":"d.v1.1.0","image":"r/d:1.1.0","properties":[{"type":"olm.package","value":{"packageName":"d","version":"1.1.0"}},{"type":"olm.gvk","value":{"group":"d.io","version":"v1","kind":"D"}}]}
{"schema":"com.example.note","package":"d","text":"about d"}
{"schema":"com.example.note","text":"about the catalog"}
"#;

struct Catalog {
    _dir: tempfile::TempDir,
    tables: Tables,
}

fn catalog(text: &str) -> Catalog {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("catalog.json"), text).unwrap();
    let tables = from_dir(dir.path()).unwrap_or_else(|e| panic!("{e:?}"));
    Catalog { _dir: dir, tables }
}

fn config(body: &str) -> FilterConfig {
    let text = format!(
        "apiVersion: {}\nkind: {}\n{body}",
        config::API_VERSION,
        config::KIND
    );
    config::parse("f.yaml", &text).unwrap_or_else(|e| panic!("{e}"))
}

fn run(c: &Catalog, body: &str) -> Result<Filtered, FilterError> {
    filter(
        &c.tables,
        &config(body),
        &FilterOptions::default(),
        ChainRule::Current,
    )
}

fn kept(f: &Filtered, package: &str, channel: &str) -> Vec<(String, Keep)> {
    let p = f.plan.package(package).expect("package kept");
    let c = p
        .channels
        .iter()
        .find(|c| c.name == channel)
        .expect("channel kept");
    c.bundles.iter().map(|b| (b.name.clone(), b.keep)).collect()
}

fn names(v: &[(String, Keep)]) -> Vec<&str> {
    v.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn heads_only_keeps_each_channel_head_and_what_it_needs() {
    let c = catalog(LINEAR);
    let f = run(&c, "packages:\n  - name: p\n").unwrap();
    assert_eq!(names(&kept(&f, "p", "stable")), ["p.v1.3.0"]);
    assert_eq!(names(&kept(&f, "p", "fast")), ["p.v2.0.0"]);
    // p.v2.0.0 requires the D API: the resolver picks d's head.
    assert_eq!(
        kept(&f, "d", "stable"),
        [("d.v1.1.0".to_string(), Keep::Dependency)]
    );
    let text = String::from_utf8(f.stream.clone()).unwrap();
    assert!(text.contains("about the catalog") && text.contains("about d"));
    // The deprecation of the dropped p.v1.0.0 is gone; the channel's stays.
    assert!(!text.contains("\"old\"") && text.contains("fast is fast"));
}

#[test]
fn without_dependencies_nothing_else_comes_in() {
    let c = catalog(LINEAR);
    let options = FilterOptions {
        dependencies: false,
    };
    let f = filter(
        &c.tables,
        &config("packages:\n  - name: p\n"),
        &options,
        ChainRule::Current,
    )
    .unwrap();
    assert!(f.plan.package("d").is_none());
    assert!(!String::from_utf8_lossy(&f.stream).contains("about d"));
}

#[test]
fn a_window_below_the_head_makes_its_top_the_head_and_keeps_the_chain() {
    let c = catalog(LINEAR);
    let f = run(
        &c,
        "packages:\n  - name: p\n    channels:\n      - name: stable\n        minVersion: 1.0.0\n        maxVersion: 1.2.0\n",
    )
    .unwrap();
    let stable = kept(&f, "p", "stable");
    assert_eq!(names(&stable), ["p.v1.0.0", "p.v1.1.0", "p.v1.2.0"]);
    assert!(stable.iter().all(|(_, k)| *k == Keep::Selected));
    assert_eq!(f.plan.package("p").unwrap().channels[0].head, "p.v1.2.0");
}

#[test]
fn a_gap_in_the_selection_is_filled_with_the_path() {
    let c = catalog(LINEAR);
    let f = run(
        &c,
        "packages:\n  - name: p\n    channels:\n      - name: stable\n        versionRange: \"1.0.0 || 1.3.0\"\n",
    )
    .unwrap();
    let stable = kept(&f, "p", "stable");
    assert_eq!(
        stable,
        [
            ("p.v1.0.0".into(), Keep::Selected),
            ("p.v1.1.0".into(), Keep::Path),
            ("p.v1.2.0".into(), Keep::Path),
            ("p.v1.3.0".into(), Keep::Selected),
        ]
    );
    let why = f
        .plan
        .decisions
        .iter()
        .find(|d| d.bundle == "p.v1.1.0")
        .unwrap();
    assert_eq!(why.verdict, Verdict::Kept(Keep::Path));
    assert!(why.reason.contains("upgrade path"), "{}", why.reason);
}

#[test]
fn a_skipped_bundle_is_kept_valid_through_its_skipper() {
    let c = catalog(LINEAR);
    // In fast, 1.3.0 is only skipped by 2.0.0: keeping 1.3.0 keeps the head
    // (selected anyway) and nothing between.
    let f = run(
        &c,
        "packages:\n  - name: p\n    defaultChannel: fast\n    channels:\n      - name: fast\n        versionRange: \">=1.3.0\"\n",
    )
    .unwrap();
    assert_eq!(names(&kept(&f, "p", "fast")), ["p.v1.3.0", "p.v2.0.0"]);
}

#[test]
fn a_filtered_out_default_channel_is_an_error_unless_overridden() {
    let c = catalog(LINEAR);
    let e = run(
        &c,
        "packages:\n  - name: p\n    channels:\n      - name: fast\n",
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("the default channel \"stable\" is filtered out; list it, or set defaultChannel to one of: fast"),
        "{e}"
    );
    let f = run(
        &c,
        "packages:\n  - name: p\n    defaultChannel: fast\n    channels:\n      - name: fast\n",
    )
    .unwrap();
    assert_eq!(f.output.package("p").unwrap().1.default_channel, "fast");
    let e = run(&c, "packages:\n  - name: p\n    defaultChannel: beta\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("defaultChannel \"beta\" is not in the filtered output"),
        "{e}"
    );
    let e = run(&c, "packages:\n  - name: p\n    maxVersion: 0.1.0\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("leaves the default channel \"stable\" empty"),
        "{e}"
    );
}

#[test]
fn unknown_names_are_errors_with_suggestions() {
    let c = catalog(LINEAR);
    let e = run(&c, "packages:\n  - name: dd\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("packages[0]: package \"dd\" is not in the catalog (did you mean d"),
        "{e}"
    );
    let e = run(
        &c,
        "packages:\n  - name: p\n    channels:\n      - name: stabel\n",
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("has no channel \"stabel\" (did you mean stable?)"),
        "{e}"
    );
}

#[test]
fn selecting_everything_writes_the_catalog_unchanged() {
    let c = catalog(LINEAR);
    let names = c.tables.packages().iter().map(|p| p.name.clone());
    let f = filter(
        &c.tables,
        &FilterConfig::everything(names),
        &FilterOptions::default(),
        ChainRule::Current,
    )
    .unwrap();
    let json = c.tables.metas().json().unwrap();
    let all: Vec<u8> = json
        .iter()
        .flat_map(|j| [j.as_ref(), b"\n"].concat())
        .collect();
    assert_eq!(
        String::from_utf8(f.stream).unwrap(),
        String::from_utf8(all).unwrap()
    );
    assert!(f.metas.iter().all(|m| !m.changed));
}

#[test]
fn named_bundles_are_kept_with_the_path_between_them() {
    let c = catalog(LINEAR);
    let f = run(
        &c,
        "packages:\n  - name: p\n    bundles:\n      - name: p.v1.1.0\n      - name: p.v1.3.0\n",
    )
    .unwrap();
    assert_eq!(
        names(&kept(&f, "p", "stable")),
        ["p.v1.1.0", "p.v1.2.0", "p.v1.3.0"]
    );
    // fast holds p.v1.3.0 too; its head there is the named bundle.
    assert_eq!(f.plan.package("p").unwrap().channels[0].head, "p.v1.3.0");
}

/// In a window, a selected bundle whose only edge leads above the window has
/// no path to the window's highest bundle: the head is raised along the walk to
/// the first entry that keeps every selected bundle (as catalog-filter's chain
/// does), and that entry is marked `head`, with the reason.
#[test]
fn a_window_whose_top_strands_a_selected_bundle_gets_the_head_above_it() {
    let bundle = |v: &str| {
        format!(
            r#"{{"schema":"olm.bundle","package":"a","name":"a.v{v}","image":"r/a:{v}","properties":[{{"type":"olm.package","value":{{"packageName":"a","version":"{v}"}}}}]}}"#
        )
    };
    let text = format!(
        "{}\n{}\n{}\n{}\n{}\n{}\n",
        r#"{"schema":"olm.package","name":"a","defaultChannel":"c"}"#,
        r#"{"schema":"olm.channel","package":"a","name":"c","entries":[{"name":"a.v1.0.0"},{"name":"a.v1.5.0"},{"name":"a.v2.0.0","replaces":"a.v1.0.0"},{"name":"a.v3.0.0","replaces":"a.v2.0.0","skips":["a.v1.5.0"]}]}"#,
        bundle("1.0.0"),
        bundle("1.5.0"),
        bundle("2.0.0"),
        bundle("3.0.0"),
    );
    let c = catalog(&text);
    let f = run(&c, "packages:\n  - name: a\n    maxVersion: 2.0.0\n").unwrap();
    assert_eq!(
        names(&kept(&f, "a", "c")),
        ["a.v1.0.0", "a.v1.5.0", "a.v2.0.0", "a.v3.0.0"]
    );
    let why = |b: &str| {
        f.plan
            .decisions
            .iter()
            .find(|d| d.bundle == b)
            .unwrap()
            .clone()
    };
    assert_eq!(why("a.v1.5.0").verdict, Verdict::Kept(Keep::Selected));
    assert_eq!(why("a.v3.0.0").verdict, Verdict::Kept(Keep::Head));
}

/// Random valid channels and random filters: every run either writes an output
/// that passed every check, or stops for a reason the configuration caused.
mod property {
    use super::*;
    use proptest::prelude::*;

    /// A channel of `n` bundles `p.v{i}` (version 1.i.0), each replacing the one
    /// before; the entries below a cut `k` are skipped by newer entries (the
    /// chain rule wants what is below a skipped entry skipped too); some carry a
    /// skipRange; some require package `d`.
    #[derive(Clone, Debug)]
    struct Case {
        skips: Vec<Vec<usize>>,
        ranges: Vec<Option<(usize, usize)>>,
        requires: Vec<bool>,
        pick: Pick,
    }

    #[derive(Clone, Debug)]
    enum Pick {
        Heads,
        Full,
        Window(usize, usize),
        Named(Vec<usize>),
    }

    fn case() -> impl Strategy<Value = Case> {
        (2usize..10).prop_flat_map(|n| {
            let pick = prop_oneof![
                Just(Pick::Heads),
                Just(Pick::Full),
                (0..n, 0..n).prop_map(|(a, b)| Pick::Window(a.min(b), a.max(b))),
                proptest::collection::vec(0..n, 1..4).prop_map(Pick::Named),
            ];
            (
                0..n,
                proptest::collection::vec(0usize..64, n),
                proptest::collection::vec(proptest::option::of((0..n + 1, 0..n + 2)), n),
                proptest::collection::vec(proptest::bool::weighted(0.2), n),
                pick,
            )
                .prop_map(move |(k, skipper, ranges, requires, pick)| {
                    let mut skips = vec![Vec::new(); n];
                    for (j, r) in skipper.iter().enumerate().take(k) {
                        skips[j + 1 + r % (n - 1 - j)].push(j);
                    }
                    Case {
                        skips,
                        ranges,
                        requires,
                        pick,
                    }
                })
        })
    }

    fn text(c: &Case) -> String {
        let n = c.skips.len();
        let mut entries = Vec::new();
        let mut bundles = Vec::new();
        for i in 0..n {
            let mut e = format!("{{\"name\":\"p.v{i}\"");
            if i > 0 {
                e.push_str(&format!(",\"replaces\":\"p.v{}\"", i - 1));
            }
            let mut skips: Vec<String> = c.skips[i].iter().map(|s| format!("\"p.v{s}\"")).collect();
            skips.dedup();
            if !skips.is_empty() {
                e.push_str(&format!(",\"skips\":[{}]", skips.join(",")));
            }
            if let Some((lo, hi)) = c.ranges[i] {
                e.push_str(&format!(",\"skipRange\":\">=1.{lo}.0 <1.{hi}.0\""));
            }
            e.push('}');
            entries.push(e);
            let dep = if c.requires[i] {
                r#",{"type":"olm.package.required","value":{"packageName":"d","versionRange":">=1.0.0"}}"#
            } else {
                ""
            };
            bundles.push(format!(
                r#"{{"schema":"olm.bundle","package":"p","name":"p.v{i}","image":"r/p:{i}","properties":[{{"type":"olm.package","value":{{"packageName":"p","version":"1.{i}.0"}}}}{dep}]}}"#
            ));
        }
        format!(
            "{}\n{{\"schema\":\"olm.channel\",\"package\":\"p\",\"name\":\"c\",\"entries\":[{}]}}\n{}\n{}\n",
            r#"{"schema":"olm.package","name":"p","defaultChannel":"c"}"#,
            entries.join(","),
            bundles.join("\n"),
            r#"{"schema":"olm.package","name":"d","defaultChannel":"s"}
{"schema":"olm.channel","package":"d","name":"s","entries":[{"name":"d.v1"},{"name":"d.v2","replaces":"d.v1"}]}
{"schema":"olm.bundle","package":"d","name":"d.v1","image":"r/d:1","properties":[{"type":"olm.package","value":{"packageName":"d","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"d","name":"d.v2","image":"r/d:2","properties":[{"type":"olm.package","value":{"packageName":"d","version":"2.0.0"}}]}"#
        )
    }

    fn filter_body(pick: &Pick) -> String {
        match pick {
            Pick::Heads => "packages:\n  - name: p\n".into(),
            Pick::Full => "packages:\n  - name: p\n    full: true\n".into(),
            Pick::Window(lo, hi) => {
                format!(
                    "packages:\n  - name: p\n    minVersion: 1.{lo}.0\n    maxVersion: 1.{hi}.0\n"
                )
            }
            Pick::Named(list) => {
                let names: Vec<String> = list
                    .iter()
                    .map(|i| format!("      - name: p.v{i}\n"))
                    .collect();
                format!("packages:\n  - name: p\n    bundles:\n{}", names.concat())
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn every_output_holds_every_guarantee(c in case()) {
            let cat = catalog(&text(&c));
            let f = run(&cat, &filter_body(&c.pick));
            let f = match f {
                Ok(f) => f,
                // A window or list that misses the default channel entirely.
                Err(FilterError::Config(m)) => {
                    prop_assert!(m.contains("leaves the default channel \"c\" empty"), "{m}");
                    return Ok(());
                }
                Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
            };
            let kept = kept(&f, "p", "c");
            // The selection is kept, except what the reasons say was dropped.
            for d in f.plan.decisions.iter().filter(|d| d.package == "p") {
                match d.verdict {
                    Verdict::Kept(_) => prop_assert!(kept.iter().any(|(n, _)| *n == d.bundle)),
                    Verdict::Dropped => prop_assert!(!kept.iter().any(|(n, _)| *n == d.bundle)),
                }
            }
            // Every edge of the output is an edge of the input.
            let input = cat.tables.package("p").unwrap().1.channel("c").unwrap().clone();
            let output = f.output.package("p").unwrap().1.channel("c").unwrap().clone();
            for e in &output.entries {
                prop_assert!(input.entries.contains(e), "{e:?} is not an input entry");
            }
            // Dependencies: a kept bundle that requires d has d in the output.
            let needs_d = output.entries.iter().any(|e| {
                let i: usize = e.name.trim_start_matches("p.v").parse().unwrap();
                c.requires[i]
            });
            prop_assert_eq!(needs_d, f.output.package("d").is_some());
            if matches!(c.pick, Pick::Full) {
                prop_assert_eq!(output.entries.len(), input.entries.len());
            }
        }
    }
}

#[test]
fn a_resolution_in_its_scope_equals_one_over_the_whole_catalog() {
    let c = catalog(LINEAR);
    for p in c.tables.packages() {
        let scoped = super::deps::scope(&c.tables, &p.name).expect("a scope");
        for b in &p.bundles {
            assert_eq!(
                super::deps::resolve_one(&scoped, &p.name, &b.name),
                super::deps::resolve_one(&c.tables, &p.name, &b.name),
                "{}",
                b.name
            );
        }
    }
    // p needs d's API, so p's scope holds d; d needs nothing.
    assert_eq!(
        super::deps::scope(&c.tables, "p").unwrap().packages().len(),
        2
    );
    assert_eq!(
        super::deps::scope(&c.tables, "d").unwrap().packages().len(),
        1
    );
}

#[test]
fn bundles_that_require_the_same_share_one_answer_equal_to_their_own() {
    use crate::resolve::Outcome;
    let mut text = LINEAR.replace(
        r#""version":"1.2.0"}}]}"#,
        r#""version":"1.2.0"}},{"type":"olm.gvk.required","value":{"group":"d.io","version":"v1","kind":"D"}}]}"#,
    );
    text.push('\n');
    let c = catalog(&text);
    let mut shared = super::deps::Resolutions::new(&c.tables);
    for b in ["p.v1.2.0", "p.v2.0.0"] {
        let own = match super::deps::resolve_one(&c.tables, "p", b) {
            Some(Ok(Outcome::Resolved(ops))) => {
                ops.into_iter().filter(|o| o.name != b).collect::<Vec<_>>()
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(shared.dependencies("p", b), Some(Ok(own)), "{b}");
    }
}

/// The output is checked under the limits the input was loaded with: a
/// catalog loaded with a raised `max_depth` is not refused by its own filter.
#[test]
fn the_output_is_read_under_the_inputs_limits() {
    let deep = format!("{}1{}", "[".repeat(110), "]".repeat(110));
    let text = LINEAR.replace(
        r#"{"type":"olm.package","value":{"packageName":"p","version":"1.3.0"}}"#,
        &format!(
            r#"{{"type":"olm.package","value":{{"packageName":"p","version":"1.3.0"}}}},{{"type":"example.com/deep","value":{deep}}}"#
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("catalog.json"), text).unwrap();
    let limits = crate::source::ParseLimits {
        max_depth: 120,
        ..crate::source::ParseLimits::default()
    };
    // Loaded as `load` does, from the layers below the filter.
    let loaded = crate::source::load_dir_with(dir.path(), &limits, |arena, blob| {
        crate::model::decode_blob(arena, blob, &limits)
    });
    let files = loaded.files.clone();
    let built = crate::model::build_decoded_with(loaded, ChainRule::Current)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let files = crate::tables::metas::CatalogFiles {
        root: dir.path().to_path_buf(),
        files,
        limits,
    };
    let tables = Tables::from_model(built.model, files);
    let f = filter(
        &tables,
        &config("packages:\n  - name: p\n"),
        &FilterOptions::default(),
        ChainRule::Current,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(String::from_utf8_lossy(&f.stream).contains("example.com/deep"));
}
