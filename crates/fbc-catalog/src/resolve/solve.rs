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

use super::trace::{Choice, ConstraintRef, Origin, Rejection, Trace};
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

pub(super) struct Encoded {
    solver: rustsat_batsat::BasicSolver,
    /// One activation literal per distinct key, in first-seen order.
    activations: Vec<Lit>,
    /// The message of each activation (the last one written).
    messages: Vec<String>,
    /// The constraint each activation stands for (the last one written).
    origins: Vec<(usize, Con)>,
    by_activation: HashMap<Lit, usize>,
    /// How many problem variables (the first literals).
    variables: usize,
}

fn lit(v: usize) -> Lit {
    Lit::positive(v as u32)
}

/// Solves `problem` (see the module docs).
pub fn solve(problem: &Problem, limits: &Limits) -> Result<Solution, SolveError> {
    run(problem, limits, None)
}

/// Solves `problem` and records why: each choice with the candidates it
/// passed over and the constraints that ruled each out, or the smallest set
/// of constraints that cannot hold together (see [`super::trace`]).
pub fn solve_traced(problem: &Problem, limits: &Limits) -> Result<(Solution, Trace), SolveError> {
    let mut trace = Trace::default();
    let solution = run(problem, limits, Some(&mut trace))?;
    Ok((solution, trace))
}

fn run(
    problem: &Problem,
    limits: &Limits,
    trace: Option<&mut Trace>,
) -> Result<Solution, SolveError> {
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
        // One message per failing constraint, as OLM prints them: two
        // constraints with the same words (a bundle listed in two channels)
        // are both listed.
        messages.sort();
        if let Some(trace) = trace {
            let assumed: Vec<Lit> = core.iter().map(|l| !*l).collect();
            let minimal = minimize(&mut enc, &[], assumed, limits)?;
            trace.minimal = constraint_refs(&enc, &minimal);
        }
        return Ok(Solution::Unsatisfiable(messages));
    }
    let guesses = search(problem, &mut enc, &base, limits, trace)?;
    Ok(Solution::Installed(guesses))
}

/// Whether the clauses hold under `assumptions`; a stop is the deadline.
pub(super) fn check(
    enc: &mut Encoded,
    assumptions: &[Lit],
    limits: &Limits,
) -> Result<bool, SolveError> {
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
    mut trace: Option<&mut Trace>,
) -> Result<Vec<usize>, SolveError> {
    let mut queue: VecDeque<(Origin, &[usize])> = VecDeque::new();
    let anchors: Vec<usize> = (0..problem.vars.len())
        .filter(|&v| {
            problem.vars[v]
                .constraints
                .iter()
                .any(|a| a.con == Con::Mandatory)
        })
        .collect();
    let singles: Vec<[usize; 1]> = anchors.iter().map(|&a| [a]).collect();
    queue.extend(singles.iter().map(|s| (Origin::Anchor(s[0]), s.as_slice())));
    let mut guessed = vec![false; problem.vars.len()];
    let mut assumptions = base.to_vec();
    while let Some((origin, candidates)) = queue.pop_front() {
        if candidates.iter().any(|&c| guessed[c]) {
            continue;
        }
        let mut chosen = None;
        let mut rejected = Vec::new();
        for &c in candidates {
            assumptions.push(lit(c));
            if check(enc, &assumptions, limits)? {
                chosen = Some(c);
                break;
            }
            if trace.is_some() {
                rejected.push(rejection(enc, c, limits)?);
            }
            assumptions.pop();
        }
        if let Some(t) = trace.as_deref_mut() {
            t.choices.push(Choice {
                origin,
                candidates: candidates.to_vec(),
                chosen,
                rejected,
            });
        }
        // With every earlier guess checked by a full solve, some candidate
        // always fits; none would mean the clauses changed under us.
        let Some(c) = chosen else {
            return Err(SolveError::Solver("no candidate of a choice fits".into()));
        };
        guessed[c] = true;
        for applied in &problem.vars[c].constraints {
            if let Con::Dependency(ids) = &applied.con {
                let message = applied.message.clone().unwrap_or_default();
                queue.push_back((
                    Origin::Dependency {
                        subject: c,
                        message,
                    },
                    ids,
                ));
            }
        }
    }
    Ok((0..problem.vars.len()).filter(|&v| guessed[v]).collect())
}

/// Why candidate `c` (just assumed, and failed) cannot be installed: the
/// solver's core, made irreducible, as constraints and earlier choices.
fn rejection(enc: &mut Encoded, c: usize, limits: &Limits) -> Result<Rejection, SolveError> {
    let core = enc
        .solver
        .core()
        .map_err(|e| SolveError::Solver(e.to_string()))?;
    let candidate = lit(c);
    let assumed: Vec<Lit> = core
        .iter()
        .map(|l| !*l)
        .filter(|l| *l != candidate)
        .collect();
    let minimal = minimize(enc, &[candidate], assumed, limits)?;
    let chosen_before = minimal
        .iter()
        .filter(|l| l.vidx() < enc.variables)
        .map(|l| l.vidx())
        .collect();
    Ok(Rejection {
        candidate: c,
        constraints: constraint_refs(enc, &minimal),
        chosen_before,
    })
}

/// Deletion-based shrinking of an unsatisfiable set of assumptions (with
/// `fixed` always assumed): drop each in turn, keep it dropped while the rest
/// still cannot hold. The result is irreducible. At most
/// [`MAX_MINIMIZE_SOLVES`] solves; past that the set is returned as it is.
fn minimize(
    enc: &mut Encoded,
    fixed: &[Lit],
    mut set: Vec<Lit>,
    limits: &Limits,
) -> Result<Vec<Lit>, SolveError> {
    let mut i = 0;
    let mut solves = 0;
    while i < set.len() && solves < MAX_MINIMIZE_SOLVES {
        solves += 1;
        let trial: Vec<Lit> = fixed
            .iter()
            .chain(set[..i].iter())
            .chain(set[i + 1..].iter())
            .copied()
            .collect();
        if check(enc, &trial, limits)? {
            i += 1;
        } else {
            let core: Vec<Lit> = enc
                .solver
                .core()
                .map_err(|e| SolveError::Solver(e.to_string()))?;
            let kept = |l: &Lit| core.contains(&!*l);
            let before = set[..i].iter().filter(|l| kept(l)).count();
            set = set
                .iter()
                .enumerate()
                .filter(|&(j, l)| j != i && kept(l))
                .map(|(_, l)| *l)
                .collect();
            i = before;
        }
    }
    Ok(set)
}

/// The most solves one minimisation may take.
const MAX_MINIMIZE_SOLVES: usize = 2_000;

/// The constraints behind activation literals (others are skipped).
fn constraint_refs(enc: &Encoded, lits: &[Lit]) -> Vec<ConstraintRef> {
    let mut out: Vec<ConstraintRef> = lits
        .iter()
        .filter_map(|l| enc.by_activation.get(l))
        .map(|&k| ConstraintRef {
            subject: enc.origins[k].0,
            con: enc.origins[k].1.clone(),
            message: enc.messages[k].clone(),
        })
        .collect();
    out.sort_by(|a, b| (&a.message, a.subject).cmp(&(&b.message, b.subject)));
    out.dedup_by(|a, b| a.message == b.message && a.subject == b.subject);
    out
}

fn encode(problem: &Problem) -> Result<Encoded, SolveError> {
    let mut enc = Encoded {
        solver: rustsat_batsat::BasicSolver::default(),
        activations: Vec::new(),
        messages: Vec::new(),
        origins: Vec::new(),
        by_activation: HashMap::new(),
        variables: problem.vars.len(),
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
                enc.origins[at] = (s, con.clone());
                continue;
            }
            let act = fresh();
            keys.insert(k, enc.activations.len());
            enc.by_activation.insert(act, enc.activations.len());
            enc.activations.push(act);
            enc.messages.push(text);
            enc.origins.push((s, con.clone()));
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
