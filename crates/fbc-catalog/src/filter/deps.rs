//! Kept bundles → the bundles their dependencies need, as OLM v0's resolver
//! picks them.
//!
//! In: the input's tables and bundles (package, name). Out: for each bundle that
//! declares dependencies (`olm.package.required`, `olm.gvk.required`,
//! `olm.constraint`), the other bundles the resolver installs with it when a
//! subscription starts at it ([`Needed`], by package, channel, bundle). The
//! resolver is this crate's ([`crate::resolve`]), so the choice is OLM's: the
//! dependency's channel head of its default channel first, and so on. A bundle
//! whose dependencies do not resolve in the input adds nothing here; the output
//! check reports it.

use crate::resolve::request::{CatalogKey, CatalogRef, Request, Subscription};
use crate::resolve::{self, Limits, Operator, Outcome};
use crate::tables::metas::MetaTable;
use crate::tables::requirements::{Predicate, Requirement};
use crate::tables::{BundleRef, Tables};
use std::collections::{BTreeSet, HashMap};

/// Most rounds of "add what dependencies need, then what those need".
pub const MAX_ROUNDS: usize = 64;

/// The catalog name the requests use (it appears in no output).
const CATALOG: &str = "filtered";
const NAMESPACE: &str = "olm";

/// A bundle a dependency needs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Needed {
    /// Its package.
    pub package: String,
    /// The channel the resolver took it from.
    pub channel: String,
    /// The bundle.
    pub bundle: String,
    /// The bundle whose dependency it satisfies (`package/bundle`).
    pub by: String,
}

/// A request that installs `bundle` of `package` from channel `channel`.
pub fn request_for(package: &str, channel: &str, bundle: &str) -> Request {
    Request {
        catalogs: vec![CatalogRef {
            name: CATALOG.into(),
            namespace: NAMESPACE.into(),
            priority: 0,
        }],
        namespace: "operators".into(),
        global_namespace: NAMESPACE.into(),
        subscriptions: vec![Subscription {
            name: package.into(),
            package: package.into(),
            channel: channel.into(),
            starting_csv: bundle.into(),
            installed_csv: String::new(),
            catalog: CatalogKey {
                name: CATALOG.into(),
                namespace: NAMESPACE.into(),
            },
        }],
        installed: Vec::new(),
    }
}

/// Whether `bundle` of `package` declares any dependency.
pub fn has_dependencies(tables: &Tables, package: &str, bundle: &str) -> bool {
    tables
        .package(package)
        .and_then(|(pi, _)| tables.bundle_named(pi, bundle))
        .is_some_and(|r| !tables.requirements(r).is_empty())
}

/// The first channel of `package` (by name) that lists `bundle`.
pub fn channel_of(tables: &Tables, package: &str, bundle: &str) -> Option<String> {
    let (_, p) = tables.package(package)?;
    p.channels
        .iter()
        .find(|c| c.entries.iter().any(|e| e.name == bundle))
        .map(|c| c.name.clone())
}

/// How resolving `bundle` of `package` (from its first channel) ends.
pub fn resolve_one(
    tables: &Tables,
    package: &str,
    bundle: &str,
) -> Option<Result<Outcome, String>> {
    let channel = channel_of(tables, package, bundle)?;
    let request = request_for(package, &channel, bundle);
    Some(resolve::resolve(&[tables], &request, &Limits::default()).map_err(|e| e.to_string()))
}

/// The input's resolutions, each computed once: the plan asks for them and
/// the output check compares with them.
///
/// Each is computed over the packages its package's dependencies can reach
/// ([`scope`]), not the whole catalog: the resolver builds an entry for every
/// bundle it is given and scans them for each dependency, so a catalog of
/// 10,000 bundles would cost each resolution the whole catalog. Every
/// candidate of every dependency is in the scope, so the answer is the same.
/// Only the last package's scope is kept (a scope is a copy of the packages
/// it holds; one per package could add up to the catalog once per package);
/// the plan and the check ask package by package, so it is rarely rebuilt.
pub struct Resolutions<'t> {
    tables: &'t Tables,
    done: HashMap<(String, String), Option<Result<Outcome, String>>>,
    /// The last package asked for, and its scope (`None`: the whole catalog).
    scope: Option<(String, Option<Tables>)>,
    /// [`Resolutions::dependencies`] by (package, signature).
    shared: HashMap<(String, String), Result<Vec<Operator>, String>>,
}

impl<'t> Resolutions<'t> {
    /// No resolution yet, over `tables`.
    pub fn new(tables: &'t Tables) -> Resolutions<'t> {
        Resolutions {
            tables,
            done: HashMap::new(),
            scope: None,
            shared: HashMap::new(),
        }
    }

    /// The tables resolved against.
    pub fn tables(&self) -> &'t Tables {
        self.tables
    }

    /// How resolving `bundle` of `package` ends ([`resolve_one`]), remembered.
    pub fn of(&mut self, package: &str, bundle: &str) -> Option<&Result<Outcome, String>> {
        let key = (package.to_string(), bundle.to_string());
        if !self.done.contains_key(&key) {
            let tables = self.tables;
            if self.scope.as_ref().is_none_or(|(p, _)| p != package) {
                self.scope = Some((package.to_string(), scope(tables, package)));
            }
            let outcome = match self.scope.as_ref().and_then(|(_, s)| s.as_ref()) {
                Some(sub) => resolve_one(sub, package, bundle),
                None => resolve_one(tables, package, bundle),
            };
            self.done.insert(key.clone(), outcome);
        }
        self.done.get(&key).and_then(Option::as_ref)
    }

    /// The other bundles resolving `bundle` of `package` installs (`Err`: why
    /// it does not resolve; `None`: no channel lists it). Bundles of a package
    /// whose dependencies are the same and cannot be met from their own
    /// package ([`signature`]) share one answer: the resolver's choice for them
    /// depends only on what they require, not on which of them subscribes.
    pub fn dependencies(
        &mut self,
        package: &str,
        bundle: &str,
    ) -> Option<Result<Vec<Operator>, String>> {
        let signature = signature(self.tables, package, bundle);
        if let Some(sig) = &signature
            && let Some(known) = self.shared.get(&(package.to_string(), sig.clone()))
        {
            return Some(known.clone());
        }
        let answer = match self.of(package, bundle)? {
            Ok(Outcome::Resolved(operators)) => Ok(operators
                .iter()
                .filter(|op| !(op.package == package && op.name == bundle))
                .cloned()
                .collect()),
            Ok(Outcome::Unsatisfiable { error, .. }) => Err(error.clone()),
            Err(e) => Err(e.clone()),
        };
        if let Some(sig) = signature {
            self.shared
                .insert((package.to_string(), sig), answer.clone());
        }
        Some(answer)
    }
}

/// What `bundle` requires, as one string, when no requirement can be met from
/// its own package and none could match any bundle (a label, CEL, `not`);
/// `None` otherwise (the bundle is then resolved on its own).
fn signature(tables: &Tables, package: &str, bundle: &str) -> Option<String> {
    let (pi, _) = tables.package(package)?;
    let r = tables.bundle_named(pi, bundle)?;
    let mut parts = Vec::new();
    for req in tables.requirements(r) {
        let req = req.as_ref().ok()?;
        let mut reached = Vec::new();
        reach(tables, req, &mut reached)?;
        if reached.contains(&pi) {
            return None;
        }
        parts.push(format!("{req:?}"));
    }
    Some(parts.join("\n"))
}

/// The tables of the packages `package`'s dependencies can reach, transitively
/// (by `olm.gvk.required`, `olm.package.required` and the GVK and package
/// predicates of `olm.constraint`, through `all` and `any`); `None` when a
/// dependency could match any package (a label, CEL, `not`, an empty `all`) or
/// does not parse, and the whole catalog is needed.
pub fn scope(tables: &Tables, package: &str) -> Option<Tables> {
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    let mut queue: Vec<u32> = vec![tables.package(package)?.0];
    while let Some(pi) = queue.pop() {
        if !seen.insert(pi) {
            continue;
        }
        let p = &tables.packages()[pi as usize];
        for bi in 0..p.bundles.len() as u32 {
            let r = BundleRef {
                package: pi,
                bundle: bi,
            };
            for req in tables.requirements(r) {
                reach(tables, req.as_ref().ok()?, &mut queue)?;
            }
        }
    }
    let packages = seen
        .iter()
        .map(|&pi| tables.packages()[pi as usize].clone())
        .collect();
    Some(Tables::new(
        packages,
        Vec::new(),
        MetaTable::detached(Vec::new()),
    ))
}

/// Queues the packages `req` can be satisfied from; `None` when that could be any.
fn reach(tables: &Tables, req: &Requirement, queue: &mut Vec<u32>) -> Option<()> {
    match req {
        Requirement::Gvk(g) => queue.extend(tables.providers(g).iter().map(|r| r.package)),
        Requirement::Package(p) => queue.extend(tables.package(&p.package).map(|(pi, _)| pi)),
        Requirement::Label(_) => return None,
        Requirement::Constraint(c) => reach_predicate(tables, &c.predicate, queue)?,
    }
    Some(())
}

fn reach_predicate(tables: &Tables, p: &Predicate, queue: &mut Vec<u32>) -> Option<()> {
    match p {
        Predicate::Gvk(g) => queue.extend(tables.providers(g).iter().map(|r| r.package)),
        Predicate::Package(pr) => queue.extend(tables.package(&pr.package).map(|(pi, _)| pi)),
        Predicate::All(list) if list.is_empty() => return None,
        Predicate::All(list) | Predicate::Any(list) => {
            for c in list {
                reach_predicate(tables, &c.predicate, queue)?;
            }
        }
        Predicate::Not(_) | Predicate::Cel(_) => return None,
    }
    Some(())
}

/// What the dependencies of `bundles` need (see the module docs), sorted.
pub fn needed(resolutions: &mut Resolutions, bundles: &[(String, String)]) -> Vec<Needed> {
    let tables = resolutions.tables();
    let mut out = Vec::new();
    for (package, bundle) in bundles {
        if !has_dependencies(tables, package, bundle) {
            continue;
        }
        let Some(Ok(operators)) = resolutions.dependencies(package, bundle) else {
            continue;
        };
        for op in operators {
            out.push(Needed {
                package: op.package,
                channel: op.channel,
                bundle: op.name,
                by: format!("{package}/{bundle}"),
            });
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.package == b.package && a.channel == b.channel && a.bundle == b.bundle);
    out
}
