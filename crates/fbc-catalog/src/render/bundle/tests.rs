use super::files::{BundleFiles, Manifest, MetadataDocument};
use super::{ObjectForm, render_bundle};
use proptest::prelude::*;
use serde_json::{Value, json};

fn csv(spec: Value) -> Manifest {
    Manifest {
        file: "csv.yaml".into(),
        object: json!({"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
                       "metadata": {"name": "op.v1.0.0"}, "spec": spec}),
    }
}

fn annotations(package: &str) -> MetadataDocument {
    MetadataDocument {
        file: "annotations.yaml".into(),
        value: json!({"annotations": {"operators.operatorframework.io.bundle.package.v1": package}}),
    }
}

#[test]
fn a_minimal_bundle_has_its_package_and_csv_metadata() {
    let files = BundleFiles {
        manifests: vec![csv(json!({"version": "1.0.0"}))],
        skipped: vec![],
        metadata: vec![annotations("op")],
    };
    let b =
        render_bundle(&files, "quay.io/x/op:v1", ObjectForm::CsvMetadataWithImage).expect("render");
    let types: Vec<&str> = b.properties.iter().map(|p| p.typ.as_str()).collect();
    assert_eq!(types, ["olm.package", "olm.csv.metadata"]);
    assert_eq!(
        b.properties[0].value,
        r#"{"packageName":"op","version":"1.0.0"}"#
    );
    assert_eq!(b.related_images.len(), 1);
    let objects =
        render_bundle(&files, "quay.io/x/op:v1", ObjectForm::BundleObjects).expect("render");
    assert_eq!(objects.properties[1].typ, "olm.bundle.object");
}

#[test]
fn the_documented_failures_have_opms_words() {
    let no_csv = BundleFiles {
        manifests: vec![Manifest {
            file: "cm.yaml".into(),
            object: json!({"kind": "ConfigMap"}),
        }],
        skipped: vec![],
        metadata: vec![annotations("op")],
    };
    assert_eq!(
        render_bundle(&no_csv, "", ObjectForm::CsvMetadataWithImage).unwrap_err(),
        "no csv in bundle"
    );
    let no_annotations = BundleFiles {
        manifests: vec![csv(json!({}))],
        skipped: vec![],
        metadata: vec![],
    };
    assert_eq!(
        render_bundle(&no_annotations, "", ObjectForm::CsvMetadataWithImage).unwrap_err(),
        "Could not find annotations file"
    );
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z.]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 30, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "kind",
                    "spec",
                    "metadata",
                    "name",
                    "version",
                    "owned",
                    "required",
                    "install",
                    "strategy",
                    "deployments",
                    "relatedImages",
                    "image",
                    "customresourcedefinitions",
                    "apiservicedefinitions",
                    "annotations",
                    "olm.properties",
                    "group",
                    "versions",
                    "names",
                    "plural",
                    "dependencies",
                    "properties",
                    "type",
                    "value",
                ]),
                inner,
                0..6,
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest! {
    /// Manifests and metadata of any shape: an answer or an error, never a panic.
    #[test]
    fn any_shape_renders_or_fails_cleanly(
        spec in any_json(),
        others in prop::collection::vec(any_json(), 0..3),
        metadata in prop::collection::vec(any_json(), 0..3),
        image in prop::sample::select(vec!["", "quay.io/x/b:1"]),
    ) {
        let mut manifests = vec![csv(spec)];
        manifests.extend(others.into_iter().map(|object| Manifest { file: "x".into(), object }));
        let mut metadata: Vec<MetadataDocument> =
            metadata.into_iter().map(|value| MetadataDocument { file: "m".into(), value }).collect();
        metadata.push(annotations("p"));
        let files = BundleFiles { manifests, skipped: vec![], metadata };
        let _ = render_bundle(&files, image, ObjectForm::CsvMetadataWithImage);
    }
}
