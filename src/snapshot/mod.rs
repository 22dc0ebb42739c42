//! The published catalog: one immutable snapshot, swapped atomically.
//!
//! In: a freshly loaded catalog (tables and views). Out: a [`Catalog`] handle that request handlers
//! read. A unary call reads the current snapshot once; a stream takes its own
//! `Arc` of it, so a reload never changes or cuts short a reply in flight. Only the
//! [`Publisher`] (one per server) can replace the snapshot.
//!
//! | module | in → out |
//! |---|---|
//! | [`fetch`] | a catalog argument (directory, OCI layout, registry image) → a directory to load, images unpacked into the store |
//! | [`load`] | directory → the `api.Registry` view, in one call with a report |
//! | [`filtered`] | directory + filter file → the filtered catalog, loaded as any other |
//! | [`cache`] | directory + cache dir → the same, warm from disk when the digest matches |
//! | [`deadline`] | watchdogs for loads on file systems that may hang |
//! | [`mapped`] | files mapped read-only as bytes; pages a decode touched handed back |
//! | [`spill`] | a catalog loaded into memory → the same, served from a mapped, nameless file |
//! | [`reload`] | file changes, SIGHUP, a new image → new snapshots, or the last good one kept |
//! | [`poll`] | a registry tag, polled → new images handed to [`reload`] |
//! | [`status`] | where the served catalog came from and how its updates fare (catalogd's conditions) |
//! | [`views`] | a view built on first use, kept or dropped again |
//! | [`scratch`] | a prefix → a scratch directory named after its owner, those of dead owners removed first |
//! | [`budget`] | the memory target → which built views are kept |
//! | this module | a loaded catalog → the published, atomically swapped [`Snapshot`] |

pub mod budget;
pub mod cache;
pub(crate) mod deadline;
pub(crate) mod fetch;
pub mod filtered;
pub mod load;
pub mod mapped;
pub mod poll;
pub mod reload;
pub(crate) mod scratch;
pub mod spill;
pub mod status;
pub mod views;

use crate::snapshot::load::LoadedCatalog;
use crate::views::browser::Browser;
use crate::views::catalogd::{Gzip, HttpView, ViewError, whole_seconds};
use crate::views::graphql::GraphqlCatalog;
use crate::views::graphql::types::SchemaError;
use crate::views::registry::RegistryView;
use crate::views::registry::SnapshotTables;
use arc_swap::ArcSwapOption;
use budget::ViewKind;
use fbc_catalog::source::CatalogDigest;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::watch;

/// One generation of the catalog: its tables and the views built from them.
#[derive(Debug)]
pub struct Snapshot {
    /// Starts at 1 and grows by one with every successful reload.
    pub generation: u64,
    /// The digest of the catalog files it was built from.
    pub digest: CatalogDigest,
    /// The image it was unpacked from, when it was one.
    pub image: Option<fetch::ImageInfo>,
    /// The filter it is served through, when there is one (its path and digest).
    pub filter: Option<Arc<load::FilteredSource>>,
    /// The typed tables every view reads (decoded from the cache on first use
    /// after a warm start).
    pub tables: SnapshotTables,
    /// The `api.Registry` view: every reply pre-encoded.
    pub registry: RegistryView,
    /// Bytes of the mapped file its replies are read from (its spill file or the
    /// index cache); 0 when they are in the process's memory.
    pub mapped_bytes: u64,
    /// When it was published.
    pub published: SystemTime,
    /// Its HTTP `Last-Modified`: whole seconds, later than every earlier
    /// generation's with another digest (two reloads in one second must not share
    /// a date, or a client revalidating by date misses the second), and equal to
    /// the previous generation's when the digest did not change.
    pub last_modified: SystemTime,
    http: views::ViewCell<HttpView>,
    graphql: views::ViewCell<Result<Arc<GraphqlCatalog>, SchemaError>>,
    browser: views::ViewCell<Browser>,
}

impl Snapshot {
    /// The HTTP view, built on a blocking thread the first time it is asked for
    /// (callers asking meanwhile wait for the same build), and again after the
    /// memory target dropped it. Under a target it keeps no gzip.
    pub async fn http_view(self: &Arc<Self>) -> Result<Arc<HttpView>, ViewError> {
        let gzip = match budget::target() {
            Some(_) => Gzip::OnRequest,
            None => Gzip::Kept,
        };
        let build = || {
            self.on_tables("the HTTP view build", move |this, tables| {
                Ok(HttpView::build(
                    tables.metas(),
                    this.digest,
                    this.last_modified,
                    gzip,
                )?)
            })
        };
        let keep = |view: &HttpView| budget::admit(self, ViewKind::Http, view.bytes().total());
        let view = self.http.get_or_build(build, keep).await?;
        budget::used(self, ViewKind::Http);
        Ok(view)
    }

    /// The GraphQL schema, derived on a blocking thread the first time a query
    /// asks for it (from the HTTP view, built first if need be), and logged with
    /// its build time. A catalog whose schemas make no GraphQL schema keeps that
    /// error for its lifetime.
    pub async fn graphql(
        self: &Arc<Self>,
    ) -> Result<Result<Arc<GraphqlCatalog>, SchemaError>, ViewError> {
        let view = self.http_view().await?;
        let generation = self.generation;
        let build = || async move {
            let started = std::time::Instant::now();
            let built =
                tokio::task::spawn_blocking(move || GraphqlCatalog::build(view).map(Arc::new))
                    .await
                    .map_err(|e| {
                        ViewError::Failed(format!("the GraphQL schema build failed: {e}"))
                    })?;
            let build_ms = started.elapsed().as_millis() as u64;
            match &built {
                Ok(catalog) => tracing::info!(
                    generation,
                    fields = catalog.fields(),
                    build_ms,
                    "GraphQL schema ready"
                ),
                Err(error) => {
                    tracing::warn!(generation, build_ms, %error, "this catalog has no GraphQL schema")
                }
            }
            Ok::<_, ViewError>(built)
        };
        let keep = |built: &Result<Arc<GraphqlCatalog>, SchemaError>| {
            let bytes = built.as_ref().map_or(0, |schema| schema.held_bytes());
            budget::admit(self, ViewKind::Graphql, bytes)
        };
        let built = self.graphql.get_or_build(build, keep).await?;
        budget::used(self, ViewKind::Graphql);
        Ok((*built).clone())
    }

    /// The catalog browser's cards, read on a blocking thread the first time a
    /// page asks for them.
    pub async fn browser(self: &Arc<Self>) -> Result<Arc<Browser>, ViewError> {
        let build = || {
            self.on_tables("the browser's cards", |_, tables| {
                Ok(Browser::build(tables))
            })
        };
        let keep = |browser: &Browser| budget::admit(self, ViewKind::Browser, browser.held_bytes());
        let browser = self.browser.get_or_build(build, keep).await?;
        budget::used(self, ViewKind::Browser);
        Ok(browser)
    }

    /// Drops view `kind` (for the memory target; the next request builds it again).
    /// Dropping the HTTP view drops the GraphQL schema that reads it.
    fn forget_view(&self, kind: ViewKind) {
        match kind {
            ViewKind::Http => {
                self.graphql.clear();
                self.http.clear();
            }
            ViewKind::Graphql => self.graphql.clear(),
            ViewKind::Browser => self.browser.clear(),
        }
    }

    /// The bytes this snapshot holds, by holder, in a fixed order: the
    /// `api.Registry` replies (in a mapped file or in memory), and each view built so
    /// far — a view never asked for is not listed.
    pub fn memory(&self) -> Vec<crate::metrics::Held> {
        use crate::metrics::{Held, Place};
        let mut held = vec![if self.mapped_bytes > 0 {
            Held::new("registry", Place::File, self.mapped_bytes as usize)
        } else {
            Held::new(
                "registry",
                Place::Memory,
                self.registry.stats().encoded_bytes,
            )
        }];
        if let Some(view) = self.http.get() {
            held.push(Held::new("http", Place::Memory, view.bytes().total()));
        }
        if let Some(Ok(schema)) = self.graphql.get().as_deref() {
            held.push(Held::new("graphql", Place::Memory, schema.held_bytes()));
        }
        if let Some(browser) = self.browser.get() {
            held.push(Held::new("browser", Place::Memory, browser.held_bytes()));
        }
        held
    }

    /// `build` of this snapshot and its tables, on a blocking thread; `what`
    /// names it in the error when the thread fails.
    async fn on_tables<T: Send + 'static>(
        self: &Arc<Self>,
        what: &'static str,
        build: impl FnOnce(&Snapshot, &fbc_catalog::tables::Tables) -> Result<T, ViewError>
        + Send
        + 'static,
    ) -> Result<T, ViewError> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let tables = this
                .tables
                .get()
                .map_err(|e| ViewError::Failed(e.to_string()))?;
            let built = build(&this, tables);
            // A build's temporaries (the metas' JSON read for the HTTP view) are freed by now.
            load::release_memory();
            built
        })
        .await
        .map_err(|e| ViewError::Failed(format!("{what} failed: {e}")))?
    }
}

/// Read handle on the current snapshot; cheap to clone.
#[derive(Clone, Debug)]
pub struct Catalog {
    current: Arc<ArcSwapOption<Snapshot>>,
    generations: watch::Receiver<u64>,
    draining: Arc<std::sync::atomic::AtomicBool>,
}

impl crate::metrics::ServedSnapshot for Catalog {
    fn served(&self) -> Option<crate::metrics::SnapshotLabels> {
        self.load().map(|s| crate::metrics::SnapshotLabels {
            generation: s.generation,
            digest: s.digest.to_string(),
            image: s
                .image
                .as_ref()
                .map(|i| (i.reference.clone(), i.digest.to_string())),
            memory: s.memory(),
        })
    }

    fn draining(&self) -> bool {
        Catalog::draining(self)
    }
}

impl Catalog {
    /// The current snapshot, or `None` before the first successful load.
    pub fn load(&self) -> Option<Arc<Snapshot>> {
        self.current.load_full()
    }

    /// A receiver that sees every new generation number.
    pub fn generations(&self) -> watch::Receiver<u64> {
        self.generations.clone()
    }

    /// Marks the server as shutting down: health answers NOT_SERVING from now
    /// on, while calls are still served (see `app::ServerHandle::shutdown`).
    pub fn start_draining(&self) {
        self.draining
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether the server is shutting down.
    pub fn draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// The one writer of a [`Catalog`].
#[derive(Debug)]
pub struct Publisher {
    current: Arc<ArcSwapOption<Snapshot>>,
    generations: watch::Sender<u64>,
    next_generation: u64,
}

impl Publisher {
    /// An empty catalog and its publisher.
    pub fn new() -> (Publisher, Catalog) {
        let current = Arc::new(ArcSwapOption::const_empty());
        let (tx, rx) = watch::channel(0);
        (
            Publisher {
                current: current.clone(),
                generations: tx,
                next_generation: 1,
            },
            Catalog {
                current,
                generations: rx,
                draining: Arc::default(),
            },
        )
    }

    /// The snapshot this publisher published last.
    pub fn current(&self) -> Option<Arc<Snapshot>> {
        self.current.load_full()
    }

    /// Publishes `catalog` (unpacked from `image`, when it was) as the next generation; returns
    /// its number.
    pub fn publish(&mut self, catalog: LoadedCatalog, image: Option<fetch::ImageInfo>) -> u64 {
        let generation = self.next_generation;
        self.next_generation += 1;
        let published = SystemTime::now();
        let digest = catalog.report.digest;
        let last_modified = next_last_modified(self.current().as_deref(), digest, published);
        self.current.store(Some(Arc::new(Snapshot {
            generation,
            digest,
            image,
            filter: catalog.filter,
            tables: catalog.tables,
            registry: catalog.registry,
            mapped_bytes: catalog.report.mapped_bytes,
            published,
            last_modified,
            http: Default::default(),
            graphql: Default::default(),
            browser: Default::default(),
        })));
        self.generations.send_replace(generation);
        generation
    }
}

/// `now` in whole seconds, at least a second after `previous`'s date unless the
/// digest is the same (see [`Snapshot::last_modified`]).
fn next_last_modified(
    previous: Option<&Snapshot>,
    digest: CatalogDigest,
    now: SystemTime,
) -> SystemTime {
    let now = whole_seconds(now);
    match previous {
        Some(p) if p.digest == digest => p.last_modified,
        Some(p) => now.max(p.last_modified + Duration::from_secs(1)),
        None => now,
    }
}
