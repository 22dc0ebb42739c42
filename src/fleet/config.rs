//! What catalogs one process serves: the `--config` file and the `--catalog` flags.
//!
//! In: the file's YAML (`catalogs:` a list of `name`, `source`, `port`, `pollInterval`,
//! `priority`, `filter`, `limits`), and flag values `NAME=SOURCE[,port=N][,pollInterval=D]
//! [,priority=P][,filter=FILE]`. Out: [`CatalogSpec`]s in the order given, every one checked — a name
//! catalogd accepts and no other catalog has, a source, a port no other catalog has —
//! or a [`ConfigError`] naming the file, the line, the entry and the field.
//!
//! The file comes from whoever can write it, so it is read with limits (size, YAML
//! budget, number of catalogs) and unknown keys are refused, not ignored: a typo in
//! `pollInterval` must not silently turn polling off.

use super::values::{parse_duration, parse_size};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The largest config file read.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// The most catalogs one process serves.
pub const MAX_CATALOGS: usize = 256;
/// The longest `source`.
const MAX_SOURCE_BYTES: usize = 4096;

/// One catalog to serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogSpec {
    /// Its name: `/catalogs/NAME/…` over HTTP and the gRPC health service name.
    pub name: String,
    /// A directory or an image reference, as written.
    pub source: String,
    /// Its own `api.Registry` port (0: any free port); `None`: served over HTTP only.
    pub port: Option<u16>,
    /// How often an image tag is polled; `None`: the server-wide `--poll-interval`.
    pub poll_interval: Option<Duration>,
    /// Clients prefer a catalog of higher priority when several carry a package
    /// (OLM v0's `CatalogSource.spec.priority`, catalogd's `ClusterCatalog.spec.priority`).
    pub priority: i32,
    /// A filter file the catalog is served through (see `crate::snapshot::filtered`),
    /// relative to the working directory as `source` is.
    pub filter: Option<PathBuf>,
    /// Limits that differ from the server-wide flags.
    pub limits: CatalogLimits,
    /// Where it was written: `FILE:LINE` or `--catalog`.
    pub origin: String,
}

/// Per-catalog overrides of the server-wide limit flags; `None` keeps the flag's value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CatalogLimits {
    /// `--max-file-size`.
    #[serde(default, deserialize_with = "size")]
    pub max_file_size: Option<u64>,
    /// `--max-document-size`.
    #[serde(default, deserialize_with = "size")]
    pub max_document_size: Option<u64>,
    /// `--max-depth`.
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// `--max-yaml-alias-nodes`.
    #[serde(default)]
    pub max_yaml_alias_nodes: Option<usize>,
    /// `--load-timeout`.
    #[serde(default, deserialize_with = "duration")]
    pub load_timeout: Option<Duration>,
    /// `--max-layers`.
    #[serde(default)]
    pub max_layers: Option<usize>,
    /// `--max-image-size`.
    #[serde(default, deserialize_with = "size")]
    pub max_image_size: Option<u64>,
    /// `--max-unpack-size`.
    #[serde(default, deserialize_with = "size")]
    pub max_unpack_size: Option<u64>,
    /// `--max-unpack-entries`.
    #[serde(default)]
    pub max_unpack_entries: Option<u64>,
}

/// Why the catalogs cannot be served as written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ConfigError {
    /// `FILE`, `FILE:LINE:COLUMN`, or `--catalog VALUE`.
    pub origin: String,
    /// What is wrong, with the entry and field.
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    catalogs: Vec<serde_saphyr::Spanned<RawCatalog>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCatalog {
    name: String,
    source: String,
    #[serde(default)]
    port: Option<u16>,
    #[serde(default, deserialize_with = "duration")]
    poll_interval: Option<Duration>,
    #[serde(default)]
    priority: i32,
    #[serde(default)]
    filter: Option<PathBuf>,
    #[serde(default)]
    limits: CatalogLimits,
}

/// Reads and checks the config file at `path`.
pub fn read_file(path: &Path) -> Result<Vec<CatalogSpec>, ConfigError> {
    let file = path.display().to_string();
    let failed = |message: String| ConfigError {
        origin: file.clone(),
        message,
    };
    let bytes = read_capped(path, MAX_FILE_BYTES).map_err(failed)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        failed(format!(
            "not UTF-8 (byte {} is not valid)",
            e.utf8_error().valid_up_to()
        ))
    })?;
    parse(&file, &text)
}

/// The bytes of the regular file at `path`, refused when it holds more than `max`
/// (the library's reader: a FIFO or a device in its place is refused, never waited on).
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    fbc_catalog::source::read::read_regular(path, max, &mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Parses and checks config text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Vec<CatalogSpec>, ConfigError> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: 100_000,
            max_aliases: 0,
            max_anchors: 0,
            max_depth: 16,
            max_documents: 1,
        },
        with_snippet: false,
    };
    let raw: RawFile = if text.trim().is_empty() {
        RawFile {
            catalogs: Vec::new(),
        }
    } else {
        serde_saphyr::from_str_with_options(text, options).map_err(|e| {
            let origin = match e.location() {
                Some(at) if at.line() > 0 => format!("{file}:{}:{}", at.line(), at.column()),
                _ => file.to_owned(),
            };
            ConfigError {
                origin,
                message: first_line(&e.to_string()),
            }
        })?
    };
    if raw.catalogs.len() > MAX_CATALOGS {
        return Err(ConfigError {
            origin: file.to_owned(),
            message: format!(
                "catalogs: {} entries; at most {MAX_CATALOGS}",
                raw.catalogs.len()
            ),
        });
    }
    let specs = raw
        .catalogs
        .into_iter()
        .enumerate()
        .map(|(i, entry)| {
            let origin = format!("{file}:{}", entry.defined.line());
            let raw = entry.value;
            let spec = CatalogSpec {
                name: raw.name,
                source: raw.source,
                port: raw.port,
                poll_interval: raw.poll_interval,
                priority: raw.priority,
                filter: raw.filter,
                limits: raw.limits,
                origin,
            };
            check_one(&spec).map_err(|message| ConfigError {
                origin: spec.origin.clone(),
                message: format!("catalogs[{i}]: {message}"),
            })?;
            Ok(spec)
        })
        .collect::<Result<Vec<_>, ConfigError>>()?;
    Ok(specs)
}

/// The first line of a parser's message (its rendering may add a snippet below).
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_owned()
}

/// Reads one `--catalog NAME=SOURCE[,port=N][,pollInterval=D][,priority=P][,filter=FILE]` value.
pub fn parse_flag(value: &str) -> Result<CatalogSpec, ConfigError> {
    let failed = |message: String| ConfigError {
        origin: format!("--catalog {value}"),
        message,
    };
    let (name, rest) = value
        .split_once('=')
        .ok_or_else(|| failed("write NAME=SOURCE[,port=N]".to_owned()))?;
    // A source may hold commas only in options that follow it: an image reference or
    // a path with a comma would be ambiguous, so the options are the `key=value` tail.
    let mut parts = rest.split(',');
    let source = parts.next().unwrap_or_default();
    let mut spec = CatalogSpec {
        name: name.to_owned(),
        source: source.to_owned(),
        port: None,
        poll_interval: None,
        priority: 0,
        filter: None,
        limits: CatalogLimits::default(),
        origin: "--catalog".to_owned(),
    };
    for option in parts {
        let (key, v) = option
            .split_once('=')
            .ok_or_else(|| failed(format!("{option:?}: write key=value")))?;
        match key {
            "port" => {
                spec.port = Some(
                    v.parse()
                        .map_err(|_| failed(format!("port: {v:?} is not a port number")))?,
                )
            }
            "pollInterval" | "poll-interval" => {
                spec.poll_interval =
                    Some(parse_duration(v).map_err(|e| failed(format!("pollInterval: {e}")))?)
            }
            "priority" => {
                spec.priority = v
                    .parse()
                    .map_err(|_| failed(format!("priority: {v:?} is not a whole number")))?
            }
            "filter" => spec.filter = Some(PathBuf::from(v)),
            other => {
                return Err(failed(format!(
                    "unknown option {other:?} (port, pollInterval, priority, filter)"
                )));
            }
        }
    }
    check_one(&spec).map_err(failed)?;
    Ok(spec)
}

/// What one entry must be on its own.
fn check_one(spec: &CatalogSpec) -> Result<(), String> {
    fbc_catalog::catalogd::name::check(&spec.name)
        .map_err(|e| format!("name {:?}: {e}", spec.name))?;
    if spec.source.trim().is_empty() {
        return Err(format!("{:?}: source is empty", spec.name));
    }
    if spec.source.len() > MAX_SOURCE_BYTES {
        return Err(format!(
            "{:?}: source is longer than {MAX_SOURCE_BYTES} bytes",
            spec.name
        ));
    }
    if spec
        .poll_interval
        .is_some_and(|d| d < Duration::from_secs(1))
    {
        return Err(format!("{:?}: pollInterval must be at least 1s", spec.name));
    }
    if spec
        .filter
        .as_ref()
        .is_some_and(|f| f.as_os_str().is_empty())
    {
        return Err(format!("{:?}: filter must name a file", spec.name));
    }
    Ok(())
}

/// Checks the catalogs together: no two share a name or a (non-zero) port, and none
/// takes a port in `taken` (the server's own listeners).
pub fn check_all(specs: &[CatalogSpec], taken: &[u16]) -> Result<(), ConfigError> {
    for (i, spec) in specs.iter().enumerate() {
        let failed = |message: String| ConfigError {
            origin: spec.origin.clone(),
            message: format!("{:?}: {message}", spec.name),
        };
        if let Some(earlier) = specs[..i].iter().find(|s| s.name == spec.name) {
            return Err(failed(format!("name is also given at {}", earlier.origin)));
        }
        let Some(port) = spec.port.filter(|p| *p != 0) else {
            continue;
        };
        if let Some(earlier) = specs[..i].iter().find(|s| s.port == Some(port)) {
            return Err(failed(format!(
                "port {port} is also the port of {:?} ({})",
                earlier.name, earlier.origin
            )));
        }
        if taken.contains(&port) {
            return Err(failed(format!(
                "port {port} is one of the server's own listeners"
            )));
        }
    }
    Ok(())
}

fn duration<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(d)?;
    parse_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

fn size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Size {
        Bytes(u64),
        Text(String),
    }
    match Size::deserialize(d)? {
        Size::Bytes(n) => Ok(Some(n)),
        Size::Text(text) => parse_size(&text)
            .map(Some)
            .map_err(serde::de::Error::custom),
    }
}

#[cfg(test)]
mod tests;
