//! The catalogs one process serves, by name.
//!
//! In: members added, replaced and removed by the app as catalogs start, change and
//! stop (one writer). Out: a [`Fleet`] the protocols read — HTTP finds
//! `/catalogs/NAME/…` in it, the gRPC health service answers per catalog name — each
//! read sees one whole set, swapped atomically, in name order.
//!
//! A server started with one catalog (`serve DIR`) has a fleet of one; `serve --config`
//! and `--catalog` make more.
//!
//! | module | in → out |
//! |---|---|
//! | [`across`] | every loaded catalog → a question across them, on one snapshot each |
//! | [`config`] | the `--config` file and `--catalog` flags → checked [`config::CatalogSpec`]s |
//! | [`values`] | durations and sizes as people write them |

pub mod across;
pub mod config;
pub mod values;

use crate::snapshot::Catalog;
use crate::snapshot::status::SourceStatus;
use arc_swap::ArcSwap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One served catalog.
#[derive(Debug)]
pub struct Member {
    /// Its name in `/catalogs/NAME/…` and as a gRPC health service name.
    pub name: Arc<str>,
    /// The published snapshot (empty until its first load succeeds).
    pub catalog: Catalog,
    /// Where it came from and how its loads and updates fare.
    pub status: Arc<SourceStatus>,
    /// Preference among catalogs carrying the same package (higher first).
    pub priority: i32,
    /// The source as written (a directory or an image reference).
    pub source: String,
    /// The port its `api.Registry` is served on, when it has one.
    pub port: Option<u16>,
}

impl Member {
    /// Whether it answers: loaded, and not shutting down.
    pub fn serving(&self) -> bool {
        self.catalog.load().is_some() && !self.catalog.draining()
    }
}

/// The set of served catalogs, read by every protocol.
#[derive(Debug)]
pub struct Fleet {
    members: ArcSwap<Vec<Arc<Member>>>,
    several: bool,
    draining: AtomicBool,
}

/// What the gRPC health service answers for a service name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// Serving.
    Serving,
    /// Known, not serving (not loaded yet, or shutting down).
    NotServing,
    /// No catalog of that name.
    Unknown,
}

impl Fleet {
    /// An empty set. `several`: the server was started with `--config`/`--catalog`, so
    /// health names catalogs; otherwise it answers for any name, as `opm serve` does.
    pub fn new(several: bool) -> Arc<Fleet> {
        Arc::new(Fleet {
            members: ArcSwap::from_pointee(Vec::new()),
            several,
            draining: AtomicBool::new(false),
        })
    }

    /// A fleet of the one catalog `member`.
    pub fn single(member: Member) -> Arc<Fleet> {
        let fleet = Fleet::new(false);
        fleet.put(Arc::new(member));
        fleet
    }

    /// The catalog called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<Member>> {
        let members = self.members.load();
        members
            .binary_search_by(|m| (*m.name).cmp(name))
            .ok()
            .map(|i| members[i].clone())
    }

    /// Every catalog, in name order.
    pub fn members(&self) -> Arc<Vec<Arc<Member>>> {
        self.members.load_full()
    }

    /// Every catalog's name, in name order.
    pub fn names(&self) -> Vec<String> {
        self.members
            .load()
            .iter()
            .map(|m| m.name.to_string())
            .collect()
    }

    /// The catalog pages show when none is named: the one of highest priority, the
    /// first by name among equals.
    pub fn first(&self) -> Option<Arc<Member>> {
        let members = self.members.load();
        members
            .iter()
            .min_by(|a, b| b.priority.cmp(&a.priority).then(a.name.cmp(&b.name)))
            .cloned()
    }

    /// Adds `member`, or replaces the catalog of its name.
    pub fn put(&self, member: Arc<Member>) {
        self.members.rcu(|members| {
            let mut next: Vec<Arc<Member>> = members
                .iter()
                .filter(|m| m.name != member.name)
                .cloned()
                .collect();
            next.push(member.clone());
            next.sort_by(|a, b| a.name.cmp(&b.name));
            next
        });
    }

    /// Removes the catalog called `name`; returns it.
    pub fn remove(&self, name: &str) -> Option<Arc<Member>> {
        let gone = self.get(name)?;
        self.members.rcu(|members| {
            members
                .iter()
                .filter(|m| *m.name != *name)
                .cloned()
                .collect::<Vec<_>>()
        });
        Some(gone)
    }

    /// The health of `service`: `""` is every catalog serving (and at least one); a
    /// catalog's name is that catalog. A single-catalog server answers every name for
    /// its catalog, as `opm serve` does (OLM's client asks for `"Registry"`).
    pub fn health(&self, service: &str) -> Health {
        let members = self.members.load();
        let verdict = |serving: bool| {
            if serving && !self.draining.load(Ordering::Acquire) {
                Health::Serving
            } else {
                Health::NotServing
            }
        };
        if !self.several || service.is_empty() {
            return verdict(!members.is_empty() && members.iter().all(|m| m.serving()));
        }
        match self.get(service) {
            Some(member) => verdict(member.serving()),
            None => Health::Unknown,
        }
    }

    /// Marks every catalog as shutting down: health answers NOT_SERVING from now on.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
        for member in self.members.load().iter() {
            member.catalog.start_draining();
        }
    }
}

#[cfg(test)]
mod tests;
