//! OLM v1 successor selection pinned to operator-controller's own unit tests.
//!
//! Each test here is one case of operator-controller's Go tests (mirror commit
//! `df2c201d70e83d02eae23597d604269fa1baf20a`), named after it: a module per
//! Go test with subtests (`t.Run`), a function per Go test without. The Go
//! fixtures are translated to FBC under `tests/fixtures/olm-v1-pinned/`; its
//! README lists every case, how it was translated, and the cases left out.
//!
//! What is run:
//! - the filter tests (`catalogmetadata/filter`, `catalogmetadata/compare`,
//!   `bundleutil`) against [`successors`] (and [`bundle_version`]);
//! - the resolver tests (`resolve/catalog_test.go`) against [`successors`] and
//!   [`explain_extension`] on the one catalog that has the package, and against
//!   [`providers`] on all of the Go test's catalogs (empty ones included),
//!   since `CatalogResolver.Resolve` always walks catalogs.
//!
//! A case where our answer differs from Go's expectation is kept, `#[ignore]`d
//! with the reason.

use fbc_catalog::cluster::explain::v1::explain_extension;
use fbc_catalog::cluster::state::{ClusterExtension, ClusterState};
use fbc_catalog::graph::providers::{CatalogInput, providers};
use fbc_catalog::graph::successors::{
    Installed, Policy, ReleaseMode, SuccessorQuery, Successors, bundle_version, successors,
};
use fbc_catalog::model::Bundle;
use fbc_catalog::tables::Tables;
use fbc_catalog::version_range::release::Identifier;
use serde_json::json;
use std::path::{Path, PathBuf};

/// The pinned package name of `resolve/catalog_test.go` (the Go test draws a
/// random `pkg-xxxxx`).
const PKG: &str = "pkg-abcde";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/olm-v1-pinned")
        .join(name)
}

/// A fixture directory's tables, loaded as the server loads a catalog.
fn tables(name: &str) -> Tables {
    let dir = fixture(name);
    let loaded = fbc_catalog::load::load_model(&dir, &Default::default())
        .unwrap_or_else(|p| panic!("{}: the catalog does not load: {p:?}", dir.display()));
    loaded.tables(&dir, Default::default())
}

/// A bundle of a loaded catalog.
fn bundle<'a>(tables: &'a Tables, package: &str, name: &str) -> &'a Bundle {
    tables
        .package(package)
        .and_then(|(_, p)| p.bundle(name))
        .unwrap_or_else(|| panic!("no bundle {name} in package {package}"))
}

fn names(answer: &Successors) -> Vec<&str> {
    answer.candidates.iter().map(|c| c.name.as_str()).collect()
}

fn installed(name: &str, version: &str, release: Option<&str>) -> Installed {
    Installed {
        name: name.into(),
        version: version.into(),
        release: release.map(str::to_string),
    }
}

// ---------------------------------------------------------------------------
// internal/operator-controller/resolve/catalog_test.go
// ---------------------------------------------------------------------------

/// A `buildFooClusterExtension` call, plus the installed bundle passed to `Resolve`.
struct Spec<'a> {
    channels: &'a [&'a str],
    range: &'a str,
    policy: Policy,
    /// `(name, version)`.
    installed: Option<(&'a str, &'a str)>,
}

impl Spec<'_> {
    fn query(&self) -> SuccessorQuery {
        SuccessorQuery {
            package: PKG.into(),
            installed: self.installed.map(|(n, v)| installed(n, v, None)),
            version_range: Some(self.range.to_string()).filter(|r| !r.is_empty()),
            channels: self.channels.iter().map(|c| c.to_string()).collect(),
            policy: self.policy,
            ..SuccessorQuery::default()
        }
    }

    /// The ClusterExtension, read as `explain-upgrade` reads cluster state.
    fn extension(&self) -> ClusterExtension {
        let mut catalog = json!({
            "packageName": PKG,
            "upgradeConstraintPolicy": match self.policy {
                Policy::CatalogProvided => "CatalogProvided",
                Policy::SelfCertified => "SelfCertified",
            },
        });
        if !self.range.is_empty() {
            catalog["version"] = json!(self.range);
        }
        if !self.channels.is_empty() {
            catalog["channels"] = json!(self.channels);
        }
        let mut object = json!({
            "apiVersion": "olm.operatorframework.io/v1",
            "kind": "ClusterExtension",
            "metadata": {"name": PKG},
            "spec": {
                "namespace": "default",
                "serviceAccount": {"name": "default"},
                "source": {"sourceType": "Catalog", "catalog": catalog},
            },
        });
        if let Some((name, version)) = self.installed {
            object["status"] = json!({"install": {"bundle": {"name": name, "version": version}}});
        }
        let text = object.to_string();
        let state = ClusterState::read(
            "extension.json",
            text.as_bytes(),
            &fbc_catalog::source::ParseLimits::default(),
        )
        .expect("the ClusterExtension reads");
        state
            .extensions
            .into_iter()
            .next()
            .expect("one ClusterExtension")
    }
}

const NO_CHANNELS: &[&str] = &[];

/// What `Resolve` returns: the bundle and its version, or the error text.
type Pick = Result<(String, String), String>;

fn bundle_pick(name: &str, version: &str) -> Pick {
    Ok((name.into(), version.into()))
}

/// [`successors`] on one catalog: its pick, or its message.
fn pick_of_successors(tables: &Tables, q: &SuccessorQuery) -> Pick {
    let answer = successors(tables, q).map_err(|e| e.to_string())?;
    match answer.candidates.first() {
        Some(first) => Ok((first.name.clone(), first.version.clone())),
        None => Err(answer.message.unwrap_or_default()),
    }
}

/// [`explain_extension`]: the first install of its path (or the bundle a fresh
/// install gets), or the message it is stuck on.
fn pick_of_explain(tables: &Tables, e: &ClusterExtension) -> Pick {
    let explained = explain_extension(tables, e)?;
    match explained.path.first() {
        Some(next) => {
            let b = bundle(tables, PKG, next);
            Ok((
                next.clone(),
                bundle_version(b, ReleaseMode::Legacy).to_string(),
            ))
        }
        None => Err(explained
            .summary
            .strip_prefix("nothing moves: ")
            .unwrap_or(&explained.summary)
            .to_string()),
    }
}

/// [`providers`] over named catalogs with priorities.
fn pick_of_providers(catalogs: &[(&str, i32, &Tables)], q: &SuccessorQuery) -> Pick {
    let inputs: Vec<CatalogInput<'_>> = catalogs
        .iter()
        .map(|(name, priority, tables)| CatalogInput {
            name,
            priority: *priority,
            tables,
        })
        .collect();
    let answer = providers(&inputs, q).map_err(|e| e.to_string())?;
    match (answer.bundle, answer.version) {
        (Some(b), Some(v)) => Ok((b, v)),
        _ => Err(answer.message.unwrap_or_default()),
    }
}

/// A resolver test whose catalogs are "a" and "b" (empty) and "c"
/// (`genPackage`), all of priority 0: the three answers must be `want`.
fn check_gen_package(spec: &Spec, want: &Pick) {
    let gen_package = tables("resolve-genpackage");
    let empty = Tables::empty();
    let q = spec.query();
    assert_eq!(
        &pick_of_successors(&gen_package, &q),
        want,
        "successors on catalog c"
    );
    assert_eq!(
        &pick_of_explain(&gen_package, &spec.extension()),
        want,
        "explain_extension on catalog c"
    );
    assert_eq!(
        &pick_of_providers(
            &[("a", 0, &empty), ("b", 0, &empty), ("c", 0, &gen_package)],
            &q
        ),
        want,
        "providers over catalogs a, b, c"
    );
}

fn not_found(rest: &str) -> Pick {
    Err(format!("no bundles found for package \"{PKG}\"{rest}"))
}

#[test]
fn test_invalid_cluster_extension_version_range() {
    // Go: no catalogs at all; the range is refused before any is walked. Here:
    // on the catalog that has the package (see the next test for no catalogs).
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "foobar",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    let want = r#"desired version range "foobar" is invalid: improper constraint: "foobar""#;
    let gen_package = tables("resolve-genpackage");
    assert_eq!(
        pick_of_successors(&gen_package, &spec.query()),
        Err(want.into())
    );
    assert_eq!(
        pick_of_explain(&gen_package, &spec.extension()),
        Err(want.into())
    );
}

#[test]
fn test_invalid_cluster_extension_version_range_without_catalogs() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "foobar",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    assert_eq!(
        pick_of_providers(&[], &spec.query()),
        Err(r#"desired version range "foobar" is invalid: improper constraint: "foobar""#.into())
    );
}

#[test]
fn test_package_does_not_exist() {
    // Three catalogs, none with the package: only a walk over catalogs models it.
    let empty = Tables::empty();
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    assert_eq!(
        pick_of_providers(
            &[("a", 0, &empty), ("b", 0, &empty), ("c", 0, &empty)],
            &spec.query()
        ),
        not_found("")
    );
}

#[test]
fn test_package_exists() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v3.0.0", "3.0.0"));
}

#[test]
fn test_version_does_not_exist() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "4.0.0",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &not_found(r#" matching version "4.0.0""#));
}

#[test]
fn test_version_exists() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: ">=1.0.0 <2.0.0",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v1.0.2", "1.0.2"));
}

#[test]
fn test_channel_does_not_exist() {
    let spec = Spec {
        channels: &["stable"],
        range: "",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &not_found(" in channels [stable]"));
}

#[test]
fn test_channel_exists() {
    let spec = Spec {
        channels: &["beta"],
        range: "",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v1.0.2", "1.0.2"));
}

#[test]
fn test_channel_exists_but_not_version() {
    let spec = Spec {
        channels: &["beta"],
        range: "3.0.0",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(
        &spec,
        &not_found(r#" matching version "3.0.0" in channels [beta]"#),
    );
}

#[test]
fn test_version_exists_but_not_channel() {
    let spec = Spec {
        channels: &["stable"],
        range: "1.0.0",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(
        &spec,
        &not_found(r#" matching version "1.0.0" in channels [stable]"#),
    );
}

#[test]
fn test_channel_and_version_exist() {
    let spec = Spec {
        channels: &["alpha"],
        range: "0.1.0",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v0.1.0", "0.1.0"));
}

#[test]
fn test_prefer_non_deprecated() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: ">=0.1.0 <=1.0.0",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v0.1.0", "0.1.0"));
    // the higher 1.0.0 is a candidate too, sorted after: it is deprecated
    let answer = successors(&tables("resolve-genpackage"), &spec.query()).expect("an answer");
    assert_eq!(names(&answer), ["pkg-abcde.v0.1.0", "pkg-abcde.v1.0.0"]);
    assert_eq!(
        answer.candidates[1].deprecated.as_deref(),
        Some("bundle pkg-abcde.v1.0.0 is deprecated")
    );
}

#[test]
fn test_accept_deprecated() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: ">=1.0.0 <=1.0.1",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v1.0.1", "1.0.1"));
}

/// `TestPackageVariationsBetweenCatalogs`: catalogs "a" (empty) to "f".
mod test_package_variations_between_catalogs {
    use super::*;

    fn pick(range: &str) -> Pick {
        let empty = Tables::empty();
        let catalogs: Vec<(String, Tables)> = ["b", "c", "d", "e", "f"]
            .iter()
            .map(|c| (c.to_string(), tables(&format!("resolve-variations/{c}"))))
            .collect();
        let mut inputs: Vec<(&str, i32, &Tables)> = vec![("a", 0, &empty)];
        inputs.extend(catalogs.iter().map(|(n, t)| (n.as_str(), 0, t)));
        let spec = Spec {
            channels: NO_CHANNELS,
            range,
            policy: Policy::CatalogProvided,
            installed: None,
        };
        pick_of_providers(&inputs, &spec.query())
    }

    #[test]
    fn when_bundle_candidates_for_a_package_are_deprecated_in_all_but_one_catalog() {
        assert_eq!(
            pick(">=1.0.0 <=1.0.3"),
            bundle_pick("pkg-abcde.v1.0.2", "1.0.2")
        );
    }

    #[test]
    fn when_bundle_candidates_are_found_and_deprecated_in_multiple_catalogs() {
        let message = pick(">=1.0.0 <=1.0.1").expect_err("no bundle");
        assert!(
            message.contains("in multiple catalogs with the same priority [b c]"),
            "{message}"
        );
    }

    #[test]
    fn when_bundle_candidates_are_found_and_not_deprecated_in_multiple_catalogs() {
        let message = pick(">=1.0.0 <=1.0.4").expect_err("no bundle");
        assert!(
            message.contains("in multiple catalogs with the same priority [d f]"),
            "{message}"
        );
    }

    #[test]
    fn highest_semver_bundle_is_chosen_when_candidates_are_all_from_the_same_catalog() {
        assert_eq!(
            pick(">=1.0.4 <=1.0.5"),
            bundle_pick("pkg-abcde.v1.0.5", "1.0.5")
        );
    }
}

#[test]
fn test_upgrade_found_legacy() {
    // 0.1.0 => 1.0.2 would not be allowed using semver semantics
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "",
        policy: Policy::CatalogProvided,
        installed: Some(("pkg-abcde.v0.1.0", "0.1.0")),
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v1.0.2", "1.0.2"));
}

#[test]
fn test_upgrade_not_found_legacy() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "<1.0.0 >=2.0.0",
        policy: Policy::CatalogProvided,
        installed: Some(("pkg-abcde.v0.1.0", "0.1.0")),
    };
    check_gen_package(
        &spec,
        &Err(format!(
            r#"error upgrading from currently installed version "0.1.0": no bundles found for package "{PKG}" matching version "<1.0.0 >=2.0.0""#
        )),
    );
}

#[test]
fn test_downgrade_found() {
    // a downgrade, allowed by SelfCertified; 0.1.0 because 1.0.0 and 1.0.1 are deprecated
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "<1.0.2",
        policy: Policy::SelfCertified,
        installed: Some(("pkg-abcde.v1.0.2", "1.0.2")),
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v0.1.0", "0.1.0"));
}

#[test]
fn test_downgrade_not_found() {
    let spec = Spec {
        channels: NO_CHANNELS,
        range: ">0.1.0 <1.0.0",
        policy: Policy::SelfCertified,
        installed: Some(("pkg-abcde.v1.0.2", "1.0.2")),
    };
    check_gen_package(
        &spec,
        &Err(format!(
            r#"error upgrading from currently installed version "1.0.2": no bundles found for package "{PKG}" matching version ">0.1.0 <1.0.0""#
        )),
    );
}

#[test]
fn test_unequal_priority() {
    let a = tables("resolve-unequal-priority/a");
    let b = tables("resolve-unequal-priority/b");
    let spec = Spec {
        channels: NO_CHANNELS,
        range: "",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    assert_eq!(
        pick_of_providers(&[("a", 1, &a), ("b", 0, &b)], &spec.query()),
        bundle_pick("pkg-abcde.v1.0.0", "1.0.0")
    );
}

#[test]
fn test_multiple_priority() {
    let gen_package = tables("resolve-genpackage");
    let spec = Spec {
        channels: NO_CHANNELS,
        range: ">=1.0.0 <=1.0.1",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    let message = pick_of_providers(
        &[
            ("a", 1, &gen_package),
            ("b", 0, &gen_package),
            ("c", 1, &gen_package),
        ],
        &spec.query(),
    )
    .expect_err("no bundle");
    assert!(
        message.contains("in multiple catalogs with the same priority [a b c]"),
        "{message}"
    );
}

#[test]
fn test_multiple_channels() {
    let spec = Spec {
        channels: &["beta", "alpha"],
        range: "",
        policy: Policy::CatalogProvided,
        installed: None,
    };
    check_gen_package(&spec, &bundle_pick("pkg-abcde.v2.0.0", "2.0.0"));
}

// ---------------------------------------------------------------------------
// internal/operator-controller/resolve/validation_test.go
// ---------------------------------------------------------------------------

/// `TestNoDependencyValidation`: each bundle is the one bundle of its package;
/// ours reports Go's error as a warning on the selected bundle, with
/// `: OLM v1 would refuse it` after Go's text.
mod test_no_dependency_validation {
    use super::*;

    fn warnings(package: &str) -> Vec<String> {
        let q = SuccessorQuery {
            package: package.into(),
            ..SuccessorQuery::default()
        };
        let answer = successors(&tables("resolve-validation"), &q).expect("an answer");
        assert_eq!(
            answer.selected.as_deref(),
            Some(format!("fake-catalog/{package}/alpha/1.0.0").as_str())
        );
        answer.warnings
    }

    fn refused(package: &str, property: &str) -> Vec<String> {
        vec![format!(
            "bundle \"fake-catalog/{package}/alpha/1.0.0\" has a dependency declared via property \"{property}\" which is currently not supported: OLM v1 would refuse it"
        )]
    }

    #[test]
    fn package_with_no_dependencies() {
        assert!(warnings("no-dependencies-package").is_empty());
    }

    #[test]
    fn package_with_olm_package_required_property() {
        assert_eq!(
            warnings("package-required-test"),
            refused("package-required-test", "olm.package.required")
        );
    }

    #[test]
    fn package_with_olm_gvk_required_property() {
        assert_eq!(
            warnings("gvk-required-test"),
            refused("gvk-required-test", "olm.gvk.required")
        );
    }

    #[test]
    fn package_with_olm_constraint_property() {
        assert_eq!(
            warnings("constraint-test"),
            refused("constraint-test", "olm.constraint")
        );
    }
}

// ---------------------------------------------------------------------------
// internal/operator-controller/catalogmetadata/filter/successors_test.go
// ---------------------------------------------------------------------------

/// `TestSuccessorsPredicate`: `SuccessorsOf` over every bundle of the set, the
/// result sorted highest first (`compare.ByVersionAndRelease`) — ours: the
/// candidates, in our order, over every channel.
mod test_successors_predicate {
    use super::*;

    fn successors_of(installed_bundle: Installed) -> Vec<String> {
        let q = SuccessorQuery {
            package: "test-package".into(),
            installed: Some(installed_bundle),
            ..SuccessorQuery::default()
        };
        let answer = successors(&tables("filter-successors"), &q).expect("an answer");
        names(&answer).into_iter().map(str::to_string).collect()
    }

    #[test]
    fn respect_replaces_directive_from_catalog() {
        assert_eq!(
            successors_of(installed("test-package.v2.0.0", "2.0.0", None)),
            ["test-package.v2.1.0", "test-package.v2.0.0"]
        );
    }

    #[test]
    fn respect_skips_directive_from_catalog() {
        assert_eq!(
            successors_of(installed("test-package.v2.2.1", "2.2.1", None)),
            ["test-package.v2.3.0", "test-package.v2.2.1"]
        );
    }

    #[test]
    fn respect_skip_range_directive_from_catalog() {
        assert_eq!(
            successors_of(installed("test-package.v2.3.0", "2.3.0", None)),
            ["test-package.v2.4.0", "test-package.v2.3.0"]
        );
    }

    #[test]
    fn installed_bundle_matcher_is_exact() {
        // not 2.1.0: it replaces 2.0.0, and 2.0.0+1 is another bundle (registry+v1 release)
        assert_eq!(
            successors_of(installed("test-package.v2.0.0+1", "2.0.0+1", None)),
            ["test-package.v2.2.0", "test-package.v2.0.0+1"]
        );
    }

    #[test]
    fn installed_bundle_not_found() {
        assert!(successors_of(installed("test-package.v9.0.0", "9.0.0", None)).is_empty());
    }

    #[test]
    fn explicit_release_field_non_empty() {
        assert!(successors_of(installed("test-package.v1.0.0", "1.0.0", Some("2"))).is_empty());
    }

    #[test]
    fn explicit_empty_release_with_build_metadata_preserves_build_metadata() {
        assert!(
            successors_of(installed("test-package.v1.0.0+git", "1.0.0+git", Some(""))).is_empty()
        );
    }
}

/// `TestLegacySuccessor`: installed package1.v0.0.1 (not in the catalog).
#[test]
fn test_legacy_successor() {
    let q = SuccessorQuery {
        package: "package1".into(),
        installed: Some(installed("package1.v0.0.1", "0.0.1", None)),
        ..SuccessorQuery::default()
    };
    let answer = successors(&tables("filter-legacy-successor"), &q).expect("an answer");
    let got = names(&answer);
    assert!(got.contains(&"package1.v0.0.2"), "b2: replaces");
    assert!(!got.contains(&"package1.v0.0.3"), "b3: replaces b2 only");
    assert!(got.contains(&"package1.v0.0.4"), "b4: skips");
    assert!(got.contains(&"package1.v0.0.5"), "b5: skipRange");
    assert_eq!(
        got,
        ["package1.v0.0.5", "package1.v0.0.4", "package1.v0.0.2"]
    );
}

/// `TestParseInstalledBundleVersionRelease_Errors`: reached through the
/// resolver's `SuccessorsOf` call, as ours is through [`successors`].
mod test_parse_installed_bundle_version_release_errors {
    use super::*;

    pub(super) fn error_of(installed_bundle: Installed) -> String {
        let q = SuccessorQuery {
            package: "test-package".into(),
            installed: Some(installed_bundle),
            ..SuccessorQuery::default()
        };
        match successors(&tables("filter-successors"), &q) {
            Ok(answer) => panic!("no error: {answer:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn invalid_version_legacy_format() {
        let e = error_of(installed("test", "invalid-version", None));
        assert!(e.contains("failed to get version and release"), "{e}");
    }

    #[test]
    fn invalid_version_explicit_release_format() {
        let e = error_of(installed("test", "invalid-version", Some("1")));
        assert!(
            e.contains("failed to parse installed bundle version"),
            "{e}"
        );
    }

    #[test]
    fn invalid_release_explicit_release_format() {
        let e = error_of(installed("test", "1.0.0", Some("001")));
        assert!(
            e.contains("failed to parse installed bundle version and release"),
            "{e}"
        );
    }
}

/// `TestSuccessorsOf_Errors`.
mod test_successors_of_errors {
    use super::*;

    #[test]
    fn invalid_installed_bundle_version() {
        let e = super::test_parse_installed_bundle_version_release_errors::error_of(installed(
            "test", "invalid", None,
        ));
        assert!(e.starts_with("error finding upgrade edges: "), "{e}");
    }
}

// ---------------------------------------------------------------------------
// internal/operator-controller/catalogmetadata/filter/bundle_predicates_test.go
// ---------------------------------------------------------------------------

/// Whether a fresh install with `range` has `bundle` among its candidates,
/// or the range's error.
fn in_range(range: &str, bundle: &str) -> Result<bool, String> {
    let q = SuccessorQuery {
        package: "package1".into(),
        version_range: Some(range.into()),
        ..SuccessorQuery::default()
    };
    let answer = successors(&tables("version-range"), &q).map_err(|e| e.to_string())?;
    Ok(names(&answer).contains(&bundle))
}

#[test]
fn test_in_semver_range() {
    assert_eq!(in_range(">=1.0.0", "package1.v1.0.0"), Ok(true), "b1");
    assert_eq!(in_range(">=1.0.0", "package1.v0.0.1"), Ok(false), "b2");
}

#[test]
fn test_in_any_channel() {
    let t = tables("in-any-channel");
    let in_channels = |channels: &[&str]| -> Vec<String> {
        let q = SuccessorQuery {
            package: "package1".into(),
            channels: channels.iter().map(|c| c.to_string()).collect(),
            ..SuccessorQuery::default()
        };
        let answer = successors(&t, &q).expect("an answer");
        let mut got: Vec<String> = names(&answer).into_iter().map(str::to_string).collect();
        got.sort();
        got
    };
    assert_eq!(in_channels(&["alpha"]), ["b1", "b2"]);
    assert_eq!(in_channels(&["stable"]), ["b1"]);
}

// ---------------------------------------------------------------------------
// internal/operator-controller/catalogmetadata/compare/compare_test.go
// ---------------------------------------------------------------------------

/// `TestNewVersionRange`: the range function's answer for a version, as
/// whether the bundle of that version is a candidate.
mod test_new_version_range {
    use super::*;

    #[test]
    fn version_without_build_metadata_matches_range_with_build_metadata() {
        assert_eq!(in_range("1.0.0+1", "package1.v1.0.0"), Ok(true));
    }

    #[test]
    fn version_with_different_build_metadata_matches_range_with_build_metadata() {
        assert_eq!(in_range("1.0.0+1", "package1.v1.0.0+2"), Ok(true));
    }

    #[test]
    fn version_with_same_build_metadata_matches_range_with_build_metadata() {
        assert_eq!(in_range("1.0.0+1", "package1.v1.0.0+1"), Ok(true));
    }

    #[test]
    fn exact_version_match_without_build_metadata() {
        assert_eq!(in_range("1.0.0", "package1.v1.0.0"), Ok(true));
    }

    #[test]
    fn version_with_build_metadata_matches_range_without_build_metadata() {
        assert_eq!(in_range("1.0.0", "package1.v1.0.0+1"), Ok(true));
    }

    #[test]
    fn invalid_range_returns_error() {
        assert!(in_range("not-a-valid-version", "package1.v1.0.0").is_err());
    }

    #[test]
    fn version_does_not_match_range() {
        assert_eq!(in_range(">=2.0.0", "package1.v1.0.0"), Ok(false));
    }
}

/// `TestByVersionAndRelease`.
mod test_by_version_and_release {
    use super::*;

    #[test]
    fn all_bundles_valid() {
        let q = SuccessorQuery {
            package: "package1".into(),
            ..SuccessorQuery::default()
        };
        let answer = successors(&tables("compare-sort"), &q).expect("an answer");
        assert_eq!(
            names(&answer),
            [
                "package1.v1.0.0",
                "package1.v1.0.0-alpha+2",
                "package1.v1.0.0-alpha+1",
                "package1.v0.0.1"
            ]
        );
    }
}

// ---------------------------------------------------------------------------
// internal/operator-controller/bundleutil/bundle_test.go
// ---------------------------------------------------------------------------

/// A bundle's (version, release) as [`bundle_version`] reads it: the version
/// as text (build metadata included) and the release identifiers.
fn version_release(name: &str, mode: ReleaseMode) -> (String, Vec<Identifier>) {
    let t = tables("bundle-version");
    let vr = bundle_version(bundle(&t, "test-bundle", name), mode);
    (vr.version.to_string(), vr.release.0)
}

fn num(n: u64) -> Identifier {
    Identifier::Numeric(n)
}

fn text(s: &str) -> Identifier {
    Identifier::Alphanumeric(s.into())
}

/// `TestGetVersionAndRelease` (feature gate `BundleReleaseSupport` at its
/// default, off: legacy mode).
mod test_get_version_and_release {
    use super::*;

    #[test]
    fn valid_version() {
        assert_eq!(
            version_release("test-bundle.v1.0.0-pre+1.alpha.2", ReleaseMode::Legacy),
            ("1.0.0-pre".to_string(), vec![num(1), text("alpha"), num(2)])
        );
    }

    #[test]
    fn invalid_release_build_metadata_with_leading_zeros() {
        assert_eq!(
            version_release("test-bundle.v1.0.0+001", ReleaseMode::Legacy),
            ("1.0.0+001".to_string(), vec![])
        );
    }
}

/// `TestGetVersionAndRelease_WithBundleReleaseSupport`.
mod test_get_version_and_release_with_bundle_release_support {
    use super::*;

    /// `gate enabled - parses explicit release field` / `explicit release field - complex release`.
    #[test]
    fn gate_enabled_explicit_release_field_complex_release() {
        assert_eq!(
            version_release("test-bundle-v2.1.0-1.alpha.3", ReleaseMode::Explicit),
            ("2.1.0".to_string(), vec![num(1), text("alpha"), num(3)])
        );
    }

    /// `gate enabled …` / `explicit empty release - preserves build metadata in version`.
    #[test]
    fn gate_enabled_explicit_empty_release_preserves_build_metadata_in_version() {
        assert_eq!(
            version_release("test-bundle.v1.0.0+2", ReleaseMode::Explicit),
            ("1.0.0+2".to_string(), vec![])
        );
    }

    /// `gate disabled - ignores explicit release field, uses build metadata`;
    /// the release field is "" here, not "999" (see the README).
    #[test]
    fn gate_disabled_ignores_explicit_release_field_uses_build_metadata() {
        assert_eq!(
            version_release("test-bundle.v1.0.0+2", ReleaseMode::Legacy),
            ("1.0.0".to_string(), vec![num(2)])
        );
    }
}
