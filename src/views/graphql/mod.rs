//! catalogd's GraphQL endpoint over one snapshot.
//!
//! In: the snapshot's [`HttpView`] (every meta's JSON, in walk order). Out: a
//! [`GraphqlCatalog`]: the schema catalogd derives from the catalog's own FBC
//! schemas ([`fbc_catalog::catalogd::schema`]) as an async-graphql dynamic
//! schema, and [`GraphqlCatalog::answer`], which turns a query into the bytes
//! catalogd's handler writes (`json.NewEncoder(w).Encode(result)`). Built once
//! per snapshot, the first time a query comes.
//!
//! | module | in → out |
//! |---|---|
//! | [`limits`] | query text → catalogd's caps (depth, aliases, fields), checked before it runs |
//! | [`types`] | the derived schema → object types, root fields with `limit`/`offset`, `summary` |
//! | [`raw`] | a meta's JSON text → its fields, parsed only when selected |
//! | [`coerce`] | JSON value + scalar → the value graphql-go serialises |
//! | [`exec`] | deadline + byte budget → charged by every resolver |
//! | [`messages`] | async-graphql's errors → graphql-go's words |
//! | [`response`] | result → Go's `encoding/json` bytes |

pub(crate) mod coerce;
pub(crate) mod exec;
pub(crate) mod limits;
pub(crate) mod messages;
pub(crate) mod raw;
pub(crate) mod response;
pub(crate) mod types;

use crate::views::catalogd::HttpView;
use exec::Exec;
use fbc_catalog::catalogd::schema::CatalogSchema;
use raw::RawObject;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// catalogd's limit on a query's run time.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(5);
/// The most bytes of values one answer may carry (ours: catalogd has none, and
/// 50 aliases of 100 bundles' properties run to gigabytes).
pub const MAX_RESULT_BYTES: usize = 32 << 20;

/// The GraphQL schema of one snapshot and the rows it reads.
pub struct GraphqlCatalog {
    schema: async_graphql::dynamic::Schema,
    fields: usize,
    /// Rows indexed (metas with a schema).
    rows: usize,
}

/// What one field of a derived schema costs async-graphql's dynamic schema, roughly
/// (its name, type reference and resolver closure in maps keyed by name): the
/// estimate [`GraphqlCatalog::held_bytes`] uses.
const SCHEMA_FIELD_BYTES: usize = 512;

impl std::fmt::Debug for GraphqlCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphqlCatalog").finish_non_exhaustive()
    }
}

/// A schema's rows in the view, in walk order.
struct ViewPages {
    view: Arc<HttpView>,
    rows: BTreeMap<String, Vec<u32>>,
}

impl types::Pages for ViewPages {
    fn page(&self, schema: &str, offset: usize, limit: usize) -> Vec<RawObject> {
        let Some(rows) = self.rows.get(schema) else {
            return Vec::new();
        };
        rows.iter()
            .skip(offset)
            .take(limit)
            .filter_map(|&row| RawObject::parse(self.view.meta(row as usize)))
            .collect()
    }
}

impl GraphqlCatalog {
    /// Derives the schema from every meta of `view` (blocking: parses each once).
    pub fn build(view: Arc<HttpView>) -> Result<GraphqlCatalog, types::SchemaError> {
        let mut catalog = CatalogSchema::default();
        let mut rows: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut fields = 0;
        for row in 0..view.len() {
            let text = view.meta(row);
            let Ok(serde_json::Value::Object(object)) = serde_json::from_slice(&text) else {
                continue;
            };
            let Some(schema) = object.get("schema").and_then(|s| s.as_str()) else {
                continue;
            };
            if schema.is_empty() {
                continue;
            }
            fields += catalog.add(schema, &object);
            // Checked meta by meta: a catalog over the cap stops at once.
            if fields > types::MAX_SCHEMA_FIELDS {
                return Err(types::SchemaError::TooLarge { fields });
            }
            rows.entry(schema.to_string()).or_default().push(row as u32);
        }
        let indexed = rows.values().map(Vec::len).sum();
        let pages = Arc::new(ViewPages { view, rows });
        let schema = types::build(&catalog, pages)?;
        Ok(GraphqlCatalog {
            schema,
            fields,
            rows: indexed,
        })
    }

    /// An estimate of the bytes the schema holds: its row index, and
    /// [`SCHEMA_FIELD_BYTES`] per field of the dynamic schema (its metas are the
    /// HTTP view's, not counted again).
    pub fn held_bytes(&self) -> usize {
        self.rows * std::mem::size_of::<u32>() + self.fields * SCHEMA_FIELD_BYTES
    }

    /// The fields of the derived schema (see [`CatalogSchema::field_count`]).
    pub fn fields(&self) -> usize {
        self.fields
    }

    /// catalogd's answer to a query that passed its caps (blocking: runs it on
    /// this thread), cut short at `deadline`.
    pub fn answer(&self, checked: limits::Checked, deadline: Instant) -> Vec<u8> {
        let exec = Arc::new(Exec::new(deadline, MAX_RESULT_BYTES));
        let mut request = async_graphql::Request::new(checked.query).data(Arc::clone(&exec));
        request.set_parsed_query(checked.document);
        let result = block_on(self.schema.execute(request));
        match exec.stopped() {
            Some(exec::Stopped::Deadline) => response::error_only("context deadline exceeded"),
            Some(exec::Stopped::TooLarge) => response::error_only(&format!(
                "query result exceeds the maximum size of {MAX_RESULT_BYTES} bytes"
            )),
            None => response::encode(result, exec.take_nulls()),
        }
    }
}

/// Runs `future` on this thread (the resolvers never wait, so it finishes on
/// its first poll; parking covers anything else).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}

#[cfg(test)]
mod tests;
