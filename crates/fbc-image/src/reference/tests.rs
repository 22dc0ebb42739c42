use super::*;

const D: &str = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

fn registry(arg: &str) -> RegistryRef {
    match CatalogSource::parse(arg) {
        Ok(CatalogSource::Registry(r)) => r,
        other => panic!("{arg}: {other:?}"),
    }
}

#[test]
fn registry_references_keep_host_port_repository_tag_and_digest() {
    let r = registry("quay.io/org/catalog:v4.16");
    assert_eq!(
        (r.registry.as_str(), r.repository.as_str(), r.tag.as_deref()),
        ("quay.io", "org/catalog", Some("v4.16"))
    );
    let r = registry("127.0.0.1:5000/catalog");
    assert_eq!(
        (r.registry.as_str(), r.repository.as_str(), r.tag.as_deref()),
        ("127.0.0.1:5000", "catalog", Some("latest"))
    );
    let r = registry(&format!("localhost/a/b@{D}"));
    assert_eq!(
        (r.tag.as_deref(), r.digest.as_ref().map(ToString::to_string)),
        (None, Some(D.to_owned()))
    );
    assert!(r.is_pinned());
    let r = registry(&format!("docker://quay.io/org/catalog:v1@{D}"));
    assert_eq!(r.to_string(), format!("quay.io/org/catalog:v1@{D}"));
}

#[test]
fn names_without_a_host_and_existing_paths_are_directories() {
    let dir = tempfile::tempdir().expect("tempdir");
    let on_disk = dir.path().join("quay.io").join("org");
    std::fs::create_dir_all(&on_disk).expect("mkdir");
    for arg in [
        "catalogs/example",
        "ubuntu",
        "library/ubuntu:latest",
        on_disk.to_str().expect("utf-8"),
    ] {
        assert!(
            matches!(CatalogSource::parse(arg), Ok(CatalogSource::Directory(_))),
            "{arg}"
        );
    }
}

#[test]
fn bad_references_say_why() {
    for arg in [
        "docker://ubuntu",
        "docker://quay.io/Org/UPPER",
        "docker://quay.io/org/x@sha256:abc",
    ] {
        let e = CatalogSource::parse(arg).expect_err(arg).to_string();
        assert!(e.contains(arg), "{arg}: {e}");
    }
    let long = format!("docker://quay.io/{}", "a".repeat(1001));
    assert!(CatalogSource::parse(&long).is_err());
}

#[test]
fn layouts_take_a_tag_a_digest_or_nothing() {
    let layout = |arg: &str| match CatalogSource::parse(arg) {
        Ok(CatalogSource::Layout(l)) => l,
        other => panic!("{arg}: {other:?}"),
    };
    assert_eq!(
        layout("oci-layout:/tmp/l:v1").select,
        LayoutSelect::Tag("v1".to_owned())
    );
    assert_eq!(layout("oci-layout:/tmp/l").select, LayoutSelect::Only);
    assert_eq!(
        layout(&format!("oci-layout:l@{D}")).select,
        LayoutSelect::Digest(D.parse().expect("digest"))
    );
    // A colon followed by something that is not a tag belongs to the path.
    let l = layout("oci-layout:C:/x/y");
    assert_eq!(
        (l.path, l.select),
        (PathBuf::from("C:/x/y"), LayoutSelect::Only)
    );
    assert!(CatalogSource::parse("oci-layout:").is_err());
    assert_eq!(
        CatalogSource::parse("oci-layout:l:v1")
            .expect("layout")
            .to_string(),
        "oci-layout:l:v1"
    );
}
