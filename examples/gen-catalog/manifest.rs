//! The manifests a bundle carries: install modes, `alm-examples`, CRD
//! descriptions, and the CRD and ClusterServiceVersion written as
//! `olm.bundle.object` properties.

use crate::doc::{V, json_compact, json_pretty, s};
use crate::plan::{Cfg, Pkg, plural};
use crate::rng::Rng;
use crate::text::filler;

/// `(type, supported)` of the four install modes.
fn install_modes(all_namespaces_only: bool) -> [(&'static str, bool); 4] {
    [
        "OwnNamespace",
        "SingleNamespace",
        "MultiNamespace",
        "AllNamespaces",
    ]
    .map(|t| {
        let supported = if all_namespaces_only {
            t == "AllNamespaces"
        } else {
            t != "MultiNamespace"
        };
        (t, supported)
    })
}

pub(crate) fn install_modes_v<'a>(all_namespaces_only: bool) -> V<'a> {
    V::A(
        install_modes(all_namespaces_only)
            .into_iter()
            .map(|(t, supported)| V::O(vec![("supported", V::B(supported)), ("type", s(t))]))
            .collect(),
    )
}

pub(crate) fn alm_examples(p: &Pkg, pretty: bool) -> String {
    let mut out = String::from("[");
    for (n, k) in p.kinds.iter().enumerate() {
        let item = V::O(vec![
            ("apiVersion", s(format!("{}/v1alpha1", p.group))),
            ("kind", s(*k)),
            (
                "metadata",
                V::O(vec![(
                    "name",
                    s(format!("{}-sample", k.to_ascii_lowercase())),
                )]),
            ),
            ("spec", V::O(vec![("size", V::I(n as i64 + 1))])),
        ]);
        if n > 0 {
            out.push(',');
        }
        if pretty {
            out.push_str("\n  ");
            let mut one = String::new();
            json_pretty(&item, &mut one, 0);
            out.push_str(&one.replace('\n', "\n  "));
        } else {
            json_compact(&item, &mut out);
        }
    }
    out.push_str(if pretty { "\n]" } else { "]" });
    out
}

pub(crate) fn crd_descriptions<'a>(p: &'a Pkg, rng: &mut Rng) -> V<'a> {
    V::A(
        p.kinds
            .iter()
            .map(|k| {
                let mut d = vec![
                    (
                        "description",
                        s(format!("{k} is the Schema for the {} API", plural(k))),
                    ),
                    ("displayName", s(*k)),
                    ("kind", s(*k)),
                    ("name", s(format!("{}.{}", plural(k), p.group))),
                    ("version", s("v1alpha1")),
                ];
                if rng.chance(50) {
                    d.push((
                        "specDescriptors",
                        V::A(vec![V::O(vec![
                            ("description", s("Number of replicas of the operand.")),
                            ("displayName", s("Size")),
                            ("path", s("size")),
                            (
                                "x-descriptors",
                                V::A(vec![s("urn:alm:descriptor:com.tectonic.ui:podCount")]),
                            ),
                        ])]),
                    ));
                    d.push((
                        "statusDescriptors",
                        V::A(vec![V::O(vec![
                            ("description", s("Conditions of the operand.")),
                            ("displayName", s("Conditions")),
                            ("path", s("conditions")),
                        ])]),
                    ));
                }
                V::O(d)
            })
            .collect(),
    )
}

/// A CRD and a ClusterServiceVersion of about `cfg.object_bytes` bytes, as compact JSON
/// with sorted keys, like the manifests `opm render` puts into real catalogs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bundle_objects(
    cfg: &Cfg,
    p: &Pkg,
    bname: &str,
    version: &str,
    bundle_image: &str,
    operator_image: &str,
    created: &str,
    rng: &mut Rng,
) -> [String; 2] {
    use serde_json::json;
    let (group, app, k0) = (p.group.as_str(), p.name.as_str(), p.kinds[0]);
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{}.{group}", plural(k0))},
        "spec": {
            "group": group,
            "names": {
                "kind": k0,
                "listKind": format!("{k0}List"),
                "plural": plural(k0),
                "singular": k0.to_ascii_lowercase()
            },
            "scope": "Namespaced",
            "versions": [{
                "name": "v1alpha1",
                "schema": {"openAPIV3Schema": {
                    "properties": {
                        "spec": {
                            "properties": {"size": {"minimum": 1, "type": "integer"}},
                            "type": "object"
                        },
                        "status": {"type": "object"}
                    },
                    "type": "object"
                }},
                "served": true,
                "storage": true,
                "subresources": {"status": {}}
            }]
        }
    });
    let owned: Vec<_> = p
        .kinds
        .iter()
        .map(|k| {
            json!({
                "description": format!("{k} is the Schema for the {} API", plural(k)),
                "displayName": k,
                "kind": k,
                "name": format!("{}.{group}", plural(k)),
                "version": "v1alpha1"
            })
        })
        .collect();
    let install = json!({
        "spec": {
            "clusterPermissions": [{
                "rules": [{
                    "apiGroups": [group],
                    "resources": p.kinds.iter().map(|k| plural(k)).collect::<Vec<_>>(),
                    "verbs": ["*"]
                }],
                "serviceAccountName": app
            }],
            "deployments": [{
                "name": format!("{app}-controller-manager"),
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": {"app": app}},
                    "template": {
                        "metadata": {"labels": {"app": app}},
                        "spec": {
                            "containers": [{
                                "args": ["--leader-elect"],
                                "image": operator_image,
                                "name": "manager"
                            }],
                            "serviceAccountName": app
                        }
                    }
                }
            }]
        },
        "strategy": "deployment"
    });
    let install_modes: Vec<_> = install_modes(rng.chance(50))
        .into_iter()
        .map(|(t, supported)| json!({"supported": supported, "type": t}))
        .collect();
    let text = filler(
        &cfg.corpus,
        rng,
        cfg.object_bytes.saturating_sub(2500).max(64),
    );
    let csv = json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "annotations": {
                "alm-examples": alm_examples(p, false),
                "capabilities": "Seamless Upgrades",
                "categories": "Developer Tools",
                "containerImage": operator_image,
                "createdAt": format!("{created}Z"),
                "repository": format!("https://github.com/example/{app}")
            },
            "name": bname
        },
        "spec": {
            "apiservicedefinitions": {},
            "customresourcedefinitions": {"owned": owned},
            "description": format!("## About {}\n\n{text}", p.display),
            "displayName": p.display,
            "install": install,
            "installModes": install_modes,
            "keywords": ["example", k0.to_ascii_lowercase()],
            "links": [{"name": "Documentation", "url": format!("https://example.com/docs/{app}")}],
            "maintainers": [{"email": "operators@example.com", "name": "Example Maintainers"}],
            "maturity": p.maturity,
            "minKubeVersion": format!("1.{}.0", rng.range(24, 31)),
            "provider": {"name": "Example Org", "url": "https://example.com"},
            "relatedImages": [{"image": bundle_image, "name": "bundle"}],
            "version": version
        }
    });
    [crd.to_string(), csv.to_string()]
}
