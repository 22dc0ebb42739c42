//! OLM v0's resolution problem: variables and the constraints on them, built as
//! `Resolver.Resolve` builds them (operator-lifecycle-manager v0.25,
//! `pkg/controller/registry/resolver/resolver.go`).
//!
//! In: [`Entries`] and the [`Request`]. Out: a [`Problem`]: every variable
//! (bundles, subscriptions, one-provider-per-API and one-bundle-per-package
//! invariants) with its constraints and OLM's message for each, in a fixed
//! order where OLM iterates Go maps: installed CSVs first, subscriptions by
//! name, invariants by API then package, ids in the order variables were made.

use super::entries::{Entries, Entry, Source};
use super::order::{ChainEntry, sort_channel};
use super::predicate::Pred;
use super::request::{Request, Subscription};
use crate::model::Gvk;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What a variable stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Installing entry `.0` (an index into [`Entries::all`]).
    Bundle(usize),
    /// A subscription being satisfied.
    Subscription,
    /// At most one provider of an API, or one bundle of a package.
    Invariant,
}

/// A constraint on one variable (its subject).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Con {
    /// The subject is installed.
    Mandatory,
    /// The subject is not installed.
    Prohibited,
    /// If the subject is installed, so is one of these (by preference).
    Dependency(Vec<usize>),
    /// The subject and this variable are not both installed.
    Conflict(usize),
    /// At most one of these is installed.
    AtMostOne(Vec<usize>),
}

/// A constraint and OLM's text for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The constraint.
    pub con: Con,
    /// OLM's message, or `None` for the solver's own wording (conflicts).
    pub message: Option<String>,
}

/// One variable.
#[derive(Clone, Debug)]
pub struct Variable {
    /// OLM's identifier.
    pub id: String,
    /// What it stands for.
    pub kind: Kind,
    /// Its constraints, in the order OLM adds them.
    pub constraints: Vec<Applied>,
    /// The installed CSV a subscription's candidate replaces, when it has one.
    pub replaces: Option<String>,
}

/// The whole problem (see the module docs).
#[derive(Clone, Debug)]
pub struct Problem {
    /// Variables in creation order.
    pub vars: Vec<Variable>,
    /// CSV names a subscription starts from.
    pub starting_csvs: HashSet<String>,
}

/// Why OLM would stop before solving.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BuildError(pub String);

/// k8s `utilerrors.NewAggregate(errs).Error()`: one error as itself, several
/// as `[e1, e2]`, repeats dropped.
fn aggregate(errs: Vec<String>) -> BuildError {
    let mut seen = HashSet::new();
    let unique: Vec<String> = errs
        .into_iter()
        .filter(|e| seen.insert(e.clone()))
        .collect();
    match unique.as_slice() {
        [one] => BuildError(one.clone()),
        many => BuildError(format!("[{}]", many.join(", "))),
    }
}

/// Builds the problem (see the module docs).
pub fn build(entries: &Entries, request: &Request) -> Result<Problem, BuildError> {
    let mut b = Builder {
        entries,
        request,
        vars: Vec::new(),
        by_id: HashMap::new(),
        of_entry: HashMap::new(),
        processed: HashSet::new(),
        memo: HashMap::new(),
    };
    let installed: Vec<usize> = (entries.catalog_len..entries.all.len()).collect();
    b.bundle_closure(installed).map_err(aggregate)?;
    let mut subs: Vec<&Subscription> = request.subscriptions.iter().collect();
    subs.sort_by(|a, b| a.name.cmp(&b.name));
    let mut errs = Vec::new();
    let mut starting_csvs = HashSet::new();
    for sub in subs {
        let current = installed_named(entries, &sub.installed_csv);
        if current.is_none() && !sub.starting_csv.is_empty() {
            starting_csvs.insert(sub.starting_csv.clone());
        }
        if let Err(e) = b.subscription(sub, current, request) {
            errs.extend(e);
        }
    }
    b.invariants();
    if !errs.is_empty() {
        return Err(aggregate(errs));
    }
    Ok(Problem {
        vars: b.vars,
        starting_csvs,
    })
}

fn installed_named(entries: &Entries, name: &str) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    (entries.catalog_len..entries.all.len()).find(|&i| entries.all[i].name == name)
}

struct Builder<'a> {
    entries: &'a Entries,
    request: &'a Request,
    vars: Vec<Variable>,
    by_id: HashMap<String, usize>,
    of_entry: HashMap<usize, usize>,
    processed: HashSet<usize>,
    memo: HashMap<String, Result<Vec<usize>, String>>,
}

impl Builder<'_> {
    fn entry(&self, i: usize) -> &Entry {
        &self.entries.all[i]
    }

    /// The variable named `id`, made with `kind` if new; an existing one keeps
    /// its constraints (OLM's map assignment replaces it with the same value).
    fn var(&mut self, id: String, kind: Kind) -> usize {
        if let Some(&v) = self.by_id.get(&id) {
            return v;
        }
        self.by_id.insert(id.clone(), self.vars.len());
        self.vars.push(Variable {
            id,
            kind,
            constraints: Vec::new(),
            replaces: None,
        });
        self.vars.len() - 1
    }

    fn add(&mut self, v: usize, con: Con, message: Option<String>) {
        self.vars[v].constraints.push(Applied { con, message });
    }

    /// `NewBundleVariableFromOperator`: entry `e`'s variable, with its
    /// unreferenced-CSV and deprecation constraints when first made.
    fn bundle_var(&mut self, e: usize) -> usize {
        if let Some(&v) = self.of_entry.get(&e) {
            return v;
        }
        let entry = self.entry(e).clone();
        let v = self.var(entry.id.clone(), Kind::Bundle(e));
        self.of_entry.insert(e, v);
        if entry.source == (Source::Installed { subscribed: false }) {
            let message = format!(
                "clusterserviceversion {} exists and is not referenced by a subscription",
                entry.name
            );
            self.add(v, Con::Mandatory, Some(message));
        }
        if entry.deprecated {
            let message = format!("bundle {} is deprecated", entry.id);
            self.add(v, Con::Prohibited, Some(message));
        }
        v
    }

    /// `getBundleVariables`: the variables of `stack` and of everything their
    /// dependencies can reach, each dependency a constraint listing its
    /// candidates by OLM's preference.
    fn bundle_closure(&mut self, mut stack: Vec<usize>) -> Result<(), Vec<String>> {
        let mut errs = Vec::new();
        while let Some(e) = stack.pop() {
            let v = self.bundle_var(e);
            if !self.processed.insert(e) {
                continue;
            }
            let preds = match self.predicates(e) {
                Ok(p) => p,
                Err(err) => {
                    errs.push(err);
                    continue;
                }
            };
            let own = match self.entry(e).source {
                Source::Catalog(k) => Some(k),
                Source::Installed { .. } => None,
            };
            for d in preds {
                let sorted = match self.candidates_of(&d, own) {
                    Ok(s) => s,
                    Err(err) => {
                        errs.push(err);
                        continue;
                    }
                };
                let mut ids = Vec::new();
                for c in sorted {
                    ids.push(self.bundle_var(c));
                    stack.push(c);
                }
                let message = format!(
                    "bundle {} requires an operator {}",
                    self.entry(e).name,
                    d.text()
                );
                self.add(v, Con::Dependency(ids), Some(message));
            }
        }
        if errs.is_empty() { Ok(()) } else { Err(errs) }
    }

    /// The entries satisfying `d`, in OLM's preference order for a dependent
    /// of catalog `own` (`None`: an installed CSV). Many bundles share a
    /// requirement (every version of a package needing one API), and the order
    /// depends only on the dependent's catalog, so each (catalog, predicate)
    /// answer is computed once.
    fn candidates_of(&mut self, d: &Pred, own: Option<usize>) -> Result<Vec<usize>, String> {
        // The structure, not OLM's text: `all{a, not{b}}` prints as `a and b`.
        let key = format!("{own:?} {d:?}");
        if let Some(known) = self.memo.get(&key) {
            return known.clone();
        }
        let entries = self.entries;
        let answer = self.sort_bundles(&self.preferred(d), own).map(|sorted| {
            sorted
                .into_iter()
                .filter(|&c| d.test(&entries.all[c]))
                .collect()
        });
        self.memo.insert(key, answer.clone());
        answer
    }

    /// Entry `e`'s dependency predicates, or OLM's error for the first that fails.
    fn predicates(&self, e: usize) -> Result<Vec<Pred>, String> {
        self.entry(e)
            .requirements
            .iter()
            .map(|r| match r {
                Ok(r) => Pred::of(r).map_err(|e| e.0),
                Err(err) => Err(err.message.clone()),
            })
            .collect()
    }

    /// `FindPreferred` over the sources of `d`'s matches: every entry of each
    /// (package, channel) holding a match, or the matching installed CSV itself;
    /// installed CSVs first, then the catalog, each in entry order. OLM keys
    /// sources by their source info, which for an installed CSV is only its
    /// package and subscription: of several matching CSVs of one package that
    /// no subscription references, only the first is a candidate (OLM's
    /// "first" is its cache's order; here it is the request's).
    fn preferred(&self, d: &Pred) -> Vec<usize> {
        let all = &self.entries.all;
        let mut channels: HashSet<(usize, &str, &str)> = HashSet::new();
        let mut unreferenced: HashSet<&str> = HashSet::new();
        let mut installed = Vec::new();
        for (i, e) in all.iter().enumerate().filter(|(_, e)| d.test(e)) {
            match e.source {
                Source::Catalog(k) => {
                    channels.insert((k, &e.package, &e.channel));
                }
                Source::Installed { subscribed: true } => installed.push(i),
                Source::Installed { subscribed: false } => {
                    if unreferenced.insert(&e.package) {
                        installed.push(i);
                    }
                }
            }
        }
        let catalog = (0..self.entries.catalog_len).filter(|&i| match all[i].source {
            Source::Catalog(k) => {
                channels.contains(&(k, all[i].package.as_str(), all[i].channel.as_str()))
            }
            Source::Installed { .. } => false,
        });
        installed.into_iter().chain(catalog).collect()
    }

    /// `sortBundles` after `FindPreferred`: per source — installed CSVs, then
    /// catalogs in [`Builder::catalog_ranks`]' order — channels ordered default
    /// first, then by package and name; each channel by [`sort_channel`].
    fn sort_bundles(&self, bundles: &[usize], own: Option<usize>) -> Result<Vec<usize>, String> {
        let ranks = self.catalog_ranks(own);
        let mut groups: BTreeMap<(usize, bool, &str, &str), Vec<usize>> = BTreeMap::new();
        for &i in bundles {
            let e = self.entry(i);
            let rank = match e.source {
                Source::Installed { .. } => 0,
                Source::Catalog(k) => 1 + ranks[k],
            };
            groups
                .entry((rank, !e.default_channel, &e.package, &e.channel))
                .or_default()
                .push(i);
        }
        let mut out = Vec::with_capacity(bundles.len());
        for ((_, _, package, channel), members) in groups {
            out.extend(self.channel_order(&members, package, channel)?);
        }
        Ok(out)
    }

    /// Each catalog's place in OLM's `sortableSnapshots` order for a dependent of
    /// catalog `own`: its own catalog first, then higher priority, then catalogs
    /// in the resolving namespace, then by name and namespace.
    fn catalog_ranks(&self, own: Option<usize>) -> Vec<usize> {
        let catalogs = &self.request.catalogs;
        let mut order: Vec<usize> = (0..catalogs.len()).collect();
        order.sort_by(|&a, &b| {
            let (ca, cb) = (&catalogs[a], &catalogs[b]);
            (Some(b) == own)
                .cmp(&(Some(a) == own))
                .then(cb.priority.cmp(&ca.priority))
                .then(
                    (cb.namespace == self.request.namespace)
                        .cmp(&(ca.namespace == self.request.namespace)),
                )
                .then_with(|| ca.name.cmp(&cb.name))
                .then_with(|| ca.namespace.cmp(&cb.namespace))
        });
        let mut ranks = vec![0; catalogs.len()];
        for (rank, k) in order.into_iter().enumerate() {
            ranks[k] = rank;
        }
        ranks
    }

    fn channel_order(
        &self,
        members: &[usize],
        package: &str,
        channel: &str,
    ) -> Result<Vec<usize>, String> {
        let chain: Vec<ChainEntry> = members
            .iter()
            .map(|&i| {
                let e = self.entry(i);
                ChainEntry {
                    name: &e.name,
                    replaces: &e.replaces,
                    skips: &e.skips,
                }
            })
            .collect();
        let order = sort_channel(&chain, package, channel).map_err(|e| e.to_string())?;
        Ok(order.into_iter().map(|k| members[k]).collect())
    }
}

mod subscription;
