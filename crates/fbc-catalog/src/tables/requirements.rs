//! A bundle's dependency requirements, parsed into values.
//!
//! In: one bundle's properties. Out: one [`Requirement`] per dependency property,
//! in property order: `olm.gvk.required`, `olm.package.required`,
//! `olm.label.required` and `olm.constraint`. A property that does not parse is a
//! per-bundle [`RequirementError`] value, never a load failure: OLM fails only the
//! resolutions that reach such a bundle.
//!
//! `olm.constraint` follows operator-framework/api `constraints.Parse`: the raw
//! value may be at most 131,072 bytes; its object has `failureMessage` and exactly
//! the keys below (field names match case-insensitively, as Go's JSON decoder
//! matches them, and any other key is an error); when several kinds are set, the
//! first of gvk, package, all, any, not, cel wins; none is "constraint is empty".

use crate::model::{Gvk, Property, property::Parsed, property::types};
use crate::version_range::blang;
use serde_json::{Map, Value};

/// OLM's `maxConstraintSize` (`2 << 16`; its comment says 64 KB).
pub const MAX_CONSTRAINT_BYTES: usize = 2 << 16;

/// One dependency of a bundle.
#[derive(Clone, Debug, PartialEq)]
pub enum Requirement {
    /// `olm.gvk.required`: some bundle must provide this API.
    Gvk(Gvk),
    /// `olm.package.required`: some bundle of the package, in the range.
    Package(PackageRange),
    /// `olm.label.required`: some bundle must carry this `olm.label`.
    Label(String),
    /// `olm.constraint`.
    Constraint(Constraint),
}

/// A package and a blang version range.
#[derive(Clone, Debug, PartialEq)]
pub struct PackageRange {
    /// The package name.
    pub package: String,
    /// The range as written.
    pub range_text: String,
    /// The parsed range.
    pub range: blang::Range,
}

/// An `olm.constraint` value: a predicate on one candidate bundle.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    /// `failureMessage` (OLM shows it only for CEL constraints).
    pub failure_message: String,
    /// What the candidate must satisfy.
    pub predicate: Predicate,
}

/// The predicate of a constraint.
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// Provides this API.
    Gvk(Gvk),
    /// Is this package, in this range.
    Package(PackageRange),
    /// Satisfies every one (an empty list matches every bundle).
    All(Vec<Constraint>),
    /// Satisfies at least one (an empty list matches nothing).
    Any(Vec<Constraint>),
    /// Satisfies none (an empty list matches every bundle).
    Not(Vec<Constraint>),
    /// A CEL rule over the candidate's `properties`.
    Cel(String),
}

/// A dependency property that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("property[{index}] ({typ}): {message}")]
pub struct RequirementError {
    /// Index of the property in the bundle.
    pub index: usize,
    /// Its type.
    pub typ: String,
    /// What is wrong, in OLM's words where it has them.
    pub message: String,
}

/// One dependency property and what it parsed into.
pub type RequirementResult = Result<Requirement, RequirementError>;

/// The requirements of a bundle with `properties`, in property order.
pub fn requirements(properties: &[Property]) -> Vec<RequirementResult> {
    properties
        .iter()
        .enumerate()
        .filter_map(|(index, p)| {
            let error = |message: String| RequirementError {
                index,
                typ: p.typ.clone(),
                message,
            };
            match (&p.parsed, p.typ.as_str()) {
                (Parsed::GvkRequired(gvk), _) => Some(Ok(Requirement::Gvk(gvk.clone()))),
                (Parsed::PackageRequired(req), _) => Some(
                    package_range(&req.package_name, &req.version_range)
                        .map(Requirement::Package)
                        .map_err(error),
                ),
                (_, "olm.label.required") => Some(label(&p.value_json).map_err(error)),
                (_, types::CONSTRAINT) => Some(
                    constraint_from_text(&p.value_json)
                        .map(Requirement::Constraint)
                        .map_err(error),
                ),
                _ => None,
            }
        })
        .collect()
}

fn package_range(package: &str, range: &str) -> Result<PackageRange, String> {
    // OLM reports blang's own words (`Last element in range is '||'`).
    let parsed = blang::parse(range).map_err(|e| e.to_string())?;
    Ok(PackageRange {
        package: package.to_string(),
        range_text: range.to_string(),
        range: parsed,
    })
}

fn label(value_json: &str) -> Result<Requirement, String> {
    let value: Value = serde_json::from_str(value_json).map_err(|e| e.to_string())?;
    match value.as_object().and_then(|o| field(o, "label")) {
        Some(Value::String(l)) => Ok(Requirement::Label(l.clone())),
        _ => Err("expected an object with a string \"label\"".into()),
    }
}

/// Parses an `olm.constraint` value from its JSON text, as OLM does.
pub fn constraint_from_text(value_json: &str) -> Result<Constraint, String> {
    if value_json.len() > MAX_CONSTRAINT_BYTES {
        return Err(format!(
            "olm.constraint value is greater than max constraint size {MAX_CONSTRAINT_BYTES} bytes"
        ));
    }
    let value: Value =
        serde_json::from_str(value_json).map_err(|e| format!("parse olm.constraint: {e}"))?;
    constraint(&value).map_err(|e| format!("parse olm.constraint: {e}"))
}

/// A key of `obj` matched case-insensitively, as Go's JSON decoder matches fields.
fn field<'a>(obj: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    obj.get(name).or_else(|| {
        obj.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

const CONSTRAINT_KEYS: [&str; 7] = [
    "failureMessage",
    "gvk",
    "package",
    "all",
    "any",
    "not",
    "cel",
];

fn constraint(value: &Value) -> Result<Constraint, String> {
    let obj = value
        .as_object()
        .ok_or_else(|| "a constraint must be an object".to_string())?;
    if let Some(k) = obj
        .keys()
        .find(|k| !CONSTRAINT_KEYS.iter().any(|c| c.eq_ignore_ascii_case(k)))
    {
        return Err(format!(
            "json: unknown field {:?}",
            crate::source::prefix(k)
        ));
    }
    let failure_message = match field(obj, "failureMessage") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err("failureMessage must be a string".into()),
    };
    let set = |name: &str| field(obj, name).filter(|v| !v.is_null());
    let predicate = if let Some(v) = set("gvk") {
        Predicate::Gvk(gvk(v)?)
    } else if let Some(v) = set("package") {
        let o = v.as_object().ok_or("package must be an object")?;
        strict_keys(o, &["packageName", "versionRange"])?;
        Predicate::Package(package_range(
            &string_field(o, "packageName")?,
            &string_field(o, "versionRange")?,
        )?)
    } else if let Some(v) = set("all") {
        Predicate::All(compound(v)?)
    } else if let Some(v) = set("any") {
        Predicate::Any(compound(v)?)
    } else if let Some(v) = set("not") {
        Predicate::Not(compound(v)?)
    } else if let Some(v) = set("cel") {
        let o = v.as_object().ok_or("cel must be an object")?;
        strict_keys(o, &["rule"])?;
        Predicate::Cel(string_field(o, "rule")?)
    } else {
        return Err("constraint is empty".into());
    };
    Ok(Constraint {
        failure_message,
        predicate,
    })
}

fn strict_keys(obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    match obj
        .keys()
        .find(|k| !allowed.iter().any(|a| a.eq_ignore_ascii_case(k)))
    {
        Some(k) => Err(format!(
            "json: unknown field {:?}",
            crate::source::prefix(k)
        )),
        None => Ok(()),
    }
}

fn string_field(obj: &Map<String, Value>, name: &str) -> Result<String, String> {
    match field(obj, name) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("{name} must be a string")),
    }
}

fn gvk(value: &Value) -> Result<Gvk, String> {
    let o = value.as_object().ok_or("gvk must be an object")?;
    strict_keys(o, &["group", "version", "kind"])?;
    Ok(Gvk {
        group: string_field(o, "group")?,
        version: string_field(o, "version")?,
        kind: string_field(o, "kind")?,
    })
}

/// `{"constraints": [...]}`. Depth is bounded by the parse limit on nesting
/// (at most 128 levels), so the recursion is too.
fn compound(value: &Value) -> Result<Vec<Constraint>, String> {
    let o = value
        .as_object()
        .ok_or("a compound constraint must be an object")?;
    strict_keys(o, &["constraints"])?;
    match field(o, "constraints") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(constraint).collect(),
        Some(_) => Err("constraints must be a list".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Constraint, String> {
        constraint_from_text(&v.to_string())
    }

    #[test]
    fn each_kind_parses() {
        let c = parse(json!({"gvk": {"group": "g", "version": "v1", "kind": "K"}})).expect("gvk");
        assert!(matches!(c.predicate, Predicate::Gvk(ref g) if g.kind == "K"));
        let c = parse(json!({"failureMessage": "m", "package": {"packageName": "p", "versionRange": ">=1.0.0"}}))
            .expect("package");
        assert_eq!(c.failure_message, "m");
        assert!(matches!(c.predicate, Predicate::Package(ref p) if p.package == "p"));
        let c = parse(json!({"cel": {"rule": "true"}})).expect("cel");
        assert_eq!(c.predicate, Predicate::Cel("true".into()));
        let c = parse(json!({"all": {"constraints": [{"gvk": {"group": "g", "version": "v", "kind": "K"}}, {"not": {"constraints": []}}]}}))
            .expect("compound");
        assert!(matches!(c.predicate, Predicate::All(ref items) if items.len() == 2));
    }

    #[test]
    fn the_first_kind_wins_and_field_names_match_any_case() {
        let c = parse(
            json!({"cel": {"rule": "x"}, "GVK": {"Group": "g", "version": "v", "kind": "K"}}),
        )
        .expect("gvk first");
        assert!(matches!(c.predicate, Predicate::Gvk(_)));
    }

    #[test]
    fn olm_rejections() {
        assert_eq!(
            parse(json!({})).expect_err("empty"),
            "parse olm.constraint: constraint is empty"
        );
        let e = parse(json!({"package": {"name": "p"}})).expect_err("olm-docs' wrong key");
        assert!(e.contains("unknown field"), "{e}");
        let e = parse(json!({"package": {"packageName": "p", "versionRange": ""}}))
            .expect_err("empty range");
        assert_eq!(e, "parse olm.constraint: Last element in range is '||'");
        let big = format!(
            "{{\"cel\":{{\"rule\":\"{}\"}}}}",
            "x".repeat(MAX_CONSTRAINT_BYTES)
        );
        let e = constraint_from_text(&big).expect_err("too big");
        assert!(e.contains("131072 bytes"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn any_json_text_parses_or_is_an_error(text in "\\PC{0,80}") {
            let _ = constraint_from_text(&text);
        }
    }
}
