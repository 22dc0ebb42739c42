//! One catalog object as catalogd's resolvers see it, without a full parse.
//!
//! In: a meta's JSON text (a slice of the snapshot's JSON Lines) or a list
//! element inside one. Out: a [`RawObject`]: its top-level keys, each with its
//! GraphQL name and the span of its value's text. Values are parsed only when a
//! query selects them, and a list of objects is split into its elements only
//! when selected, so a page of bundles costs one scan of each bundle's keys.

use bytes::Bytes;
use fbc_catalog::catalogd::schema::remap_field_name;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::ops::Range;

/// A JSON object: its keys (sorted) and the text of each value.
#[derive(Debug, Default)]
pub struct RawObject {
    text: Bytes,
    /// (JSON key, GraphQL name, span of the value in `text`), sorted by key.
    fields: Vec<(String, String, Range<usize>)>,
}

/// What one element of a JSON list is, for a list-of-objects field.
#[derive(Debug)]
pub enum Element {
    /// `null`: graphql-go answers null for it.
    Null,
    /// Anything else: an object's fields, or none (a scalar element's fields all
    /// resolve to null, as catalogd's resolvers find no map).
    Object(RawObject),
}

impl RawObject {
    /// The object `text` holds, or `None` when it is not a JSON object.
    pub fn parse(text: Bytes) -> Option<RawObject> {
        let map: BTreeMap<String, &RawValue> = serde_json::from_slice(&text).ok()?;
        let base = text.as_ptr() as usize;
        let fields = map
            .into_iter()
            .map(|(key, value)| {
                let start = value.get().as_ptr() as usize - base;
                let span = start..start + value.get().len();
                let name = remap_field_name(&key);
                (key, name, span)
            })
            .collect();
        Some(RawObject { text, fields })
    }

    /// A top-level field: the first key (in sorted order) whose GraphQL name is
    /// `name` (catalogd takes whichever its map iteration meets first).
    pub fn by_name(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(_, remapped, _)| remapped == name)
            .map(|(_, _, span)| self.value_text(span))
    }

    /// A field of a list element: the key spelled `name` itself first, then as
    /// [`RawObject::by_name`] (catalogd's nested resolvers look up both ways).
    pub fn by_key_then_name(&self, name: &str) -> Option<&str> {
        match self
            .fields
            .binary_search_by(|(key, _, _)| key.as_str().cmp(name))
        {
            Ok(at) => Some(self.value_text(&self.fields[at].2)),
            Err(_) => self.by_name(name),
        }
    }

    fn value_text(&self, span: &Range<usize>) -> &str {
        // The span came from a `&str` the parser borrowed from `text`.
        std::str::from_utf8(&self.text[span.clone()]).unwrap_or("null")
    }

    /// The elements of the JSON list `text` (a value of this object), or `None`
    /// when it is not a list.
    pub fn elements(&self, text: &str) -> Option<Vec<Element>> {
        let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
        let base = self.text.as_ptr() as usize;
        let elements = items
            .into_iter()
            .map(|item| {
                let raw = item.get();
                if raw == "null" {
                    return Element::Null;
                }
                // `text` is a slice of `self.text` (from the lookups above); a
                // foreign one yields objects without fields rather than a panic.
                let start = (raw.as_ptr() as usize).checked_sub(base);
                let object = start
                    .filter(|start| start + raw.len() <= self.text.len())
                    .and_then(|start| RawObject::parse(self.text.slice(start..start + raw.len())));
                Element::Object(object.unwrap_or_default())
            })
            .collect();
        Some(elements)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> RawObject {
        RawObject::parse(Bytes::from(text.to_string())).unwrap()
    }

    #[test]
    fn fields_are_found_by_graphql_name_and_list_elements_by_key_first() {
        let o = object(r#"{"default-channel":"a","name":"n","props":[{"type":"x"},null,3]}"#);
        assert_eq!(o.by_name("defaultChannel"), Some(r#""a""#));
        assert_eq!(o.by_name("default-channel"), None);
        assert_eq!(o.by_key_then_name("name"), Some(r#""n""#));
        let elements = o.elements(o.by_name("props").unwrap()).unwrap();
        assert_eq!(elements.len(), 3);
        match &elements[0] {
            Element::Object(e) => assert_eq!(e.by_key_then_name("type"), Some(r#""x""#)),
            Element::Null => panic!("an object"),
        }
        assert!(matches!(elements[1], Element::Null));
        match &elements[2] {
            Element::Object(e) => assert_eq!(e.by_name("type"), None),
            Element::Null => panic!("a scalar is an object without fields"),
        }
        assert!(o.elements(r#""text""#).is_none());
    }

    #[test]
    fn not_an_object_is_none() {
        assert!(RawObject::parse(Bytes::from_static(b"[1]")).is_none());
        assert!(RawObject::parse(Bytes::from_static(b"{")).is_none());
    }

    #[test]
    fn colliding_keys_resolve_to_the_first_in_sorted_order() {
        let o = object(r#"{"a-b":1,"a_b":2,"aB":3}"#);
        assert_eq!(o.by_name("aB"), Some("1"));
        assert_eq!(o.by_key_then_name("aB"), Some("3"));
    }
}
