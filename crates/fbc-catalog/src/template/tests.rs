use super::substitutes;
use super::{Bundles, Kind, detect};
use crate::render::declcfg::{Bundle, DeclarativeConfig, Property};

fn bundle(name: &str, version: &str, image: &str) -> Bundle {
    Bundle {
        schema: "olm.bundle".into(),
        name: name.into(),
        package: "demo".into(),
        image: image.into(),
        properties: vec![Property {
            typ: "olm.package".into(),
            value: format!(r#"{{"packageName":"demo","version":"{version}"}}"#),
        }],
        ..Bundle::default()
    }
}

struct Fixed(Vec<Bundle>);

impl Bundles for Fixed {
    fn render(&mut self, image: &str) -> Result<Vec<Bundle>, String> {
        let found: Vec<Bundle> = self
            .0
            .iter()
            .filter(|b| b.image == image)
            .cloned()
            .collect();
        if found.is_empty() {
            Err(format!("no image {image}"))
        } else {
            Ok(found)
        }
    }
}

const ENTRIES: &str = r#"{"schema": "olm.template.substitutes", "entries": [
  {"schema": "olm.package", "name": "demo", "defaultChannel": "stable"},
  {"schema": "olm.channel", "name": "stable", "package": "demo", "entries": [
    {"name": "demo.v0.1.0"},
    {"name": "demo.v0.2.0", "replaces": "demo.v0.1.0"},
    {"name": "demo.v0.3.0", "replaces": "demo.v0.2.0", "skips": ["demo.v0.1.0"]}]},
  {"schema": "olm.bundle", "name": "demo.v0.1.0", "package": "demo", "image": "i/demo:0.1.0",
   "properties": [{"type": "olm.package", "value": {"packageName": "demo", "version": "0.1.0"}}]},
  {"schema": "olm.bundle", "name": "demo.v0.2.0", "package": "demo", "image": "i/demo:0.2.0",
   "properties": [{"type": "olm.package", "value": {"packageName": "demo", "version": "0.2.0"}}]},
  {"schema": "olm.bundle", "name": "demo.v0.3.0", "package": "demo", "image": "i/demo:0.3.0",
   "properties": [{"type": "olm.package", "value": {"packageName": "demo", "version": "0.3.0"}}]}],
  "substitutions": SUBS}"#;

fn run(subs: &str) -> Result<DeclarativeConfig, String> {
    let text = ENTRIES.replace("SUBS", subs);
    assert_eq!(detect(&text), Ok(Kind::Substitutes));
    let template = substitutes::parse(&text)?;
    let mut bundles = Fixed(vec![
        bundle("demo.v0.2.1", "0.2.1", "i/demo:0.2.1"),
        bundle("demo.v0.0.9", "0.0.9", "i/demo:0.0.9"),
    ]);
    substitutes::build(&template, &mut bundles, &mut |_| Ok(()))
}

#[test]
fn a_substitute_takes_over_its_bases_edges() {
    let out = run(r#"[{"name": "i/demo:0.2.1", "base": "demo.v0.2.0"}]"#).expect("render");
    let entries = out.channels[0].entries.clone().expect("entries");
    let edges: Vec<(String, String, Vec<String>)> = entries
        .into_iter()
        .map(|e| (e.name, e.replaces, e.skips))
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        edges,
        vec![
            ("demo.v0.1.0".into(), "".into(), vec![]),
            ("demo.v0.2.0".into(), "".into(), vec![]),
            (
                "demo.v0.3.0".into(),
                "demo.v0.2.1".into(),
                s(&["demo.v0.1.0", "demo.v0.2.0"])
            ),
            (
                "demo.v0.2.1".into(),
                "demo.v0.1.0".into(),
                s(&["demo.v0.2.0"])
            ),
        ]
    );
    assert_eq!(
        out.bundles.last().map(|b| b.name.as_str()),
        Some("demo.v0.2.1")
    );
}

#[test]
fn substitutions_are_refused_with_opms_words() {
    let e = run(r#"[{"name": "i/demo:0.0.9", "base": "demo.v0.2.0"}]"#).unwrap_err();
    assert!(
        e.ends_with(
            "base bundle \"demo.v0.2.0\" is not less than substitute bundle \"i/demo:0.0.9\""
        ),
        "{e}"
    );
    let e = run(r#"[{"name": "i/demo:0.2.1", "base": "demo.v9"}]"#).unwrap_err();
    assert!(
        e.ends_with("base bundle \"demo.v9\" does not exist in catalog"),
        "{e}"
    );
    let e = run(r#"[{"name": "i/demo:0.2.1", "base": "demo.v0.2.0"}, {"name": "i/demo:0.0.9", "base": "demo.v0.2.0"}]"#).unwrap_err();
    assert_eq!(
        e,
        "render: cannot reuse the same substitution base \"demo.v0.2.0\""
    );
}

#[test]
fn the_type_comes_from_the_schema() {
    assert_eq!(detect("schema: olm.semver\n"), Ok(Kind::Semver));
    assert_eq!(
        detect(r#"{"schema": "olm.template.basic", "entries": []}"#),
        Ok(Kind::Basic)
    );
    assert_eq!(
        detect("schema: olm.template.nope\n").unwrap_err(),
        "unknown template schema: nope"
    );
    assert_eq!(
        detect("entries: []\n").unwrap_err(),
        "template input missing required 'schema' field"
    );
}
