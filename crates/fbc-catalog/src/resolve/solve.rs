//! Solving the problem as OLM v0's solver does, on a real SAT solver
//! (rustsat's batsat: pure Rust, incremental, with assumptions and cores).
//!
//! In: a [`Problem`] and [`Limits`]. Out: the installed variables, or the
//! messages of the constraints that cannot hold together.
//!
//! OLM's solver (`resolver/solver/search.go`) walks a queue of choices: each
//! variable that must hold, then, for every variable it guesses, each of that
//! variable's dependencies, trying their candidates in preference order and
//! backtracking when a guess cannot be extended. Checking every guess with a
//! full solve under assumptions finds the same first satisfiable choice at each
//! step, so no backtracking is left to do, and the guesses are the answer.
//!
//! Messages: OLM keys constraints by their solver literal, so constraints with
//! the same literal (a `Prohibited` and an empty dependency of one variable; two
//! invariants over the same provider list) report only the last one added. The
//! same keys are used here. The reported set is the solver's core over the
//! constraints, in constraint order, sorted by text as the reference harness
//! sorts it.

use super::variables::{Applied, Con, Problem};
use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Clause, Lit};
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

/// Bounds on one resolution.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most variables (bundles, subscriptions, invariants) a problem may have.
    pub max_variables: usize,
    /// When to give up.
    pub deadline: Option<Instant>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_variables: 100_000,
            deadline: None,
        }
    }
}

/// How solving ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solution {
    /// The installed variables, in variable order.
    Installed(Vec<usize>),
    /// The constraints that cannot hold together: OLM's messages, sorted.
    Unsatisfiable(Vec<String>),
}

/// Why solving stopped without an answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// More variables than [`Limits::max_variables`].
    #[error("the resolution has {variables} variables, more than the limit of {limit}")]
    TooLarge {
        /// How many.
        variables: usize,
        /// The limit.
        limit: usize,
    },
    /// The deadline passed.
    #[error("the resolution did not finish before its deadline")]
    DeadlineExceeded,
    /// The SAT solver failed (it should not).
    #[error("the SAT solver failed: {0}")]
    Solver(String),
}

/// The literal identity of a constraint (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Pos(usize),
    Neg(usize),
    Or(usize, Vec<usize>),
    Conflict(usize, usize),
    AtMostOne(Vec<usize>),
}

fn key(subject: usize, con: &Con) -> Option<Key> {
    Some(match con {
        Con::Mandatory => Key::Pos(subject),
        Con::Prohibited => Key::Neg(subject),
        Con::Dependency(ids) if ids.is_empty() => Key::Neg(subject),
        // `¬s ∨ s ∨ …` is always true: the constraint vanishes.
        Con::Dependency(ids) if ids[0] == subject => return None,
        Con::Dependency(ids) => Key::Or(subject, ids.clone()),
        Con::Conflict(other) => Key::Conflict(subject, *other),
        Con::AtMostOne(ids) => Key::AtMostOne(ids.clone()),
    })
}

struct Encoded {
    solver: rustsat_batsat::BasicSolver,
    /// One activation literal per distinct key, in first-seen order.
    activations: Vec<Lit>,
    /// The message of each activation (the last one written).
    messages: Vec<String>,
    by_activation: HashMap<Lit, usize>,
}

fn lit(v: usize) -> Lit {
    Lit::positive(v as u32)
}

/// Solves `problem` (see the module docs).
pub fn solve(problem: &Problem, limits: &Limits) -> Result<Solution, SolveError> {
    let n = problem.vars.len();
    if n > limits.max_variables {
        return Err(SolveError::TooLarge {
            variables: n,
            limit: limits.max_variables,
        });
    }
    let mut enc = encode(problem)?;
    if let Some(deadline) = limits.deadline {
        enc.solver
            .batsat_mut()
            .cb_mut()
            .set_stop(move || Instant::now() >= deadline);
    }
    let base = enc.activations.clone();
    if !check(&mut enc, &base, limits)? {
        let core = enc
            .solver
            .core()
            .map_err(|e| SolveError::Solver(e.to_string()))?;
        let mut messages: Vec<String> = core
            .iter()
            .filter_map(|l| enc.by_activation.get(&!*l))
            .map(|&k| enc.messages[k].clone())
            .collect();
        messages.sort();
        messages.dedup();
        return Ok(Solution::Unsatisfiable(messages));
    }
    let guesses = search(problem, &mut enc, &base, limits)?;
    Ok(Solution::Installed(guesses))
}

/// Whether the clauses hold under `assumptions`; a stop is the deadline.
fn check(enc: &mut Encoded, assumptions: &[Lit], limits: &Limits) -> Result<bool, SolveError> {
    if limits.deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(SolveError::DeadlineExceeded);
    }
    match enc.solver.solve_assumps(assumptions) {
        Ok(SolverResult::Sat) => Ok(true),
        Ok(SolverResult::Unsat) => Ok(false),
        Ok(SolverResult::Interrupted) => Err(SolveError::DeadlineExceeded),
        Err(e) => Err(SolveError::Solver(e.to_string())),
    }
}

/// The guided search (see the module docs): variables installed, in guess order
/// then sorted.
fn search(
    problem: &Problem,
    enc: &mut Encoded,
    base: &[Lit],
    limits: &Limits,
) -> Result<Vec<usize>, SolveError> {
    let mut queue: VecDeque<&[usize]> = VecDeque::new();
    let anchors: Vec<usize> = (0..problem.vars.len())
        .filter(|&v| {
            problem.vars[v]
                .constraints
                .iter()
                .any(|a| a.con == Con::Mandatory)
        })
        .collect();
    let singles: Vec<[usize; 1]> = anchors.iter().map(|&a| [a]).collect();
    queue.extend(singles.iter().map(|s| s.as_slice()));
    let mut guessed = vec![false; problem.vars.len()];
    let mut assumptions = base.to_vec();
    while let Some(candidates) = queue.pop_front() {
        if candidates.iter().any(|&c| guessed[c]) {
            continue;
        }
        let mut chosen = None;
        for &c in candidates {
            assumptions.push(lit(c));
            if check(enc, &assumptions, limits)? {
                chosen = Some(c);
                break;
            }
            assumptions.pop();
        }
        // With every earlier guess checked by a full solve, some candidate
        // always fits; none would mean the clauses changed under us.
        let Some(c) = chosen else {
            return Err(SolveError::Solver("no candidate of a choice fits".into()));
        };
        guessed[c] = true;
        for applied in &problem.vars[c].constraints {
            if let Con::Dependency(ids) = &applied.con {
                queue.push_back(ids);
            }
        }
    }
    Ok((0..problem.vars.len()).filter(|&v| guessed[v]).collect())
}

fn encode(problem: &Problem) -> Result<Encoded, SolveError> {
    let mut enc = Encoded {
        solver: rustsat_batsat::BasicSolver::default(),
        activations: Vec::new(),
        messages: Vec::new(),
        by_activation: HashMap::new(),
    };
    let mut next_var = problem.vars.len();
    let mut fresh = || {
        next_var += 1;
        Lit::positive((next_var - 1) as u32)
    };
    let mut keys: HashMap<Key, usize> = HashMap::new();
    for (s, var) in problem.vars.iter().enumerate() {
        for Applied { con, message } in &var.constraints {
            let Some(k) = key(s, con) else { continue };
            let text = message.clone().unwrap_or_else(|| match con {
                Con::Conflict(o) => format!("{} conflicts with {}", var.id, problem.vars[*o].id),
                _ => var.id.clone(),
            });
            if let Some(&at) = keys.get(&k) {
                enc.messages[at] = text;
                continue;
            }
            let act = fresh();
            keys.insert(k, enc.activations.len());
            enc.by_activation.insert(act, enc.activations.len());
            enc.activations.push(act);
            enc.messages.push(text);
            for clause in clauses(s, con, &mut fresh) {
                let mut guarded = Clause::new();
                guarded.add(!act);
                for l in clause {
                    guarded.add(l);
                }
                enc.solver
                    .add_clause(guarded)
                    .map_err(|e| SolveError::Solver(e.to_string()))?;
            }
        }
    }
    Ok(enc)
}

/// The clauses of one constraint on subject `s` (before the activation guard).
fn clauses(s: usize, con: &Con, fresh: &mut impl FnMut() -> Lit) -> Vec<Vec<Lit>> {
    match con {
        Con::Mandatory => vec![vec![lit(s)]],
        Con::Prohibited => vec![vec![!lit(s)]],
        Con::Dependency(ids) => {
            let mut c = vec![!lit(s)];
            c.extend(ids.iter().map(|&i| lit(i)));
            vec![c]
        }
        Con::Conflict(o) => vec![vec![!lit(s), !lit(*o)]],
        Con::AtMostOne(ids) => at_most_one(ids, fresh),
    }
}

/// The sequential ("ladder") encoding of at most one of `ids`: 3n clauses
/// instead of the n² pairs, for packages with hundreds of candidates.
fn at_most_one(ids: &[usize], fresh: &mut impl FnMut() -> Lit) -> Vec<Vec<Lit>> {
    let n = ids.len();
    if n < 2 {
        return Vec::new();
    }
    let s: Vec<Lit> = (0..n - 1).map(|_| fresh()).collect();
    let mut out = Vec::new();
    for i in 0..n {
        let x = lit(ids[i]);
        if i < n - 1 {
            out.push(vec![!x, s[i]]);
        }
        if i > 0 {
            out.push(vec![!x, !s[i - 1]]);
            if i < n - 1 {
                out.push(vec![!s[i - 1], s[i]]);
            }
        }
    }
    out
}
