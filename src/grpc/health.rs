//! `grpc.health.v1.Health`, answering as the reference does.
//!
//! `Check` says SERVING for **any** service name (`""` for kubelet and
//! grpc_health_probe, `"Registry"` for the Go client) once a catalog is loaded.
//! The port opens only after the first load, so a client never sees NOT_SERVING in
//! practice, and a failed reload keeps the last good catalog: health stays
//! SERVING. At shutdown it answers NOT_SERVING first, while calls are still
//! served, so load balancers and kubelet stop sending new work before the
//! listener closes. `Watch` is unimplemented, as in the reference.
//!
//! On the server-wide port of a server with several catalogs it answers per catalog
//! instead ([`crate::fleet::Fleet::health`]): the service name is a catalog's name,
//! `""` is every catalog serving, and a name that is no catalog's is `NOT_FOUND`, as
//! grpc-go's health server answers an unknown service.

use crate::fleet::Fleet;
use crate::snapshot::Catalog;
use std::sync::Arc;
use tonic::{Request, Response, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

pub use tonic_health::pb::health_server::HealthServer;

/// The health service.
#[derive(Clone, Debug)]
pub struct Health {
    about: About,
}

#[derive(Clone, Debug)]
enum About {
    Catalog(Catalog),
    Fleet(Arc<Fleet>),
}

impl Health {
    /// A health service reporting on `catalog`, for any service name.
    pub fn new(catalog: Catalog) -> Self {
        Health {
            about: About::Catalog(catalog),
        }
    }

    /// A health service reporting on each catalog of `fleet` by name.
    pub fn fleet(fleet: Arc<Fleet>) -> Self {
        Health {
            about: About::Fleet(fleet),
        }
    }
}

#[tonic::async_trait]
impl tonic_health::pb::health_server::Health for Health {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        let serving = match &self.about {
            About::Catalog(catalog) => catalog.load().is_some() && !catalog.draining(),
            About::Fleet(fleet) => match fleet.health(&request.get_ref().service) {
                crate::fleet::Health::Serving => true,
                crate::fleet::Health::NotServing => false,
                crate::fleet::Health::Unknown => {
                    return Err(Status::not_found("unknown service"));
                }
            },
        };
        let status = if serving {
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
