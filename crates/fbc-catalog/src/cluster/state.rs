//! Cluster state: the OLM objects `kubectl get … -o yaml` (or `-o json`) prints,
//! read into typed values.
//!
//! In: the text of one file (YAML or JSON; one object, several documents, or a
//! `List` — `kind: List` or `kind: SubscriptionList` and the like — whose `items`
//! are the objects). Out: a [`ClusterState`] holding, in the order read, the
//! `Subscription`s and `ClusterServiceVersion`s (OLM v0) and the
//! `ClusterExtension`s (OLM v1) found, plus the objects of other kinds that were
//! skipped. Copied CSVs (the copies OLM puts in every namespace an operator
//! watches) are skipped too, by OLM's own test (`IsCopied` in operator-framework/api):
//! the label `olm.copiedFrom`, `status.reason: Copied`, or an `olm.operatorNamespace`
//! annotation naming another namespace.
//!
//! Every error names the file, the document, the list item if any, and the field.
//! Parsing shares the catalog loader's limits (file and document size, depth).

use crate::graph::successors::Policy;
use crate::source::{Origin, ParseLimits, parse_file_with};
use serde::Serialize;
use serde_json::{Map, Value};

/// The most objects one file may hold (lists included).
pub const MAX_OBJECTS: usize = 100_000;

/// Where an object was read: the document, and the item of a `List`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ObjectOrigin {
    /// File, document and line of the document.
    #[serde(serialize_with = "origin_text")]
    pub document: Origin,
    /// 0-based index in the list's `items`, when the document is a list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<usize>,
}

fn origin_text<S: serde::Serializer>(origin: &Origin, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&origin.to_string())
}

impl std::fmt::Display for ObjectOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.item {
            Some(i) => write!(f, "{}, items[{i}]", self.document),
            None => write!(f, "{}", self.document),
        }
    }
}

/// How a subscription's install plans are approved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Approval {
    /// OLM installs each upgrade as soon as it is found (the default).
    #[default]
    Automatic,
    /// Each upgrade's install plan waits for an admin.
    Manual,
}

/// An OLM v0 `Subscription` (operators.coreos.com/v1alpha1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, or empty.
    pub namespace: String,
    /// `spec.name`: the package.
    pub package: String,
    /// `spec.channel`; empty when not set (OLM v0 then considers every channel,
    /// the default one first).
    pub channel: String,
    /// `spec.source`: the CatalogSource's name.
    pub source: String,
    /// `spec.sourceNamespace`.
    pub source_namespace: String,
    /// `spec.startingCSV`, the bundle to install first.
    pub starting_csv: String,
    /// `spec.installPlanApproval`.
    pub approval: Approval,
    /// `status.installedCSV`: what is installed.
    pub installed_csv: String,
    /// `status.currentCSV`: what OLM is moving to (or has).
    pub current_csv: String,
    /// `status.state` (`AtLatestKnown`, `UpgradePending`, …).
    pub state: String,
    /// Where it was read.
    pub origin: ObjectOrigin,
}

/// A `ClusterServiceVersion` (operators.coreos.com/v1alpha1): an installed bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstalledCsv {
    /// `metadata.name`: the bundle's name.
    pub name: String,
    /// `metadata.namespace`, or empty.
    pub namespace: String,
    /// `spec.version`, or empty.
    pub version: String,
    /// `spec.replaces`, or empty.
    pub replaces: String,
    /// `status.phase` (`Succeeded`, `Replacing`, …), or empty.
    pub phase: String,
    /// The annotation `operatorframework.io/properties` (`{"properties":[…]}`),
    /// which OLM v0 writes from the catalog's properties and reads
    /// `olm.maxOpenShiftVersion` from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub olm_properties: Option<String>,
    /// The bundle's own annotation `olm.properties` (a JSON list), carried over
    /// from its CSV: what OLM v1 reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csv_properties: Option<String>,
    /// Where it was read.
    pub origin: ObjectOrigin,
}

/// An OLM v1 `ClusterExtension` (olm.operatorframework.io/v1) installing from catalogs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterExtension {
    /// `metadata.name`.
    pub name: String,
    /// `spec.source.catalog.packageName`.
    pub package: String,
    /// `spec.source.catalog.version`, a version range, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_range: Option<String>,
    /// `spec.source.catalog.channels` (empty: every channel).
    pub channels: Vec<String>,
    /// `spec.source.catalog.upgradeConstraintPolicy`.
    pub policy: Policy,
    /// `status.install.bundle.name`, or empty when nothing is installed yet.
    pub installed_name: String,
    /// `status.install.bundle.version`, or empty.
    pub installed_version: String,
    /// Where it was read.
    pub origin: ObjectOrigin,
}

/// An object that was read but is not one of the kinds above (or is a copied CSV).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// `kind`, or empty.
    pub kind: String,
    /// `metadata.name`, or empty.
    pub name: String,
    /// Why it was skipped.
    pub reason: String,
    /// Where it was read.
    pub origin: ObjectOrigin,
}

/// Everything read from cluster state files, in the order read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClusterState {
    /// OLM v0 subscriptions.
    pub subscriptions: Vec<Subscription>,
    /// Installed CSVs (copies excluded).
    pub csvs: Vec<InstalledCsv>,
    /// OLM v1 cluster extensions.
    pub extensions: Vec<ClusterExtension>,
    /// Objects of other kinds, and copied CSVs.
    pub skipped: Vec<Skipped>,
}

/// Why cluster state could not be read: the file, the document (and list item) and
/// the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// The text is not YAML or JSON, or breaks a limit.
    #[error("{0}")]
    Parse(String),
    /// An object does not have the shape its kind needs.
    #[error("{0}")]
    Field(Box<FieldError>),
    /// Too many objects.
    #[error("{file}: more than {MAX_OBJECTS} objects")]
    TooMany {
        /// The file.
        file: String,
    },
}

/// A field of an object that does not have the shape its kind needs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {kind} {name:?}: field {field}: {message}")]
pub struct FieldError {
    /// Where.
    pub origin: ObjectOrigin,
    /// The object's kind.
    pub kind: String,
    /// Its `metadata.name`, or empty.
    pub name: String,
    /// The field, as a path (`spec.channel`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl ClusterState {
    /// Reads the objects of one file named `file` (for messages) from `bytes`.
    pub fn read(
        file: &str,
        bytes: &[u8],
        limits: &ParseLimits,
    ) -> Result<ClusterState, StateError> {
        let parsed = parse_file_with(file, bytes, limits);
        if let Some(e) = parsed.errors.first() {
            return Err(StateError::Parse(e.to_string()));
        }
        let mut state = ClusterState::default();
        let mut count = 0usize;
        for blob in parsed.blobs {
            let origin = blob.origin;
            let Value::Object(object) = blob.value else {
                continue;
            };
            match object.get("items") {
                Some(Value::Array(items)) if is_list(&object) => {
                    for (i, item) in items.iter().enumerate() {
                        count += 1;
                        if count > MAX_OBJECTS {
                            return Err(StateError::TooMany { file: file.into() });
                        }
                        let at = ObjectOrigin {
                            document: origin.clone(),
                            item: Some(i),
                        };
                        state.add(item, at)?;
                    }
                }
                _ => {
                    count += 1;
                    if count > MAX_OBJECTS {
                        return Err(StateError::TooMany { file: file.into() });
                    }
                    let at = ObjectOrigin {
                        document: origin,
                        item: None,
                    };
                    state.add(&Value::Object(object), at)?;
                }
            }
        }
        Ok(state)
    }

    /// Adds what `other` holds after what this holds.
    pub fn extend(&mut self, other: ClusterState) {
        self.subscriptions.extend(other.subscriptions);
        self.csvs.extend(other.csvs);
        self.extensions.extend(other.extensions);
        self.skipped.extend(other.skipped);
    }

    fn add(&mut self, value: &Value, origin: ObjectOrigin) -> Result<(), StateError> {
        let Some(object) = value.as_object() else {
            self.skipped.push(Skipped {
                kind: String::new(),
                name: String::new(),
                reason: format!("not an object but {}", crate::source::kind_of(value)),
                origin,
            });
            return Ok(());
        };
        let kind = text_at(object, &["kind"]).unwrap_or_default().to_owned();
        let name = text_at(object, &["metadata", "name"])
            .unwrap_or_default()
            .to_owned();
        let reader = Reader {
            object,
            origin: &origin,
            kind: &kind,
            name: &name,
        };
        match kind.as_str() {
            "Subscription" => self.subscriptions.push(reader.subscription()?),
            "ClusterServiceVersion" => {
                if let Some(why) = reader.copied()? {
                    self.skipped.push(Skipped {
                        kind,
                        name,
                        reason: format!("a copied CSV ({why}): the original is the one installed"),
                        origin,
                    });
                } else {
                    self.csvs.push(reader.csv()?);
                }
            }
            "ClusterExtension" => self.extensions.push(reader.extension()?),
            _ => self.skipped.push(Skipped {
                reason: if kind.is_empty() {
                    "no kind".into()
                } else {
                    "not a Subscription, ClusterServiceVersion or ClusterExtension".into()
                },
                kind,
                name,
                origin,
            }),
        }
        Ok(())
    }
}

/// `kind: List`, or a typed list (`SubscriptionList`), with `items`.
fn is_list(object: &Map<String, Value>) -> bool {
    text_at(object, &["kind"]).is_some_and(|k| k.ends_with("List"))
}

/// The string at `path`, if every step exists and the value is a string.
fn text_at<'a>(object: &'a Map<String, Value>, path: &[&str]) -> Option<&'a str> {
    let (last, parents) = path.split_last()?;
    let mut at = object;
    for step in parents {
        at = at.get(*step)?.as_object()?;
    }
    at.get(*last)?.as_str()
}

/// Reads one object's fields, naming the object in every error.
struct Reader<'a> {
    object: &'a Map<String, Value>,
    origin: &'a ObjectOrigin,
    kind: &'a str,
    name: &'a str,
}

impl Reader<'_> {
    fn error(&self, path: &[&str], message: String) -> StateError {
        StateError::Field(Box::new(FieldError {
            origin: self.origin.clone(),
            kind: self.kind.to_owned(),
            name: self.name.to_owned(),
            field: path.join("."),
            message,
        }))
    }

    /// The value at `path`; absent or null is `None`; a non-object on the way is an error.
    fn value(&self, path: &[&str]) -> Result<Option<&Value>, StateError> {
        let mut at = self.object;
        for (i, step) in path.iter().enumerate() {
            match at.get(*step) {
                None | Some(Value::Null) => return Ok(None),
                Some(v) if i + 1 == path.len() => return Ok(Some(v)),
                Some(Value::Object(inner)) => at = inner,
                Some(other) => {
                    return Err(self.error(
                        &path[..=i],
                        format!("must be an object, found {}", crate::source::kind_of(other)),
                    ));
                }
            }
        }
        Ok(None)
    }

    /// The string at `path`, if present.
    fn optional(&self, path: &[&str]) -> Result<Option<String>, StateError> {
        match self.value(path)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.error(
                path,
                format!("must be a string, found {}", crate::source::kind_of(other)),
            )),
        }
    }

    /// The string at `path`, or empty.
    fn text(&self, path: &[&str]) -> Result<String, StateError> {
        Ok(self.optional(path)?.unwrap_or_default())
    }

    /// The non-empty string at `path`.
    fn required(&self, path: &[&str]) -> Result<String, StateError> {
        match self.optional(path)? {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(self.error(path, "is required".into())),
        }
    }

    fn subscription(&self) -> Result<Subscription, StateError> {
        let approval = match self.text(&["spec", "installPlanApproval"])?.as_str() {
            "" | "Automatic" => Approval::Automatic,
            "Manual" => Approval::Manual,
            other => {
                return Err(self.error(
                    &["spec", "installPlanApproval"],
                    format!("{other:?} is neither Automatic nor Manual"),
                ));
            }
        };
        Ok(Subscription {
            name: self.required(&["metadata", "name"])?,
            namespace: self.text(&["metadata", "namespace"])?,
            package: self.required(&["spec", "name"])?,
            channel: self.text(&["spec", "channel"])?,
            source: self.text(&["spec", "source"])?,
            source_namespace: self.text(&["spec", "sourceNamespace"])?,
            starting_csv: self.text(&["spec", "startingCSV"])?,
            approval,
            installed_csv: self.text(&["status", "installedCSV"])?,
            current_csv: self.text(&["status", "currentCSV"])?,
            state: self.text(&["status", "state"])?,
            origin: self.origin.clone(),
        })
    }

    fn csv(&self) -> Result<InstalledCsv, StateError> {
        Ok(InstalledCsv {
            name: self.required(&["metadata", "name"])?,
            namespace: self.text(&["metadata", "namespace"])?,
            version: self.text(&["spec", "version"])?,
            replaces: self.text(&["spec", "replaces"])?,
            phase: self.text(&["status", "phase"])?,
            olm_properties: self.optional(&[
                "metadata",
                "annotations",
                crate::cluster::openshift::V0_ANNOTATION,
            ])?,
            csv_properties: self.optional(&[
                "metadata",
                "annotations",
                crate::cluster::openshift::CSV_ANNOTATION,
            ])?,
            origin: self.origin.clone(),
        })
    }

    /// Why a CSV is a copy, by OLM's `IsCopied`; `None` for an original.
    fn copied(&self) -> Result<Option<String>, StateError> {
        if self
            .value(&["metadata", "labels", "olm.copiedFrom"])?
            .is_some()
        {
            return Ok(Some("label olm.copiedFrom".into()));
        }
        if self.text(&["status", "reason"])? == "Copied" {
            return Ok(Some("status.reason Copied".into()));
        }
        let namespace = self.text(&["metadata", "namespace"])?;
        match self.optional(&["metadata", "annotations", "olm.operatorNamespace"])? {
            Some(home) if home != namespace => Ok(Some(format!(
                "annotation olm.operatorNamespace {home:?}, not its namespace {namespace:?}"
            ))),
            _ => Ok(None),
        }
    }

    fn extension(&self) -> Result<ClusterExtension, StateError> {
        let source_type = self.text(&["spec", "source", "sourceType"])?;
        if !source_type.is_empty() && source_type != "Catalog" {
            return Err(self.error(
                &["spec", "source", "sourceType"],
                format!("{source_type:?}: only Catalog sources install from a catalog"),
            ));
        }
        let catalog = ["spec", "source", "catalog"];
        let at = |field: &'static str| [catalog[0], catalog[1], catalog[2], field];
        let channels = match self.value(&at("channels"))? {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, c)| match c {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.error(
                        &at("channels"),
                        format!(
                            "item {i} must be a string, found {}",
                            crate::source::kind_of(other)
                        ),
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(self.error(
                    &at("channels"),
                    format!("must be a list, found {}", crate::source::kind_of(other)),
                ));
            }
        };
        let policy = match self.text(&at("upgradeConstraintPolicy"))?.as_str() {
            "" | "CatalogProvided" => Policy::CatalogProvided,
            "SelfCertified" => Policy::SelfCertified,
            other => {
                return Err(self.error(
                    &at("upgradeConstraintPolicy"),
                    format!("{other:?} is neither CatalogProvided nor SelfCertified"),
                ));
            }
        };
        Ok(ClusterExtension {
            name: self.required(&["metadata", "name"])?,
            package: self.required(&at("packageName"))?,
            version_range: self.optional(&at("version"))?.filter(|v| !v.is_empty()),
            channels,
            policy,
            installed_name: self.text(&["status", "install", "bundle", "name"])?,
            installed_version: self.text(&["status", "install", "bundle", "version"])?,
            origin: self.origin.clone(),
        })
    }
}

#[cfg(test)]
mod tests;
