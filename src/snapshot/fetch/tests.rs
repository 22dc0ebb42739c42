use super::*;
use fbc_image::testing::{self, Tar};

fn options(store: Option<PathBuf>) -> FetchOptions {
    FetchOptions {
        limits: ImageLimits::default(),
        platform: Platform::current(),
        store,
        keep: 2,
        registry: fbc_pull::RegistryOptions::default(),
    }
}

#[test]
fn a_directory_is_itself_and_a_layout_is_unpacked_once_by_digest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = fetch(dir.path(), &options(None)).expect("a directory");
    assert_eq!(
        (plain.dir.as_path(), plain.image.as_ref()),
        (dir.path(), None)
    );

    let layout = dir.path().join("layout");
    testing::catalog_layout(
        &layout,
        "v1",
        &[Tar::new().file("configs/a.json", b"{}").finish()],
    );
    let arg = PathBuf::from(format!("oci-layout:{}:v1", layout.display()));
    let store = dir.path().join("images");
    let first = fetch(&arg, &options(Some(store.clone()))).expect("unpacked");
    assert_eq!(
        std::fs::read(first.dir.join("a.json")).expect("a.json"),
        b"{}"
    );
    let image = first.image.clone().expect("an image");
    assert!(first.dir.starts_with(&store), "{}", first.dir.display());
    // The second fetch finds the digest in the store.
    let second = fetch(&arg, &options(Some(store))).expect("cached");
    assert_eq!((second.dir, second.image), (first.dir, Some(image)));
}

#[test]
fn a_scratch_unpack_goes_with_its_fetch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let layout = dir.path().join("layout");
    testing::catalog_layout(
        &layout,
        "v1",
        &[Tar::new().file("configs/a.json", b"{}").finish()],
    );
    let fetched = fetch(
        Path::new(&format!("oci-layout:{}", layout.display())),
        &options(None),
    )
    .expect("unpacked");
    let unpacked = fetched.dir.clone();
    assert!(unpacked.join("a.json").is_file());
    drop(fetched);
    assert!(!unpacked.exists());
}

#[test]
fn a_hostile_layer_is_refused_by_name_and_leaves_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let layout = dir.path().join("layout");
    testing::catalog_layout(
        &layout,
        "v1",
        &[Tar::new()
            .file("configs/a.json", b"{}")
            .symlink("configs/x", "../../etc")
            .finish()],
    );
    let store = dir.path().join("images");
    let e = fetch(
        Path::new(&format!("oci-layout:{}:v1", layout.display())),
        &options(Some(store.clone())),
    )
    .expect_err("refused")
    .to_string();
    assert!(
        e.contains(
            "entry \"configs/x\": it is a symlink to \"../../etc\", outside the catalog directory"
        ),
        "{e}"
    );
    assert_eq!(
        std::fs::read_dir(&store).expect("store").count(),
        0,
        "nothing left in the store"
    );
}
