use super::*;
use crate::reference::CatalogSource;
use crate::testing::{self, Tar};

fn layout_ref(arg: &str) -> LayoutRef {
    match CatalogSource::parse(arg) {
        Ok(CatalogSource::Layout(l)) => l,
        other => panic!("{arg}: {other:?}"),
    }
}

fn open_arg(arg: &str) -> Result<Image, LayoutError> {
    open(
        &layout_ref(arg),
        &Platform::current(),
        &ImageLimits::default(),
    )
}

#[test]
fn a_tagged_image_gives_its_labels_and_checked_layers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("l");
    testing::catalog_layout(
        &root,
        "v1",
        &[Tar::new().file("configs/a.json", b"{}").finish()],
    );
    let arg = format!("oci-layout:{}:v1", root.display());
    let image = open_arg(&arg).expect("open");
    assert_eq!(
        image
            .labels
            .get(manifest::CONFIGS_LABEL)
            .map(String::as_str),
        Some("/configs")
    );
    assert_eq!(image.layers.len(), 1);
    // The only manifest, without a tag; and by digest.
    assert_eq!(
        open_arg(&format!("oci-layout:{}", root.display()))
            .expect("only")
            .digest,
        image.digest
    );
    assert_eq!(
        open_arg(&format!("oci-layout:{}@{}", root.display(), image.digest))
            .expect("digest")
            .digest,
        image.digest
    );
    let missing = open_arg(&format!("oci-layout:{}:v2", root.display()))
        .expect_err("no v2")
        .to_string();
    assert!(
        missing.contains("no manifest tagged v2 in index.json (it has v1)"),
        "{missing}"
    );
}

#[test]
fn an_altered_blob_is_refused_by_its_digest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("l");
    testing::catalog_layout(
        &root,
        "v1",
        &[Tar::new().file("configs/a.json", b"{}").finish()],
    );
    let image = open_arg(&format!("oci-layout:{}:v1", root.display())).expect("open");
    let layer = &image.layers[0].path;
    let mut bytes = std::fs::read(layer).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(layer, bytes).expect("write");
    let e = open_arg(&format!("oci-layout:{}:v1", root.display()))
        .expect_err("altered")
        .to_string();
    assert!(e.contains("digest mismatch"), "{e}");
}

#[test]
fn an_index_picks_the_platform_or_takes_any_when_all_agree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("l");
    let config = testing::config(&[(manifest::CONFIGS_LABEL, "/configs")]);
    let layer = testing::gzip(&Tar::new().file("configs/a.json", b"{}").finish());
    let image = testing::manifest(&config, std::slice::from_ref(&layer));
    let index = testing::index(&[
        (&image, Some("linux/ppc64le")),
        (&image, Some("linux/s390x")),
    ]);
    testing::layout(
        &root,
        &[&config, &layer, &image],
        &[(&index, Some("multi"))],
    );
    let opened =
        open_arg(&format!("oci-layout:{}:multi", root.display())).expect("same config everywhere");
    assert_eq!(opened.digest, Digest::of(&index));
    // Two platforms whose configs differ, neither ours: refused, naming them.
    let other_config = testing::config(&[(manifest::CONFIGS_LABEL, "/other")]);
    let other = testing::manifest(&other_config, std::slice::from_ref(&layer));
    let index = testing::index(&[
        (&image, Some("linux/ppc64le")),
        (&other, Some("linux/s390x")),
    ]);
    testing::layout(&root, &[&other_config, &other], &[(&index, Some("multi"))]);
    let e = open_arg(&format!("oci-layout:{}:multi", root.display()))
        .expect_err("differ")
        .to_string();
    assert!(e.contains("linux/ppc64le, linux/s390x"), "{e}");
}

#[test]
fn a_directory_that_is_not_a_layout_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = open_arg(&format!("oci-layout:{}", dir.path().display()))
        .expect_err("not a layout")
        .to_string();
    assert!(
        e.ends_with("not an OCI image layout (no oci-layout file)"),
        "{e}"
    );
}
