//! `olm.package` blobs: names, default channels, icons, and what an undecodable
//! package does to its channels and bundles.

use super::*;

#[test]
fn a_package_without_a_name_is_reported_on_its_blob() {
    let diags = Catalog::new()
        .edit(PACKAGE, "name: foo\n", "")
        .diagnostics();
    let d = find(&diags, "olm.package blob has no name");
    assert_names(&d, PACKAGE, "", "", "");
}

#[test]
fn a_duplicate_package_is_reported_on_the_second_file() {
    let d = only(
        &Catalog::new().add("zz/package.yaml", &package_doc("foo", "alpha")),
        "duplicate package \"foo\" (first defined at foo/package.yaml: document 1 (line 1))",
    );
    assert_names(&d, "zz/package.yaml", "foo", "", "");
}

#[test]
fn an_uppercase_package_name_is_not_a_valid_dns_label() {
    let cat = Catalog::empty().with_package("Bar");
    let d = only(
        &cat,
        "invalid package name \"Bar\": a lowercase RFC 1123 label",
    );
    assert_names(&d, "Bar/package.yaml", "Bar", "", "");
}

#[test]
fn a_package_name_longer_than_63_characters_is_invalid() {
    let long = "a".repeat(64);
    let cat = Catalog::empty().with_package(&long);
    let d = only(&cat, "must be no more than 63 characters");
    assert_names(&d, &format!("{long}/package.yaml"), &long, "", "");
    // 63 is fine
    let ok = "a".repeat(63);
    Catalog::empty().with_package(&ok).model();
}

#[test]
fn a_package_without_a_default_channel_is_reported() {
    let d = only(
        &Catalog::new().edit(PACKAGE, "defaultChannel: alpha\n", ""),
        "default channel must be set",
    );
    assert_eq!(d.message, "default channel must be set");
    assert_names(&d, PACKAGE, "foo", "", "");
}

#[test]
fn a_default_channel_naming_no_channel_is_reported_with_the_channels_there_are() {
    let d = only(
        &Catalog::new().edit(PACKAGE, "defaultChannel: alpha\n", "defaultChannel: bar\n"),
        "default channel \"bar\" not found in channels list (channels: alpha)",
    );
    assert_names(&d, PACKAGE, "foo", "", "");
}

#[test]
fn a_package_with_no_channels_is_reported() {
    let diags = Catalog::new().without(CHANNELS).diagnostics();
    let d = find(&diags, "package must contain at least one channel");
    assert_names(&d, PACKAGE, "foo", "", "");
    // and, as a consequence, its bundles are in no channel
    find(
        &diags,
        "bundle \"foo.v0.1.0\" not found in any channel entries",
    );
}

#[test]
fn a_package_with_an_undecodable_icon_is_reported() {
    let diags = with_undecodable_icon().diagnostics();
    let d = find(
        &diags,
        "parse package: icon.base64data: illegal base64 data",
    );
    assert_names(&d, PACKAGE, "foo", "", "");
}

fn with_undecodable_icon() -> Catalog {
    Catalog::new().edit(
        PACKAGE,
        "description: The foo operator\n",
        "description: The foo operator\nicon:\n  base64data: \"!!not base64\"\n  mediatype: image/png\n",
    )
}

/// A package blob that exists but fails to decode must not make its channels and
/// bundles "unknown" with the false claim that no `olm.package` blob has that name:
/// `add_package` even registers a draft for that purpose, but `draft_for` treats a
/// draft without a package as unknown.
#[test]
fn an_undecodable_package_does_not_make_its_channels_and_bundles_unknown() {
    let diags = with_undecodable_icon().diagnostics();
    assert_eq!(
        diags.len(),
        1,
        "expected one diagnostic:\n{}",
        lines(&diags)
    );
    find(
        &diags,
        "parse package: icon.base64data: illegal base64 data",
    );
}

#[test]
fn a_package_icon_is_decoded() {
    let cat = Catalog::new().edit(
        PACKAGE,
        "description: The foo operator\n",
        &format!(
            "description: The foo operator\nicon:\n  base64data: {}\n  mediatype: image/svg+xml\n",
            b64("<svg/>")
        ),
    );
    let icon = cat.model().packages[0].icon.clone().expect("icon");
    assert_eq!(&icon.data[..], b"<svg/>");
    assert_eq!(icon.media_type, "image/svg+xml");
}
