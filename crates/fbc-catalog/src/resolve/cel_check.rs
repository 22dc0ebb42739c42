//! The compile-time check OLM runs on a CEL rule: cel-go v0.12.6's type
//! checker over the `cel` crate's parsed expression, in OLM's environment.
//!
//! In: a parsed [`cel::Program`] and its source. Out: the rule's result type,
//! or cel-go's error text (`ERROR: <input>:1:14: undeclared reference to
//! 'semverCompare' (in container '')`, then the source line and a caret),
//! errors sorted by position as cel-go sorts them.
//!
//! Written by hand because the `cel` crate has no checker (see
//! [`super::cel_types`]). It walks the tree the way `checker/checker.go`
//! does: literals, identifiers (OLM's `properties` and the type names),
//! field selection on maps and `dyn`, calls resolved against every overload
//! with fresh type variables, list and map literals (mixed element types
//! become `dyn`), and the comprehensions the standard macros expand to.

use super::cel_types::{FUNCTIONS, Mapping, Ty, ident_type, most_general};
use cel::common::ast::{CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue};

/// One checker error: where (a character offset into the rule) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// Offset of the offending node.
    pub offset: usize,
    /// cel-go's message.
    pub message: String,
}

/// Checks `program`; its result type, or every error found.
pub fn check(program: &cel::Program) -> Result<Ty, Vec<CheckError>> {
    let mut checker = Checker {
        program,
        mapping: Mapping::default(),
        scopes: Vec::new(),
        errors: Vec::new(),
        next_var: 0,
    };
    let t = checker.check(program.expression());
    if checker.errors.is_empty() {
        Ok(checker.mapping.substitute(&t, true))
    } else {
        Err(checker.errors)
    }
}

struct Checker<'p> {
    program: &'p cel::Program,
    mapping: Mapping,
    /// Comprehension variables, innermost last.
    scopes: Vec<(String, Ty)>,
    errors: Vec<CheckError>,
    next_var: usize,
}

impl Checker<'_> {
    fn check(&mut self, e: &IdedExpr) -> Ty {
        match &e.expr {
            Expr::Literal(l) => literal(l),
            Expr::Ident(name) => self.ident(e, name),
            Expr::Select(s) => {
                let operand = self.check(&s.operand);
                let t = match self.mapping.substitute(&operand, false) {
                    Ty::Map(_, v) => *v,
                    Ty::Param(p) => {
                        self.mapping.assign(&Ty::Dyn, &Ty::Param(p));
                        Ty::Dyn
                    }
                    t if t.is_dyn() || t == Ty::Error => Ty::Dyn,
                    t => {
                        self.error(e, format!("type '{t}' does not support field selection"));
                        Ty::Error
                    }
                };
                let t = if s.test { Ty::Bool } else { t };
                self.mapping.substitute(&t, false)
            }
            Expr::Call(call) => self.call(e, call),
            Expr::List(list) => {
                let mut elem = None;
                for item in &list.elements {
                    let t = self.check(item);
                    elem = Some(self.join(elem, t));
                }
                Ty::list(elem.unwrap_or_else(|| self.fresh()))
            }
            Expr::Map(map) => self.map_literal(&map.entries),
            Expr::Struct(s) => {
                self.error(e, undeclared(&s.type_name));
                Ty::Error
            }
            Expr::Comprehension(c) => self.comprehension(e, c),
            Expr::Unspecified => Ty::Error,
        }
    }

    fn ident(&mut self, e: &IdedExpr, name: &str) -> Ty {
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return t.clone();
        }
        ident_type(name).unwrap_or_else(|| {
            self.error(e, undeclared(name));
            Ty::Error
        })
    }

    fn call(&mut self, e: &IdedExpr, call: &CallExpr) -> Ty {
        let mut types: Vec<Ty> = call.args.iter().map(|a| self.check(a)).collect();
        if let Some(target) = &call.target {
            types.insert(0, self.check(target));
        }
        let Some(overloads) = FUNCTIONS.get(call.func_name.as_str()) else {
            self.error(e, undeclared(&call.func_name));
            return Ty::Error;
        };
        let instance = call.target.is_some();
        let mut result: Option<Ty> = None;
        for o in overloads.iter().filter(|o| o.instance == instance) {
            let (params, ret) = self.instantiate(&o.params, &o.result);
            if self.mapping.assign_all(&params, &types) {
                let ret = self.mapping.substitute(&ret, false);
                result = Some(match result {
                    None => ret,
                    Some(r) if !r.is_dyn() && r != ret => Ty::Dyn,
                    Some(r) => r,
                });
            }
        }
        result.unwrap_or_else(|| {
            self.error(e, no_matching_overload(&call.func_name, &types, instance));
            Ty::Error
        })
    }

    /// An overload's types with its parameters `A`, `B` replaced by fresh
    /// checker variables.
    fn instantiate(&mut self, params: &[Ty], result: &Ty) -> (Vec<Ty>, Ty) {
        let mut fresh = Mapping::default();
        let used = |name: &str| {
            let p = Ty::Param(name.into());
            params.iter().chain([result]).any(|t| mentions(t, &p))
        };
        for name in ["A", "B"].into_iter().filter(|n| used(n)) {
            let v = self.fresh();
            fresh.bind(name, v);
        }
        let params = params.iter().map(|t| fresh.substitute(t, false)).collect();
        (params, fresh.substitute(result, false))
    }

    fn map_literal(&mut self, entries: &[cel::common::ast::IdedEntryExpr]) -> Ty {
        let (mut key, mut value) = (None, None);
        for entry in entries {
            if let EntryExpr::MapEntry(m) = &entry.expr {
                let k = self.check(&m.key);
                key = Some(self.join(key, k));
                let v = self.check(&m.value);
                value = Some(self.join(value, v));
            }
        }
        match (key, value) {
            (Some(k), Some(v)) => Ty::map(k, v),
            _ => Ty::map(self.fresh(), self.fresh()),
        }
    }

    fn comprehension(&mut self, e: &IdedExpr, c: &ComprehensionExpr) -> Ty {
        let range = self.check(&c.iter_range);
        let accu = self.check(&c.accu_init);
        let var = match self.mapping.substitute(&range, false) {
            Ty::List(elem) => *elem,
            Ty::Map(key, _) => *key,
            // `any` is not among these: cel-go ranges over `dyn` but rejects `any`.
            t @ (Ty::Dyn | Ty::Error | Ty::Param(_)) => {
                self.mapping.assign(&Ty::Dyn, &t);
                Ty::Dyn
            }
            t => {
                self.error(&c.iter_range, format!(
                    "expression of type '{t}' cannot be range of a comprehension (must be list, map, or dynamic)"
                ));
                Ty::Error
            }
        };
        if c.iter_var2.is_some() {
            self.error(
                e,
                "two-variable comprehensions are not in cel-go v0.12.6".into(),
            );
        }
        self.scopes.push((c.accu_var.clone(), accu.clone()));
        self.scopes.push((c.iter_var.clone(), var));
        let cond = self.check(&c.loop_cond);
        self.expect(&c.loop_cond, &Ty::Bool, &cond);
        let step = self.check(&c.loop_step);
        self.expect(&c.loop_step, &accu, &step);
        self.scopes.pop();
        let result = self.check(&c.result);
        self.scopes.pop();
        self.mapping.substitute(&result, false)
    }

    fn expect(&mut self, e: &IdedExpr, want: &Ty, got: &Ty) {
        if !self.mapping.assign(want, got) {
            self.error(e, format!("expected type '{want}' but found '{got}'"));
        }
    }

    /// The element type of a literal so far and one more element: mixed
    /// types give `dyn`, as cel-go's default environment allows.
    fn join(&mut self, previous: Option<Ty>, current: Ty) -> Ty {
        match previous {
            None => current,
            Some(p) if self.mapping.assign(&p, &current) => most_general(&p, &current),
            Some(_) => Ty::Dyn,
        }
    }

    fn fresh(&mut self) -> Ty {
        let t = Ty::Param(format!("_var{}", self.next_var));
        self.next_var += 1;
        t
    }

    fn error(&mut self, e: &IdedExpr, message: String) {
        let offset = self
            .program
            .source_info()
            .offset_for(e.id)
            .map_or(0, |(start, _)| start as usize);
        self.errors.push(CheckError { offset, message });
    }
}

fn literal(l: &LiteralValue) -> Ty {
    match l {
        LiteralValue::Boolean(_) => Ty::Bool,
        LiteralValue::Bytes(_) => Ty::Bytes,
        LiteralValue::Double(_) => Ty::Double,
        LiteralValue::Int(_) => Ty::Int,
        LiteralValue::Null => Ty::Null,
        LiteralValue::String(_) => Ty::String,
        LiteralValue::UInt(_) => Ty::Uint,
    }
}

fn mentions(t: &Ty, p: &Ty) -> bool {
    match t {
        Ty::List(e) => mentions(e, p),
        Ty::Map(k, v) => mentions(k, p) || mentions(v, p),
        Ty::Type(Some(inner)) => mentions(inner, p),
        t => t == p,
    }
}

fn undeclared(name: &str) -> String {
    format!("undeclared reference to '{name}' (in container '')")
}

/// cel-go's `noMatchingOverload`: `'_==_' applied to '(int, double)'`, or
/// `'(string.(int))'` style for an instance call (`target.(args)`).
fn no_matching_overload(name: &str, types: &[Ty], instance: bool) -> String {
    let join = |ts: &[Ty]| ts.iter().map(Ty::to_string).collect::<Vec<_>>().join(", ");
    let signature = match (instance, types.split_first()) {
        (true, Some((target, rest))) => format!("{target}.({})", join(rest)),
        _ => format!("({})", join(types)),
    };
    format!("found no matching overload for '{name}' applied to '{signature}'")
}

/// cel-go's display of errors: each `ERROR: <input>:line:column: message`
/// with the source line and a caret under the column, sorted by position.
pub fn display(source: &str, errors: &[(usize, String)]) -> String {
    let mut errors = errors.to_vec();
    errors.sort_by_key(|(offset, _)| *offset);
    errors
        .iter()
        .map(|(offset, message)| {
            let (line, column, text) = locate(source, *offset);
            let mut out = format!("ERROR: <input>:{line}:{}: {message}", column + 1);
            if text.len() <= 16384 {
                let caret: String = text
                    .chars()
                    .take(column)
                    .map(|c| if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' })
                    .collect();
                let ind = if text.chars().nth(column).is_some_and(|c| c.len_utf8() > 1) {
                    "\u{ff3e}"
                } else {
                    "^"
                };
                out.push_str(&format!(
                    "\n | {}\n | {caret}{ind}",
                    text.replace('\t', " ")
                ));
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// (1-based line, 0-based column in characters, the line's text) of a
/// character offset.
fn locate(source: &str, offset: usize) -> (usize, usize, &str) {
    let mut seen = 0;
    for (n, text) in source.split('\n').enumerate() {
        let len = text.chars().count();
        if offset <= seen + len {
            return (n + 1, offset - seen, text);
        }
        seen += len + 1;
    }
    (1, 0, source.lines().next().unwrap_or(""))
}
