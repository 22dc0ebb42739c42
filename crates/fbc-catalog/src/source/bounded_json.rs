//! JSON values with a nesting limit.
//!
//! In: JSON text and a maximum depth. Out: `serde_json::Value`s, or an error at
//! the first array or object that would open deeper than the limit (with its line
//! and column). `serde_json` has a fixed ceiling of its own (128); this lets the
//! operator's `--max-depth` apply to JSON exactly as to YAML.
//!
//! Written by hand because `serde_json`'s `Value` visitor has no depth parameter:
//! [`Bounded`] is that visitor with a countdown. `StreamDeserializer` only takes
//! `Deserialize` types (no seeds), so the limit reaches it through a thread-local
//! set for the duration of one [`stream`] call.

use serde::de::{self, Deserialize, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::fmt;

thread_local! {
    /// (max depth, whether the last failure on this thread was the depth limit)
    static DEPTH: Cell<(usize, bool)> = const { Cell::new((super::limits::DEPTH_CEILING, false)) };
}

/// A JSON value whose nesting was checked while it was parsed.
pub struct Bounded(pub Value);

/// One value of a JSON stream, or why it did not parse.
pub struct StreamItem {
    /// Byte offset where the previous value ended (the value starts at the first
    /// non-space byte from here).
    pub start: usize,
    /// The value, or the parser's error (which carries the line and column).
    pub value: Result<Value, serde_json::Error>,
    /// Whether the error is the depth limit (ours, or serde_json's own ceiling).
    pub too_deep: bool,
}

/// The values of a JSON stream, each within `max_depth` nested arrays and objects.
pub fn stream(text: &str, max_depth: usize) -> impl Iterator<Item = StreamItem> + '_ {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Bounded>();
    std::iter::from_fn(move || {
        let start = values.byte_offset();
        let previous = DEPTH.replace((max_depth, false));
        let next = values.next();
        let (_, exceeded) = DEPTH.replace(previous);
        let value = next?.map(|b| b.0);
        let too_deep = exceeded
            || value
                .as_ref()
                .is_err_and(|e| e.to_string().starts_with("recursion limit exceeded"));
        Some(StreamItem {
            start,
            value,
            too_deep,
        })
    })
}

/// The message of a depth error: `nesting deeper than N levels (limit --max-depth)`.
pub fn depth_message(max_depth: usize) -> String {
    format!("nesting deeper than {max_depth} levels (limit --max-depth)")
}

struct Limited {
    left: usize,
}

impl<'de> Deserialize<'de> for Bounded {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (max, _) = DEPTH.get();
        Limited { left: max }.deserialize(d).map(Bounded)
    }
}

impl<'de> DeserializeSeed<'de> for Limited {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl Limited {
    fn open<E: de::Error>(&self) -> Result<Limited, E> {
        if self.left == 0 {
            let (max, _) = DEPTH.get();
            DEPTH.set((max, true));
            return Err(E::custom(depth_message(max)));
        }
        Ok(Limited {
            left: self.left - 1,
        })
    }
}

impl<'de> Visitor<'de> for Limited {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.open()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Limited { left: inner.left })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.open()?;
        let mut values = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Limited { left: inner.left })?;
            values.insert(key, value);
        }
        Ok(Value::Object(values))
    }
}
