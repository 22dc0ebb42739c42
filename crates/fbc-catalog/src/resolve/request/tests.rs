//! The request reader: shapes, defaults, limits and error texts.

use super::*;

#[test]
fn a_full_request_reads_with_olms_defaults() {
    let r = parse(
        r#"{"catalog": {"name": "cat", "fbc": "./catalog"},
            "subscriptions": [{"package": "a", "channel": "stable", "installedCSV": "a.v1"}],
            "installed": [{"name": "a.v1", "package": "a", "version": "v1.2",
                           "properties": [{"type": "olm.gvk", "value": {"group": "g", "version": "v1", "kind": "K"}}]}]}"#,
    )
    .expect("request");
    assert_eq!(
        *r.catalog(),
        CatalogRef {
            name: "cat".into(),
            namespace: "olm".into(),
            priority: 0,
        }
    );
    assert_eq!(
        r.subscriptions[0].name, "a",
        "a subscription's name defaults to its package"
    );
    assert_eq!(r.subscriptions[0].installed_csv, "a.v1");
    let csv = &r.installed[0];
    assert_eq!(csv.version, semver::Version::new(1, 2, 0));
    assert_eq!(
        csv.properties,
        vec![
            Property {
                typ: "olm.package".into(),
                value: r#"{"packageName":"a","version":"v1.2"}"#.into()
            },
            Property {
                typ: "olm.gvk".into(),
                value: r#"{"group":"g","kind":"K","version":"v1"}"#.into()
            },
        ]
    );
}

#[test]
fn an_installed_csv_with_its_own_package_property_keeps_it_and_an_empty_version_is_zero() {
    let r = parse(
        r#"{"catalog": {"name": "cat", "namespace": "ns"},
            "installed": [{"name": "a.v1", "package": "a",
                           "properties": [{"type": "olm.package", "value": {"packageName": "b", "version": "2.0.0"}}]}]}"#,
    )
    .expect("request");
    assert_eq!(r.catalog().namespace, "ns");
    assert_eq!(r.installed[0].version, semver::Version::new(0, 0, 0));
    assert_eq!(r.installed[0].properties.len(), 1);
    assert_eq!(r.installed[0].properties[0].typ, "olm.package");
}

#[test]
fn unknown_fields_and_bad_values_are_named() {
    for (text, want) in [
        (
            r#"{"catalog": {"name": "c"}, "subscriptions": [{"package": "a", "startingCsv": "x"}]}"#,
            "request, line 1 column 75: unknown field `startingCsv`, expected one of `name`, `package`, `channel`, `startingCSV`, `installedCSV`, `catalog`, `catalogNamespace`",
        ),
        (
            r#"{"catalog": {"name": "c", "entries": []}}"#,
            "request, line 1 column 35: unknown field `entries`, expected one of `name`, `namespace`, `priority`, `fbc`",
        ),
        (r#"{"catalog": {}}"#, "request field catalog.name: required"),
        (
            r#"{"catalog": {"name": "c"}, "subscriptions": [{"name": "x"}]}"#,
            "request field subscriptions[0].package: required",
        ),
        (
            r#"{"catalog": {"name": "c"}, "subscriptions": [{"package": "a"}, {"name": "a", "package": "b"}]}"#,
            r#"request field subscriptions[1].name: "a" is also the name of subscriptions[0]"#,
        ),
        (
            r#"{"catalog": {"name": "c"}, "installed": [{"name": "a.v1", "version": "1.2-rc"}]}"#,
            r#"request field installed[0].version: "1.2-rc" is not a version: Short version cannot contain PreRelease/Build meta data"#,
        ),
        (
            r#"{"catalog": {"name": "c"}, "installed": [{"package": "a"}]}"#,
            "request field installed[0].name: required",
        ),
        (
            "1",
            "request, line 1 column 1: invalid type: integer `1`, expected a request object",
        ),
    ] {
        assert_eq!(parse(text).expect_err(text).to_string(), want, "{text}");
    }
}

#[test]
fn more_subscriptions_than_the_limit_are_refused() {
    let subs: Vec<String> = (0..=MAX_OPERATORS)
        .map(|i| format!(r#"{{"package": "p{i}"}}"#))
        .collect();
    let text = format!(
        r#"{{"catalog": {{"name": "c"}}, "subscriptions": [{}]}}"#,
        subs.join(",")
    );
    assert_eq!(
        parse(&text).expect_err("too many").to_string(),
        "request field subscriptions: 1001 entries, more than 1000"
    );
}
