//! gRPC services over the current catalog snapshot.
//!
//! In: a [`Catalog`] handle and decoded requests. Out: pre-encoded replies or a
//! status. `api.Registry` and `api.ExperimentalRegistry` (this module) are thin:
//! find the answer in the [`crate::views::registry::RegistryView`] and send it; every registry
//! failure is status **Unknown** carrying the message, as in the reference (its
//! clients match on it), and malformed requests are InvalidArgument.
//! [`super::graph`] serves `fbc.v1.Graph` from the snapshot's tables with real status
//! codes (NOT_FOUND, INVALID_ARGUMENT, FAILED_PRECONDITION); [`super::health`] serves
//! `grpc.health.v1`.

use super::wire::Reply;
use crate::snapshot::{Catalog, Snapshot};
use crate::views::registry::echo;
use crate::views::registry::{QueryError, RegistryView};
use bytes::Bytes;
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

#[allow(missing_docs, clippy::all)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/server/api.Registry.rs"));
    include!(concat!(
        env!("OUT_DIR"),
        "/server/api.ExperimentalRegistry.rs"
    ));
}
pub use generated::experimental_registry_server::ExperimentalRegistryServer;
pub use generated::registry_server::RegistryServer;

/// The metadata key that unlocks `ExperimentalRegistry`.
pub const ACKNOWLEDGE_EXPERIMENTAL: &str = "x-acknowledge-experimental";

/// Longest name or GVK part accepted in a request; longer ones cannot exist in a catalog.
const MAX_FIELD_LEN: usize = 4096;

type ReplyStream = Pin<Box<dyn Stream<Item = Result<Reply, Status>> + Send + 'static>>;

fn unknown(e: QueryError) -> Status {
    Status::unknown(e.to_string())
}

fn check_len(fields: &[(&str, &str)]) -> Result<(), Status> {
    for (name, value) in fields {
        if value.len() > MAX_FIELD_LEN {
            return Err(Status::invalid_argument(format!(
                "{name} is {} bytes long; at most {MAX_FIELD_LEN} are accepted",
                value.len()
            )));
        }
    }
    Ok(())
}

fn snapshot(catalog: &Catalog) -> Result<Arc<Snapshot>, Status> {
    catalog
        .load()
        .ok_or_else(|| Status::unavailable("the catalog has not been loaded yet"))
}

fn stream_of(items: Vec<Bytes>) -> ReplyStream {
    Box::pin(tokio_stream::iter(
        items.into_iter().map(|b| Ok(Reply::one(b))),
    ))
}

/// Streams ListBundles from one snapshot, which it keeps alive until done.
struct ListBundles {
    snapshot: Arc<Snapshot>,
    next: usize,
}

impl Iterator for ListBundles {
    type Item = Result<Reply, Status>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.snapshot.registry.list_bundles_item(self.next)?;
        self.next += 1;
        Some(Ok(item))
    }
}

/// `api.Registry`.
#[derive(Clone, Debug)]
pub struct Registry {
    catalog: Catalog,
}

impl Registry {
    /// A registry service over `catalog`.
    pub fn new(catalog: Catalog) -> Self {
        Registry { catalog }
    }

    fn unary(
        &self,
        f: impl FnOnce(&RegistryView) -> Result<Reply, QueryError>,
    ) -> Result<Response<Reply>, Status> {
        let snap = snapshot(&self.catalog)?;
        f(&snap.registry).map(Response::new).map_err(unknown)
    }

    fn entries(
        &self,
        f: impl FnOnce(&RegistryView) -> Result<&[Bytes], QueryError>,
    ) -> Result<Response<ReplyStream>, Status> {
        let snap = snapshot(&self.catalog)?;
        let items = f(&snap.registry).map_err(unknown)?.to_vec();
        Ok(Response::new(stream_of(items)))
    }
}

#[tonic::async_trait]
impl generated::registry_server::Registry for Registry {
    type ListPackagesStream = ReplyStream;
    type GetChannelEntriesThatReplaceStream = ReplyStream;
    type GetChannelEntriesThatProvideStream = ReplyStream;
    type GetLatestChannelEntriesThatProvideStream = ReplyStream;
    type ListBundlesStream = ReplyStream;

    async fn list_packages(
        &self,
        _request: Request<crate::api::ListPackageRequest>,
    ) -> Result<Response<Self::ListPackagesStream>, Status> {
        self.entries(|ix| Ok(ix.package_names()))
    }

    async fn get_package(
        &self,
        request: Request<crate::api::GetPackageRequest>,
    ) -> Result<Response<Reply>, Status> {
        let r = request.into_inner();
        check_len(&[("name", &r.name)])?;
        self.unary(|ix| ix.package_reply(&r.name))
    }

    async fn get_bundle(
        &self,
        request: Request<crate::api::GetBundleRequest>,
    ) -> Result<Response<Reply>, Status> {
        let r = request.into_inner();
        check_len(&[
            ("pkgName", &r.pkg_name),
            ("channelName", &r.channel_name),
            ("csvName", &r.csv_name),
        ])?;
        self.unary(|ix| ix.bundle(&r.pkg_name, &r.channel_name, &r.csv_name))
    }

    async fn get_bundle_for_channel(
        &self,
        request: Request<crate::api::GetBundleInChannelRequest>,
    ) -> Result<Response<Reply>, Status> {
        let r = request.into_inner();
        check_len(&[("pkgName", &r.pkg_name), ("channelName", &r.channel_name)])?;
        self.unary(|ix| ix.bundle_for_channel(&r.pkg_name, &r.channel_name))
    }

    async fn get_channel_entries_that_replace(
        &self,
        request: Request<crate::api::GetAllReplacementsRequest>,
    ) -> Result<Response<Self::GetChannelEntriesThatReplaceStream>, Status> {
        let r = request.into_inner();
        check_len(&[("csvName", &r.csv_name)])?;
        self.entries(|ix| ix.entries_that_replace(&r.csv_name))
    }

    async fn get_bundle_that_replaces(
        &self,
        request: Request<crate::api::GetReplacementRequest>,
    ) -> Result<Response<Reply>, Status> {
        let r = request.into_inner();
        check_len(&[
            ("csvName", &r.csv_name),
            ("pkgName", &r.pkg_name),
            ("channelName", &r.channel_name),
        ])?;
        self.unary(|ix| ix.bundle_that_replaces(&r.csv_name, &r.pkg_name, &r.channel_name))
    }

    async fn get_channel_entries_that_provide(
        &self,
        request: Request<crate::api::GetAllProvidersRequest>,
    ) -> Result<Response<Self::GetChannelEntriesThatProvideStream>, Status> {
        let r = request.into_inner();
        check_len(&[
            ("group", &r.group),
            ("version", &r.version),
            ("kind", &r.kind),
        ])?;
        self.entries(|ix| ix.entries_that_provide(&r.group, &r.version, &r.kind))
    }

    async fn get_latest_channel_entries_that_provide(
        &self,
        request: Request<crate::api::GetLatestProvidersRequest>,
    ) -> Result<Response<Self::GetLatestChannelEntriesThatProvideStream>, Status> {
        let r = request.into_inner();
        check_len(&[
            ("group", &r.group),
            ("version", &r.version),
            ("kind", &r.kind),
        ])?;
        self.entries(|ix| ix.latest_entries_that_provide(&r.group, &r.version, &r.kind))
    }

    async fn get_default_bundle_that_provides(
        &self,
        request: Request<crate::api::GetDefaultProviderRequest>,
    ) -> Result<Response<Reply>, Status> {
        let r = request.into_inner();
        check_len(&[
            ("group", &r.group),
            ("version", &r.version),
            ("kind", &r.kind),
        ])?;
        self.unary(|ix| ix.default_bundle_that_provides(&r.group, &r.version, &r.kind))
    }

    async fn list_bundles(
        &self,
        _request: Request<crate::api::ListBundlesRequest>,
    ) -> Result<Response<Self::ListBundlesStream>, Status> {
        let snapshot = snapshot(&self.catalog)?;
        Ok(Response::new(Box::pin(tokio_stream::iter(ListBundles {
            snapshot,
            next: 0,
        }))))
    }
}

/// `api.ExperimentalRegistry`.
#[derive(Clone, Debug)]
pub struct Experimental {
    catalog: Catalog,
}

impl Experimental {
    /// An experimental service over `catalog`.
    pub fn new(catalog: Catalog) -> Self {
        Experimental { catalog }
    }
}

#[tonic::async_trait]
impl generated::experimental_registry_server::ExperimentalRegistry for Experimental {
    type ExperimentalListPackageCustomSchemasStream = ReplyStream;

    /// Streams the custom-schema blobs of (schema, package) in catalog walk order.
    /// Without `x-acknowledge-experimental: true` the stream is empty, as in the
    /// reference, so unaware clients see no change.
    async fn experimental_list_package_custom_schemas(
        &self,
        request: Request<crate::api::ExperimentalListPackageCustomSchemasRequest>,
    ) -> Result<Response<Self::ExperimentalListPackageCustomSchemasStream>, Status> {
        let acknowledged = request
            .metadata()
            .get_all(ACKNOWLEDGE_EXPERIMENTAL)
            .iter()
            .next()
            .is_some_and(|v| v.as_bytes() == b"true");
        if !acknowledged {
            return Ok(Response::new(stream_of(Vec::new())));
        }
        let r = request.into_inner();
        if r.schema.is_empty() {
            return Err(Status::invalid_argument("schema is required"));
        }
        check_len(&[("schema", &r.schema), ("packageName", &r.package_name)])?;
        let rule = "must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$";
        if !fbc_catalog::model::is_valid_meta_key(&r.schema) {
            return Err(Status::invalid_argument(format!(
                "invalid custom schema query: invalid schema {}: {rule}",
                echo::name_quoted(&r.schema)
            )));
        }
        if !r.package_name.is_empty() && !fbc_catalog::model::is_valid_meta_key(&r.package_name) {
            return Err(Status::invalid_argument(format!(
                "invalid custom schema query: invalid packageName {}: {rule}",
                echo::name_quoted(&r.package_name)
            )));
        }
        let snap = snapshot(&self.catalog)?;
        let items = snap
            .registry
            .custom_blobs(&r.schema, &r.package_name)
            .to_vec();
        Ok(Response::new(stream_of(items)))
    }
}
