//! The label sets, each bounded: methods from the compiled-in descriptors,
//! routes as the HTTP router labels them (`crate::http::routes::label`), codes
//! and results from small enums.

use prometheus_client::encoding::{
    DescriptorEncoder, EncodeLabelSet, EncodeLabelValue, EncodeMetric, LabelValueEncoder,
};
use prost::Message;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::LazyLock;

/// `method`, `code`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GrpcCall {
    /// The full method (`/api.Registry/ListPackages`) or `other`.
    pub method: &'static str,
    /// The status code's name (`OK`, `NOT_FOUND`, …), `NONE` for a reply dropped before its status.
    pub code: &'static str,
}

impl GrpcCall {
    /// The labels of a call to `method` ending with `code`.
    pub fn new(method: &'static str, code: Option<tonic::Code>) -> GrpcCall {
        GrpcCall {
            method,
            code: code.map_or("NONE", code_name),
        }
    }
}

/// `method`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Method {
    /// As in [`GrpcCall`].
    pub method: &'static str,
}

/// `route`, `status`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpAnswer {
    /// The router's template (`/catalogs/:catalog/api/v1/all`) or `other`.
    pub route: &'static str,
    /// The HTTP status code.
    pub status: u16,
}

/// `route`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Route {
    /// As in [`HttpAnswer`].
    pub route: &'static str,
}

/// `listener`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Listener {
    /// `grpc` or `http`.
    pub listener: &'static str,
}

/// `holder`, `place`: what holds a snapshot's bytes, and where.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Holder {
    /// `registry`, `http`, `graphql` or `browser`.
    pub holder: &'static str,
    /// `memory` or `file`.
    pub place: &'static str,
}

/// A load's result (`success`, `failure`).
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub enum LoadResult {
    /// Published.
    Success,
    /// Refused; the last good catalog stays.
    Failure,
}

/// A poll's result (`unchanged`, `pulled`, `failure`).
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum PollResult {
    /// The tag names the digest served: nothing pulled.
    Unchanged,
    /// A new digest, pulled (or found stored) and served.
    Pulled,
    /// Resolving, pulling, unpacking or loading failed; the served catalog stays.
    Failure,
}

impl EncodeLabelValue for PollResult {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(match self {
            PollResult::Unchanged => "unchanged",
            PollResult::Pulled => "pulled",
            PollResult::Failure => "failure",
        })
    }
}

/// `result` of a poll.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Pull {
    /// What the poll did.
    pub result: PollResult,
}

/// The index cache at start (`hit`, `miss`, `stale`).
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub enum CacheResult {
    /// Read from the cache.
    Hit,
    /// No cache of ours: built from the catalog.
    Miss,
    /// Ours, but for other files or unreadable: rebuilt from the catalog.
    Stale,
}

impl EncodeLabelValue for LoadResult {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(match self {
            LoadResult::Success => "success",
            LoadResult::Failure => "failure",
        })
    }
}

impl EncodeLabelValue for CacheResult {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(match self {
            CacheResult::Hit => "hit",
            CacheResult::Miss => "miss",
            CacheResult::Stale => "stale",
        })
    }
}

/// `result` of a load.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Load {
    /// As the name says.
    pub result: LoadResult,
}

/// `result` of a cache lookup.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Cache {
    /// As the name says.
    pub result: CacheResult,
}

/// Every gRPC method this server has, as `/package.Service/Method`.
static METHODS: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    let sets = [
        crate::FILE_DESCRIPTOR_SET,
        tonic_health::pb::FILE_DESCRIPTOR_SET,
        tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
        tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
    ];
    let mut out = BTreeSet::new();
    for set in sets {
        let Ok(set) = prost_types::FileDescriptorSet::decode(set) else {
            continue;
        };
        for file in set.file {
            for service in &file.service {
                for method in &service.method {
                    let path = format!("/{}.{}/{}", file.package(), service.name(), method.name());
                    out.insert(&*Box::leak(path.into_boxed_str()));
                }
            }
        }
    }
    out
});

/// The label of a request path: the method, if this server has it.
pub fn method(path: &str) -> &'static str {
    METHODS.get(path).copied().unwrap_or("other")
}

fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "CANCELLED",
        Unknown => "UNKNOWN",
        InvalidArgument => "INVALID_ARGUMENT",
        DeadlineExceeded => "DEADLINE_EXCEEDED",
        NotFound => "NOT_FOUND",
        AlreadyExists => "ALREADY_EXISTS",
        PermissionDenied => "PERMISSION_DENIED",
        ResourceExhausted => "RESOURCE_EXHAUSTED",
        FailedPrecondition => "FAILED_PRECONDITION",
        Aborted => "ABORTED",
        OutOfRange => "OUT_OF_RANGE",
        Unimplemented => "UNIMPLEMENTED",
        Internal => "INTERNAL",
        Unavailable => "UNAVAILABLE",
        DataLoss => "DATA_LOSS",
        Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Encodes one metric from a collector.
pub fn encode(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    metric: &impl EncodeMetric,
) -> Result<(), std::fmt::Error> {
    let metric_encoder = encoder.encode_descriptor(name, help, None, metric.metric_type())?;
    metric.encode(metric_encoder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_bounded() {
        assert_eq!(
            method("/api.Registry/ListPackages"),
            "/api.Registry/ListPackages"
        );
        assert_eq!(
            method("/grpc.health.v1.Health/Check"),
            "/grpc.health.v1.Health/Check"
        );
        assert_eq!(
            method("/fbc.v1.Graph/GetSuccessors"),
            "/fbc.v1.Graph/GetSuccessors"
        );
        assert_eq!(method("/api.Registry/Nope"), "other");
        assert_eq!(method(&"x".repeat(10_000)), "other");
    }
}
