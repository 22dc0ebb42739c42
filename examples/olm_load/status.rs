//! Reading a failed call's status: its code's name, whether it never reached the
//! server (and may be sent again), and its message for the samples.

use tonic::{Code, Status};

/// gRPC's name of a status code.
pub(crate) fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Whether a failed call provably never reached the server: hyper dropped it before
/// it was sent (the connection was closing), or HTTP/2 refused it because the server's
/// GOAWAY had arrived (opened after it, or above its last stream id). grpc-go sends
/// such a call again, at once, on another connection, without its caller knowing
/// (transparent retry); OLM's client is grpc-go. A call cut off after it was sent
/// (the connection ended under it) is not one of these.
pub(crate) fn unprocessed(status: &Status) -> bool {
    let mut source = std::error::Error::source(status);
    while let Some(e) = source {
        if e.downcast_ref::<hyper::Error>()
            .is_some_and(|h| h.is_canceled())
        {
            return true;
        }
        if e.downcast_ref::<h2::Error>().is_some_and(|h| {
            h.is_go_away() && h.is_remote() && h.reason() == Some(h2::Reason::NO_ERROR)
        }) {
            return true;
        }
        source = e.source();
    }
    false
}

/// Transparent retries of one call at most (grpc-go's are bounded by its throttle).
pub(crate) const MAX_TRANSPARENT_RETRIES: u32 = 3;

/// A status's message and the chain of errors under it, for the samples.
pub(crate) fn describe(status: &Status) -> String {
    let mut text = status.message().to_owned();
    let mut source = std::error::Error::source(status);
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text.chars().take(300).collect()
}
