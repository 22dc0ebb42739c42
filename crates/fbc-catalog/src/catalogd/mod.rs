//! What catalogd (OLM v1's catalog server) derives from a catalog, as plain data.
//!
//! In: catalog names, and later the catalog's metas. Out: catalogd's verdicts and
//! derived values in its own words, so the HTTP layer above can answer what
//! catalogd answers without knowing its rules.
//!
//! | module | in → out |
//! |---|---|
//! | [`name`] | a catalog name → `Ok`, or Kubernetes' DNS-1123 subdomain messages |
//! | [`schema`] | metas → the GraphQL schema catalogd derives (types, field names, root fields) |

pub mod name;
pub mod schema;
