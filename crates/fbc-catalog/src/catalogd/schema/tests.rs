//! catalogd's own vectors (operator-controller `graphql/discovery_test.go`,
//! `graphql_test.go`).

use super::*;
use serde_json::json;

#[test]
fn field_names_as_catalogd_remaps_them() {
    for (input, expected) in [
        ("name", "name"),
        ("package-name", "packageName"),
        ("default_channel", "defaultChannel"),
        ("related-images", "relatedImages"),
        ("", "value"),
        ("123invalid", "field_123invalid"),
        ("my.field.name", "myFieldName"),
        ("CamelCase", "camelCase"),
        ("UPPERCASE", "uppercase"),
        ("mixed_case-field.name", "mixedCaseFieldName"),
        (
            "spec.template.spec.containers",
            "specTemplateSpecContainers",
        ),
        (
            "metadata.annotations.description",
            "metadataAnnotationsDescription",
        ),
        (
            "operators.operatorframework.io/bundle.channels.v1",
            "operatorsOperatorframeworkIoBundleChannelsV1",
        ),
        ("---", "field_"),
        ("123", "field_123"),
        ("field@#$%", "field"),
        ("défaut", "dFaut"),
    ] {
        assert_eq!(remap_field_name(input), expected, "{input:?}");
    }
}

#[test]
fn type_names_as_catalogd_sanitizes_them() {
    for (input, expected) in [
        ("olm.package", "OlmPackage"),
        ("olm.gvk", "OlmGvk"),
        ("some-type", "SomeType"),
        ("complex.type-name_here", "ComplexTypeNameHere"),
        ("", "Unknown"),
        ("123invalid", "Invalid"),
        (
            "operators.operatorframework.io/bundle.channels.v1",
            "OperatorsOperatorframeworkIoBundleChannelsV1",
        ),
        ("@#$%", "Unknown"),
        ("_____", "Unknown"),
        ("ABC", "Abc"),
        ("lowercase", "Lowercase"),
    ] {
        assert_eq!(sanitize_type_name(input), expected, "{input:?}");
    }
    assert_eq!(root_field_name("olm.bundle"), "olmbundles");
    assert_eq!(root_field_name("olm.deprecations"), "olmdeprecationss");
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(o) => o,
        _ => unreachable!(),
    }
}

#[test]
fn field_types_as_catalogd_infers_them() {
    let mut schema = CatalogSchema::default();
    schema.add(
        "test.schema",
        &object(json!({
            "name": "test-package", "version": "1.0.0", "count": 42, "active": true,
            "tags": ["tag1", "tag2"], "numbers": [1, 2, 3], "nested": {"key": "value"},
            "nullField": null, "emptyArray": [], "floatValue": 2.5,
            "mixedArray": ["string", 123, true],
        })),
    );
    let fields = &schema.schemas["test.schema"].fields;
    let typed = |name: &str| (fields[name].scalar, fields[name].is_array);
    assert_eq!(typed("name"), (Scalar::String, false));
    assert_eq!(typed("count"), (Scalar::Int, false));
    assert_eq!(typed("active"), (Scalar::Boolean, false));
    assert_eq!(typed("tags"), (Scalar::String, true));
    assert_eq!(typed("numbers"), (Scalar::Int, true));
    assert_eq!(typed("nested"), (Scalar::String, false));
    assert_eq!(typed("nullField"), (Scalar::String, false));
    assert_eq!(typed("emptyArray"), (Scalar::String, true));
    assert_eq!(typed("floatValue"), (Scalar::Float, false));
    assert_eq!(typed("mixedArray"), (Scalar::String, true));
}

#[test]
fn lists_of_objects_get_the_union_of_their_fields_and_the_first_object_decides() {
    let mut schema = CatalogSchema::default();
    let first = schema.add(
        "olm.bundle",
        &object(json!({"name": "a", "properties": [{"type": "olm.package", "value": {"packageName": "a"}}]})),
    );
    let second = schema.add(
        "olm.bundle",
        &object(json!({"name": 7, "properties": [{"type": "olm.gvk", "extra": [1.5]}]})),
    );
    assert_eq!(
        (first, second),
        (4, 1),
        "name, properties, type, value; then extra"
    );
    let info = &schema.schemas["olm.bundle"];
    assert_eq!(info.total_objects, 2);
    assert_eq!(
        info.fields["name"].scalar,
        Scalar::String,
        "the first object decides"
    );
    let nested = &info.fields["properties"].nested;
    assert_eq!(
        nested.keys().collect::<Vec<_>>(),
        ["extra", "type", "value"]
    );
    assert_eq!(
        (nested["extra"].scalar, nested["extra"].is_array),
        (Scalar::Float, true)
    );
    assert_eq!(nested["value"].scalar, Scalar::String);
    assert_eq!(
        schema.field_count(),
        2 + 3,
        "name and properties, and properties' three"
    );
}
