//! CEL's static types as cel-go v0.12.6 (the version OLM v0.25 vendors)
//! checks them: the types, how one is assignable to another with type
//! parameters, how they print, and the standard library's overloads plus
//! OLM's `semver_compare`.
//!
//! In: types and a [`Mapping`] of type parameters. Out: whether one is
//! assignable to the other (growing the mapping), substitutions, and
//! cel-go's `FormatCheckedType` text. Used by [`super::cel_check`].
//!
//! Written here because the `cel` crate only parses and evaluates: it has no
//! type checker, and OLM rejects rules at compile time with the checker's
//! words. The rules below follow `checker/types.go`; the overload table
//! follows `checker/standard.go`, with the cross-type numeric comparisons
//! (`1 < 1.0`) left out as cel-go's default environment leaves them out.

use std::collections::BTreeMap;
use std::sync::LazyLock;

/// A CEL type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A type that failed to check; assignable everywhere, so one mistake is
    /// reported once.
    Error,
    /// `dyn`.
    Dyn,
    /// `google.protobuf.Any`, which OLM declares as the type of a property's
    /// value: checked as `dyn`, printed as `any`.
    Any,
    /// `null`.
    Null,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `timestamp`.
    Timestamp,
    /// `duration`.
    Duration,
    /// `list(T)`.
    List(Box<Ty>),
    /// `map(K, V)`.
    Map(Box<Ty>, Box<Ty>),
    /// `type(T)`, or plain `type`.
    Type(Option<Box<Ty>>),
    /// A type parameter (`A`, or a checker variable `_var3`).
    Param(String),
}

/// The kinds cel-go's assignability switches on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Error,
    Dyn,
    Null,
    Primitive,
    WellKnown,
    List,
    Map,
    Type,
    Param,
}

impl Ty {
    fn kind(&self) -> Kind {
        match self {
            Ty::Error => Kind::Error,
            Ty::Dyn => Kind::Dyn,
            Ty::Null => Kind::Null,
            Ty::Bool | Ty::Int | Ty::Uint | Ty::Double | Ty::String | Ty::Bytes => Kind::Primitive,
            Ty::Any | Ty::Timestamp | Ty::Duration => Kind::WellKnown,
            Ty::List(_) => Kind::List,
            Ty::Map(..) => Kind::Map,
            Ty::Type(_) => Kind::Type,
            Ty::Param(_) => Kind::Param,
        }
    }

    /// `dyn`, or `any`, which cel-go treats alike.
    pub fn is_dyn(&self) -> bool {
        matches!(self, Ty::Dyn | Ty::Any)
    }

    fn is_dyn_or_error(&self) -> bool {
        self.is_dyn() || *self == Ty::Error
    }

    /// `list(elem)`.
    pub fn list(elem: Ty) -> Ty {
        Ty::List(Box::new(elem))
    }

    /// `map(key, value)`.
    pub fn map(key: Ty, value: Ty) -> Ty {
        Ty::Map(Box::new(key), Box::new(value))
    }
}

/// cel-go's `FormatCheckedType`.
impl std::fmt::Display for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ty::Error => f.write_str("!error!"),
            Ty::Dyn => f.write_str("dyn"),
            Ty::Any => f.write_str("any"),
            Ty::Null => f.write_str("null"),
            Ty::Bool => f.write_str("bool"),
            Ty::Int => f.write_str("int"),
            Ty::Uint => f.write_str("uint"),
            Ty::Double => f.write_str("double"),
            Ty::String => f.write_str("string"),
            Ty::Bytes => f.write_str("bytes"),
            Ty::Timestamp => f.write_str("timestamp"),
            Ty::Duration => f.write_str("duration"),
            Ty::List(e) => write!(f, "list({e})"),
            Ty::Map(k, v) => write!(f, "map({k}, {v})"),
            Ty::Type(None) => f.write_str("type"),
            Ty::Type(Some(t)) => write!(f, "type({t})"),
            Ty::Param(name) => f.write_str(name),
        }
    }
}

/// What each type parameter stands for, so far.
#[derive(Clone, Debug, Default)]
pub struct Mapping(BTreeMap<String, Ty>);

impl Mapping {
    fn find(&self, t: &Ty) -> Option<&Ty> {
        match t {
            Ty::Param(name) => self.0.get(name),
            _ => None,
        }
    }

    /// Binds the parameter `name` to `t`.
    pub fn bind(&mut self, name: &str, t: Ty) {
        self.0.insert(name.to_owned(), t);
    }

    fn add(&mut self, param: &Ty, t: Ty) {
        if let Ty::Param(name) = param {
            self.0.insert(name.clone(), t);
        }
    }

    /// Replaces the parameters in `t` by what they stand for; unbound ones
    /// become `dyn` when `params_to_dyn`.
    pub fn substitute(&self, t: &Ty, params_to_dyn: bool) -> Ty {
        if let Some(s) = self.find(t) {
            return self.substitute(s, params_to_dyn);
        }
        match t {
            Ty::Param(_) if params_to_dyn => Ty::Dyn,
            Ty::List(e) => Ty::list(self.substitute(e, params_to_dyn)),
            Ty::Map(k, v) => Ty::map(
                self.substitute(k, params_to_dyn),
                self.substitute(v, params_to_dyn),
            ),
            Ty::Type(Some(inner)) => {
                Ty::Type(Some(Box::new(self.substitute(inner, params_to_dyn))))
            }
            other => other.clone(),
        }
    }

    /// Whether `from` is assignable to `to`; on success the mapping keeps
    /// the bindings that made it so (cel-go's `checker.isAssignable`).
    pub fn assign(&mut self, to: &Ty, from: &Ty) -> bool {
        self.assign_all(std::slice::from_ref(to), std::slice::from_ref(from))
    }

    /// [`Mapping::assign`] over two lists of the same length.
    pub fn assign_all(&mut self, to: &[Ty], from: &[Ty]) -> bool {
        let mut copy = self.clone();
        let ok =
            to.len() == from.len() && to.iter().zip(from).all(|(t1, t2)| copy.assignable(t1, t2));
        if ok {
            *self = copy;
        }
        ok
    }

    /// `internalIsAssignable(m, t1, t2)`.
    fn assignable(&mut self, t1: &Ty, t2: &Ty) -> bool {
        if t2.kind() == Kind::Param {
            let (valid, has_sub) = self.valid_substitution(t1, t2);
            if valid {
                return true;
            }
            if has_sub {
                return false;
            }
        }
        if t1.kind() == Kind::Param {
            return self.valid_substitution(t2, t1).0;
        }
        if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
            return true;
        }
        match (t1, t2) {
            (Ty::Null, t2) => matches!(t2.kind(), Kind::Null | Kind::WellKnown),
            (t1, t2) if t1.kind() == Kind::Primitive => t1 == t2,
            (Ty::List(e1), Ty::List(e2)) => self.assignable(e1, e2),
            (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
                self.assignable(k1, k2) && self.assignable(v1, v2)
            }
            (Ty::Type(_), Ty::Type(_)) => true,
            (t1, t2) => t1.kind() == Kind::WellKnown && t1 == t2,
        }
    }

    /// `isValidTypeSubstitution(m, t1, t2)` for a parameter `t2`: (valid,
    /// whether `t2` was already bound).
    fn valid_substitution(&mut self, t1: &Ty, t2: &Ty) -> (bool, bool) {
        if t1 == t2 {
            return (true, true);
        }
        if let Some(sub) = self.find(t2).cloned() {
            if *t1 == sub {
                return (true, true);
            }
            if self.assignable(t1, &sub) {
                let general = most_general(t1, &sub);
                if self.not_referenced_in(t2, &general) {
                    self.add(t2, general);
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(t2, t1) {
            self.add(t2, t1.clone());
            return (true, false);
        }
        (false, false)
    }

    fn not_referenced_in(&self, t: &Ty, within: &Ty) -> bool {
        if t == within {
            return false;
        }
        match within {
            Ty::Param(_) => self
                .find(within)
                .is_none_or(|s| self.not_referenced_in(t, s)),
            Ty::List(e) => self.not_referenced_in(t, e),
            Ty::Map(k, v) => self.not_referenced_in(t, k) && self.not_referenced_in(t, v),
            _ => true,
        }
    }
}

/// `mostGeneral(t1, t2)`.
pub fn most_general(t1: &Ty, t2: &Ty) -> Ty {
    if less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

/// `isEqualOrLessSpecific(t1, t2)`.
fn less_specific(t1: &Ty, t2: &Ty) -> bool {
    if t1.is_dyn() || t1.kind() == Kind::Param {
        return true;
    }
    if t2.is_dyn() || t2.kind() == Kind::Param {
        return false;
    }
    match (t1, t2) {
        (Ty::List(e1), Ty::List(e2)) => less_specific(e1, e2),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => less_specific(k1, k2) && less_specific(v1, v2),
        (Ty::Type(_), Ty::Type(_)) => true,
        (t1, t2) => t1 == t2,
    }
}

/// One overload of a function.
#[derive(Clone, Debug)]
pub struct Overload {
    /// Called as `target.f(args)`.
    pub instance: bool,
    /// Parameter types, the target first.
    pub params: Vec<Ty>,
    /// Result type.
    pub result: Ty,
}

/// The overloads of every declared function, by name.
pub static FUNCTIONS: LazyLock<BTreeMap<&'static str, Vec<Overload>>> = LazyLock::new(|| {
    let mut out: BTreeMap<&'static str, Vec<Overload>> = BTreeMap::new();
    for line in DECLARATIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        let (names, signatures) = line.split_once(": ").unwrap_or((line, ""));
        for signature in signatures.split(';').map(str::trim) {
            let overload = parse_overload(signature);
            for name in names.split_whitespace() {
                out.entry(name).or_default().push(overload.clone());
            }
        }
    }
    out
});

/// The standard declarations (cel-go v0.12.6 `checker/standard.go`) and
/// OLM's `semver_compare`, one function group per line:
/// `names: [.]params -> result; ...`, a leading `.` marking an instance
/// overload. `A` and `B` are type parameters.
const DECLARATIONS: &str = "
    _?_:_: bool,A,A -> A
    _&&_ _||_: bool,bool -> bool
    !_ @not_strictly_false: bool -> bool
    _==_ _!=_: A,A -> bool
    _-_: int,int -> int; uint,uint -> uint; double,double -> double; timestamp,timestamp -> duration; timestamp,duration -> timestamp; duration,duration -> duration
    _*_ _/_: int,int -> int; uint,uint -> uint; double,double -> double
    _%_: int,int -> int; uint,uint -> uint
    _+_: int,int -> int; uint,uint -> uint; double,double -> double; string,string -> string; bytes,bytes -> bytes; list(A),list(A) -> list(A); timestamp,duration -> timestamp; duration,timestamp -> timestamp; duration,duration -> duration
    -_: int -> int; double -> double
    _[_]: list(A),int -> A; map(A,B),A -> B
    size: .string -> int; .bytes -> int; .list(A) -> int; .map(A,B) -> int; string -> int; bytes -> int; list(A) -> int; map(A,B) -> int
    @in in: A,list(A) -> bool; A,map(A,B) -> bool
    type: A -> type(A)
    int: int -> int; uint -> int; double -> int; string -> int; timestamp -> int; duration -> int
    uint: uint -> uint; int -> uint; double -> uint; string -> uint
    double: double -> double; int -> double; uint -> double; string -> double
    bool: bool -> bool; string -> bool
    string: string -> string; bool -> string; int -> string; uint -> string; double -> string; bytes -> string; timestamp -> string; duration -> string
    bytes: bytes -> bytes; string -> bytes
    timestamp: timestamp -> timestamp; string -> timestamp; int -> timestamp
    duration: duration -> duration; string -> duration; int -> duration
    dyn: A -> dyn
    contains endsWith matches startsWith: .string,string -> bool
    getFullYear getMonth getDayOfYear getDayOfMonth getDate getDayOfWeek: .timestamp -> int; .timestamp,string -> int
    getHours getMinutes getSeconds getMilliseconds: .timestamp -> int; .timestamp,string -> int; .duration -> int
    _<_ _<=_ _>_ _>=_: bool,bool -> bool; int,int -> bool; uint,uint -> bool; double,double -> bool; string,string -> bool; bytes,bytes -> bool; timestamp,timestamp -> bool; duration,duration -> bool
    semver_compare: any,any -> int
";

fn parse_overload(signature: &str) -> Overload {
    let (params, result) = signature.split_once("->").unwrap_or((signature, "dyn"));
    let params = params.trim();
    let (instance, params) = match params.strip_prefix('.') {
        Some(rest) => (true, rest),
        None => (false, params),
    };
    Overload {
        instance,
        params: split_top(params).into_iter().map(parse_type).collect(),
        result: parse_type(result.trim()),
    }
}

/// Splits `a,list(b),map(c,d)` at its top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

/// Reads a type of the declaration table (trusted, compile-time text).
fn parse_type(s: &str) -> Ty {
    if let Some(inner) = s.strip_prefix("list(").and_then(|r| r.strip_suffix(')')) {
        return Ty::list(parse_type(inner));
    }
    if let Some(inner) = s.strip_prefix("map(").and_then(|r| r.strip_suffix(')')) {
        let parts = split_top(inner);
        let key = parts.first().map_or(Ty::Dyn, |k| parse_type(k));
        let value = parts.get(1).map_or(Ty::Dyn, |v| parse_type(v));
        return Ty::map(key, value);
    }
    if let Some(inner) = s.strip_prefix("type(").and_then(|r| r.strip_suffix(')')) {
        return Ty::Type(Some(Box::new(parse_type(inner))));
    }
    match s {
        "bool" => Ty::Bool,
        "int" => Ty::Int,
        "uint" => Ty::Uint,
        "double" => Ty::Double,
        "string" => Ty::String,
        "bytes" => Ty::Bytes,
        "timestamp" => Ty::Timestamp,
        "duration" => Ty::Duration,
        "any" => Ty::Any,
        "dyn" => Ty::Dyn,
        other => Ty::Param(other.to_owned()),
    }
}

/// The type of a declared identifier: OLM's `properties`, and the standard
/// type names (`int`, `list`, `null_type`, ...).
pub fn ident_type(name: &str) -> Option<Ty> {
    let type_of = |t: Ty| Some(Ty::Type(Some(Box::new(t))));
    match name {
        "properties" => Some(Ty::list(Ty::map(Ty::String, Ty::Any))),
        "int" => type_of(Ty::Int),
        "uint" => type_of(Ty::Uint),
        "bool" => type_of(Ty::Bool),
        "double" => type_of(Ty::Double),
        "bytes" => type_of(Ty::Bytes),
        "string" => type_of(Ty::String),
        "list" => type_of(Ty::list(Ty::Param("A".into()))),
        "map" => type_of(Ty::map(Ty::Param("A".into()), Ty::Param("B".into()))),
        "null_type" => type_of(Ty::Null),
        "type" => type_of(Ty::Type(None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_declares_what_olm_declares() {
        assert_eq!(
            FUNCTIONS["semver_compare"][0].params,
            vec![Ty::Any, Ty::Any]
        );
        assert_eq!(
            FUNCTIONS["_[_]"][1].params,
            vec![
                Ty::map(Ty::Param("A".into()), Ty::Param("B".into())),
                Ty::Param("A".into())
            ]
        );
        assert!(FUNCTIONS["size"][0].instance && !FUNCTIONS["size"][4].instance);
        assert_eq!(FUNCTIONS["_<_"].len(), 8, "no cross-type comparisons");
    }

    #[test]
    fn a_parameter_binds_once_and_then_must_agree() {
        let mut m = Mapping::default();
        let a = Ty::Param("_var0".into());
        assert!(m.assign_all(&[a.clone(), a.clone()], &[Ty::Int, Ty::Int]));
        let mut m = Mapping::default();
        assert!(!m.assign_all(&[a.clone(), a.clone()], &[Ty::Int, Ty::Double]));
        assert!(m.assign_all(&[a.clone(), a.clone()], &[Ty::Int, Ty::Any]));
    }

    #[test]
    fn types_print_as_cel_go_prints_them() {
        assert_eq!(
            Ty::list(Ty::map(Ty::String, Ty::Any)).to_string(),
            "list(map(string, any))"
        );
        assert_eq!(Ty::Type(Some(Box::new(Ty::Int))).to_string(), "type(int)");
    }
}
