//! The `.indexignore` fixture (`tests/fixtures/indexignore`): ignored files are not
//! loaded.

use super::*;

#[tokio::test]
async fn indexignore_fixture_hides_non_catalog_files() {
    let fbc_registry::snapshot::load::LoadedCatalog {
        registry: index,
        report,
        ..
    } = fbc_registry::snapshot::load::load(&fixture("indexignore"), &Default::default())
        .expect("valid");
    assert_eq!(index.stats().packages, 1);
    assert_eq!(report.files, 2, "README.md and the CSV yaml are ignored");
}
