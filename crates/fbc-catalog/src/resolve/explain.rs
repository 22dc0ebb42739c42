//! Explanations a cluster admin can act on: OLM's exact text first, then the
//! same in plain words, naming the package, channel or version that would
//! satisfy it and what to change.
//!
//! In: the problem, its entries, the request and the solver's [`Trace`]. Out:
//! an [`Explanation`]: for an unsatisfiable request, an irreducible set of
//! constraints that cannot hold together (no one of them can be dropped, the
//! smallest such set the solver's core shrinks to); for a satisfiable one,
//! every operator chosen, why it was needed, which of OLM's preferred
//! candidates were passed over and the constraints that ruled each out, and
//! which less preferred ones were not needed.

use super::entries::{Entries, Entry, Source};
use super::predicate::Pred;
use super::request::Request;
use super::trace::{Choice, ConstraintRef, Origin, Trace};
use super::variables::{Con, Kind, Problem};
use crate::graph::near_names;
use serde::Serialize;

/// Everything explained (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// Unsatisfiable: constraints that cannot hold together, none redundant.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub minimal_unsat_constraints: Vec<Reason>,
    /// Satisfiable: each operator chosen, in the order the search chose.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<ChoiceExplained>,
}

/// One constraint in OLM's words and in plain words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reason {
    /// OLM's text.
    pub olm: String,
    /// What it means and what to change.
    pub plain: String,
}

/// Why an operator was installed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChoiceExplained {
    /// The bundle (or installed CSV) chosen.
    pub operator: String,
    /// Its package.
    pub package: String,
    /// Its channel (empty for an installed CSV).
    pub channel: String,
    /// What needed it.
    pub because: Reason,
    /// Its place in OLM's preference order (1 is the most preferred).
    pub rank: usize,
    /// How many candidates there were.
    pub candidates: usize,
    /// Preferred candidates that could not be installed, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passed_over: Vec<Alternative>,
    /// Less preferred candidates, not needed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub less_preferred: Vec<String>,
}

/// A preferred candidate passed over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Alternative {
    /// The candidate.
    pub candidate: String,
    /// Constraints that rule it out together.
    pub reasons: Vec<Reason>,
    /// Earlier choices that take part in ruling it out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub given_choices: Vec<String>,
}

/// Explains `trace` (see the module docs).
pub fn explain(
    problem: &Problem,
    entries: &Entries,
    request: &Request,
    trace: &Trace,
) -> Explanation {
    let ctx = Ctx {
        problem,
        entries,
        request,
    };
    Explanation {
        minimal_unsat_constraints: trace.minimal.iter().map(|c| ctx.reason(c)).collect(),
        choices: trace.choices.iter().filter_map(|c| ctx.choice(c)).collect(),
    }
}

struct Ctx<'a> {
    problem: &'a Problem,
    entries: &'a Entries,
    request: &'a Request,
}

impl Ctx<'_> {
    fn entry(&self, v: usize) -> Option<&Entry> {
        match self.problem.vars.get(v)?.kind {
            Kind::Bundle(e) => self.entries.all.get(e),
            _ => None,
        }
    }

    /// A variable in plain words.
    fn describe(&self, v: usize) -> String {
        match self.entry(v) {
            Some(e) if matches!(e.source, Source::Catalog(_)) => {
                format!("{} (package {}, channel {})", e.name, e.package, e.channel)
            }
            Some(e) => format!("the installed {}", e.name),
            None => self
                .problem
                .vars
                .get(v)
                .map_or_else(String::new, |x| x.id.clone()),
        }
    }

    fn names(&self, vs: &[usize]) -> String {
        let names: Vec<String> = vs.iter().map(|&v| self.describe(v)).collect();
        match names.as_slice() {
            [] => "nothing".into(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        }
    }

    fn choice(&self, c: &Choice) -> Option<ChoiceExplained> {
        let chosen = c.chosen?;
        let e = self.entry(chosen)?;
        let (olm, subject) = match &c.origin {
            Origin::Anchor(_) => return None,
            Origin::Dependency { subject, message } => (message.clone(), *subject),
        };
        let rank = c.candidates.iter().position(|&x| x == chosen).unwrap_or(0) + 1;
        let plain = match self.problem.vars[subject].kind {
            Kind::Subscription => format!(
                "{} is what {} installs: of its {} candidate(s) in OLM's order (the default channel first, then channels by name, each from its head down), it is number {rank}, the first that can be installed",
                self.describe(chosen),
                self.problem.vars[subject].id.replacen(':', " ", 1),
                c.candidates.len()
            ),
            _ => format!(
                "{} needs it: {}. Of {} bundle(s) that qualify, in OLM's order (installed first, then default channels, then packages and channels by name, each from its head down), it is number {rank}, the first that can be installed",
                self.describe(subject),
                olm.split_once(" requires ")
                    .map_or(olm.as_str(), |(_, what)| what),
                c.candidates.len()
            ),
        };
        let passed_over = c
            .rejected
            .iter()
            .map(|r| Alternative {
                candidate: self.describe(r.candidate),
                reasons: r.constraints.iter().map(|k| self.reason(k)).collect(),
                given_choices: r.chosen_before.iter().map(|&v| self.describe(v)).collect(),
            })
            .collect();
        Some(ChoiceExplained {
            operator: e.name.clone(),
            package: e.package.clone(),
            channel: e.channel.clone(),
            because: Reason { olm, plain },
            rank,
            candidates: c.candidates.len(),
            passed_over,
            less_preferred: c.candidates[rank..]
                .iter()
                .map(|&v| self.describe(v))
                .collect(),
        })
    }

    fn reason(&self, c: &ConstraintRef) -> Reason {
        Reason {
            olm: c.message.clone(),
            plain: self.plain(c),
        }
    }

    /// One constraint in plain words.
    fn plain(&self, c: &ConstraintRef) -> String {
        let var = &self.problem.vars[c.subject];
        match (&var.kind, &c.con) {
            (Kind::Bundle(_), Con::Mandatory) => self.unreferenced_csv(c.subject),
            (Kind::Bundle(_), Con::Prohibited) => format!(
                "{} is deprecated in the catalog, so OLM never installs it; pick a channel or version that is not deprecated",
                self.describe(c.subject)
            ),
            (Kind::Bundle(_), Con::Conflict(other)) => format!(
                "{} would replace {}: the two cannot run side by side, so installing one rules out keeping the other",
                self.describe(c.subject),
                self.describe(*other)
            ),
            (Kind::Bundle(_), Con::Dependency(ids)) => self.bundle_dependency(c, ids),
            (Kind::Subscription, Con::Mandatory) => format!(
                "Subscription {} exists, so OLM must install something for it",
                sub_name(&var.id)
            ),
            (Kind::Subscription, Con::Prohibited) => self.invalid_subscription(&var.id, &c.message),
            (Kind::Subscription, Con::Dependency(ids)) => {
                self.subscription_candidates(&var.id, ids)
            }
            (Kind::Invariant, Con::AtMostOne(ids)) => self.at_most_one(&var.id, ids),
            (Kind::Invariant, _) => {
                "OLM allows one provider of each API and one bundle of each package in a namespace"
                    .into()
            }
            _ => c.message.clone(),
        }
    }

    fn unreferenced_csv(&self, v: usize) -> String {
        let Some(e) = self.entry(v) else {
            return String::new();
        };
        format!(
            "{} is installed and no Subscription names it as its installedCSV, so OLM must keep exactly {} and cannot upgrade or replace it. If a Subscription for package {} should own it, set that Subscription's installedCSV to {}; otherwise uninstall {}",
            e.name, e.name, e.package, e.name, e.name
        )
    }

    fn subscription_candidates(&self, id: &str, ids: &[usize]) -> String {
        let name = sub_name(id);
        let sub = self.request.subscriptions.iter().find(|s| s.name == name);
        let (package, channel) = sub.map_or(("", ""), |s| (s.package.as_str(), s.channel.as_str()));
        let channel = if channel.is_empty() {
            "any channel".to_owned()
        } else {
            format!("channel {channel}")
        };
        if ids.is_empty() {
            let installed = sub.map(|s| s.installed_csv.as_str()).unwrap_or_default();
            return if installed.is_empty() {
                format!(
                    "No bundle of package {package} in {channel} can be installed for subscription {name}"
                )
            } else {
                format!(
                    "Subscription {name} upgrades the installed {installed}, but no bundle of package {package} in {channel} replaces it, skips it or covers its version with a skipRange; publish an upgrade edge from {installed}, or move the subscription to a channel that has one"
                )
            };
        }
        format!(
            "Subscription {name} (package {package}, {channel}) can be satisfied by {}, in that order of preference",
            self.names(ids)
        )
    }

    fn invalid_subscription(&self, id: &str, message: &str) -> String {
        let name = sub_name(id);
        let Some(sub) = self.request.subscriptions.iter().find(|s| s.name == name) else {
            return message.to_owned();
        };
        let k = self.request.catalog_index(&sub.catalog);
        let catalog: Vec<&Entry> = self
            .catalog_entries()
            .into_iter()
            .filter(|e| e.in_catalog(k))
            .collect();
        let (catalog_name, catalog_namespace) = (&sub.catalog.name, &sub.catalog.namespace);
        let in_package: Vec<&Entry> = catalog
            .iter()
            .copied()
            .filter(|e| e.package == sub.package)
            .collect();
        if catalog.is_empty() {
            return format!(
                "Catalog {} in namespace {} has no bundles; check the subscription's source and that the catalog is served",
                catalog_name, catalog_namespace
            );
        }
        if in_package.is_empty() {
            let packages = catalog.iter().map(|e| e.package.as_str());
            return format!(
                "Catalog {} has no package {}{}",
                catalog_name,
                sub.package,
                did_you_mean(&sub.package, packages)
            );
        }
        let mut channels: Vec<&str> = in_package.iter().map(|e| e.channel.as_str()).collect();
        channels.sort_unstable();
        channels.dedup();
        if !channels.contains(&sub.channel.as_str()) && !sub.channel.is_empty() {
            let default = in_package
                .iter()
                .find(|e| e.default_channel)
                .map_or("", |e| e.channel.as_str());
            return format!(
                "Package {} has no channel {}; its channels are {} (default {default}). Set the subscription's channel to one of them",
                sub.package,
                sub.channel,
                channels.join(", ")
            );
        }
        let names: Vec<&str> = in_package
            .iter()
            .filter(|e| sub.channel.is_empty() || e.channel == sub.channel)
            .map(|e| e.name.as_str())
            .collect();
        format!(
            "No bundle named {} in {} of package {}{}; fix the subscription's startingCSV",
            sub.starting_csv,
            if sub.channel.is_empty() {
                "any channel".to_owned()
            } else {
                format!("channel {}", sub.channel)
            },
            sub.package,
            did_you_mean(&sub.starting_csv, names)
        )
    }

    fn bundle_dependency(&self, c: &ConstraintRef, ids: &[usize]) -> String {
        let who = self.describe(c.subject);
        let what = c
            .message
            .split_once(" requires an operator ")
            .map_or(c.message.as_str(), |(_, w)| w);
        if !ids.is_empty() {
            return format!("{who} needs a bundle {what}: {} qualify", self.names(ids));
        }
        let hint = self.pred_of(c).map(|p| self.hint(&p)).unwrap_or_default();
        format!(
            "{who} needs a bundle {what}, and no bundle in {} qualifies{hint}",
            self.catalogs_named()
        )
    }

    /// The predicate behind a bundle's dependency message.
    fn pred_of(&self, c: &ConstraintRef) -> Option<Pred> {
        let e = self.entry(c.subject)?;
        e.requirements
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .filter_map(|r| Pred::of(r).ok())
            .find(|p| {
                c.message
                    .ends_with(&format!("requires an operator {}", p.text()))
            })
    }

    /// What would satisfy `pred` in this catalog, as near as there is.
    fn hint(&self, pred: &Pred) -> String {
        let catalog = self.catalog_entries();
        match pred {
            Pred::Gvk(g) => {
                let mut near: Vec<String> = catalog
                    .iter()
                    .flat_map(|e| e.gvks.iter().map(move |x| (x, e)))
                    .filter(|(x, _)| x.group == g.group && x.kind == g.kind)
                    .map(|(x, e)| format!("{} provides {} {}", e.name, x.kind, x.version))
                    .collect();
                near.sort();
                near.dedup();
                near.truncate(5);
                if near.is_empty() {
                    format!(
                        ". No bundle provides kind {} in group {}; add a catalog or package that does",
                        g.kind, g.group
                    )
                } else {
                    format!(". Other versions of the API exist: {}", near.join("; "))
                }
            }
            Pred::All(ps) if matches!(ps.as_slice(), [Pred::Package(_), Pred::VersionIn(..)]) => {
                let (Pred::Package(name), Pred::VersionIn(_, range)) = (&ps[0], &ps[1]) else {
                    return String::new();
                };
                let mut versions: Vec<(&semver::Version, &str)> = catalog
                    .iter()
                    .filter(|e| e.package == *name)
                    .filter_map(|e| e.version.as_ref().map(|v| (v, e.channel.as_str())))
                    .collect();
                if versions.is_empty() {
                    let packages = catalog.iter().map(|e| e.package.as_str());
                    return format!(
                        ". Package {name} is not in the catalog{}",
                        did_you_mean(name, packages)
                    );
                }
                versions.sort();
                versions.dedup();
                let listed: Vec<String> = versions
                    .iter()
                    .map(|(v, ch)| format!("{v} ({ch})"))
                    .collect();
                format!(
                    ". Package {name} has versions {}, none in range {range}; widen the range or publish a version in it",
                    listed.join(", ")
                )
            }
            _ => String::new(),
        }
    }

    fn at_most_one(&self, id: &str, ids: &[usize]) -> String {
        match id.split_once(" (") {
            Some(_) => format!(
                "Only one operator may provide the API {id}, but this would need {} at once; drop one of the operators that need them or use a version that requires the same provider",
                self.names(ids).replace(" or ", " and ")
            ),
            None => format!(
                "Only one bundle of package {id} can be installed, but this would need {} at once: their dependents ask for different versions of {id}; align the version ranges",
                self.names(ids).replace(" or ", " and ")
            ),
        }
    }

    /// "catalog NAME", or "catalogs A, B" when the request names several.
    fn catalogs_named(&self) -> String {
        match self.request.catalogs.as_slice() {
            [one] => format!("catalog {}", one.name),
            several => format!(
                "catalogs {}",
                several
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn catalog_entries(&self) -> Vec<&Entry> {
        self.entries.all[..self.entries.catalog_len]
            .iter()
            .collect()
    }
}

fn sub_name(id: &str) -> &str {
    id.strip_prefix("subscription:").unwrap_or(id)
}

fn did_you_mean<'a>(target: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable();
    names.dedup();
    match near_names(target, names.iter().copied()).as_slice() {
        [] if names.len() <= 8 => format!(" (the catalog has {})", names.join(", ")),
        [] => String::new(),
        near => format!(" (did you mean {}?)", near.join(", ")),
    }
}

#[cfg(test)]
mod tests;
