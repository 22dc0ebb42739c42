//! The protocol views of a catalog: built once per snapshot, immutable, and
//! free of any runtime (none of them imports tokio, tonic or hyper).
//!
//! | module | in → out |
//! |---|---|
//! | [`registry`] | model → the `api.Registry` view: immutable tables with pre-encoded replies |
//! | [`catalogd`] | a snapshot's metas → catalogd's bytes (JSON Lines, gzip, validators), prepared once |
//! | [`graphql`] | the model + a query → catalogd's GraphQL answers |
//! | [`across`] | several catalogs' tables and cards + a query → search hits, the providing catalog by priority |
//! | [`browser`] | tables → the catalog browser's pages (search, package, SVG graph) |
//! | [`graph`] | graph results ↔ `fbc.v1` messages → JSON and text |

pub(crate) mod across;
pub(crate) mod browser;
pub(crate) mod catalogd;
pub(crate) mod graph;
pub(crate) mod graphql;
pub mod registry;
