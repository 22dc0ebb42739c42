use super::*;
use std::path::PathBuf;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

const HEADER: &str =
    "apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\n";

fn filter_file(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("filter.yaml");
    std::fs::write(&path, format!("{HEADER}{body}")).unwrap();
    path
}

fn bundles(catalog: &LoadedCatalog) -> Vec<String> {
    let tables = catalog.tables.get().unwrap();
    let mut names: Vec<String> = tables
        .packages()
        .iter()
        .flat_map(|p| p.bundles.iter().map(|b| b.name.clone()))
        .collect();
    names.sort();
    names
}

#[test]
fn the_filtered_catalog_is_what_is_served_and_names_its_filter() {
    let dir = tempfile::tempdir().unwrap();
    let path = filter_file(dir.path(), "packages:\n  - name: example-operator\n");
    let catalog = load_filtered(&example(), &path, &LoadOptions::default()).unwrap();
    assert_eq!(
        bundles(&catalog),
        [
            "example-dependency.v1.1.0",
            "example-operator.v0.3.0",
            "example-operator.v1.0.0"
        ]
    );
    let source = catalog.filter.as_ref().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        source.digest,
        format!("sha256:{}", fbc_image::digest::Digest::of(&bytes).hex())
    );
    assert_eq!(catalog.report.filter_digest.as_ref(), Some(&source.digest));
    // The metas are read back from the filtered catalog's own file.
    assert_eq!(catalog.files_root(Path::new("/elsewhere")), source.dir());
    let json = catalog.tables.get().unwrap().metas().json().unwrap();
    assert_eq!(
        json.len(),
        catalog.tables.get().unwrap().metas().rows().len()
    );
    // Served as it is, the same catalog has every bundle.
    let whole = load_source(&example(), None, &LoadOptions::default()).unwrap();
    assert!(bundles(&whole).len() > bundles(&catalog).len());
    assert_ne!(whole.report.digest, catalog.report.digest);
}

#[test]
fn the_private_directory_goes_with_the_last_catalog_using_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = filter_file(dir.path(), "packages:\n  - name: example-operator\n");
    let catalog = load_filtered(&example(), &path, &LoadOptions::default()).unwrap();
    let scratch = catalog.filter.as_ref().unwrap().dir().to_path_buf();
    assert!(scratch.join(FILE_NAME).is_file());
    drop(catalog);
    assert!(!scratch.exists());
}

#[test]
fn a_filter_that_does_not_read_or_apply_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("packages:\n  - name: no-such-package\n", "no-such-package"),
        ("packages: [\n", "filter.yaml"),
        (
            "packages:\n  - name: example-operator\n    maxVersoin: 1.0.0\n",
            "maxVersoin",
        ),
    ];
    for (body, said) in cases {
        let path = filter_file(dir.path(), body);
        let problems = load_filtered(&example(), &path, &LoadOptions::default()).unwrap_err();
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let text = text.join("\n");
        assert!(text.contains("filter.yaml"), "{body}: {text}");
        assert!(text.contains(said), "{body}: {text}");
    }
    let missing = dir.path().join("absent.yaml");
    let problems = load_filtered(&example(), &missing, &LoadOptions::default()).unwrap_err();
    assert!(
        problems[0].to_string().contains("absent.yaml"),
        "{:?}",
        problems
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_the_filter_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("filter.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let problems = load_filtered(&example(), &fifo, &LoadOptions::default()).unwrap_err();
    assert!(
        problems[0].to_string().contains("not a regular file"),
        "{problems:?}"
    );
}
