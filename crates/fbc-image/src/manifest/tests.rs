use super::*;
use crate::testing;

fn limits() -> ImageLimits {
    ImageLimits::default()
}

#[test]
fn images_and_indexes_are_told_apart_and_schema_1_refused() {
    let config = testing::config(&[]);
    let image = testing::manifest(&config, &[b"layer".to_vec()]);
    assert!(matches!(
        parse_document(&image, &limits()),
        Ok(Document::Image(_))
    ));
    let index = testing::index(&[(&image, Some("linux/amd64"))]);
    assert!(matches!(
        parse_document(&index, &limits()),
        Ok(Document::Index(_))
    ));
    let v1 = br#"{"schemaVersion": 1, "name": "x", "fsLayers": []}"#;
    assert!(
        parse_document(v1, &limits())
            .expect_err("v1")
            .to_string()
            .contains("schema 2")
    );
    assert!(parse_document(b"[1,2]", &limits()).is_err());
    let mut small = limits();
    small.max_document_bytes = 10;
    assert!(
        parse_document(&image, &small)
            .expect_err("big")
            .to_string()
            .contains("4 MiB")
    );
}

#[test]
fn the_platform_entry_is_chosen_and_attestations_skipped() {
    let a = testing::manifest(&testing::config(&[("a", "1")]), &[]);
    let b = testing::manifest(&testing::config(&[("b", "2")]), &[]);
    let index_bytes = testing::index(&[
        (&a, Some("unknown/unknown")),
        (&a, Some("linux/arm64")),
        (&b, Some("linux/amd64")),
    ]);
    let Ok(Document::Index(index)) = parse_document(&index_bytes, &limits()) else {
        panic!("an index");
    };
    let amd64 = Platform::parse("linux/amd64").expect("platform");
    match select_platform(&index, &amd64).expect("select") {
        PlatformChoice::Match(entry) => assert_eq!(entry.digest, Digest::of(&b)),
        other => panic!("{other:?}"),
    }
    let s390x = Platform::parse("linux/s390x").expect("platform");
    match select_platform(&index, &s390x).expect("select") {
        PlatformChoice::Candidates(c) => {
            assert_eq!(c.len(), 2);
            assert_eq!(
                no_platform(&s390x, &c).to_string(),
                "the index has no image for linux/s390x (it has linux/arm64, linux/amd64); choose one with --platform"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn platforms_parse_with_an_optional_variant() {
    assert_eq!(
        Platform::parse("linux/arm64/v8")
            .map(|p| p.to_string())
            .as_deref(),
        Some("linux/arm64/v8")
    );
    for bad in ["linux", "linux/", "/amd64", "a/b/c/d", "a/b/"] {
        assert!(Platform::parse(bad).is_none(), "{bad}");
    }
    assert_eq!(Platform::current().os, std::env::consts::OS);
}

#[test]
fn layer_limits_count_layers_and_their_sizes() {
    let image_bytes = testing::manifest(&testing::config(&[]), &[vec![0; 10], vec![0; 20]]);
    let Ok(Document::Image(image)) = parse_document(&image_bytes, &limits()) else {
        panic!("an image");
    };
    let (_, layers) = blobs(&image, &limits()).expect("blobs");
    assert_eq!(layers.iter().map(|l| l.size).collect::<Vec<_>>(), [10, 20]);
    let mut few = limits();
    few.max_layers = 1;
    assert!(
        blobs(&image, &few)
            .expect_err("layers")
            .to_string()
            .contains("--max-layers")
    );
    let mut small = limits();
    small.max_image_bytes = 29;
    assert!(
        blobs(&image, &small)
            .expect_err("size")
            .to_string()
            .contains("--max-image-size")
    );
}

#[test]
fn the_configs_label_is_found_or_the_labels_listed() {
    let with = labels(
        &testing::config(&[(CONFIGS_LABEL, "/configs"), ("vendor", "x")]),
        &limits(),
    )
    .expect("labels");
    assert_eq!(configs_dir(&with).expect("dir"), "/configs");
    let without = labels(&testing::config(&[("vendor", "x")]), &limits()).expect("labels");
    assert_eq!(
        configs_dir(&without).expect_err("missing").to_string(),
        format!(
            "the image is not a catalog: its config has no label {CONFIGS_LABEL} (it has vendor=x)"
        )
    );
    let none = labels(br#"{"architecture": "amd64"}"#, &limits()).expect("labels");
    assert!(
        configs_dir(&none)
            .expect_err("missing")
            .to_string()
            .contains("it has no labels")
    );
}
