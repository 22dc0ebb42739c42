//! What the solver records when asked why: the raw material of explanations.
//!
//! In: nothing (filled by [`super::solve::solve_traced`]). Out: for a
//! satisfiable problem, every choice the search made, in order, with the
//! candidates it passed over and the irreducible set of constraints (and
//! earlier choices) that ruled each out; for an unsatisfiable one, an
//! irreducible set of constraints that cannot hold together. Variables are
//! indices into [`super::variables::Problem::vars`].

use super::variables::Con;

/// One constraint, as the solver knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintRef {
    /// The variable it constrains.
    pub subject: usize,
    /// What it says.
    pub con: Con,
    /// OLM's message for it.
    pub message: String,
}

/// Where a choice came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A variable that must hold (a subscription, an installed CSV no
    /// subscription references).
    Anchor(usize),
    /// A dependency of a chosen variable, with OLM's message for it.
    Dependency {
        /// The chosen variable.
        subject: usize,
        /// `subscription a requires …`, `bundle a.v1 requires an operator …`.
        message: String,
    },
}

/// A candidate passed over, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The candidate.
    pub candidate: usize,
    /// Constraints that rule it out together (sorted by message).
    pub constraints: Vec<ConstraintRef>,
    /// Earlier choices that take part.
    pub chosen_before: Vec<usize>,
}

/// One choice of the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Why it was made.
    pub origin: Origin,
    /// Its candidates, in preference order.
    pub candidates: Vec<usize>,
    /// The one installed.
    pub chosen: Option<usize>,
    /// The preferred candidates before it that could not be installed.
    pub rejected: Vec<Rejection>,
}

/// Everything recorded (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The choices, in the order made.
    pub choices: Vec<Choice>,
    /// For an unsatisfiable problem: an irreducible set of constraints.
    pub minimal: Vec<ConstraintRef>,
}
