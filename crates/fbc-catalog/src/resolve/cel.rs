//! CEL constraints as OLM v0.25 compiles and evaluates them.
//!
//! In: an `olm.constraint`'s `cel.rule`, then a candidate's properties as
//! `(type, value JSON)` pairs. Out: a [`CelRule`] (or OLM's compile-time
//! error text), then whether the candidate satisfies it.
//!
//! Parsing and evaluation are the `cel` crate's. The compile-time check is
//! [`super::cel_check`], because OLM refuses rules that cel-go v0.12.6's
//! checker refuses, with its words, and a rule whose type is not exactly
//! `bool` (`cel expressions must have type Bool`). Evaluation binds
//! `properties` to a list of `{type, value}` maps, with JSON numbers as
//! doubles as Go's `encoding/json` decodes them, and declares OLM's
//! `semver_compare(a, b)`: each argument printed as Go's `fmt.Sprint` prints
//! it, read with blang's `ParseTolerant`, and compared (-1, 0 or 1). Any
//! evaluation error, or a result that is not a bool, is "not satisfied", as
//! in OLM.
//!
//! Known differences from cel-go v0.12.6, all at the edges: `timestamp` and
//! `duration` values are not built in (the `cel` crate's `chrono` feature
//! would add a time-zone database for rules no catalog writes), so rules
//! using them compile as OLM's do but are never satisfied; and the parser's
//! syntax-error texts can differ in wording from ANTLR-Go's for unusual
//! mistakes.

use super::cel_check;
use super::cel_types::Ty;
use crate::version_range::blang;
use cel::{Context, Env, ExecutionError, Program, Value};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

/// The standard environment, built once.
static STDLIB: LazyLock<Arc<Env>> = LazyLock::new(|| Arc::new(Env::stdlib()));

/// A checked rule, ready to evaluate.
pub struct CelRule {
    /// The rule as written.
    pub rule: String,
    program: Program,
}

impl std::fmt::Debug for CelRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CelRule({:?})", self.rule)
    }
}

/// The longest rule compiled: OLM reads constraints of at most 128 KiB, and
/// the parser recurses, so a bound keeps a hostile rule from exhausting the
/// stack.
pub const MAX_RULE_BYTES: usize = 16 * 1024;

impl CelRule {
    /// Compiles `rule` as OLM's `CelEnvironment.Validate` does; the error is
    /// OLM's text.
    pub fn compile(rule: &str) -> Result<CelRule, String> {
        if rule.len() > MAX_RULE_BYTES {
            return Err(format!(
                "cel rule of {} bytes is longer than the {MAX_RULE_BYTES} this server compiles",
                rule.len()
            ));
        }
        // cel-go v0.12.6 has no `existsOne` macro: check a copy where the
        // name is one the `cel` crate does not expand, and name it back.
        let checked_source = rule.replace(EXISTS_ONE, EXISTS_ONE_UNEXPANDED);
        let checked = compile_checked(&checked_source)
            .map_err(|e| e.replace(EXISTS_ONE_UNEXPANDED, EXISTS_ONE))?;
        let program = if checked_source == rule {
            checked
        } else {
            Program::compile(rule).map_err(|e| e.to_string())?
        };
        Ok(CelRule {
            rule: rule.to_owned(),
            program,
        })
    }

    /// Whether a candidate with these `(type, value JSON)` properties
    /// satisfies the rule.
    pub fn test<'a>(&self, properties: impl Iterator<Item = (&'a str, &'a str)>) -> bool {
        let list: Vec<Value> = properties
            .map(|(typ, value)| {
                let value = serde_json::from_str(value).map_or(Value::Null, |v| from_json(&v));
                let mut map = HashMap::new();
                map.insert("type".to_owned(), Value::String(Arc::new(typ.to_owned())));
                map.insert("value".to_owned(), value);
                Value::from(map)
            })
            .collect();
        let mut context = Context::with_env(Arc::clone(&STDLIB));
        context.add_variable_from_value("properties", Value::List(Arc::new(list)));
        if context
            .add_function("semver_compare", semver_compare)
            .is_err()
        {
            return false;
        }
        matches!(self.program.execute(&context), Ok(Value::Bool(true)))
    }
}

const EXISTS_ONE: &str = "existsOne";
/// The same length, so positions in error texts stay right.
const EXISTS_ONE_UNEXPANDED: &str = "existsOn_";

/// Parses and checks `source`; the error is cel-go's text.
fn compile_checked(source: &str) -> Result<Program, String> {
    let program = Program::compile(source).map_err(|errors| {
        let located: Vec<(usize, String)> = errors
            .errors
            .iter()
            .map(|e| (offset_of(source, e.pos), e.msg.clone()))
            .collect();
        cel_check::display(source, &located)
    })?;
    match cel_check::check(&program) {
        Ok(Ty::Bool) => Ok(program),
        Ok(_) => Err("cel expressions must have type Bool".into()),
        Err(errors) => {
            let located: Vec<(usize, String)> =
                errors.into_iter().map(|e| (e.offset, e.message)).collect();
            Err(cel_check::display(source, &located))
        }
    }
}

/// A character offset from the parser's 1-based (line, column).
fn offset_of(source: &str, (line, column): (isize, isize)) -> usize {
    let before: usize = source
        .split('\n')
        .take(line.max(1) as usize - 1)
        .map(|l| l.chars().count() + 1)
        .sum();
    before + (column.max(1) as usize - 1)
}

/// JSON as Go's `json.Unmarshal` into `interface{}` gives it to CEL: every
/// number a double.
fn from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::String(Arc::new(s.clone())),
        serde_json::Value::Array(items) => {
            Value::List(Arc::new(items.iter().map(from_json).collect()))
        }
        serde_json::Value::Object(fields) => {
            let map: HashMap<String, Value> = fields
                .iter()
                .map(|(k, v)| (k.clone(), from_json(v)))
                .collect();
            Value::from(map)
        }
    }
}

/// OLM's `semver_compare`: blang's `Compare` of both arguments read with
/// `ParseTolerant` from Go's `fmt.Sprint` of them.
fn semver_compare(a: Value, b: Value) -> Result<i64, ExecutionError> {
    let parse = |v: &Value| {
        let text = go_sprint(v);
        blang::parse_tolerant(&text).map_err(|_| {
            ExecutionError::function_error(
                "semver_compare",
                format!("unable to parse '{text}' to semver format"),
            )
        })
    };
    let (a, b) = (parse(&a)?, parse(&b)?);
    Ok(match a.cmp_precedence(&b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })
}

/// Go's `fmt.Sprint` of a CEL value's Go form, for the kinds a version can
/// be written as; anything else prints as text no version parser accepts.
fn go_sprint(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => go_float(*f),
        Value::Bool(b) => b.to_string(),
        Value::Null => "NULL_VALUE".into(),
        _ => "<composite>".into(),
    }
}

/// Go's `%v` of a float64: the shortest digits that read back the same, in
/// exponent form when the exponent is below -4 or at least 6, as
/// `strconv.FormatFloat(f, 'g', -1, 64)` decides (`1e+06`, `4.1`, `1e-05`).
fn go_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        return format!("{f}");
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

#[cfg(test)]
mod tests;
