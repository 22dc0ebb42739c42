//! One `olm.bundle` document: images, properties (package, GVKs, dependencies,
//! CSV metadata or bundle objects) and related images.

use crate::doc::{V, s};
use crate::manifest::{alm_examples, bundle_objects, crd_descriptions, install_modes_v};
use crate::plan::{Cfg, Pkg};
use crate::rng::Rng;
use crate::text::filler;
use base64::Engine as _;

fn timestamp(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}T{:02}:{:02}:{:02}",
        rng.range(2022, 2026),
        rng.range(1, 12),
        rng.range(1, 28),
        rng.below(24),
        rng.below(60),
        rng.below(60)
    )
}

fn gvk<'a>(ty: &'a str, group: &str, kind: &str, version: &str) -> V<'a> {
    V::O(vec![
        ("type", s(ty)),
        (
            "value",
            V::O(vec![
                ("group", s(group.to_string())),
                ("kind", s(kind.to_string())),
                ("version", s(version.to_string())),
            ]),
        ),
    ])
}

fn image(rng: &mut Rng, repo: &str, tag: &str, digest_percent: usize, keep_tag: bool) -> String {
    if rng.chance(digest_percent) {
        let hex = rng.hex(64);
        if keep_tag {
            format!("{repo}:{tag}@sha256:{hex}")
        } else {
            format!("{repo}@sha256:{hex}")
        }
    } else {
        format!("{repo}:{tag}")
    }
}

pub(crate) fn bundle_doc<'a>(
    cfg: &'a Cfg,
    p: &'a Pkg,
    b: usize,
    bname: &'a str,
    (x, y, z): (u64, u64, u64),
    rng: &mut Rng,
) -> V<'a> {
    let version = format!("{x}.{y}.{z}");
    let tag = format!("v{version}");
    let bundle_image = image(
        rng,
        &format!("quay.io/example/{}-bundle", p.name),
        &tag,
        30,
        true,
    );
    let operator_image = image(
        rng,
        &format!("quay.io/example/{}-operator", p.name),
        &tag,
        40,
        false,
    );

    let mut props = Vec::new();
    for (n, k) in p.kinds.iter().enumerate() {
        props.push(gvk("olm.gvk", &p.group, k, "v1alpha1"));
        if n == 0 && b >= cfg.bundles / 2 {
            props.push(gvk("olm.gvk", &p.group, k, "v1"));
        }
    }
    if p.shared {
        props.push(gvk("olm.gvk", "shared.example.com", "Common", "v1"));
    }
    props.push(V::O(vec![
        ("type", s("olm.package")),
        (
            "value",
            V::O(vec![
                ("packageName", s(p.name.as_str())),
                ("version", s(version.clone())),
            ]),
        ),
    ]));
    if let Some((dpkg, dgroup, dkind, from, range)) = &p.dep
        && b >= *from
    {
        {
            props.push(gvk("olm.gvk.required", dgroup, dkind, "v1alpha1"));
            props.push(V::O(vec![
                ("type", s("olm.package.required")),
                (
                    "value",
                    V::O(vec![
                        ("packageName", s(dpkg.as_str())),
                        ("versionRange", s(*range)),
                    ]),
                ),
            ]));
        }
    }
    if p.max_ocp {
        props.push(V::O(vec![
            ("type", s("olm.maxOpenShiftVersion")),
            ("value", s(*rng.pick(&["4.16", "4.18", "4.20"]))),
        ]));
    }

    let mut related = vec![
        V::O(vec![("name", s("")), ("image", s(bundle_image.clone()))]),
        V::O(vec![
            ("name", s("manager")),
            ("image", s(operator_image.clone())),
        ]),
    ];
    let extra = rng.range(0, 3);
    let candidates = [
        (
            "kube-rbac-proxy",
            "quay.io/example/kube-rbac-proxy".to_string(),
            "v0.16.0",
        ),
        (
            "webhook",
            format!("quay.io/example/{}-webhook", p.name),
            tag.as_str(),
        ),
        (
            "must-gather",
            format!("registry.example.com/{}/must-gather", p.name),
            tag.as_str(),
        ),
    ];
    for (nm, repo, t) in candidates.iter().take(extra) {
        related.push(V::O(vec![
            ("name", s(*nm)),
            ("image", s(image(rng, repo, t, 50, false))),
        ]));
    }

    let created = timestamp(rng);
    if p.objects {
        let b64 = &base64::engine::general_purpose::STANDARD;
        let objects = bundle_objects(
            cfg,
            p,
            bname,
            &version,
            &bundle_image,
            &operator_image,
            &created,
            rng,
        );
        for obj in objects {
            props.push(V::O(vec![
                ("type", s("olm.bundle.object")),
                ("value", V::O(vec![("data", s(b64.encode(obj)))])),
            ]));
        }
    } else {
        let (description, annotations) = if cfg.object_bytes == 0 {
            let d = format!("{} manages {} resources.", p.display, p.kinds.join(" and "));
            let ann = vec![
                ("capabilities", s("Basic Install")),
                ("containerImage", s(operator_image)),
                (
                    "createdAt",
                    if rng.chance(50) {
                        V::Ts(created)
                    } else {
                        s(format!("{created}Z"))
                    },
                ),
            ];
            (d, ann)
        } else {
            let text = filler(&cfg.corpus, rng, (cfg.object_bytes / 2).max(64));
            let d = format!("## About {}\n\n{text}", p.display);
            let ann = vec![
                ("alm-examples", s(alm_examples(p, true))),
                (
                    "capabilities",
                    s(*rng.pick(&["Basic Install", "Seamless Upgrades", "Full Lifecycle"])),
                ),
                ("categories", s("Developer Tools, Monitoring")),
                ("containerImage", s(operator_image)),
                (
                    "createdAt",
                    if rng.chance(50) {
                        V::Ts(created)
                    } else {
                        s(format!("{created}Z"))
                    },
                ),
                (
                    "operators.operatorframework.io/builder",
                    s("operator-sdk-v1.34.1"),
                ),
                (
                    "repository",
                    s(format!("https://github.com/example/{}", p.name)),
                ),
                ("support", s("Example Org")),
            ];
            (d, ann)
        };
        let mut meta = vec![
            ("annotations", V::O(annotations)),
            (
                "crdDescriptions",
                V::O(vec![("owned", crd_descriptions(p, rng))]),
            ),
            ("description", s(description)),
            ("displayName", s(p.display.as_str())),
            ("installModes", install_modes_v(rng.chance(50))),
            (
                "keywords",
                V::A(vec![s("example"), s(p.kinds[0].to_ascii_lowercase())]),
            ),
            ("maturity", s(p.maturity)),
            ("minKubeVersion", s(format!("1.{}.0", rng.range(24, 31)))),
            (
                "provider",
                V::O(vec![
                    ("name", s("Example Org")),
                    ("url", s("https://example.com")),
                ]),
            ),
        ];
        if rng.chance(30) {
            meta.push(("apiServiceDefinitions", V::O(vec![])));
        }
        if rng.chance(40) {
            meta.push((
                "links",
                V::A(vec![V::O(vec![
                    ("name", s("Documentation")),
                    ("url", s(format!("https://example.com/docs/{}", p.name))),
                ])]),
            ));
            meta.push((
                "maintainers",
                V::A(vec![V::O(vec![
                    ("email", s("operators@example.com")),
                    ("name", s("Example Maintainers")),
                ])]),
            ));
        }
        props.push(V::O(vec![
            ("type", s("olm.csv.metadata")),
            ("value", V::O(meta)),
        ]));
    }

    V::O(vec![
        ("schema", s("olm.bundle")),
        ("name", s(bname)),
        ("package", s(p.name.as_str())),
        ("image", s(bundle_image)),
        ("properties", V::A(props)),
        ("relatedImages", V::A(related)),
    ])
}
