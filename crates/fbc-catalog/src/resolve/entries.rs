//! What the resolver chooses among: one entry per (channel, bundle) of the
//! catalog, and one per installed CSV, as OLM v0's cache holds them.
//!
//! In: each request catalog's tables and a [`Request`]. Out: [`Entries`]: catalog
//! entries by catalog (request order; catalogs OLM would not see left out), then
//! (package, channel, entry), then the installed CSVs in request order
//! (OLM's virtual catalog `@existing`), each with what the predicates test (its
//! `olm.gvk`, `olm.package` and `olm.label` properties, tolerant version,
//! skipRange) and its dependency requirements. A catalog bundle's
//! `olm.gvk.required` and `olm.package.required` requirements appear twice, as
//! OLM's cache appends them again from the bundle's legacy dependency list.

use super::request::{InstalledCsv, Request};
use crate::model::{Gvk, Property, property};
use crate::tables::Tables;
use crate::tables::requirements::{
    self, Constraint, Predicate, Requirement, RequirementError, RequirementResult,
};
use crate::version_range::blang;
use serde_json::Value;

/// Where an entry comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A catalog: its index in the request's catalogs.
    Catalog(usize),
    /// An installed CSV (OLM's virtual `@existing` catalog); `true` when a
    /// subscription's `installedCSV` names it.
    Installed {
        /// Referenced by a subscription.
        subscribed: bool,
    },
}

/// One entry (see the module docs).
#[derive(Clone, Debug)]
pub struct Entry {
    /// OLM's identifier: `catalog/namespace/channel/name`.
    pub id: String,
    /// The bundle or CSV name.
    pub name: String,
    /// The package (for a CSV, from its `olm.package` property).
    pub package: String,
    /// The channel; empty for an installed CSV.
    pub channel: String,
    /// Whether the channel is the package's default.
    pub default_channel: bool,
    /// What it replaces (never set for an installed CSV, as in OLM).
    pub replaces: String,
    /// What it skips.
    pub skips: Vec<String>,
    /// Its skipRange, if it parses.
    pub skip_range: Option<blang::Range>,
    /// Its version, read tolerantly; `None` if it does not parse.
    pub version: Option<semver::Version>,
    /// Where it comes from.
    pub source: Source,
    /// Its `olm.gvk` properties.
    pub gvks: Vec<Gvk>,
    /// Its `olm.package` properties: (packageName, version text).
    pub package_props: Vec<(String, String)>,
    /// Its `olm.label` properties.
    pub labels: Vec<String>,
    /// Whether it has an `olm.deprecated` property.
    pub deprecated: bool,
    /// Its dependency requirements, in OLM's order (see the module docs).
    pub requirements: Vec<RequirementResult>,
    /// What a CEL rule sees as `properties`: `(type, value JSON)` pairs,
    /// filled only when some bundle declares a CEL constraint.
    pub cel_properties: Vec<(String, String)>,
}

impl Entry {
    /// Whether it comes from catalog `k` (`None`: from no catalog, so never).
    pub fn in_catalog(&self, k: Option<usize>) -> bool {
        k.is_some_and(|k| self.source == Source::Catalog(k))
    }
}

/// Every entry (see the module docs).
#[derive(Clone, Debug)]
pub struct Entries {
    /// Catalog entries, then installed CSVs.
    pub all: Vec<Entry>,
    /// How many of `all` are catalog entries.
    pub catalog_len: usize,
}

/// The entries of `catalogs` (one per request catalog, in its order) and
/// `request` (see the module docs).
pub fn entries(catalogs: &[&Tables], request: &Request) -> Entries {
    let mut all = Vec::new();
    let mut bundle_properties: Vec<&[Property]> = Vec::new();
    for (k, tables) in catalogs.iter().enumerate() {
        if !request.visible(k) {
            continue;
        }
        let c = &request.catalogs[k];
        let catalog = format!("{}/{}", c.name, c.namespace);
        catalog_entries(k, &catalog, tables, &mut all, &mut bundle_properties);
    }
    let catalog_len = all.len();
    all.extend(request.installed.iter().map(|csv| installed(csv, request)));
    if all.iter().any(declares_cel) {
        fill_cel_properties(&mut all, &bundle_properties, request);
    }
    Entries { all, catalog_len }
}

/// Catalog `k`'s entries (`catalog` is its `name/namespace`), with each bundle's properties.
fn catalog_entries<'t>(
    k: usize,
    catalog: &str,
    tables: &'t Tables,
    all: &mut Vec<Entry>,
    bundle_properties: &mut Vec<&'t [Property]>,
) {
    for p in tables.packages() {
        for c in &p.channels {
            for e in &c.entries {
                let Some(b) = p.bundle(&e.name) else {
                    continue;
                };
                let mut reqs = requirements::requirements(&b.properties);
                let legacy: Vec<RequirementResult> = reqs
                    .iter()
                    .filter(|r| matches!(r, Ok(Requirement::Gvk(_) | Requirement::Package(_))))
                    .cloned()
                    .collect();
                reqs.extend(legacy);
                let props = b
                    .properties
                    .iter()
                    .map(|p| (p.typ.as_str(), p.value_json.as_str()));
                let mut entry = Entry {
                    id: format!("{catalog}/{}/{}", c.name, e.name),
                    name: e.name.clone(),
                    package: p.name.clone(),
                    channel: c.name.clone(),
                    default_channel: c.name == p.default_channel,
                    replaces: e.replaces.clone(),
                    skips: e.skips.clone(),
                    skip_range: Some(e.skip_range.as_str())
                        .filter(|r| !r.is_empty())
                        .and_then(|r| blang::parse(r).ok()),
                    version: blang::parse_tolerant(&b.version_text).ok(),
                    source: Source::Catalog(k),
                    gvks: Vec::new(),
                    package_props: Vec::new(),
                    labels: Vec::new(),
                    deprecated: false,
                    requirements: reqs,
                    cel_properties: Vec::new(),
                };
                read_properties(&mut entry, props);
                all.push(entry);
                bundle_properties.push(&b.properties[..]);
            }
        }
    }
}

fn declares_cel(e: &Entry) -> bool {
    fn cel(c: &Constraint) -> bool {
        match &c.predicate {
            Predicate::Cel(_) => true,
            Predicate::All(cs) | Predicate::Any(cs) | Predicate::Not(cs) => cs.iter().any(cel),
            _ => false,
        }
    }
    e.requirements
        .iter()
        .any(|r| matches!(r, Ok(Requirement::Constraint(c)) if cel(c)))
}

/// OLM's CEL input: a catalog bundle's properties but its bundle objects and
/// CSV metadata, then its legacy dependency copies; an installed CSV's
/// properties as the request gives them.
fn fill_cel_properties(all: &mut [Entry], bundles: &[&[Property]], request: &Request) {
    for (entry, props) in all.iter_mut().zip(bundles) {
        let own = props
            .iter()
            .filter(|p| !matches!(p.typ.as_str(), "olm.bundle.object" | "olm.csv.metadata"))
            .map(|p| (p.typ.clone(), p.value_json.clone()));
        let legacy = props
            .iter()
            .filter(|p| matches!(p.typ.as_str(), "olm.gvk.required" | "olm.package.required"))
            .map(|p| (p.typ.clone(), p.value_json.clone()));
        entry.cel_properties = own.chain(legacy).collect();
    }
    for (entry, csv) in all[bundles.len()..].iter_mut().zip(&request.installed) {
        entry.cel_properties = csv
            .properties
            .iter()
            .map(|p| (p.typ.clone(), p.value.clone()))
            .collect();
    }
}

fn installed(csv: &InstalledCsv, request: &Request) -> Entry {
    let subscribed = request
        .subscriptions
        .iter()
        .any(|s| s.installed_csv == csv.name);
    let props = csv
        .properties
        .iter()
        .map(|p| (p.typ.as_str(), p.value.as_str()));
    let mut entry = Entry {
        id: format!("@existing/{}//{}", request.namespace, csv.name),
        name: csv.name.clone(),
        package: String::new(),
        channel: String::new(),
        default_channel: false,
        replaces: String::new(),
        skips: Vec::new(),
        skip_range: None,
        version: Some(csv.version.clone()),
        source: Source::Installed { subscribed },
        gvks: Vec::new(),
        package_props: Vec::new(),
        labels: Vec::new(),
        deprecated: false,
        requirements: installed_requirements(csv),
        cel_properties: Vec::new(),
    };
    read_properties(&mut entry, props);
    entry.package = entry
        .package_props
        .first()
        .map_or_else(|| csv.package.clone(), |(name, _)| name.clone());
    entry
}

/// An installed CSV's dependency properties, read as the catalog's are; one
/// that does not decode is an error in its place.
fn installed_requirements(csv: &InstalledCsv) -> Vec<RequirementResult> {
    let mut arena = crate::arena::Arena::new();
    let mut out = Vec::new();
    for (index, p) in csv.properties.iter().enumerate() {
        let value: Value = serde_json::from_str(&p.value).unwrap_or(Value::Null);
        let item = serde_json::json!({"type": p.typ, "value": value});
        match property::parse(index, item, &mut arena) {
            Ok(parsed) => out.extend(
                requirements::requirements(std::slice::from_ref(&parsed))
                    .into_iter()
                    .map(|r| r.map_err(|e| RequirementError { index, ..e })),
            ),
            Err(message) if is_dependency(&p.typ) => out.push(Err(RequirementError {
                index,
                typ: p.typ.clone(),
                message,
            })),
            Err(_) => {}
        }
    }
    out
}

fn is_dependency(typ: &str) -> bool {
    matches!(
        typ,
        "olm.gvk.required" | "olm.package.required" | "olm.label.required" | "olm.constraint"
    )
}

/// Fills the fields the predicates test from `(type, value JSON)` pairs;
/// values that do not decode are skipped, as OLM's predicates skip them.
fn read_properties<'a>(entry: &mut Entry, props: impl Iterator<Item = (&'a str, &'a str)>) {
    for (typ, value) in props {
        let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        match typ {
            "olm.deprecated" => entry.deprecated = true,
            "olm.gvk" | "olm.package" | "olm.label" => {
                let Ok(v) = serde_json::from_str::<Value>(value) else {
                    continue;
                };
                let text = |k| field(&v, k).unwrap_or_default();
                match typ {
                    "olm.gvk" => entry.gvks.push(Gvk {
                        group: text("group"),
                        version: text("version"),
                        kind: text("kind"),
                    }),
                    "olm.package" => entry
                        .package_props
                        .push((text("packageName"), text("version"))),
                    _ => entry.labels.push(text("label")),
                }
            }
            _ => {}
        }
    }
}
