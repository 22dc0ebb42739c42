//! The output catalog → every guarantee of the filter verified on it.
//!
//! In: the input's tables, the [`Plan`], the output's JSON stream, the input's
//! parse limits and, when dependencies were asked for, the input's resolutions. Out: the output's [`Tables`] when every check
//! holds, or each failure in words ([`CheckError`]). The checks read the output
//! as any reader would — parsed, built and validated by the same code as `validate`
//! — not the plan's idea of it:
//! 1. it is a valid catalog (one head per channel, default channels exist, …);
//! 2. each package's default channel is the input's, unless the configuration
//!    named another;
//! 3. from every kept bundle whose OLM v0 upgrade path reached its channel's
//!    head in the input, it reaches the output channel's head (a bundle whose
//!    plan carries a note is reported by the plan instead);
//! 4. every kept bundle's dependencies that resolved in the input resolve in
//!    the output (when dependencies were asked for).

use super::Plan;
use super::deps;
use crate::graph::upgrade_path::{self, Outcome as PathOutcome, PathQuery, Semantics};
use crate::model::ChainRule;
use crate::resolve::Outcome;
use crate::source::ParseLimits;
use crate::tables::Tables;

/// What failed, one line each.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the filtered catalog fails {} check(s): {}", .0.len(), .0.join("; "))]
pub struct CheckError(pub Vec<String>);

/// The output's tables, built from its JSON stream under `limits` — the
/// input's, so whatever the input was allowed (a deeper document, a larger
/// manifest) the output, made of the same documents, is allowed too.
pub fn output_tables(
    stream: &[u8],
    rule: ChainRule,
    limits: &ParseLimits,
) -> Result<Tables, Vec<String>> {
    Tables::from_stream("filtered.json", stream, rule, limits)
        .map_err(|diags| diags.iter().map(ToString::to_string).collect())
}

/// Runs every check (see the module docs).
pub fn check(
    input: &Tables,
    plan: &Plan,
    stream: &[u8],
    rule: ChainRule,
    limits: &ParseLimits,
    mut dependencies: Option<&mut deps::Resolutions>,
) -> Result<Tables, CheckError> {
    let output = output_tables(stream, rule, limits).map_err(CheckError)?;
    let mut problems = Vec::new();
    for p in &plan.packages {
        match output.package(&p.name) {
            Some((_, op)) if op.default_channel != p.default_channel => problems.push(format!(
                "package {}: default channel is {:?}, the plan says {:?}",
                p.name, op.default_channel, p.default_channel
            )),
            Some(_) => {}
            None => problems.push(format!("package {} is missing from the output", p.name)),
        }
        for c in &p.channels {
            let mut reach_input = Reach::new(input, &p.name, &c.name);
            let mut reach_output = Reach::new(&output, &p.name, &c.name);
            for b in c.bundles.iter().filter(|b| b.note.is_none()) {
                if reach_input.reaches_head(&b.name) == Some(true)
                    && reach_output.reaches_head(&b.name) != Some(true)
                {
                    problems.push(format!(
                        "{}/{}: OLM v0 reached the head of {} in the input, not in the output",
                        p.name, b.name, c.name
                    ));
                }
                if let Some(resolutions) = dependencies.as_deref_mut()
                    && let Some(problem) =
                        dependency_problem(resolutions, &output, &p.name, &b.name)
                {
                    problems.push(problem);
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    if problems.is_empty() {
        Ok(output)
    } else {
        Err(CheckError(problems))
    }
}

/// Whether OLM v0's walk from a bundle reaches its channel's head, asked of
/// [`upgrade_path`] and remembered for every bundle a walk passes: the walk is
/// deterministic, so each bundle on a walk ends where the walk ends, and a
/// channel costs about one walk per branch instead of one per bundle.
struct Reach<'t> {
    tables: &'t Tables,
    package: String,
    channel: String,
    known: std::collections::HashMap<String, Option<bool>>,
}

impl<'t> Reach<'t> {
    fn new(tables: &'t Tables, package: &str, channel: &str) -> Reach<'t> {
        Reach {
            tables,
            package: package.into(),
            channel: channel.into(),
            known: std::collections::HashMap::new(),
        }
    }

    fn reaches_head(&mut self, bundle: &str) -> Option<bool> {
        if let Some(known) = self.known.get(bundle) {
            return *known;
        }
        let q = PathQuery {
            package: self.package.clone(),
            channel: self.channel.clone(),
            from: bundle.into(),
            semantics: Semantics::V0,
            ..PathQuery::default()
        };
        let Ok(path) = upgrade_path::upgrade_path(self.tables, &q) else {
            self.known.insert(bundle.into(), None);
            return None;
        };
        let reached = matches!(
            path.outcome,
            PathOutcome::ReachedHead | PathOutcome::AlreadyAtHead
        );
        for step in &path.steps {
            self.known.insert(step.from.clone(), Some(reached));
        }
        self.known.insert(bundle.into(), Some(reached));
        Some(reached)
    }
}

/// Check 4 for one kept bundle. When every other bundle the input's
/// resolution installs is in the output (in some channel; the bundle itself is), that installation is a
/// solution of the output's problem too (the same bundles, each constraint
/// satisfied by the same choice), so the output resolves; only otherwise is
/// the resolver run on it.
fn dependency_problem(
    resolutions: &mut deps::Resolutions,
    output: &Tables,
    package: &str,
    bundle: &str,
) -> Option<String> {
    if !deps::has_dependencies(resolutions.tables(), package, bundle) {
        return None;
    }
    let Some(Ok(operators)) = resolutions.dependencies(package, bundle) else {
        return None;
    };
    // A bundle in any channel satisfies what it satisfied (dependencies test
    // the bundle's properties, not its channel), and the subscription's own
    // bundle is a candidate in whichever channel the output lists it.
    let in_output = |op: &crate::resolve::Operator| {
        output.package(&op.package).is_some_and(|(pi, p)| {
            output.bundle_named(pi, &op.name).is_some()
                && p.channels
                    .iter()
                    .any(|c| c.entries.iter().any(|e| e.name == op.name))
        })
    };
    if operators.iter().all(in_output) {
        return None;
    }
    let why = match deps::resolve_one(output, package, bundle) {
        Some(Ok(Outcome::Resolved(_))) => return None,
        Some(Ok(Outcome::Unsatisfiable { error, .. })) => error,
        Some(Err(e)) => e,
        None => "not in any channel".into(),
    };
    Some(format!(
        "{package}/{bundle}: its dependencies resolve in the input but not in the output: {why}"
    ))
}
