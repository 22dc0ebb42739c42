//! A GraphQL result as catalogd's handler writes it.
//!
//! In: async-graphql's response, and the paths of list elements that are
//! `null`. Out: the bytes of `json.NewEncoder(w).Encode(result)` on
//! graphql-go's `Result`: `{"data":…,"errors":[…]}` (errors left out when
//! none), object keys sorted (graphql-go's data are Go maps), each error
//! `{"message","locations","path"}` in that order (a struct), `<`, `>`, `&`
//! escaped, numbers as Go's `float64`s, and a final newline.

use async_graphql::{PathSegment, Response, ServerError};
use fbc_catalog::source::json::{Html, Numbers, write_string, write_value};
use serde_json::Value;

/// `{"data":null,"errors":[{"message":…,"locations":[]}]}`: an answer with one
/// error and no location (catalogd's caps, parse errors, the deadline).
pub fn error_only(message: &str) -> Vec<u8> {
    let mut out = String::from("{\"data\":null,\"errors\":[{\"message\":");
    write_string(&mut out, message, Html::Escape);
    out.push_str(",\"locations\":[]}]}\n");
    out.into_bytes()
}

/// The whole answer.
pub fn encode(response: Response, nulls: Vec<Value>) -> Vec<u8> {
    let mut data = response.data.into_json().unwrap_or(Value::Null);
    for path in &nulls {
        set_null(&mut data, path);
    }
    let mut out = String::from("{\"data\":");
    write_value(&mut out, &data, Html::Escape, Numbers::Float64);
    // async-graphql reports some rule twice (an operation type the schema
    // lacks); graphql-go once.
    let mut errors: Vec<&ServerError> = Vec::new();
    for error in &response.errors {
        if !errors.iter().any(|e| {
            e.message == error.message && e.locations == error.locations && e.path == error.path
        }) {
            errors.push(error);
        }
    }
    if !errors.is_empty() {
        out.push_str(",\"errors\":[");
        for (i, error) in errors.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_error(&mut out, error);
        }
        out.push(']');
    }
    out.push_str("}\n");
    out.into_bytes()
}

fn write_error(out: &mut String, error: &ServerError) {
    let (message, no_locations) = super::messages::translate(&error.message);
    out.push_str("{\"message\":");
    write_string(out, &message, Html::Escape);
    out.push_str(",\"locations\":[");
    if !no_locations {
        for (i, pos) in error.locations.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!(
                "{{\"line\":{},\"column\":{}}}",
                pos.line, pos.column
            ));
        }
    }
    out.push(']');
    if !error.path.is_empty() {
        out.push_str(",\"path\":[");
        for (i, segment) in error.path.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match segment {
                PathSegment::Field(name) => write_string(out, name, Html::Escape),
                PathSegment::Index(index) => out.push_str(&index.to_string()),
            }
        }
        out.push(']');
    }
    out.push('}');
}

/// Sets the value at `path` (keys and indexes) to `null`.
fn set_null(data: &mut Value, path: &Value) {
    let Some(segments) = path.as_array() else {
        return;
    };
    let mut at = data;
    for segment in segments {
        let next = match segment {
            Value::String(key) => at.get_mut(key.as_str()),
            Value::Number(n) => n.as_u64().and_then(|i| at.get_mut(i as usize)),
            _ => None,
        };
        match next {
            Some(next) => at = next,
            None => return,
        }
    }
    *at = Value::Null;
}
