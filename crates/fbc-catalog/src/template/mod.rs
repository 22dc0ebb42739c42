//! Catalog templates → the catalog they describe, as `opm alpha render-template` builds it.
//!
//! In: a template's text (YAML or JSON) and, for each bundle image it names, the bundle
//! `opm render` makes of it (the caller pulls and renders: this crate has no network).
//! Out: a [`DeclarativeConfig`] for [`crate::render::write`], or opm's error text.
//!
//! | module | in → out |
//! |---|---|
//! | [`basic`] | `olm.template.basic`: FBC entries whose bundles name only an image → those bundles rendered |
//! | [`substitutes`] | `olm.template.substitutes`: a catalog + bundles that stand in for some of its bundles → the catalog with the edges moved |
//! | [`semver`] | `olm.semver`: bundle images by channel archetype → channels and edges by semantic version |
//!
//! The type is read from the first document's `schema` ([`detect`]).

pub mod basic;
pub mod semver;
pub mod substitutes;

use crate::render::declcfg::{Bundle, GoObject};
use serde_json::Value;

pub use crate::render::DeclarativeConfig;

/// A template type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `olm.template.basic`.
    Basic,
    /// `olm.semver`.
    Semver,
    /// `olm.template.substitutes`.
    Substitutes,
}

impl Kind {
    /// The types with their names, as `opm alpha render-template TYPE` names them.
    pub const ALL: [(&'static str, Kind); 3] = [
        ("basic", Kind::Basic),
        ("semver", Kind::Semver),
        ("substitutes", Kind::Substitutes),
    ];
}

/// The first YAML or JSON document of a template as a JSON value.
pub fn first_document(text: &str) -> Result<Value, String> {
    let parsed = crate::source::parse_file("template", text);
    if let Some(blob) = parsed.blobs.into_iter().next() {
        return Ok(blob.value);
    }
    match parsed.errors.into_iter().next() {
        Some(e) => Err(e.to_string()),
        None => Err("template input missing required 'schema' field".into()),
    }
}

/// The template's type, from its `schema` (the text after the last `.`).
pub fn detect(text: &str) -> Result<Kind, String> {
    let document = first_document(text)?;
    let schema = GoObject::of(&document)
        .and_then(|o| o.get("schema"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or("template input missing required 'schema' field")?;
    let name = schema.rsplit('.').next().unwrap_or(schema);
    Kind::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, kind)| *kind)
        .ok_or_else(|| format!("unknown template schema: {name}"))
}

/// A template entry as a catalog blob (numbered from 1, in a file called `template`).
pub(crate) fn entry_blob(i: usize, value: Value) -> crate::source::Blob {
    let field = |name: &str| {
        GoObject::of(&value)
            .and_then(|o| o.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    crate::source::Blob {
        schema: field("schema"),
        package: field("package"),
        name: field("name"),
        origin: crate::source::Origin {
            file: std::sync::Arc::from("template"),
            document: i + 1,
            line: 0,
        },
        value,
    }
}

/// The bundle rendered from each image a template names (the caller's renderer).
pub trait Bundles {
    /// The bundles `image` renders to (opm's `Render` of one bundle image).
    fn render(&mut self, image: &str) -> Result<Vec<Bundle>, String>;
}

#[cfg(test)]
mod tests;
