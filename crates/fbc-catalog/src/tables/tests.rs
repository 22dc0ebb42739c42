//! Tables built from catalog text: chain order, providers, requirements, metas.

use super::*;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

/// OLM v0's divergence example (operator-lifecycle-manager's replaces/skips tests): v3 replaces v2 and skips it,
/// v2 replaces v1, v1 is not an entry.
const DIVERGENCE: &str = r#"
schema: olm.package
name: p
defaultChannel: stable
---
schema: olm.channel
package: p
name: stable
entries:
  - name: p.v2
    replaces: p.v1
  - name: p.v3
    replaces: p.v2
    skips: [p.v2]
---
schema: olm.bundle
package: p
name: p.v2
image: quay.io/p:v2
properties:
  - {type: olm.package, value: {packageName: p, version: 2.0.0}}
  - {type: olm.gvk, value: {group: g, version: v1, kind: K}}
---
schema: olm.bundle
package: p
name: p.v3
image: quay.io/p:v3
properties:
  - {type: olm.package, value: {packageName: p, version: 3.0.0}}
  - {type: olm.gvk, value: {group: g, version: v1, kind: K}}
  - {type: olm.gvk.required, value: {group: h, version: v1, kind: L}}
  - {type: olm.package.required, value: {packageName: q, versionRange: ">=1.0.0"}}
  - {type: olm.constraint, value: {failureMessage: m, cel: {rule: 'properties.exists(p, p.type == "x")'}}}
  - {type: olm.constraint, value: {package: {name: q}}}
---
schema: custom.thing
package: p
name: extra
data: {b: 2, a: 1}
"#;

fn load(root: &Path) -> Tables {
    super::testing::from_dir(root).expect("valid")
}

#[test]
fn the_chain_leaves_out_skipped_entries_and_providers_and_requirements_are_indexed() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "p/catalog.yaml", DIVERGENCE);
    let t = load(dir.path());
    let (pi, p) = t.package("p").expect("package");
    let channel = ChannelRef {
        package: pi,
        channel: 0,
    };
    let chain: Vec<&str> = t
        .chain(channel)
        .iter()
        .map(|i| p.channels[0].entries[*i as usize].name.as_str())
        .collect();
    assert_eq!(
        chain,
        ["p.v3"],
        "p.v2 is skipped, so OLM v0 never offers it"
    );
    let providers = t.providers(&Gvk {
        group: "g".into(),
        version: "v1".into(),
        kind: "K".into(),
    });
    assert_eq!(providers.len(), 2);
    let v3 = t.bundle_named(pi, "p.v3").expect("v3");
    let reqs = t.requirements(v3);
    assert_eq!(reqs.len(), 4, "{reqs:?}");
    assert!(matches!(&reqs[0], Ok(requirements::Requirement::Gvk(g)) if g.kind == "L"));
    assert!(matches!(&reqs[1], Ok(requirements::Requirement::Package(r)) if r.package == "q"));
    assert!(
        matches!(&reqs[2], Ok(requirements::Requirement::Constraint(c)) if c.failure_message == "m")
    );
    let broken = reqs[3]
        .as_ref()
        .expect_err("a broken constraint is a value");
    assert!(broken.message.contains("unknown field"), "{broken}");
}

#[test]
fn metas_are_in_walk_order_addressable_and_read_back_as_normalised_json() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "p/catalog.yaml", DIVERGENCE);
    let t = load(dir.path());
    let metas = t.metas();
    let schemas: Vec<&str> = metas.rows().iter().map(|m| m.schema.as_str()).collect();
    assert_eq!(
        schemas,
        [
            "olm.package",
            "olm.channel",
            "olm.bundle",
            "olm.bundle",
            "custom.thing"
        ]
    );
    assert_eq!(metas.select(Some("olm.bundle"), None, Some("p.v3")), [3]);
    assert_eq!(
        metas.select(None, Some("p"), None),
        [1, 2, 3, 4],
        "olm.package has no package field"
    );
    assert_eq!(metas.select(None, None, None).len(), 5);
    let json = metas.json().expect("json");
    assert_eq!(
        std::str::from_utf8(&json[4]).expect("utf8"),
        r#"{"data":{"a":1,"b":2},"name":"extra","package":"p","schema":"custom.thing"}"#
    );
    assert_eq!(t.custom().len(), 1);
}

#[test]
fn a_changed_file_makes_the_metas_json_an_error_not_a_wrong_answer() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "p/catalog.yaml", DIVERGENCE);
    let t = load(dir.path());
    write(
        dir.path(),
        "p/catalog.yaml",
        &DIVERGENCE.replace("extra", "other"),
    );
    assert_eq!(
        t.metas().json().expect_err("changed"),
        metas::MetaError::Changed {
            file: "p/catalog.yaml".into()
        }
    );
}

#[test]
fn the_metas_json_is_not_kept_between_calls() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "p/catalog.yaml", DIVERGENCE);
    let t = load(dir.path());
    t.metas().json().expect("read once");
    write(
        dir.path(),
        "p/catalog.yaml",
        &DIVERGENCE.replace("extra", "other"),
    );
    // A kept copy would answer again; the table reads the files at every call.
    assert_eq!(
        t.metas().json().expect_err("read again"),
        metas::MetaError::Changed {
            file: "p/catalog.yaml".into()
        }
    );
}
