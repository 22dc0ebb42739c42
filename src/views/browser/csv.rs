//! What OperatorHub shows of a package, read from one bundle's ClusterServiceVersion.
//!
//! In: a bundle (its embedded CSV, or the CSV synthesised from `olm.csv.metadata`)
//! and its package. Out: a [`Listing`]: display name, provider, the short and long
//! descriptions, keywords, categories, capability level, maturity, links,
//! maintainers and owned CRDs. The CSV comes from the catalog, so it is read
//! leniently: a field of the wrong type is treated as absent, never as an error
//! that would hide the package.

use fbc_catalog::model::csv::PackageParts;
use fbc_catalog::model::{Bundle, Package};
use serde_json::Value;

/// A link the CSV lists (`spec.links`, the provider's URL).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// Its text.
    pub name: String,
    /// Its address, as written (the page sanitises it).
    pub url: String,
}

/// A CRD the operator owns (`spec.customresourcedefinitions.owned`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedCrd {
    /// `plural.group`.
    pub name: String,
    /// API version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Display name.
    pub display_name: String,
    /// Description.
    pub description: String,
}

/// The fields of a CSV that a catalog page shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// `spec.displayName`.
    pub display_name: String,
    /// `spec.provider.name`.
    pub provider: String,
    /// `spec.provider.url`.
    pub provider_url: String,
    /// The `description` annotation: one line.
    pub summary: String,
    /// `spec.description` (markdown), or the package's description.
    pub description: String,
    /// `spec.keywords`.
    pub keywords: Vec<String>,
    /// The `categories` annotation, split on commas.
    pub categories: Vec<String>,
    /// The `capabilities` annotation ("Basic Install" … "Auto Pilot").
    pub capability: String,
    /// `spec.maturity`.
    pub maturity: String,
    /// The `containerImage` annotation.
    pub container_image: String,
    /// The `repository` annotation.
    pub repository: String,
    /// The `createdAt` annotation.
    pub created_at: String,
    /// `spec.minKubeVersion`.
    pub min_kube_version: String,
    /// `spec.links`.
    pub links: Vec<Link>,
    /// `spec.maintainers`, as links (`mailto:` for an email).
    pub maintainers: Vec<Link>,
    /// `spec.customresourcedefinitions.owned`.
    pub owned_crds: Vec<OwnedCrd>,
}

impl Listing {
    /// The listing of `bundle`, with `package`'s description when the CSV has none.
    pub fn of(package: &Package, bundle: &Bundle) -> Listing {
        let mut listing = csv_text(package, bundle)
            .and_then(|text| serde_json::from_slice::<Value>(&text).ok())
            .map(|csv| Listing::from_csv(&csv))
            .unwrap_or_default();
        if listing.description.trim().is_empty() {
            listing.description = package.description.clone();
        }
        listing
    }

    /// Reads a CSV's JSON.
    pub fn from_csv(csv: &Value) -> Listing {
        let annotation = |key: &str| text(&csv["metadata"]["annotations"][key]);
        let spec = &csv["spec"];
        Listing {
            display_name: text(&spec["displayName"]),
            provider: text(&spec["provider"]["name"]),
            provider_url: text(&spec["provider"]["url"]),
            summary: annotation("description"),
            description: text(&spec["description"]),
            keywords: texts(&spec["keywords"]),
            categories: annotation("categories")
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect(),
            capability: annotation("capabilities"),
            maturity: text(&spec["maturity"]),
            container_image: annotation("containerImage"),
            repository: annotation("repository"),
            created_at: annotation("createdAt"),
            min_kube_version: text(&spec["minKubeVersion"]),
            links: items(&spec["links"])
                .map(|l| Link {
                    name: text(&l["name"]),
                    url: text(&l["url"]),
                })
                .collect(),
            maintainers: items(&spec["maintainers"])
                .map(|m| Link {
                    name: text(&m["name"]),
                    url: match text(&m["email"]) {
                        email if email.is_empty() => String::new(),
                        email => format!("mailto:{email}"),
                    },
                })
                .collect(),
            owned_crds: items(&spec["customresourcedefinitions"]["owned"])
                .map(|c| OwnedCrd {
                    name: text(&c["name"]),
                    version: text(&c["version"]),
                    kind: text(&c["kind"]),
                    display_name: text(&c["displayName"]),
                    description: text(&c["description"]),
                })
                .collect(),
        }
    }
}

/// The CSV's JSON text: the embedded object, or the one synthesised from
/// `olm.csv.metadata` (without the icon, which the browser serves on its own).
fn csv_text(package: &Package, bundle: &Bundle) -> Option<Vec<u8>> {
    if let Some(object) = bundle.csv_object.and_then(|i| bundle.objects.get(i)) {
        return Some(object.to_vec());
    }
    let pieces = bundle.csv_pieces.as_ref()?;
    Some(pieces.chunks(&PackageParts::without_icon(package)).concat())
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

fn texts(value: &Value) -> Vec<String> {
    items(value)
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn items(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_operatorhub_shows() {
        let csv = json!({
            "metadata": {"annotations": {
                "description": "Widgets on demand",
                "categories": "Storage, Monitoring,,",
                "capabilities": "Seamless Upgrades",
            }},
            "spec": {
                "displayName": "Widget Operator",
                "provider": {"name": "Acme", "url": "https://acme.example"},
                "keywords": ["widgets", 7, "storage"],
                "maintainers": [{"name": "Ops", "email": "ops@acme.example"}, {"name": "Anon"}],
                "customresourcedefinitions": {"owned": [
                    {"name": "widgets.acme.example", "version": "v1", "kind": "Widget"}
                ]},
            }
        });
        let listing = Listing::from_csv(&csv);
        assert_eq!(listing.display_name, "Widget Operator");
        assert_eq!(listing.provider, "Acme");
        assert_eq!(listing.categories, ["Storage", "Monitoring"]);
        assert_eq!(listing.keywords, ["widgets", "storage"]);
        assert_eq!(listing.maintainers[0].url, "mailto:ops@acme.example");
        assert_eq!(listing.maintainers[1].url, "");
        assert_eq!(listing.owned_crds[0].kind, "Widget");
    }

    #[test]
    fn fields_of_the_wrong_type_are_absent() {
        let csv = json!({"metadata": [], "spec": {"displayName": {"x": 1}, "keywords": "k",
            "customresourcedefinitions": {"owned": null}}});
        assert_eq!(Listing::from_csv(&csv), Listing::default());
    }
}
