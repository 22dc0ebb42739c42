//! `fbc.v1` graph answers as data: converted from the library's types and
//! rendered as the JSON (and text) the CLI prints and the HTTP API serves.
//!
//! In: the library's graph results, or `fbc.v1` replies. Out: `fbc.v1` messages,
//! or `serde_json` values and text. The answering itself is
//! [`crate::grpc::graph::answer`]'s.

pub(crate) mod cluster;
pub(crate) mod convert;
pub(crate) mod json;
