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

mod against_oci_spec {
    use super::*;
    use proptest::prelude::*;

    /// oci-spec's reading of `text`: (registry, repository, tag, digest), or `None`.
    fn oci_spec(text: &str) -> Option<(String, String, Option<String>, Option<String>)> {
        let r: oci_spec::distribution::Reference = text.parse().ok()?;
        Some((
            r.registry().to_owned(),
            r.repository().to_owned(),
            r.tag().map(str::to_owned),
            r.digest().map(str::to_owned),
        ))
    }

    fn ours(text: &str) -> Option<(String, String, Option<String>, Option<String>)> {
        match CatalogSource::parse(&format!("docker://{text}")) {
            Ok(CatalogSource::Registry(r)) => Some((
                r.registry,
                r.repository,
                r.tag,
                r.digest.map(|d| d.to_string()),
            )),
            _ => None,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn the_hand_written_grammar_agrees_with_oci_spec(
            host in "([a-zA-Z0-9-]{1,6}\\.[a-zA-Z0-9.-]{0,8}|localhost|\\[[0-9a-f:]{2,6}\\]|[a-z]{1,3}:[0-9]{1,3})(:[0-9]{0,5})?",
            path in "[a-z0-9._-]{1,8}(/[a-zA-Z0-9._-]{0,8}){0,2}",
            tag in proptest::option::of("[A-Za-z0-9_.-]{1,10}"),
            digest in proptest::option::of(Just(D)),
        ) {
            let mut text = format!("{host}/{path}");
            if let Some(tag) = &tag {
                text = format!("{text}:{tag}");
            }
            if let Some(digest) = digest {
                text = format!("{text}@{digest}");
            }
            prop_assert_eq!(ours(&text), oci_spec(&text), "{}", text);
        }
    }

    #[test]
    fn known_cases_agree() {
        for text in [
            "quay.io/org/catalog:v4.16",
            "127.0.0.1:5000/catalog",
            "localhost/a/b",
            "[::1]:5000/a",
            "quay.io/a__b/c-d/e.f",
            "quay.io/a___b",
            "quay.io/-a",
            "quay.io/a/",
            "quay.io:/a",
            "-quay.io/a",
            "quay.io/A",
            "quay.io/a:-tag",
        ] {
            assert_eq!(ours(text), oci_spec(text), "{text}");
        }
        for len in [240, 248, 255, 256, 260] {
            let text = format!("quay.io/{}", "a".repeat(len));
            assert_eq!(ours(&text), oci_spec(&text), "{len}");
        }
    }
}
