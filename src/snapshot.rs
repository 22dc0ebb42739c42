//! The published catalog: one immutable snapshot, swapped atomically.
//!
//! In: a freshly loaded catalog (tables and views). Out: a [`Catalog`] handle that request handlers
//! read. A unary call reads the current snapshot once; a stream takes its own
//! `Arc` of it, so a reload never changes or cuts short a reply in flight. Only the
//! [`Publisher`] (one per server) can replace the snapshot.

use crate::catalog::LoadedCatalog;
use crate::index::Index;
use crate::index::SnapshotTables;
use arc_swap::ArcSwapOption;
use fbc_catalog::source::CatalogDigest;
use std::sync::Arc;
use std::time::SystemTime;
use tokio::sync::watch;

/// One generation of the catalog: its tables and the views built from them.
#[derive(Debug)]
pub struct Snapshot {
    /// Starts at 1 and grows by one with every successful reload.
    pub generation: u64,
    /// The digest of the catalog files it was built from.
    pub digest: CatalogDigest,
    /// The typed tables every view reads (decoded from the cache on first use
    /// after a warm start).
    pub tables: SnapshotTables,
    /// The `api.Registry` view: every reply pre-encoded.
    pub index: Index,
    /// When it was published.
    pub published: SystemTime,
}

/// Read handle on the current snapshot; cheap to clone.
#[derive(Clone, Debug)]
pub struct Catalog {
    current: Arc<ArcSwapOption<Snapshot>>,
    generations: watch::Receiver<u64>,
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
            },
        )
    }

    /// The snapshot this publisher published last.
    pub fn current(&self) -> Option<Arc<Snapshot>> {
        self.current.load_full()
    }

    /// Publishes `catalog` as the next generation; returns its number.
    pub fn publish(&mut self, catalog: LoadedCatalog) -> u64 {
        let generation = self.next_generation;
        self.next_generation += 1;
        self.current.store(Some(Arc::new(Snapshot {
            generation,
            digest: catalog.report.digest,
            tables: catalog.tables,
            index: catalog.index,
            published: SystemTime::now(),
        })));
        self.generations.send_replace(generation);
        generation
    }
}
