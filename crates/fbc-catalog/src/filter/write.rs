//! The plan + the input's metas → the output's metas.
//!
//! In: a [`Plan`], the input's meta rows and each one's normalised JSON (the
//! form catalogd serves: sorted keys, compact). Out: the kept metas in input
//! order, each as normalised JSON: unchanged bytes for a meta the filter does
//! not touch, so a filter that keeps everything writes the catalog's own
//! `/api/v1/all` stream byte for byte. Changed: a package's `defaultChannel`
//! when the configuration names another; a channel's `entries` (dropped ones
//! left out, the rest in order, each unchanged); a deprecations blob's `entries`
//! (references to dropped channels and bundles left out; the blob left out when
//! none remain). Other schemas stay when their package is kept or they name none.

use super::{FilterError, Plan};
use crate::model::{Meta, schema};
use bytes::Bytes;
use serde_json::Value;

/// One output meta: where it came from (index into the input rows) and its JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputMeta {
    /// The input row it came from.
    pub row: usize,
    /// Its normalised JSON (without a newline).
    pub json: Bytes,
    /// Whether the filter changed it.
    pub changed: bool,
}

/// The output metas (see the module docs).
pub fn output_metas(
    plan: &Plan,
    rows: &[Meta],
    json: &[Bytes],
) -> Result<Vec<OutputMeta>, FilterError> {
    let mut out = Vec::new();
    for (row, (meta, bytes)) in rows.iter().zip(json).enumerate() {
        let edited = match meta.schema.as_str() {
            schema::PACKAGE => package(plan, meta, bytes)?,
            schema::CHANNEL => channel(plan, meta, bytes)?,
            schema::BUNDLE => plan
                .keeps_bundle(&meta.package, &meta.name)
                .then(|| Edit::Same),
            schema::DEPRECATIONS => deprecations(plan, meta, bytes)?,
            _ => (meta.package.is_empty() || plan.package(&meta.package).is_some())
                .then_some(Edit::Same),
        };
        match edited {
            // A deprecations blob whose every entry went goes too (a kept
            // channel always keeps a bundle, so no channel is emptied).
            None | Some(Edit::Emptied) => {}
            Some(Edit::Same) => out.push(OutputMeta {
                row,
                json: bytes.clone(),
                changed: false,
            }),
            Some(Edit::Changed(json)) => out.push(OutputMeta {
                row,
                json,
                changed: true,
            }),
        }
    }
    Ok(out)
}

/// The output as a JSON stream: one meta per line.
pub fn json_lines(metas: &[OutputMeta]) -> Vec<u8> {
    let mut out = Vec::with_capacity(metas.iter().map(|m| m.json.len() + 1).sum());
    for m in metas {
        out.extend_from_slice(&m.json);
        out.push(b'\n');
    }
    out
}

enum Edit {
    Same,
    Changed(Bytes),
    /// Every entry of its `entries` list was removed.
    Emptied,
}

fn parse(meta: &Meta, bytes: &[u8]) -> Result<serde_json::Map<String, Value>, FilterError> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(FilterError::Metas(format!(
            "{}: the {} blob {:?} no longer reads as a JSON object",
            meta.origin, meta.schema, meta.name
        ))),
    }
}

fn encode(map: serde_json::Map<String, Value>) -> Bytes {
    // A map of parsed JSON always encodes.
    Bytes::from(serde_json::to_vec(&Value::Object(map)).unwrap_or_default())
}

fn package(plan: &Plan, meta: &Meta, bytes: &Bytes) -> Result<Option<Edit>, FilterError> {
    let Some(p) = plan.package(&meta.name) else {
        return Ok(None);
    };
    if p.default_channel == p.input_default_channel {
        return Ok(Some(Edit::Same));
    }
    let mut map = parse(meta, bytes)?;
    map.insert(
        "defaultChannel".into(),
        Value::String(p.default_channel.clone()),
    );
    Ok(Some(Edit::Changed(encode(map))))
}

fn channel(plan: &Plan, meta: &Meta, bytes: &Bytes) -> Result<Option<Edit>, FilterError> {
    let Some(c) = plan
        .package(&meta.package)
        .and_then(|p| p.channels.iter().find(|c| c.name == meta.name))
    else {
        return Ok(None);
    };
    retain_entries(meta, bytes, |e| {
        let name = e.get("name").and_then(Value::as_str).unwrap_or_default();
        c.bundles.iter().any(|b| b.name == name)
    })
}

fn deprecations(plan: &Plan, meta: &Meta, bytes: &Bytes) -> Result<Option<Edit>, FilterError> {
    let Some(p) = plan.package(&meta.package) else {
        return Ok(None);
    };
    retain_entries(meta, bytes, |e| {
        let reference = e.get("reference");
        let field = |k: &str| {
            reference
                .and_then(|r| r.get(k))
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        match field("schema") {
            schema::BUNDLE => plan.keeps_bundle(&p.name, field("name")),
            schema::CHANNEL => p.channels.iter().any(|c| c.name == field("name")),
            _ => true,
        }
    })
}

/// The meta with only the `entries` that `keep` accepts: the same bytes when
/// it accepts all (or there is no `entries` list).
fn retain_entries(
    meta: &Meta,
    bytes: &Bytes,
    keep: impl Fn(&Value) -> bool,
) -> Result<Option<Edit>, FilterError> {
    let mut map = parse(meta, bytes)?;
    let Some(Value::Array(entries)) = map.get_mut("entries") else {
        return Ok(Some(Edit::Same));
    };
    let before = entries.len();
    entries.retain(keep);
    Ok(Some(match entries.len() {
        n if n == before => Edit::Same,
        0 => Edit::Emptied,
        _ => Edit::Changed(encode(map)),
    }))
}
