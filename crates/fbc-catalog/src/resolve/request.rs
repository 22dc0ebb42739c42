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
//! {"catalog": {"name": "cat", "namespace": "olm", "priority": 0},
//!  "catalogs": [{"name": "other", "namespace": "olm", "priority": 10}],
//!  "subscriptions": [{"name": "a", "package": "a", "channel": "stable",
//!                     "startingCSV": "", "installedCSV": "a.v1"}],
//!  "installed": [{"name": "a.v1", "package": "a", "version": "1.0.0",
//!                 "properties": [{"type": "olm.gvk", "value": {"group": "g", "version": "v1", "kind": "K"}}]}]}
//! ```
//!
//! `catalogs` (optional) names more catalogs, as OLM v0 sees several
//! CatalogSources; a subscription names its own with `catalog` and
//! `catalogNamespace` (neither given: the first catalog; a name without a
//! namespace names none, as in OLM). `namespace` is the namespace
//! resolved in (default `operators`) and `globalNamespace` OLM's global one
//! (default `olm`): catalogs in any other namespace are not seen.
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

/// A catalog of the request (a CatalogSource, for OLM).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogRef {
    /// The CatalogSource's name.
    pub name: String,
    /// Its namespace (default `olm`).
    pub namespace: String,
    /// Its `spec.priority`: dependencies prefer higher.
    pub priority: i32,
}

/// A catalog as a subscription names it: name and namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogKey {
    /// The CatalogSource's name.
    pub name: String,
    /// Its namespace; empty names no catalog.
    pub namespace: String,
}

/// Most catalogs one request may name.
pub const MAX_CATALOGS: usize = 64;

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
    /// Its catalog (when neither name nor namespace is given: the first catalog).
    pub catalog: CatalogKey,
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
    /// The catalogs: `catalog`, then `catalogs`, in request order.
    pub catalogs: Vec<CatalogRef>,
    /// The namespace resolved in (default `operators`).
    pub namespace: String,
    /// OLM's global namespace (default `olm`).
    pub global_namespace: String,
    /// The subscriptions, in request order.
    pub subscriptions: Vec<Subscription>,
    /// The installed CSVs, in request order.
    pub installed: Vec<InstalledCsv>,
}

impl Request {
    /// The first catalog.
    pub fn catalog(&self) -> &CatalogRef {
        &self.catalogs[0]
    }

    /// The index in [`Request::catalogs`] of the catalog `(name, namespace)`, if it is
    /// one OLM would see (in the resolving or the global namespace).
    pub fn catalog_index(&self, key: &CatalogKey) -> Option<usize> {
        if key.namespace != self.namespace && key.namespace != self.global_namespace {
            return None;
        }
        self.catalogs
            .iter()
            .position(|c| c.name == key.name && c.namespace == key.namespace)
    }

    /// Whether OLM would see catalog `k` (it lists CatalogSources of the resolving
    /// and the global namespace only).
    pub fn visible(&self, k: usize) -> bool {
        self.catalogs
            .get(k)
            .is_some_and(|c| c.namespace == self.namespace || c.namespace == self.global_namespace)
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a request object",
    rename_all = "camelCase"
)]
struct RequestJson {
    catalog: CatalogJson,
    #[serde(default)]
    catalogs: Vec<CatalogJson>,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    global_namespace: String,
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
    #[serde(default)]
    priority: i32,
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
    #[serde(default)]
    catalog: String,
    #[serde(default)]
    catalog_namespace: String,
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
    if json.catalogs.len() + 1 > MAX_CATALOGS {
        return Err(field(
            "catalogs",
            format!(
                "{} catalogs, more than {MAX_CATALOGS}",
                json.catalogs.len() + 1
            ),
        ));
    }
    let mut catalogs: Vec<CatalogRef> = Vec::with_capacity(json.catalogs.len() + 1);
    for (i, c) in std::iter::once(json.catalog)
        .chain(json.catalogs)
        .enumerate()
    {
        let at = if i == 0 {
            "catalog".to_owned()
        } else {
            format!("catalogs[{}]", i - 1)
        };
        if c.name.is_empty() {
            return Err(field(format!("{at}.name"), "required"));
        }
        let namespace = or_default(c.namespace, "olm");
        if catalogs
            .iter()
            .any(|k| k.name == c.name && k.namespace == namespace)
        {
            return Err(field(
                format!("{at}.name"),
                format!("{:?} in namespace {namespace:?} is named twice", c.name),
            ));
        }
        catalogs.push(CatalogRef {
            name: c.name,
            namespace,
            priority: c.priority,
        });
    }
    let first = CatalogKey {
        name: catalogs[0].name.clone(),
        namespace: catalogs[0].namespace.clone(),
    };
    Ok(Request {
        subscriptions: subscriptions(json.subscriptions, &first)?,
        catalogs,
        namespace: or_default(json.namespace, "operators"),
        global_namespace: or_default(json.global_namespace, "olm"),
        installed: json
            .installed
            .into_iter()
            .enumerate()
            .map(|(i, csv)| installed(i, csv))
            .collect::<Result<_, _>>()?,
    })
}

fn or_default(value: String, default: &str) -> String {
    if value.is_empty() {
        default.to_owned()
    } else {
        value
    }
}

fn subscriptions(
    subs: Vec<SubscriptionJson>,
    first: &CatalogKey,
) -> Result<Vec<Subscription>, RequestError> {
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
            // As in OLM, a source with no namespace names no catalog.
            catalog: if s.catalog.is_empty() && s.catalog_namespace.is_empty() {
                first.clone()
            } else {
                CatalogKey {
                    name: if s.catalog.is_empty() {
                        first.name.clone()
                    } else {
                        s.catalog
                    },
                    namespace: s.catalog_namespace,
                }
            },
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
