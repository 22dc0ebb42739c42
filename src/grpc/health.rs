//! `grpc.health.v1.Health`, answering as the reference does.
//!
//! `Check` says SERVING for **any** service name (`""` for kubelet and
//! grpc_health_probe, `"Registry"` for the Go client) once a catalog is loaded.
//! The port opens only after the first load, so a client never sees NOT_SERVING in
//! practice, and a failed reload keeps the last good catalog: health stays
//! SERVING. At shutdown it answers NOT_SERVING first, while calls are still
//! served, so load balancers and kubelet stop sending new work before the
//! listener closes. `Watch` is unimplemented, as in the reference.

use crate::snapshot::Catalog;
use tonic::{Request, Response, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

pub use tonic_health::pb::health_server::HealthServer;

/// The health service.
#[derive(Clone, Debug)]
pub struct Health {
    catalog: Catalog,
}

impl Health {
    /// A health service reporting on `catalog`.
    pub fn new(catalog: Catalog) -> Self {
        Health { catalog }
    }
}

#[tonic::async_trait]
impl tonic_health::pb::health_server::Health for Health {
    async fn check(
        &self,
        _request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        let status = if self.catalog.load().is_some() && !self.catalog.draining() {
            ServingStatus::Serving
        } else {
            ServingStatus::NotServing
        };
        Ok(Response::new(HealthCheckResponse {
            status: status as i32,
        }))
    }

    type WatchStream = tokio_stream::Empty<Result<HealthCheckResponse, Status>>;

    async fn watch(
        &self,
        _request: Request<HealthCheckRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        Err(Status::unimplemented("method Watch not implemented"))
    }
}
