//! JSON values → `google.protobuf.Struct`, for custom-schema blobs.
//! Numbers become doubles, as in the reference.

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value as PValue};
use serde_json::Value;

/// Converts a JSON value (an object) into a Struct; non-objects give an empty Struct.
pub fn to_struct(value: &Value) -> Struct {
    match value {
        Value::Object(map) => Struct {
            fields: map.iter().map(|(k, v)| (k.clone(), to_value(v))).collect(),
        },
        _ => Struct::default(),
    }
}

fn to_value(value: &Value) -> PValue {
    let kind = match value {
        Value::Null => Kind::NullValue(0),
        Value::Bool(b) => Kind::BoolValue(*b),
        Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => Kind::StringValue(s.clone()),
        Value::Array(items) => Kind::ListValue(ListValue {
            values: items.iter().map(to_value).collect(),
        }),
        Value::Object(_) => Kind::StructValue(to_struct(value)),
    };
    PValue { kind: Some(kind) }
}
