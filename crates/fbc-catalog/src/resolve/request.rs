//! A resolution request: what `fbc-registry resolve --request FILE` and the
//! `Resolve` RPC ask.
//!
//! In: JSON text (field names exactly as written below; unknown fields are
//! errors; `catalog.fbc`, which the reference resolver's harness reads, is
//! accepted and ignored so one file feeds both). Out: a checked [`Request`] with
//! OLM's defaults applied, or a [`RequestError`] naming the line and column, or
//! the field.
//!
//! ```json
//! {"catalog": {"name": "cat", "namespace": "olm"},
//!  "subscriptions": [{"name": "a", "package": "a", "channel": "stable",
//!                     "startingCSV": "", "installedCSV": "a.v1"}],
//!  "installed": [{"name": "a.v1", "package": "a", "version": "1.0.0",
//!                 "properties": [{"type": "olm.gvk", "value": {"group": "g", "version": "v1", "kind": "K"}}]}]}
//! ```
//!
//! Defaults, as OLM and its harness apply them: an empty catalog namespace is
//! `olm`; an empty subscription name is the package's; an installed version is
//! read with blang's `ParseTolerant` (empty: `0.0.0`); installed properties
//! without `olm.package` get one, first, naming the package and version.

use crate::version_range::blang;
use serde::Deserialize;
use serde::de::IgnoredAny;
use std::collections::HashMap;

/// Most subscriptions, and most installed operators, one request may carry.
pub const MAX_OPERATORS: usize = 1000;
/// Most properties one installed operator may carry.
pub const MAX_PROPERTIES: usize = 1000;

/// Why a request is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RequestError {
    /// Not JSON, or not the request's shape (an unknown field, a wrong type).
    #[error("request, line {line} column {column}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's complaint.
        message: String,
    },
    /// A field's value is not acceptable.
    #[error("request field {field}: {message}")]
    Field {
        /// The field's path, e.g. `subscriptions[1].package`.
        field: String,
        /// What is wrong.
        message: String,
    },
}

fn field(field: impl Into<String>, message: impl Into<String>) -> RequestError {
    RequestError::Field {
        field: field.into(),
        message: message.into(),
    }
}

/// The catalog the subscriptions name (fbc-registry serves one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogRef {
    /// The CatalogSource's name.
    pub name: String,
    /// Its namespace (default `olm`).
    pub namespace: String,
}

/// One Subscription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    /// Its name (default: the package).
    pub name: String,
    /// The package subscribed to.
    pub package: String,
    /// The channel; empty for every channel.
    pub channel: String,
    /// The bundle to install first; empty for the channel head.
    pub starting_csv: String,
    /// The CSV it has installed; empty for none.
    pub installed_csv: String,
}

/// One property of an installed CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Its type, e.g. `olm.gvk`.
    pub typ: String,
    /// Its value, as compact JSON text.
    pub value: String,
}

/// One installed ClusterServiceVersion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstalledCsv {
    /// The CSV's name.
    pub name: String,
    /// Its package.
    pub package: String,
    /// Its version, read tolerantly.
    pub version: semver::Version,
    /// Its properties (with `olm.package` first when the request had none).
    pub properties: Vec<Property>,
}

/// A checked request (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The catalog.
    pub catalog: CatalogRef,
    /// The subscriptions, in request order.
    pub subscriptions: Vec<Subscription>,
    /// The installed CSVs, in request order.
    pub installed: Vec<InstalledCsv>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a request object")]
struct RequestJson {
    catalog: CatalogJson,
    #[serde(default)]
    subscriptions: Vec<SubscriptionJson>,
    #[serde(default)]
    installed: Vec<InstalledJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogJson {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default, rename = "fbc")]
    _fbc: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SubscriptionJson {
    #[serde(default)]
    name: String,
    #[serde(default)]
    package: String,
    #[serde(default)]
    channel: String,
    #[serde(default, rename = "startingCSV")]
    starting_csv: String,
    #[serde(default, rename = "installedCSV")]
    installed_csv: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InstalledJson {
    #[serde(default)]
    name: String,
    #[serde(default)]
    package: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    properties: Vec<PropertyJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PropertyJson {
    #[serde(rename = "type")]
    typ: String,
    value: serde_json::Value,
}

/// Reads and checks a request (see the module docs).
pub fn parse(text: &str) -> Result<Request, RequestError> {
    let json: RequestJson = serde_json::from_str(text).map_err(|e| {
        let text = e.to_string();
        let at = format!(" at line {} column {}", e.line(), e.column());
        RequestError::Syntax {
            line: e.line(),
            column: e.column(),
            message: text.strip_suffix(&at).unwrap_or(&text).to_owned(),
        }
    })?;
    if json.catalog.name.is_empty() {
        return Err(field("catalog.name", "required"));
    }
    for (name, count) in [
        ("subscriptions", json.subscriptions.len()),
        ("installed", json.installed.len()),
    ] {
        if count > MAX_OPERATORS {
            return Err(field(
                name,
                format!("{count} entries, more than {MAX_OPERATORS}"),
            ));
        }
    }
    let namespace = match json.catalog.namespace.as_str() {
        "" => "olm".to_owned(),
        ns => ns.to_owned(),
    };
    Ok(Request {
        catalog: CatalogRef {
            name: json.catalog.name,
            namespace,
        },
        subscriptions: subscriptions(json.subscriptions)?,
        installed: json
            .installed
            .into_iter()
            .enumerate()
            .map(|(i, csv)| installed(i, csv))
            .collect::<Result<_, _>>()?,
    })
}

fn subscriptions(subs: Vec<SubscriptionJson>) -> Result<Vec<Subscription>, RequestError> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(subs.len());
    for (i, s) in subs.into_iter().enumerate() {
        if s.package.is_empty() {
            return Err(field(format!("subscriptions[{i}].package"), "required"));
        }
        let name = if s.name.is_empty() {
            s.package.clone()
        } else {
            s.name
        };
        if let Some(first) = seen.insert(name.clone(), i) {
            return Err(field(
                format!("subscriptions[{i}].name"),
                format!("{name:?} is also the name of subscriptions[{first}]"),
            ));
        }
        out.push(Subscription {
            name,
            package: s.package,
            channel: s.channel,
            starting_csv: s.starting_csv,
            installed_csv: s.installed_csv,
        });
    }
    Ok(out)
}

fn installed(i: usize, csv: InstalledJson) -> Result<InstalledCsv, RequestError> {
    let at = |f: &str| format!("installed[{i}].{f}");
    if csv.name.is_empty() {
        return Err(field(at("name"), "required"));
    }
    if csv.properties.len() > MAX_PROPERTIES {
        return Err(field(
            at("properties"),
            format!(
                "{} entries, more than {MAX_PROPERTIES}",
                csv.properties.len()
            ),
        ));
    }
    let version = match csv.version.as_str() {
        "" => semver::Version::new(0, 0, 0),
        text => blang::parse_tolerant(text)
            .map_err(|e| field(at("version"), format!("{text:?} is not a version: {e}")))?,
    };
    let mut properties: Vec<Property> = csv
        .properties
        .into_iter()
        .map(|p| Property {
            typ: p.typ,
            value: p.value.to_string(),
        })
        .collect();
    if !properties.iter().any(|p| p.typ == "olm.package") {
        let value = serde_json::json!({"packageName": csv.package, "version": csv.version});
        properties.insert(
            0,
            Property {
                typ: "olm.package".to_owned(),
                value: value.to_string(),
            },
        );
    }
    Ok(InstalledCsv {
        name: csv.name,
        package: csv.package,
        version,
        properties,
    })
}

#[cfg(test)]
mod tests;
