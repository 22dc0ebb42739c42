//! Filter file text → a checked [`FilterConfig`].
//!
//! The schema is catalog-filter's `FilterConfiguration` (the library oc-mirror
//! vendors), YAML or JSON:
//!
//! ```yaml
//! apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1
//! kind: FilterConfiguration
//! packages:
//!   - name: foo                      # every channel, heads only
//!   - name: bar
//!     defaultChannel: stable         # the output's default channel, named explicitly
//!     channels:
//!       - name: stable
//!         versionRange: ">=1.0.0 <2.0.0"   # Masterminds syntax, as OLM v1's versionRange
//!   - name: baz
//!     bundles: [{name: baz.v1.2.0}]  # exactly these bundles (plus what keeps them valid)
//! ```
//!
//! and oc-mirror's operator fields beside it: `minVersion` and `maxVersion` (a
//! package's or a channel's window, both ends included; not with `versionRange`),
//! `full: true` (every bundle of the selected channels; at the top for every
//! package, or per package) and `headsOnly: true` (what a package or channel with
//! no selection gets anyway, stated).
//!
//! A file that lists no packages selects every package of the catalog (heads
//! only, or everything with `full: true`), as catalog-filter does.
//!
//! Checks, all reported at once, each naming its place (`packages[1].channels[0]`):
//! the apiVersion and kind; a name for every package and channel; no package or
//! channel twice; ranges that parse; `bundles` not mixed with channels, ranges or
//! `full`; `versionRange` not mixed with `minVersion`/`maxVersion` or `full`.
//! Unlike catalog-filter, unknown keys are errors (a misspelt `maxVersoin` would
//! otherwise mirror everything). Bounds: 1 MiB of text, 10,000 packages, depth 16.

use crate::version_range::masterminds::{self, Constraints};
use serde::Deserialize;
use std::collections::BTreeSet;

/// The `apiVersion` a filter file must have.
pub const API_VERSION: &str = "olm.operatorframework.io/filter/mirror/v1alpha1";
/// The `kind` a filter file must have.
pub const KIND: &str = "FilterConfiguration";
/// The largest filter file read.
pub const MAX_BYTES: usize = 1 << 20;
/// Most packages one filter may list.
pub const MAX_PACKAGES: usize = 10_000;

/// Why a filter file is refused: every problem found, each with its place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub struct ConfigError {
    /// `FILE:LINE:COLUMN: message` or `FILE: packages[i]…: message`, in file order.
    pub problems: Vec<String>,
}

/// Which bundles of a channel the configuration selects.
#[derive(Clone, Debug)]
pub enum Selection {
    /// The channel's head only (the default).
    HeadsOnly,
    /// Every bundle.
    Full,
    /// The bundles whose version the range admits (Masterminds, as written).
    Range {
        /// The range as written, for explanations.
        text: String,
        /// The parsed range.
        range: Constraints,
    },
    /// The bundles named.
    Bundles(BTreeSet<String>),
}

/// One package of the configuration.
#[derive(Clone, Debug)]
pub struct PackageFilter {
    /// The package.
    pub name: String,
    /// The output's default channel, when the configuration names one.
    pub default_channel: Option<String>,
    /// The channels named, each with its selection; empty: every channel, with
    /// [`PackageFilter::selection`].
    pub channels: Vec<ChannelFilter>,
    /// The selection of channels that do not give their own.
    pub selection: Selection,
    /// Where it is in the file (`packages[i]`).
    pub place: String,
}

/// One channel of a package's configuration.
#[derive(Clone, Debug)]
pub struct ChannelFilter {
    /// The channel.
    pub name: String,
    /// Its selection.
    pub selection: Selection,
    /// Where it is in the file (`packages[i].channels[j]`).
    pub place: String,
}

/// A checked filter configuration.
#[derive(Clone, Debug)]
pub struct FilterConfig {
    /// The packages, in file order; none listed means every package of the
    /// catalog, each with [`FilterConfig::unlisted`] (as catalog-filter reads it).
    pub packages: Vec<PackageFilter>,
    /// The selection every package gets when none is listed: heads only, or
    /// every bundle with `full: true`.
    pub unlisted: Selection,
}

impl FilterConfig {
    /// A configuration that keeps everything: every package in full.
    pub fn everything(packages: impl IntoIterator<Item = String>) -> FilterConfig {
        FilterConfig {
            packages: packages
                .into_iter()
                .enumerate()
                .map(|(i, name)| PackageFilter {
                    name,
                    default_channel: None,
                    channels: Vec::new(),
                    selection: Selection::Full,
                    place: format!("packages[{i}]"),
                })
                .collect(),
            unlisted: Selection::Full,
        }
    }

    /// The configuration with its packages listed: when it lists none, every
    /// package of `names` with [`FilterConfig::unlisted`].
    pub fn listed(&self, names: impl IntoIterator<Item = String>) -> FilterConfig {
        if !self.packages.is_empty() {
            return self.clone();
        }
        FilterConfig {
            packages: names
                .into_iter()
                .map(|name| PackageFilter {
                    place: format!("package {name} (no packages listed)"),
                    name,
                    default_channel: None,
                    channels: Vec::new(),
                    selection: self.unlisted.clone(),
                })
                .collect(),
            unlisted: self.unlisted.clone(),
        }
    }

    /// The package named `name`, if configured.
    pub fn package(&self, name: &str) -> Option<&PackageFilter> {
        self.packages.iter().find(|p| p.name == name)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawConfig {
    #[serde(default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    full: bool,
    #[serde(default)]
    heads_only: bool,
    #[serde(default)]
    packages: Vec<RawPackage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPackage {
    #[serde(default)]
    name: String,
    #[serde(default)]
    default_channel: String,
    #[serde(default)]
    version_range: String,
    #[serde(default)]
    min_version: String,
    #[serde(default)]
    max_version: String,
    #[serde(default)]
    full: bool,
    #[serde(default)]
    heads_only: bool,
    #[serde(default)]
    channels: Vec<RawChannel>,
    #[serde(default)]
    bundles: Vec<RawBundle>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawChannel {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version_range: String,
    #[serde(default)]
    min_version: String,
    #[serde(default)]
    max_version: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBundle {
    #[serde(default)]
    name: String,
}

/// A filter file as read: its checked configuration and its bytes (what a
/// digest of the filter is taken over).
#[derive(Clone, Debug)]
pub struct FilterFile {
    /// The configuration.
    pub config: FilterConfig,
    /// The file's bytes, as read.
    pub bytes: Vec<u8>,
}

/// Reads and checks the filter file at `path`: a regular file (never a FIFO or
/// a device) of at most [`MAX_BYTES`], UTF-8, then [`parse`]d.
pub fn read(path: &std::path::Path) -> Result<FilterFile, ConfigError> {
    let name = path.display().to_string();
    let one = |message: String| ConfigError {
        problems: vec![format!("{name}: {message}")],
    };
    let mut bytes = Vec::new();
    crate::source::read::read_regular(path, MAX_BYTES as u64, &mut bytes)
        .map_err(|e| one(e.to_string()))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| one(format!("not UTF-8 (byte {} is not valid)", e.valid_up_to())))?;
    let config = parse(&name, text)?;
    Ok(FilterFile { config, bytes })
}

/// Parses and checks filter text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<FilterConfig, ConfigError> {
    let one = |message: String| ConfigError {
        problems: vec![format!("{file}: {message}")],
    };
    if text.len() > MAX_BYTES {
        return Err(one(format!(
            "{} bytes; a filter file may have at most {MAX_BYTES}",
            text.len()
        )));
    }
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: 1_000_000,
            max_aliases: 0,
            max_anchors: 0,
            max_depth: 16,
            max_documents: 1,
        },
        with_snippet: false,
    };
    let raw: RawConfig = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let at = match e.location() {
            Some(at) if at.line() > 0 => format!("{file}:{}:{}", at.line(), at.column()),
            _ => file.to_owned(),
        };
        let message = e.to_string();
        let first = message
            .lines()
            .next()
            .unwrap_or("not a filter configuration");
        ConfigError {
            problems: vec![format!("{at}: {first}")],
        }
    })?;
    check(file, raw)
}

/// The checks of the module docs, every problem collected.
fn check(file: &str, raw: RawConfig) -> Result<FilterConfig, ConfigError> {
    let mut problems = Vec::new();
    let mut problem = |place: &str, message: String| {
        problems.push(if place.is_empty() {
            format!("{file}: {message}")
        } else {
            format!("{file}: {place}: {message}")
        })
    };
    if raw.api_version != API_VERSION {
        problem(
            "apiVersion",
            format!("is {:?}; expected {API_VERSION:?}", raw.api_version),
        );
    }
    if raw.kind != KIND {
        problem("kind", format!("is {:?}; expected {KIND:?}", raw.kind));
    }
    if raw.packages.len() > MAX_PACKAGES {
        problem(
            "packages",
            format!("{} entries; at most {MAX_PACKAGES}", raw.packages.len()),
        );
    }
    let mut seen = BTreeSet::new();
    let mut packages = Vec::new();
    for (i, p) in raw.packages.into_iter().enumerate() {
        let place = format!("packages[{i}]");
        if p.name.is_empty() {
            problem(&place, "name must be specified".into());
        } else if !seen.insert(p.name.clone()) {
            problem(&place, format!("package {:?} is listed twice", p.name));
        }
        match package(p, &place, raw.full, raw.heads_only) {
            Ok(package) => packages.push(package),
            Err(errors) => errors.into_iter().for_each(|(at, m)| problem(&at, m)),
        }
    }
    if raw.full && raw.heads_only {
        problem("", "full and headsOnly exclude each other".into());
    }
    if problems.is_empty() {
        let unlisted = if raw.full {
            Selection::Full
        } else {
            Selection::HeadsOnly
        };
        Ok(FilterConfig { packages, unlisted })
    } else {
        Err(ConfigError { problems })
    }
}

type Problems = Vec<(String, String)>;

/// One package checked.
fn package(
    p: RawPackage,
    place: &str,
    all_full: bool,
    all_heads: bool,
) -> Result<PackageFilter, Problems> {
    let mut problems: Problems = Vec::new();
    let full = p.full || all_full;
    let heads = p.heads_only || all_heads;
    if !p.bundles.is_empty() && (!p.channels.is_empty() || has_window(&p)) {
        problems.push((
            place.into(),
            "mixing both filtering by bundles and filtering by channels or versionRange is not allowed".into(),
        ));
    }
    if full && heads {
        problems.push((place.into(), "full and headsOnly exclude each other".into()));
    }
    if (full || heads) && !p.bundles.is_empty() {
        problems.push((
            place.into(),
            "full or headsOnly cannot be mixed with bundles".into(),
        ));
    }
    let own = window(
        &p.version_range,
        &p.min_version,
        &p.max_version,
        place,
        full,
    );
    let selection = match own {
        Ok(Some(selection)) => selection,
        Ok(None) if !p.bundles.is_empty() => bundles(&p.bundles, place, &mut problems),
        Ok(None) if full => Selection::Full,
        Ok(None) => Selection::HeadsOnly,
        Err(e) => {
            problems.push(e);
            Selection::HeadsOnly
        }
    };
    let package_window = has_window(&p);
    let mut names = BTreeSet::new();
    let mut channels = Vec::new();
    for (j, c) in p.channels.into_iter().enumerate() {
        let place = format!("{place}.channels[{j}]");
        if c.name.is_empty() {
            problems.push((place.clone(), "name must be specified".into()));
        } else if !names.insert(c.name.clone()) {
            problems.push((
                place.clone(),
                format!("channel {:?} is listed twice", c.name),
            ));
        }
        let own = window(
            &c.version_range,
            &c.min_version,
            &c.max_version,
            &place,
            full,
        );
        if package_window && !matches!(own, Ok(None)) {
            problems.push((
                place.clone(),
                "the package gives a version window too: package and channel windows are exclusive"
                    .into(),
            ));
        }
        match own {
            Ok(own) => channels.push(ChannelFilter {
                name: c.name,
                selection: own.unwrap_or_else(|| selection.clone()),
                place,
            }),
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(PackageFilter {
        name: p.name,
        default_channel: Some(p.default_channel).filter(|d| !d.is_empty()),
        channels,
        selection,
        place: place.into(),
    })
}

fn has_window(p: &RawPackage) -> bool {
    !(p.version_range.is_empty() && p.min_version.is_empty() && p.max_version.is_empty())
}

/// A version window from `versionRange` or `minVersion`/`maxVersion`.
fn window(
    range: &str,
    min: &str,
    max: &str,
    place: &str,
    full: bool,
) -> Result<Option<Selection>, (String, String)> {
    let bounds = !(min.is_empty() && max.is_empty());
    if !range.is_empty() && bounds {
        return Err((
            place.into(),
            "versionRange cannot be mixed with minVersion or maxVersion".into(),
        ));
    }
    if full && (bounds || !range.is_empty()) {
        return Err((
            place.into(),
            "full: true cannot be mixed with a version window".into(),
        ));
    }
    let text = if range.is_empty() {
        let mut parts = Vec::new();
        if !min.is_empty() {
            parts.push(format!(">={min}"));
        }
        if !max.is_empty() {
            parts.push(format!("<={max}"));
        }
        parts.join(", ")
    } else {
        range.to_string()
    };
    if text.is_empty() {
        return Ok(None);
    }
    let field = if range.is_empty() {
        "minVersion/maxVersion"
    } else {
        "versionRange"
    };
    match masterminds::parse(&text) {
        Ok(range) => Ok(Some(Selection::Range { text, range })),
        Err(e) => Err((
            format!("{place}.{field}"),
            format!("{text:?} is not a valid semantic version range: {e}"),
        )),
    }
}

fn bundles(raw: &[RawBundle], place: &str, problems: &mut Problems) -> Selection {
    let mut names = BTreeSet::new();
    for (k, b) in raw.iter().enumerate() {
        if b.name.is_empty() {
            problems.push((
                format!("{place}.bundles[{k}]"),
                "name must be specified".into(),
            ));
        } else {
            names.insert(b.name.clone());
        }
    }
    Selection::Bundles(names)
}

#[cfg(test)]
mod tests;
