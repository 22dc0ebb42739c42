//! Dependency predicates: what a candidate must be for a requirement, and how
//! OLM words it.
//!
//! In: a bundle's [`Requirement`]s. Out: [`Pred`]s that test an [`Entry`] as
//! OLM v0's cache predicates do, and print as their `String()` does
//! (`providing an API with group: g, version: v1, kind: K`, `with package: p and
//! with version in range: >=1.0.0`, ...). CEL rules are compiled and checked
//! by [`super::cel`] and tested over the entry's properties.

use super::cel::CelRule;
use super::entries::Entry;
use super::gofmt::quote;
use crate::model::Gvk;
use crate::tables::requirements::{Constraint, Predicate, Requirement};
use crate::version_range::blang;
use std::sync::Arc;

/// One predicate on a candidate entry.
#[derive(Clone, Debug)]
pub enum Pred {
    /// Provides this API (an `olm.gvk` property equal to it).
    Gvk(Gvk),
    /// Of this package (an `olm.package` property or the entry's own).
    Package(String),
    /// A version in this range; the text as written.
    VersionIn(blang::Range, String),
    /// Carries this `olm.label`.
    Label(String),
    /// Every one.
    All(Vec<Pred>),
    /// At least one.
    Any(Vec<Pred>),
    /// None.
    Not(Vec<Pred>),
    /// A CEL rule, with the constraint's failure message.
    Cel(Arc<CelRule>, String),
}

/// A requirement OLM would refuse before solving.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PredError(pub String);

impl Pred {
    /// The predicate of a requirement.
    pub fn of(r: &Requirement) -> Result<Pred, PredError> {
        Ok(match r {
            Requirement::Gvk(g) => Pred::Gvk(g.clone()),
            Requirement::Package(p) => package(&p.package, &p.range, &p.range_text),
            Requirement::Label(l) => Pred::Label(l.clone()),
            Requirement::Constraint(c) => constraint(c).map_err(|e| {
                PredError(format!(
                    "convert olm.constraint to resolver predicate: {}",
                    e.0
                ))
            })?,
        })
    }

    /// Whether `e` satisfies it.
    pub fn test(&self, e: &Entry) -> bool {
        match self {
            Pred::Gvk(g) => e.gvks.iter().any(|p| p == g),
            Pred::Package(name) => {
                e.package_props.iter().any(|(p, _)| p == name) || e.package == *name
            }
            Pred::VersionIn(range, _) => {
                e.package_props.iter().any(|(_, v)| {
                    semver::Version::parse(v)
                        .ok()
                        .filter(blang::is_blang_version)
                        .is_some_and(|v| range.matches(&v))
                }) || e.version.as_ref().is_some_and(|v| range.matches(v))
            }
            Pred::Label(l) => e.labels.iter().any(|x| x == l),
            Pred::All(ps) => ps.iter().all(|p| p.test(e)),
            Pred::Any(ps) => ps.iter().any(|p| p.test(e)),
            Pred::Not(ps) => !ps.iter().any(|p| p.test(e)),
            Pred::Cel(rule, _) => rule.test(
                e.cel_properties
                    .iter()
                    .map(|(t, v)| (t.as_str(), v.as_str())),
            ),
        }
    }

    /// OLM's words for it.
    pub fn text(&self) -> String {
        let join = |ps: &[Pred], sep: &str| ps.iter().map(Pred::text).collect::<Vec<_>>().join(sep);
        match self {
            Pred::Gvk(g) => format!(
                "providing an API with group: {}, version: {}, kind: {}",
                g.group, g.version, g.kind
            ),
            Pred::Package(p) => format!("with package: {p}"),
            Pred::VersionIn(_, text) => format!("with version in range: {text}"),
            Pred::Label(l) => format!("with label: {l}"),
            Pred::All(ps) => join(ps, " and "),
            Pred::Any(ps) => join(ps, " or "),
            Pred::Not(ps) => join(ps, " and not "),
            Pred::Cel(rule, message) => format!(
                "with constraint: {} and message: {}",
                quote(&rule.rule),
                quote(message)
            ),
        }
    }
}

fn package(name: &str, range: &blang::Range, text: &str) -> Pred {
    Pred::All(vec![
        Pred::Package(name.to_owned()),
        Pred::VersionIn(range.clone(), text.to_owned()),
    ])
}

fn constraint(c: &Constraint) -> Result<Pred, PredError> {
    let all = |cs: &[Constraint]| cs.iter().map(constraint).collect::<Result<Vec<_>, _>>();
    Ok(match &c.predicate {
        Predicate::Gvk(g) => Pred::Gvk(g.clone()),
        Predicate::Package(p) => package(&p.package, &p.range, &p.range_text),
        Predicate::All(cs) => Pred::All(all(cs)?),
        Predicate::Any(cs) => Pred::Any(all(cs)?),
        Predicate::Not(cs) => Pred::Not(all(cs)?),
        Predicate::Cel(rule) => Pred::Cel(
            Arc::new(CelRule::compile(rule).map_err(PredError)?),
            c.failure_message.clone(),
        ),
    })
}
