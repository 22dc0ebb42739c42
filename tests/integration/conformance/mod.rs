//! The expectations of the reference project's own tests (operator-registry's serve, cache and registry tests),
//! against fixtures re-created as FBC in `tests/fixtures/catalog-{a..e}`.
//!
//! This file holds the request helpers the catalogs share; each reference catalog
//! (A–E) and the `.indexignore` fixture has its own submodule.

mod catalog_a;
mod catalog_b;
mod catalog_c;
mod catalog_d;
mod catalog_e;
mod indexignore;

use crate::harness::*;
use fbc_registry::api;
use fbc_registry::api::experimental_registry_client::ExperimentalRegistryClient;
use tonic::Code;

fn ack<T>(msg: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut().insert(
        "x-acknowledge-experimental",
        "true".parse().expect("header"),
    );
    r
}

fn custom_req(schema: &str, package: &str) -> api::ExperimentalListPackageCustomSchemasRequest {
    api::ExperimentalListPackageCustomSchemasRequest {
        schema: schema.into(),
        package_name: package.into(),
    }
}
