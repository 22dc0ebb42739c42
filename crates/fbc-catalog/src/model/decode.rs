//! Helpers to read typed fields out of JSON objects the way Go's `encoding/json`
//! does for the catalog structs: keys match case-insensitively (an exact match
//! wins), `null` reads as the zero value, and a wrong type is an error naming the
//! field.

use crate::source::kind_of;
use serde_json::{Map, Value};

/// Finds `field` in `obj`: the exact key, else the last key equal ignoring case.
pub fn field<'a>(obj: &'a Map<String, Value>, field: &str) -> Option<&'a Value> {
    if let Some(v) = obj.get(field) {
        return Some(v);
    }
    obj.iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(field))
        .map(|(_, v)| v)
        .next_back()
}

/// A string field; absent or `null` is `""`.
pub fn string(obj: &Map<String, Value>, name: &str) -> Result<String, String> {
    match field(obj, name) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!(
            "field {name:?} must be a string, found {}",
            kind_of(other)
        )),
    }
}

/// A list-of-strings field; absent or `null` is empty.
pub fn strings(obj: &Map<String, Value>, name: &str) -> Result<Vec<String>, String> {
    match field(obj, name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Null => Ok(String::new()),
                other => Err(format!(
                    "{name}[{i}] must be a string, found {}",
                    kind_of(other)
                )),
            })
            .collect(),
        Some(other) => Err(format!(
            "field {name:?} must be a list, found {}",
            kind_of(other)
        )),
    }
}

/// A list-of-objects field; absent or `null` is empty.
pub fn objects<'a>(
    obj: &'a Map<String, Value>,
    name: &str,
) -> Result<Vec<Option<&'a Map<String, Value>>>, String> {
    match field(obj, name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Object(m) => Ok(Some(m)),
                Value::Null => Ok(None),
                other => Err(format!(
                    "{name}[{i}] must be an object, found {}",
                    kind_of(other)
                )),
            })
            .collect(),
        Some(other) => Err(format!(
            "field {name:?} must be a list, found {}",
            kind_of(other)
        )),
    }
}

/// An object field; absent or `null` is `None`.
pub fn object<'a>(
    obj: &'a Map<String, Value>,
    name: &str,
) -> Result<Option<&'a Map<String, Value>>, String> {
    match field(obj, name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(other) => Err(format!(
            "field {name:?} must be an object, found {}",
            kind_of(other)
        )),
    }
}

/// The value itself as an object (a property value, a list item).
pub fn as_object<'a>(
    value: &'a Value,
    what: &str,
) -> Result<Option<&'a Map<String, Value>>, String> {
    match value {
        Value::Object(m) => Ok(Some(m)),
        Value::Null => Ok(None),
        other => Err(format!(
            "{what} must be an object, found {}",
            kind_of(other)
        )),
    }
}

/// Removes and returns `field` from `obj` (exact key first, else ignoring case), so a
/// large value can be moved instead of copied.
pub fn take_field(obj: &mut Map<String, Value>, field: &str) -> Option<Value> {
    if let Some(v) = obj.remove(field) {
        return Some(v);
    }
    let key = obj
        .keys()
        .rfind(|k| k.eq_ignore_ascii_case(field))
        .cloned()?;
    obj.remove(&key)
}
