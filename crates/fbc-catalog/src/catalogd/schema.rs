//! The GraphQL schema catalogd derives from a catalog's own metas.
//!
//! In: every meta's schema and JSON object, in walk order. Out: a
//! [`CatalogSchema`]: per FBC schema, its objects' fields with the GraphQL type
//! catalogd infers (operator-controller `internal/catalogd/graphql/graphql.go`,
//! `DiscoverSchemaFromMetas`), plus the naming rules for types, root fields and
//! field names. The first object in walk order that has a field decides its
//! type; later objects only add the fields of lists of objects. Where catalogd
//! iterates a Go map (two keys of one object naming the same field, the order
//! of nested fields) this takes the first key in sorted order, one of the
//! answers catalogd can give.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A GraphQL scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `String`: strings, and objects and nulls (served as JSON text).
    String,
    /// `Int`: a number with no fraction in the sampled object.
    Int,
    /// `Float`: any other number.
    Float,
    /// `Boolean`.
    Boolean,
}

impl Scalar {
    /// The GraphQL name.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::String => "String",
            Scalar::Int => "Int",
            Scalar::Float => "Float",
            Scalar::Boolean => "Boolean",
        }
    }
}

/// One field of a schema's objects (or of a list of objects inside them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    /// The JSON key it was first seen under.
    pub original_name: String,
    /// Its scalar (of the list's elements when `is_array`).
    pub scalar: Scalar,
    /// Whether it is a list.
    pub is_array: bool,
    /// For a list of objects, their fields by GraphQL name (one level only).
    pub nested: BTreeMap<String, FieldInfo>,
}

/// What was found of one FBC schema.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchemaInfo {
    /// Fields by GraphQL name.
    pub fields: BTreeMap<String, FieldInfo>,
    /// Objects of this schema.
    pub total_objects: usize,
}

/// Every FBC schema of a catalog, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogSchema {
    /// Schemas by their `schema` value.
    pub schemas: BTreeMap<String, SchemaInfo>,
}

/// Lists longer than this are typed from their first elements only.
pub const MAX_SAMPLE_ELEMENTS: usize = 10;

impl CatalogSchema {
    /// Adds one meta (an object of `schema`; a meta without a schema is
    /// skipped); how many fields it added to [`CatalogSchema::field_count`].
    pub fn add(&mut self, schema: &str, object: &Map<String, Value>) -> usize {
        if schema.is_empty() {
            return 0;
        }
        let info = self.schemas.entry(schema.to_string()).or_default();
        info.total_objects += 1;
        let mut added = 0;
        for (key, value) in object {
            let name = remap_field_name(key);
            let (scalar, is_array, nested) = analyze_field(value);
            match info.fields.get_mut(&name) {
                None => {
                    added += 1 + nested.len();
                    info.fields.insert(
                        name,
                        FieldInfo {
                            original_name: key.clone(),
                            scalar,
                            is_array,
                            nested,
                        },
                    );
                }
                Some(existing) => added += merge(&mut existing.nested, nested),
            }
        }
        added
    }

    /// The fields the GraphQL schema will have: every schema's, and those of
    /// the lists of objects inside them (each such list is a type of its own).
    pub fn field_count(&self) -> usize {
        self.schemas
            .values()
            .flat_map(|info| info.fields.values())
            .map(|field| 1 + field.nested.len())
            .sum()
    }
}

/// Fields not yet known are added (how many); known ones keep their first type.
fn merge(existing: &mut BTreeMap<String, FieldInfo>, new: BTreeMap<String, FieldInfo>) -> usize {
    let before = existing.len();
    for (name, info) in new {
        existing.entry(name).or_insert(info);
    }
    existing.len() - before
}

/// `analyzeFieldValue`: the scalar, list-ness and nested fields of a value.
fn analyze_field(value: &Value) -> (Scalar, bool, BTreeMap<String, FieldInfo>) {
    let Value::Array(items) = value else {
        return (scalar_of(value), false, BTreeMap::new());
    };
    let mut sample: Option<&Value> = None;
    let mut heterogeneous = false;
    let mut nested: Option<BTreeMap<String, FieldInfo>> = None;
    for item in items.iter().take(MAX_SAMPLE_ELEMENTS) {
        if item.is_null() {
            continue;
        }
        match sample {
            None => sample = Some(item),
            Some(first) if kind(first) != kind(item) => heterogeneous = true,
            Some(_) => {}
        }
        if let Value::Object(object) = item {
            let fields = analyze_nested(object);
            match nested.as_mut() {
                None => nested = Some(fields),
                Some(known) => {
                    merge(known, fields);
                }
            }
        }
    }
    match (sample, nested) {
        (None, _) => (Scalar::String, true, BTreeMap::new()),
        (Some(_), None) if heterogeneous => (Scalar::String, true, BTreeMap::new()),
        (Some(first), nested) => (scalar_of(first), true, nested.unwrap_or_default()),
    }
}

/// `analyzeNestedObject`: each key typed from its value (a list from its first element).
fn analyze_nested(object: &Map<String, Value>) -> BTreeMap<String, FieldInfo> {
    let mut fields = BTreeMap::new();
    for (key, value) in object {
        let (scalar, is_array) = match value {
            Value::Array(items) => (items.first().map_or(Scalar::String, scalar_of), true),
            other => (scalar_of(other), false),
        };
        fields.entry(remap_field_name(key)).or_insert(FieldInfo {
            original_name: key.clone(),
            scalar,
            is_array,
            nested: BTreeMap::new(),
        });
    }
    fields
}

/// Go's reflect kind of a decoded JSON value, for comparing list elements.
fn kind(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// `jsonTypeToGraphQL` for one value: numbers through float64.
fn scalar_of(value: &Value) -> Scalar {
    match value {
        Value::Bool(_) => Scalar::Boolean,
        Value::Number(n) => match n.as_f64() {
            Some(f) if is_int64(f) => Scalar::Int,
            _ => Scalar::Float,
        },
        _ => Scalar::String,
    }
}

/// Go's `f == float64(int64(f))`.
fn is_int64(f: f64) -> bool {
    f.fract() == 0.0 && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
}

/// catalogd's `remapFieldName`: a JSON key as a GraphQL camelCase field name.
pub fn remap_field_name(key: &str) -> String {
    if key.is_empty() {
        return "value".into();
    }
    let clean: String = key
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' {
                b as char
            } else {
                '_'
            }
        })
        .collect();
    let mut result = String::new();
    for (i, part) in clean.split('_').filter(|p| !p.is_empty()).enumerate() {
        if i == 0 {
            if part.to_ascii_uppercase() == part {
                result = part.to_ascii_lowercase();
            } else {
                result = part[..1].to_ascii_lowercase() + &part[1..];
            }
        } else {
            result += &part[..1].to_ascii_uppercase();
            result += &part[1..].to_ascii_lowercase();
        }
    }
    if !result.starts_with(|c: char| c.is_ascii_alphabetic()) {
        result = format!("field_{result}");
    }
    result
}

/// catalogd's `sanitizeTypeName`: a schema (or field) name as a GraphQL type name.
pub fn sanitize_type_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let clean = clean.trim_start_matches(|c: char| c.is_ascii_digit());
    let result: String = clean
        .split('_')
        .filter(|p| !p.is_empty())
        .map(|p| p[..1].to_ascii_uppercase() + &p[1..].to_ascii_lowercase())
        .collect();
    if result.is_empty() {
        "Unknown".into()
    } else {
        result
    }
}

/// The root query field of a schema: its letters and digits, lowercased, plus `s`
/// (`olm.bundle` → `olmbundles`).
pub fn root_field_name(schema: &str) -> String {
    let kept: String = schema.chars().filter(char::is_ascii_alphanumeric).collect();
    format!("{}s", kept.to_lowercase())
}

#[cfg(test)]
mod tests;
