//! OLM v0 dependency resolution over a catalog's tables: "what would OLM
//! install for these subscriptions, next to these installed operators?", and
//! "why won't this resolve?".
//!
//! In: the [`crate::tables::Tables`] of each catalog a [`request::Request`] names
//! (OLM's CatalogSources, with their priorities), and the request.
//! Out: the operators OLM v0.25 would install, or its `constraints not
//! satisfiable: …` answer, or the error OLM would stop with.
//!
//! | module | in → out |
//! |---|---|
//! | [`request`] | request JSON → a checked [`request::Request`] with OLM's defaults |
//! | [`entries`] | tables + request → the entries OLM's cache would hold |
//! | [`predicate`] | dependency requirements → predicates on entries, in OLM's words |
//! | [`order`] | one channel's candidates → OLM v0's preference order, or its errors |
//! | [`variables`] | entries + request → variables and constraints, as OLM builds them |
//! | [`solve`] | the problem → the installed variables, or the failing constraints |
//! | [`outcome`] | installed variables → operators; failing constraints → OLM's text |
//! | [`gofmt`] | strings → Go's `%q`, as OLM's messages quote |
//! | [`cel`], [`cel_check`], [`cel_types`] | CEL rules → checked programs (cel-go's rejections) → verdicts |
//! | [`trace`] | what the solver records when asked why |
//! | [`explain`] | the trace → OLM's words and plain words, per choice or per failing constraint |
//!
//! Where OLM's answer depends on Go's map order, this one is fixed: installed
//! CSVs first, subscriptions by name, invariants by API then package, a
//! subscription with no channel considers channels by name, and of several
//! independent reasons a request cannot be satisfied, the first in that order is
//! reported.
//!
//! Pure computation: no I/O, no network, no async.

pub mod cel;
pub mod cel_check;
pub mod cel_types;
pub mod entries;
pub mod explain;
pub mod gofmt;
pub mod order;
pub mod outcome;
pub mod predicate;
pub mod request;
pub mod solve;
pub mod trace;
pub mod variables;

use crate::tables::Tables;
pub use explain::Explanation;
pub use outcome::{Operator, Outcome};
pub use solve::Limits;

/// Why there is no answer at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// OLM would stop before solving (a channel without order, a dependency
    /// property that does not convert); the text is OLM's.
    #[error("{0}")]
    Resolution(String),
    /// Over a limit, or past the deadline.
    #[error(transparent)]
    Solve(#[from] solve::SolveError),
}

/// Resolves `request` against `catalogs`, the tables of each of the request's
/// catalogs in its order (see the module docs).
pub fn resolve(
    catalogs: &[&Tables],
    request: &request::Request,
    limits: &Limits,
) -> Result<Outcome, ResolveError> {
    let entries = entries::entries(catalogs, request);
    let problem = variables::build(&entries, request).map_err(|e| ResolveError::Resolution(e.0))?;
    let solution = solve::solve(&problem, limits)?;
    Ok(outcome_of(&problem, &entries, request, solution))
}

/// [`resolve`], and why: the choices made and the alternatives passed over,
/// or the smallest set of constraints that cannot hold together. Slower: each
/// rejected candidate's reasons are shrunk with further solves.
pub fn resolve_explained(
    catalogs: &[&Tables],
    request: &request::Request,
    limits: &Limits,
) -> Result<(Outcome, Explanation), ResolveError> {
    let entries = entries::entries(catalogs, request);
    let problem = variables::build(&entries, request).map_err(|e| ResolveError::Resolution(e.0))?;
    let (solution, trace) = solve::solve_traced(&problem, limits)?;
    let explanation = explain::explain(&problem, &entries, request, &trace);
    Ok((
        outcome_of(&problem, &entries, request, solution),
        explanation,
    ))
}

fn outcome_of(
    problem: &variables::Problem,
    entries: &entries::Entries,
    request: &request::Request,
    solution: solve::Solution,
) -> Outcome {
    match solution {
        solve::Solution::Installed(vars) => {
            Outcome::Resolved(outcome::operators(problem, entries, request, &vars))
        }
        solve::Solution::Unsatisfiable(messages) => outcome::unsatisfiable(messages),
    }
}

#[cfg(test)]
mod tests;
