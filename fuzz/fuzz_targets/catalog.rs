//! A catalog file, JSON or YAML (the first byte chooses), read with limits, built
//! into a model and tables, then asked every whole-catalog question: graph lint,
//! OLM v1 readiness, the console and ocp-4.17 profiles, each channel's upgrade
//! paths under both OLMs. Holds: no panic; time and memory bounded by the limits;
//! and what the crate prints reads back: each blob's normalised JSON (what the
//! server serves) parses and normalises to the same text; each blob written as
//! YAML (`render -o yaml`'s writer) reads back as the same value, numbers compared
//! as float64 (strings holding U+2028 or U+2029 left out: go-yaml, and so this
//! writer, does not keep them, see docs/fuzzing.md); a catalog that builds
//! renders (`render -o json`) to text that renders to itself, and its `-o yaml`
//! rendering reads back and renders to that same text.
#![no_main]
use fbc_catalog::cluster::{profile, readiness};
use fbc_catalog::graph::lint;
use fbc_catalog::graph::upgrade_path::{PathQuery, Semantics, upgrade_path};
use fbc_catalog::render::{DeclarativeConfig, Output, go_yaml, write};
use fbc_catalog::source::{self, Blob, Loaded, ParseLimits, json, yaml};
use fbc_catalog::tables::Tables;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let file = if first % 2 == 0 {
        "catalog.json"
    } else {
        "catalog.yaml"
    };
    let parsed = source::parse_file_with(file, bytes, &fbc_fuzz::LIMITS);
    for blob in &parsed.blobs {
        reads_back(&blob.value);
    }
    let blobs = parsed.blobs.clone();
    let loaded = Loaded {
        blobs: parsed.blobs,
        errors: parsed.errors,
        files: Vec::new(),
    };
    let Ok(model) = fbc_catalog::model::build(loaded) else {
        return;
    };
    renders_to_itself(&blobs);
    let tables = Tables::detached(model);
    let _ = lint::lint(&tables, None);
    let _ = readiness::catalog(&tables, None);
    for target in ["console", "ocp-4.17"] {
        if let Ok(target) = profile::Target::parse(target) {
            let _ = profile::lint(&tables, None, target);
        }
    }
    for package in tables.packages() {
        for channel in &package.channels {
            for semantics in [Semantics::V0, Semantics::V1] {
                let query = PathQuery {
                    package: package.name.clone(),
                    channel: channel.name.clone(),
                    from: channel
                        .entries
                        .first()
                        .map(|e| e.name.clone())
                        .unwrap_or_default(),
                    semantics,
                    ..PathQuery::default()
                };
                let _ = upgrade_path(&tables, &query);
            }
        }
    }
});

/// The blob's normalised JSON is a fixed point, and its YAML reads back equal.
fn reads_back(value: &Value) {
    let normalized = json::normalized(value);
    match serde_json::from_str::<Value>(&normalized) {
        Ok(again) => assert_eq!(json::normalized(&again), normalized, "normalised JSON"),
        Err(e) => panic!("normalised JSON does not parse: {e}\n{normalized}"),
    }
    if has_line_separator(value) {
        return;
    }
    let text = go_yaml::json_to_yaml(&value.to_string());
    match yaml::document_to_json(&text) {
        Ok(Some(again)) => assert!(
            same(&again, value),
            "YAML read back differs:\n{text}\n{again:?}\n{value:?}"
        ),
        Ok(None) => panic!("written YAML reads back as nothing:\n{text}"),
        Err(e) => panic!("written YAML does not read back: {e}\n{text}"),
    }
}

/// `a` and `b` are the same JSON, numbers compared as the float64s Go holds them
/// as: the writer prints a float with an integral value as Go does (`3`, `-0`),
/// which reads back as an integer (`3`, `0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| ys.get(k).is_some_and(|y| same(x, y)))
        }
        _ => a == b,
    }
}

/// U+2028 or U+2029 in a key or a string, anywhere in `value`.
fn has_line_separator(value: &Value) -> bool {
    let odd = |s: &str| s.contains(['\u{2028}', '\u{2029}']);
    match value {
        Value::String(s) => odd(s),
        Value::Array(items) => items.iter().any(has_line_separator),
        Value::Object(map) => map.iter().any(|(k, v)| odd(k) || has_line_separator(v)),
        _ => false,
    }
}

/// `render -o json` of a valid catalog renders to the same text, and `-o yaml`
/// reads back to that text too.
fn renders_to_itself(blobs: &[Blob]) {
    let Ok(config) = DeclarativeConfig::from_blobs(blobs) else {
        return;
    };
    let rendered = write(&config, Output::Json);
    assert_eq!(
        rerender("render.json", &rendered),
        rendered,
        "render -o json of render -o json"
    );
    let as_yaml = write(&config, Output::Yaml);
    assert_eq!(
        rerender("render.yaml", &as_yaml),
        rendered,
        "render -o json of render -o yaml"
    );
}

/// What was printed, read back (within loose limits: the printed text may be larger
/// than what was read) and rendered as JSON.
fn rerender(file: &str, text: &str) -> String {
    let again = source::parse_file_with(file, text.as_bytes(), &ParseLimits::default());
    assert!(
        again.errors.is_empty(),
        "{file} does not read back: {:?}\n{text}",
        again.errors
    );
    match DeclarativeConfig::from_blobs(&again.blobs) {
        Ok(config) => write(&config, Output::Json),
        Err(e) => panic!("{file} does not decode: {e}\n{text}"),
    }
}
