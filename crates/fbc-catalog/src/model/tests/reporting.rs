//! How diagnostics are reported: all at once, in the same order on every build,
//! grouped by package name.

use super::*;

fn three_problems_in_two_packages() -> Catalog {
    Catalog::new()
        .with_package("bar")
        // foo: no default channel (package check)
        .edit(PACKAGE, "defaultChannel: alpha\n", "")
        // foo: a duplicate entry (channel check)
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - name: foo.v0.2.0\n",
        )
        // bar: a bundle version that is not semver (bundle check)
        .edit(
            "bar/bundles.yaml",
            "      version: 0.2.0\n",
            "      version: two\n",
        )
}

#[test]
fn every_problem_of_every_package_is_reported_at_once() {
    let diags = three_problems_in_two_packages().diagnostics();
    assert_eq!(diags.len(), 3, "{}", lines(&diags));
    let d = find(&diags, "default channel must be set");
    assert_names(&d, PACKAGE, "foo", "", "");
    let d = find(&diags, "duplicate entry \"foo.v0.2.0\"");
    assert_names(&d, CHANNELS, "foo", "alpha", "");
    let d = find(&diags, "error parsing bundle version \"two\"");
    assert_names(&d, "bar/bundles.yaml", "bar", "", "bar.v0.2.0");
}

#[test]
fn diagnostics_come_in_the_same_order_on_every_build() {
    let cat = three_problems_in_two_packages();
    let first = cat.diagnostics();
    for _ in 0..5 {
        assert_eq!(cat.diagnostics(), first);
    }
}

/// The module documentation promises "a stable order (packages by name, then in the
/// order of the checks)", but diagnostics found while blobs are read (channels,
/// bundles, deprecations) all come before the per-package checks, so one package's
/// diagnostics are interleaved with another's.
#[test]
fn diagnostics_are_grouped_by_package_name() {
    let diags = three_problems_in_two_packages().diagnostics();
    let packages: Vec<&str> = diags.iter().map(|d| d.package.as_str()).collect();
    let mut sorted = packages.clone();
    sorted.sort_unstable();
    assert_eq!(packages, sorted, "{}", lines(&diags));
}
