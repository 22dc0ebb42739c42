//! OLM v1 readiness: can operator-controller install a bundle, and if not, why —
//! every reason, each named by the rule it comes from.
//!
//! In: a package and one of its bundles. Out: a [`Readiness`] whose reasons are
//! operator-controller's refusals (its own messages), the feature gates a bundle
//! needs, and what the catalog alone cannot tell. The rules and the Go files they
//! come from are in `docs/olm-cluster-rules.md` §3 (operator-controller HEAD
//! `df2c201d`); the numbers (R1…) are that table's:
//!
//! - R1 `resolve/validation.go` `NoDependencyValidation`: a declared dependency
//!   (`olm.package.required`, `olm.gvk.required`, `olm.constraint`) is refused.
//! - R2 `applier/provider.go` `RegistryV1ManifestProvider.Get`: owned API service
//!   definitions are refused.
//! - R3 same: webhooks need a certificate provider (a feature gate on OpenShift);
//!   `olm.csv.metadata` carries no webhooks, so for such bundles it is unknown.
//! - R4/R5 same: without the single/own-namespace gate, AllNamespaces is required;
//!   with none of AllNamespaces, SingleNamespace, OwnNamespace it is refused.
//! - R15 `rukpak/bundle/source/source.go`: a CSV `olm.properties` annotation that is
//!   not a JSON list of properties is refused.

use crate::graph::lint::{LintWarning, Severity};
use crate::graph::{GraphError, find_package};
use crate::model::{Bundle, Package, csv};
use crate::tables::Tables;
use serde::Serialize;
use serde_json::Value;

/// How a reason weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Weight {
    /// operator-controller refuses the bundle.
    Refused,
    /// It installs only with a feature gate on (named in the message).
    NeedsGate,
    /// The catalog does not say (the bundle image would).
    Unknown,
}

/// One reason, with the rule it comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reason {
    /// The rule's number in `docs/olm-cluster-rules.md` §3 (`R1`).
    pub rule: &'static str,
    /// How it weighs.
    pub weight: Weight,
    /// operator-controller's message, or ours where it has none.
    pub message: String,
}

/// The answer for one bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Readiness {
    /// Bundle name.
    pub bundle: String,
    /// No reason refuses it (it may still need a gate, or hold what the catalog cannot show).
    pub installable: bool,
    /// Every reason, in rule order.
    pub reasons: Vec<Reason>,
}

/// The dependency properties operator-controller refuses (R1), in the order it looks.
const DEPENDENCIES: &[&str] = &["olm.package.required", "olm.gvk.required", "olm.constraint"];

/// The name `lint --target olm-v1` gives a rule's findings.
pub fn check_name(rule: &str) -> &'static str {
    match rule {
        "R1" => "olmV1Dependency",
        "R2" => "olmV1ApiService",
        "R3" => "olmV1Webhook",
        "R4" | "R5" => "olmV1InstallMode",
        "R15" => "olmV1Properties",
        _ => "olmV1",
    }
}

/// `lint --target olm-v1`: every reason of every bundle (of one package, or all)
/// as a lint finding — a refusal a warning, a gate or an unknown an info — in
/// lint's order.
pub fn lint(tables: &Tables, package: Option<&str>) -> Result<Vec<LintWarning>, GraphError> {
    let packages: Vec<&Package> = match package {
        Some(name) => vec![find_package(tables, name)?.1],
        None => tables.packages().iter().collect(),
    };
    let mut out = Vec::new();
    for p in packages {
        for b in &p.bundles {
            for reason in readiness(p, b).reasons {
                out.push(LintWarning {
                    check: check_name(reason.rule),
                    severity: match reason.weight {
                        Weight::Refused => Severity::Warning,
                        Weight::NeedsGate | Weight::Unknown => Severity::Info,
                    },
                    file: b.origin.file.to_string(),
                    document: b.origin.document,
                    line: b.origin.line,
                    package: p.name.clone(),
                    channel: String::new(),
                    entry: b.name.clone(),
                    message: format!("OLM v1 ({}): {}", reason.rule, reason.message),
                });
            }
        }
    }
    out.sort_by(|a, b| {
        (&a.package, &a.entry, a.check, &a.message)
            .cmp(&(&b.package, &b.entry, b.check, &b.message))
    });
    Ok(out)
}

/// The readiness of `bundle` of `package`.
pub fn readiness(package: &Package, bundle: &Bundle) -> Readiness {
    let mut reasons = Vec::new();
    if let Some(p) = bundle
        .properties
        .iter()
        .find(|p| DEPENDENCIES.contains(&p.typ.as_str()))
    {
        reasons.push(Reason {
            rule: "R1",
            weight: Weight::Refused,
            message: format!(
                "validating bundle {name:?}: bundle {name:?} has a dependency declared via property {typ:?} which is currently not supported",
                name = bundle.name,
                typ = p.typ
            ),
        });
    }
    let csv: Option<Value> = csv::csv_json(package, bundle).and_then(|text| csv_fields(&text));
    match &csv {
        Some(csv) => csv_rules(csv, bundle.csv_object.is_some(), &mut reasons),
        None => reasons.push(Reason {
            rule: "R2",
            weight: Weight::Unknown,
            message: "the catalog holds no CSV for this bundle (neither olm.bundle.object nor olm.csv.metadata): install modes, API services and webhooks are in the image only".into(),
        }),
    }
    reasons.sort_by_key(|r| rule_order(r.rule));
    Readiness {
        bundle: bundle.name.clone(),
        installable: !reasons.iter().any(|r| r.weight == Weight::Refused),
        reasons,
    }
}

fn rule_order(rule: &str) -> u32 {
    rule.trim_start_matches('R').parse().unwrap_or(u32::MAX)
}

/// R2–R5 and R15, from the CSV's text; `embedded`: the CSV is an `olm.bundle.object`
/// (a synthesised one has no webhooks to show).
fn csv_rules(csv: &Value, embedded: bool, reasons: &mut Vec<Reason>) {
    let non_empty = |pointer: &str| {
        csv.pointer(pointer)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    if non_empty("/spec/apiservicedefinitions/owned") {
        reasons.push(Reason {
            rule: "R2",
            weight: Weight::Refused,
            // sic: operator-controller's spelling
            message: "unsupported bundle: apiServiceDefintions are not supported".into(),
        });
    }
    if non_empty("/spec/webhookdefinitions") {
        reasons.push(Reason {
            rule: "R3",
            weight: Weight::NeedsGate,
            message: "webhookDefinitions need a certificate provider (upstream: on by default; OpenShift: feature gate NewOLMWebhookProviderOpenshiftServiceCA); without one: unsupported bundle: webhookDefinitions are not supported".into(),
        });
    } else if !embedded {
        reasons.push(Reason {
            rule: "R3",
            weight: Weight::Unknown,
            message: "olm.csv.metadata carries no webhook definitions: whether the bundle has any is in its image".into(),
        });
    }
    install_modes(csv, reasons);
    if let Some(text) = csv
        .pointer("/metadata/annotations/olm.properties")
        .and_then(Value::as_str)
        && let Err(e) = serde_json::from_str::<Vec<PropertyShape>>(text)
    {
        reasons.push(Reason {
            rule: "R15",
            weight: Weight::Refused,
            message: format!("failed to unmarshal csv.metadata.annotations['olm.properties']: {e}"),
        });
    }
}

/// The parts of a CSV's JSON text the rules read, as a small JSON value of the
/// same shape. A typed pass skips the rest without building it (a CSV is mostly
/// description, icon and deployments); text that pass cannot take (a container
/// that is not an object, a key given twice) is read whole, so the answer is the
/// same either way.
fn csv_fields(text: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Csv {
        metadata: Option<Metadata>,
        spec: Option<Spec>,
    }
    #[derive(serde::Deserialize)]
    struct Metadata {
        annotations: Option<Annotations>,
    }
    #[derive(serde::Deserialize)]
    struct Annotations {
        #[serde(rename = "olm.properties")]
        olm_properties: Option<Value>,
    }
    #[derive(serde::Deserialize)]
    struct Spec {
        apiservicedefinitions: Option<ApiServices>,
        webhookdefinitions: Option<Value>,
        #[serde(rename = "installModes")]
        install_modes: Option<Value>,
    }
    #[derive(serde::Deserialize)]
    struct ApiServices {
        owned: Option<Value>,
    }
    let Ok(csv) = serde_json::from_slice::<Csv>(text) else {
        return serde_json::from_slice(text).ok();
    };
    let mut out =
        serde_json::json!({"metadata": {"annotations": {}}, "spec": {"apiservicedefinitions": {}}});
    let annotations = csv
        .metadata
        .and_then(|m| m.annotations)
        .and_then(|a| a.olm_properties);
    if let Some(v) = annotations {
        out["metadata"]["annotations"]["olm.properties"] = v;
    }
    if let Some(spec) = csv.spec {
        if let Some(v) = spec.apiservicedefinitions.and_then(|a| a.owned) {
            out["spec"]["apiservicedefinitions"]["owned"] = v;
        }
        if let Some(v) = spec.webhookdefinitions {
            out["spec"]["webhookdefinitions"] = v;
        }
        if let Some(v) = spec.install_modes {
            out["spec"]["installModes"] = v;
        }
    }
    Some(out)
}

/// The shape operator-controller unmarshals `olm.properties` into.
#[derive(serde::Deserialize)]
struct PropertyShape {
    #[serde(rename = "type")]
    _typ: String,
    #[serde(rename = "value")]
    _value: Box<serde_json::value::RawValue>,
}

/// R4 and R5: the install modes the CSV supports.
fn install_modes(csv: &Value, reasons: &mut Vec<Reason>) {
    let supported = |mode: &str| {
        csv.pointer("/spec/installModes")
            .and_then(Value::as_array)
            .is_some_and(|modes| {
                modes.iter().any(|m| {
                    m.get("type").and_then(Value::as_str) == Some(mode)
                        && m.get("supported").and_then(Value::as_bool) == Some(true)
                })
            })
    };
    let (all, single, own) = (
        supported("AllNamespaces"),
        supported("SingleNamespace"),
        supported("OwnNamespace"),
    );
    if !all && !single && !own {
        reasons.push(Reason {
            rule: "R5",
            weight: Weight::Refused,
            message: "unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes".into(),
        });
    } else if !all {
        reasons.push(Reason {
            rule: "R4",
            weight: Weight::NeedsGate,
            message: "without AllNamespaces it installs only with feature gate SingleOwnNamespaceInstallSupport (OpenShift: NewOLMOwnSingleNamespace) and spec.config.inline.watchNamespace set; otherwise: unsupported bundle: bundle does not support AllNamespaces install mode".into(),
        });
    }
}

/// A summary over many bundles: how many are installable, and how many each rule
/// refuses or qualifies ("n of m installable, by reason").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Bundles looked at.
    pub bundles: usize,
    /// Of them, installable (no refusal).
    pub installable: usize,
    /// Bundles per rule and weight, in rule order.
    pub by_rule: Vec<RuleCount>,
}

/// How many bundles one rule refuses or qualifies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    /// The rule (`R1`).
    pub rule: &'static str,
    /// How it weighs.
    pub weight: Weight,
    /// Bundles it applies to.
    pub bundles: usize,
}

impl Summary {
    /// Adds one bundle's readiness.
    pub fn add(&mut self, r: &Readiness) {
        self.bundles += 1;
        self.installable += usize::from(r.installable);
        for reason in &r.reasons {
            match self
                .by_rule
                .iter_mut()
                .find(|c| c.rule == reason.rule && c.weight == reason.weight)
            {
                Some(count) => count.bundles += 1,
                None => self.by_rule.push(RuleCount {
                    rule: reason.rule,
                    weight: reason.weight,
                    bundles: 1,
                }),
            }
        }
        self.by_rule.sort_by_key(|c| (rule_order(c.rule), c.weight));
    }
}

/// One package's readiness: its default channel's head (what a ClusterExtension
/// with no channel or range installs first) and every bundle, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageReadiness {
    /// The package.
    pub package: String,
    /// Its default channel's head.
    pub head: String,
    /// Whether OLM v1 can install the head.
    pub head_installable: bool,
    /// Every bundle, by name.
    pub bundles: Vec<Readiness>,
}

/// A catalog's readiness: "n of m packages installable, by reason".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogReadiness {
    /// Packages looked at.
    pub packages: usize,
    /// Of them, those whose default channel's head OLM v1 can install.
    pub installable_packages: usize,
    /// Over the packages' heads: `by_rule` counts packages.
    pub heads: Summary,
    /// Over every bundle.
    pub bundles: Summary,
    /// Per package, by name.
    pub per_package: Vec<PackageReadiness>,
}

/// The readiness of every package (or the one named).
pub fn catalog(tables: &Tables, package: Option<&str>) -> Result<CatalogReadiness, GraphError> {
    let packages: Vec<&Package> = match package {
        Some(name) => vec![find_package(tables, name)?.1],
        None => tables.packages().iter().collect(),
    };
    let mut out = CatalogReadiness::default();
    for p in packages {
        let bundles: Vec<Readiness> = p.bundles.iter().map(|b| readiness(p, b)).collect();
        bundles.iter().for_each(|r| out.bundles.add(r));
        let head = p
            .channels
            .iter()
            .find(|c| c.name == p.default_channel)
            .map(|c| c.head_entry().name.clone())
            .unwrap_or_default();
        let head_readiness = bundles.iter().find(|r| r.bundle == head);
        if let Some(r) = head_readiness {
            out.heads.add(r);
        }
        let head_installable = head_readiness.is_some_and(|r| r.installable);
        out.packages += 1;
        out.installable_packages += usize::from(head_installable);
        out.per_package.push(PackageReadiness {
            package: p.name.clone(),
            head,
            head_installable,
            bundles,
        });
    }
    out.per_package.sort_by(|a, b| a.package.cmp(&b.package));
    Ok(out)
}

#[cfg(test)]
mod tests;
