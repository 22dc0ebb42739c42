//! Model values as `api` messages: the small conversions the reply builders
//! ([`super::build`] and [`super::body`]) share.
//!
//! In: model values (a GVK, a deprecation message) and any prost message. Out:
//! `api` messages and encoded bytes. A leaf of the index: it names neither builder.

use super::*;

/// `m`, encoded.
pub(super) fn encode(m: &impl Message) -> Bytes {
    Bytes::from(m.encode_to_vec())
}

/// A deprecation message as `api.Deprecation`.
pub(super) fn deprecation(message: &Option<String>) -> Option<api::Deprecation> {
    message
        .as_ref()
        .map(|m| api::Deprecation { message: m.clone() })
}

/// A GVK as `api.GroupVersionKind` (`plural` is never known).
pub(super) fn api_gvk(g: &model::Gvk) -> api::GroupVersionKind {
    api::GroupVersionKind {
        group: g.group.clone(),
        version: g.version.clone(),
        kind: g.kind.clone(),
        plural: String::new(),
    }
}
