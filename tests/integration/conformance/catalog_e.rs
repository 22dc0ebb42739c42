//! Catalog E (`tests/fixtures/catalog-e`): custom schemas listed by schema and
//! package, packageless blobs included.

use super::*;

#[tokio::test]
async fn catalog_e_custom_schemas_by_schema_and_package() {
    let server = TestServer::start(&fixture("catalog-e")).await;
    let mut x = ExperimentalRegistryClient::new(server.channel().await);
    let mut count = async |schema: &str, package: &str| {
        collect(
            x.experimental_list_package_custom_schemas(ack(custom_req(schema, package)))
                .await
                .expect("rpc")
                .into_inner(),
        )
        .await
    };
    assert_eq!(count("custom.operator.io", "testpkg").await.len(), 2);
    let other = count("other.custom.schema", "testpkg").await;
    assert_eq!(other.len(), 1);
    assert!(other[0].fields.contains_key("info"));
    assert!(count("unknown.schema", "testpkg").await.is_empty());
    assert!(count("custom.operator.io", "otherpkg").await.is_empty());
    assert_eq!(count("custom.packageless", "").await.len(), 1);
    assert!(count("custom.packageless", "testpkg").await.is_empty());
    let mut c = server.client().await;
    let names: Vec<String> = package_names(&mut c).await;
    assert_eq!(names, ["testpkg"]);
}
