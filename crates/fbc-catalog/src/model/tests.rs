//! Unit tests of model building: every invariant of the reference's model conversion
//! and validation (spec §3) and the model cases of its `alpha/declcfg` tests (§7.6).
//!
//! Each test starts from a valid baseline catalog written as YAML text (package `foo`,
//! default channel `alpha`, bundles `foo.v0.1.0` and `foo.v0.2.0`), breaks one thing,
//! and checks the message, the file the diagnostic points at and the object it names.

use super::{Diagnostic, Model, build};
use crate::source::{Loaded, parse_file};
use base64::Engine;
use std::fmt::Write;

const PACKAGE: &str = "foo/package.yaml";
const CHANNELS: &str = "foo/channels.yaml";
const BUNDLES: &str = "foo/bundles.yaml";
const EXTRA: &str = "foo/extra.yaml";

const SHA256: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn package_doc(pkg: &str, default_channel: &str) -> String {
    format!(
        "schema: olm.package\nname: {pkg}\ndefaultChannel: {default_channel}\ndescription: The {pkg} operator\n"
    )
}

fn channel_doc(pkg: &str, name: &str, entries: &str) -> String {
    format!("schema: olm.channel\npackage: {pkg}\nname: {name}\nentries:\n{entries}")
}

fn bundle_doc(pkg: &str, name: &str, version: &str) -> String {
    let lower = pkg.to_lowercase();
    format!(
        "schema: olm.bundle
package: {pkg}
name: {name}
image: quay.io/{lower}/bundle:v{version}
relatedImages:
  - name: operator
    image: quay.io/{lower}/operator:v{version}
properties:
  - type: olm.package
    value:
      packageName: {pkg}
      version: {version}
"
    )
}

fn deprecations_doc(pkg: &str, entries: &str) -> String {
    format!("schema: olm.deprecations\npackage: {pkg}\nentries:\n{entries}")
}

/// A catalog as files of YAML text, in walk order.
#[derive(Clone)]
struct Catalog {
    files: Vec<(String, String)>,
}

impl Catalog {
    /// The valid baseline: package `foo`.
    fn new() -> Self {
        Catalog::empty().with_package("foo")
    }

    /// No files at all.
    fn empty() -> Self {
        Catalog { files: Vec::new() }
    }

    /// Adds a valid package `pkg` in `<pkg>/package.yaml`, `<pkg>/channels.yaml` and
    /// `<pkg>/bundles.yaml`: channel `alpha` with `<pkg>.v0.2.0` replacing `<pkg>.v0.1.0`.
    fn with_package(self, pkg: &str) -> Self {
        let entries =
            format!("  - name: {pkg}.v0.1.0\n  - name: {pkg}.v0.2.0\n    replaces: {pkg}.v0.1.0\n");
        self.add(&format!("{pkg}/package.yaml"), &package_doc(pkg, "alpha"))
            .add(
                &format!("{pkg}/channels.yaml"),
                &channel_doc(pkg, "alpha", &entries),
            )
            .add(
                &format!("{pkg}/bundles.yaml"),
                &bundle_doc(pkg, &format!("{pkg}.v0.1.0"), "0.1.0"),
            )
            .add(
                &format!("{pkg}/bundles.yaml"),
                &bundle_doc(pkg, &format!("{pkg}.v0.2.0"), "0.2.0"),
            )
    }

    /// Appends a YAML document to `file`, creating the file after the others if needed.
    fn add(mut self, file: &str, doc: &str) -> Self {
        match self.files.iter_mut().find(|(f, _)| f == file) {
            Some((_, text)) => {
                text.push_str("---\n");
                text.push_str(doc);
            }
            None => self.files.push((file.to_string(), doc.to_string())),
        }
        self
    }

    /// Replaces the one occurrence of `from` in `file` with `to`.
    fn edit(mut self, file: &str, from: &str, to: &str) -> Self {
        let (_, text) = self
            .files
            .iter_mut()
            .find(|(f, _)| f == file)
            .unwrap_or_else(|| panic!("no file {file}"));
        assert_eq!(
            text.matches(from).count(),
            1,
            "{from:?} must occur exactly once in {file}:\n{text}"
        );
        *text = text.replacen(from, to, 1);
        self
    }

    /// Replaces every occurrence of `from` in `file` with `to`.
    fn edit_all(mut self, file: &str, from: &str, to: &str) -> Self {
        let (_, text) = self
            .files
            .iter_mut()
            .find(|(f, _)| f == file)
            .unwrap_or_else(|| panic!("no file {file}"));
        assert!(text.contains(from), "{from:?} not in {file}:\n{text}");
        *text = text.replace(from, to);
        self
    }

    /// Drops a file.
    fn without(mut self, file: &str) -> Self {
        let before = self.files.len();
        self.files.retain(|(f, _)| f != file);
        assert_eq!(self.files.len() + 1, before, "no file {file}");
        self
    }

    /// Renames bundle `old` of package `foo` to `new`, in its blob and in the channel.
    fn rename_bundle(self, old: &str, new: &str) -> Self {
        self.edit(
            BUNDLES,
            &format!("name: {old}\n"),
            &format!("name: {new}\n"),
        )
        .edit_all(CHANNELS, old, new)
    }

    fn loaded(&self) -> Loaded {
        let mut loaded = Loaded::default();
        for (file, text) in &self.files {
            let result = parse_file(file, text);
            assert!(
                result.errors.is_empty(),
                "test catalog {file} does not load: {:?}\n{text}",
                result.errors
            );
            loaded.blobs.extend(result.blobs);
        }
        loaded
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        match build(self.loaded()) {
            Ok(_) => panic!(
                "expected diagnostics, the catalog is valid:\n{}",
                self.dump()
            ),
            Err(diags) => diags,
        }
    }

    fn model(&self) -> Model {
        match build(self.loaded()) {
            Ok(model) => model,
            Err(diags) => panic!("expected a valid catalog, got:\n{}", lines(&diags)),
        }
    }

    fn dump(&self) -> String {
        self.files
            .iter()
            .fold(String::new(), |out, (f, t)| out + "# " + f + "\n" + t)
    }
}

fn lines(diags: &[Diagnostic]) -> String {
    diags.iter().fold(String::new(), |mut out, d| {
        let _ = writeln!(out, "  {d}");
        out
    })
}

/// The one diagnostic whose message contains `needle` (others may exist).
fn find(diags: &[Diagnostic], needle: &str) -> Diagnostic {
    let found: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| d.message.contains(needle))
        .collect();
    match found.as_slice() {
        [d] => (*d).clone(),
        _ => panic!(
            "expected one diagnostic containing {needle:?}, found {}:\n{}",
            found.len(),
            lines(diags)
        ),
    }
}

/// The catalog's only diagnostic, which must contain `needle`.
fn only(catalog: &Catalog, needle: &str) -> Diagnostic {
    let diags = catalog.diagnostics();
    assert_eq!(
        diags.len(),
        1,
        "expected one diagnostic:\n{}",
        lines(&diags)
    );
    find(&diags, needle)
}

/// Checks the file and the object a diagnostic names.
#[track_caller]
fn assert_names(d: &Diagnostic, file: &str, package: &str, channel: &str, bundle: &str) {
    let origin = d
        .location
        .file
        .as_deref()
        .unwrap_or_else(|| panic!("no file in {d}"));
    assert_eq!(origin, file, "file of {d}");
    assert_eq!(
        (d.package.as_str(), d.channel.as_str(), d.bundle.as_str()),
        (package, channel, bundle),
        "package, channel, bundle of {d}"
    );
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

// ---------------------------------------------------------------------------------
// The baseline

#[test]
fn the_baseline_catalog_builds_into_one_package_with_its_channel_and_bundles() {
    let model = Catalog::new().model();
    assert_eq!(model.packages.len(), 1);
    let p = &model.packages[0];
    assert_eq!(p.name, "foo");
    assert_eq!(p.default_channel, "alpha");
    assert_eq!(p.description, "The foo operator");
    assert_eq!(&*p.origin.file, PACKAGE);
    assert_eq!(p.channels.len(), 1);
    let ch = p.channel("alpha").expect("channel alpha");
    assert_eq!(ch.head_entry().name, "foo.v0.2.0");
    assert_eq!(ch.entries[1].replaces, "foo.v0.1.0");
    assert_eq!(&*ch.origin.file, CHANNELS);
    let names: Vec<&str> = p.bundles.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["foo.v0.1.0", "foo.v0.2.0"]);
    let b = p.bundle("foo.v0.2.0").expect("bundle");
    assert_eq!(b.image, "quay.io/foo/bundle:v0.2.0");
    assert_eq!(b.version, semver::Version::new(0, 2, 0));
    assert_eq!(b.release, None);
    assert_eq!(b.related_images[0].image, "quay.io/foo/operator:v0.2.0");
    assert_eq!((&*b.origin.file, b.origin.document), (BUNDLES, 2));
    assert!(p.deprecation.is_none() && ch.deprecation.is_none() && b.deprecation.is_none());
    assert!(model.custom.is_empty());
}

#[test]
fn a_diagnostic_displays_its_origin_its_objects_and_its_message() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skips: [\"\"]\n",
        ),
        "skip[0] is empty",
    );
    assert_eq!(
        d.to_string(),
        "foo/channels.yaml: document 1 (line 1): package \"foo\", channel \"alpha\", bundle \"foo.v0.2.0\": skip[0] is empty"
    );
}

#[test]
fn load_errors_become_diagnostics_that_keep_their_location() {
    let mut loaded = Catalog::new().loaded();
    loaded.errors.extend(parse_file("bad.yaml", "[]\n").errors);
    let diags = build(loaded).expect_err("a load error");
    assert_eq!(diags.len(), 1, "{}", lines(&diags));
    assert_eq!(diags[0].location.file.as_deref(), Some("bad.yaml"));
    assert_eq!(diags[0].location.document, Some(1));
    assert_eq!(diags[0].kind, crate::diagnostic::Kind::Envelope);
    assert!(
        diags[0]
            .to_string()
            .starts_with("bad.yaml: document 1 (line 1): ")
            && diags[0]
                .message
                .contains("must be a JSON object, found an array"),
        "{}",
        diags[0]
    );
}

// ---------------------------------------------------------------------------------
// Packages

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

// ---------------------------------------------------------------------------------
// Channels

#[test]
fn a_channel_of_an_unknown_package_is_reported() {
    let d = only(
        &Catalog::new().add(EXTRA, &channel_doc("bar", "beta", "  - name: bar.v0.1.0\n")),
        "unknown package \"bar\" for channel \"beta\"",
    );
    assert_names(&d, EXTRA, "bar", "", "");
}

#[test]
fn a_channel_without_a_package_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\nname: beta\nentries:\n  - name: foo.v0.1.0\n",
        ),
        "package name must be set for channel \"beta\"",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn a_channel_without_a_name_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\npackage: foo\nentries:\n  - name: foo.v0.1.0\n",
        ),
        "channel has no name",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_duplicate_channel_is_reported_on_the_second_blob() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &channel_doc("foo", "alpha", "  - name: foo.v0.2.0\n"),
        ),
        "duplicate channel \"alpha\" (first defined at foo/channels.yaml: document 1 (line 1))",
    );
    assert_names(&d, EXTRA, "foo", "alpha", "");
}

#[test]
fn a_duplicate_entry_in_a_channel_is_reported() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - name: foo.v0.1.0\n",
        ),
        "duplicate entry \"foo.v0.1.0\"",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_channel_entry_without_a_name_is_reported() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - replaces: foo.v0.2.0\n",
        ),
        "entries[2]: name must be set",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

/// `entries: [..., null]`: the reference decodes the null as an entry with an empty
/// name and rejects the channel; here the null is dropped without a word, while an
/// entry object without a name is reported.
#[test]
fn a_null_channel_entry_is_reported() {
    let diags = Catalog::new()
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - null\n",
        )
        .diagnostics();
    let d = find(&diags, "entries[2]");
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_channel_with_no_entries_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\npackage: foo\nname: beta\nentries: []\n",
        ),
        "channel must contain at least one bundle",
    );
    assert_names(&d, EXTRA, "foo", "beta", "");
}

#[test]
fn a_channel_entry_without_a_bundle_blob_is_reported_with_its_name() {
    let d = only(
        &Catalog::new().edit(BUNDLES, &bundle_doc("foo", "foo.v0.1.0", "0.1.0"), ""),
        "no olm.bundle blobs found in package \"foo\" for olm.channel entries [foo.v0.1.0]",
    );
    assert_eq!(
        d.message,
        "no olm.bundle blobs found in package \"foo\" for olm.channel entries [foo.v0.1.0]"
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn entries_without_bundle_blobs_are_reported_in_every_channel() {
    let diags = Catalog::new()
        .add(EXTRA, &channel_doc("foo", "beta", "  - name: foo.v0.3.0\n"))
        .add(
            EXTRA,
            &channel_doc("foo", "stable", "  - name: foo.v0.4.0\n"),
        )
        .diagnostics();
    assert_eq!(diags.len(), 2, "{}", lines(&diags));
    let beta = find(&diags, "olm.channel entries [foo.v0.3.0]");
    assert_names(&beta, EXTRA, "foo", "beta", "");
    let stable = find(&diags, "olm.channel entries [foo.v0.4.0]");
    assert_names(&stable, EXTRA, "foo", "stable", "");
    assert_eq!(stable.location.document, Some(2));
}

#[test]
fn a_replaces_cycle_leaves_a_channel_without_a_head() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "  - name: foo.v0.1.0\n",
            "  - name: foo.v0.1.0\n    replaces: foo.v0.2.0\n",
        ),
        "no channel head found in graph",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_channel_with_two_heads_is_reported_with_both_names_sorted() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "  - name: foo.v0.1.0\n  - name: foo.v0.2.0\n    replaces: foo.v0.1.0\n",
            "  - name: foo.v0.2.0\n  - name: foo.v0.1.0\n",
        ),
        "multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_replaces_cycle_below_the_head_is_reported_with_its_path() {
    let d = only(
        &Catalog::new()
            .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
            .edit(
                CHANNELS,
                "  - name: foo.v0.1.0\n",
                "  - name: foo.v0.1.0\n    replaces: foo.v0.2.0\n",
            )
            .edit(
                CHANNELS,
                "    replaces: foo.v0.1.0\n",
                "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    replaces: foo.v0.2.0\n",
            ),
        "detected cycle in replaces chain of upgrade graph: foo.v0.3.0 -> foo.v0.2.0 -> foo.v0.1.0 -> foo.v0.2.0",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_bundle_neither_on_the_replaces_chain_nor_skipped_is_stranded() {
    let d = only(
        &Catalog::new()
            .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
            .edit(
                CHANNELS,
                "    replaces: foo.v0.1.0\n",
                "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    skips: [foo.v0.2.0]\n",
            ),
        "channel contains one or more stranded bundles: foo.v0.1.0",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn only_the_tail_may_replace_an_absent_bundle_and_skipped_bundles_are_not_stranded() {
    let model = Catalog::new()
        .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
        .edit(CHANNELS, "  - name: foo.v0.1.0\n", "  - name: foo.v0.1.0\n    replaces: foo.v0.0.1\n")
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    replaces: foo.v0.1.0\n    skips: [foo.v0.2.0]\n",
        )
        .model();
    let ch = model.packages[0].channel("alpha").expect("alpha");
    assert_eq!(ch.head_entry().name, "foo.v0.3.0");
    assert_eq!(ch.head_entry().skips, ["foo.v0.2.0"]);
}

#[test]
fn an_empty_skip_is_reported_on_its_entry() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skips:\n      - \"\"\n",
        ),
        "skip[0] is empty",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "foo.v0.2.0");
}

#[test]
fn an_invalid_skip_range_is_reported_on_its_entry() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skipRange: '>=1.0, <2.0'\n",
        ),
        "invalid skipRange \">=1.0, <2.0\"",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "foo.v0.2.0");
}

#[test]
fn a_skip_range_with_a_space_after_the_operator_is_valid() {
    let model = Catalog::new()
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skipRange: '< 0.6.0'\n",
        )
        .model();
    let ch = model.packages[0].channel("alpha").expect("alpha");
    assert_eq!(ch.head_entry().skip_range, "< 0.6.0");
}

#[test]
fn a_channel_whose_entries_are_not_objects_is_a_parse_error() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\npackage: foo\nname: beta\nentries: [foo.v0.1.0]\n",
        ),
        "parse channel: entries[0] must be an object, found a string",
    );
    assert_names(&d, EXTRA, "foo", "beta", "");
}

// ---------------------------------------------------------------------------------
// Bundles

#[test]
fn a_bundle_without_a_package_is_reported() {
    let d = only(
        &Catalog::new().add(
            BUNDLES,
            &bundle_doc("foo", "foo.v0.3.0", "0.3.0").replace("package: foo\n", ""),
        ),
        "package name must be set for bundle \"foo.v0.3.0\"",
    );
    assert_names(&d, BUNDLES, "", "", "");
    assert_eq!(d.location.document, Some(3));
}

#[test]
fn a_bundle_of_an_unknown_package_is_reported() {
    let d = only(
        &Catalog::new().add(EXTRA, &bundle_doc("bar", "bar.v0.1.0", "0.1.0")),
        "unknown package \"bar\" for bundle \"bar.v0.1.0\"",
    );
    assert_names(&d, EXTRA, "bar", "", "");
}

#[test]
fn a_bundle_without_a_name_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &bundle_doc("foo", "foo.v0.3.0", "0.3.0").replace("name: foo.v0.3.0\n", ""),
        ),
        "bundle has no name",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_duplicate_bundle_is_reported_on_the_second_blob() {
    let d = only(
        &Catalog::new().add(EXTRA, &bundle_doc("foo", "foo.v0.1.0", "0.1.0")),
        "duplicate bundle \"foo.v0.1.0\" (first defined at foo/bundles.yaml: document 1 (line 1))",
    );
    assert_names(&d, EXTRA, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_without_an_olm_package_property_is_reported() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "  - type: olm.package\n    value:\n      packageName: foo\n      version: 0.1.0\n",
            "  - type: olm.gvk\n    value:\n      group: foo.io\n      kind: Foo\n      version: v1\n",
        ),
        "must have exactly 1 \"olm.package\" property, found 0",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_with_two_olm_package_properties_is_reported() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n  - type: olm.package\n    value:\n      packageName: foo\n      version: 0.1.1\n",
        ),
        "must have exactly 1 \"olm.package\" property, found 2",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_whose_olm_package_property_names_another_package_is_reported() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      packageName: foo\n      version: 0.1.0\n",
            "      packageName: bar\n      version: 0.1.0\n",
        ),
        "package \"foo\" does not match \"olm.package\" property \"bar\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_version_that_is_not_semver_is_reported() {
    let d = only(
        &Catalog::new().edit(BUNDLES, "      version: 0.1.0\n", "      version: v0.1.0\n"),
        "error parsing bundle version \"v0.1.0\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_property_without_a_value_is_reported_with_its_index_and_type() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n  - type: olm.gvk\n",
        ),
        "parse properties: parse property[1] of type \"olm.gvk\": property has no value",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_image_with_an_unknown_digest_algorithm_is_rejected() {
    let image = format!("quay.io/foo@ssha256:{SHA256}");
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "image: quay.io/foo/bundle:v0.1.0\n",
            &format!("image: {image}\n"),
        ),
        &format!("image: invalid image pull spec {image:?}"),
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_image_with_an_md5_digest_is_rejected() {
    let image = "quay.io/foo@md5:0123456789abcdef0123456789abcdef";
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "image: quay.io/foo/bundle:v0.2.0\n",
            &format!("image: {image}\n"),
        ),
        &format!("image: invalid image pull spec {image:?}"),
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.2.0");
}

#[test]
fn a_bundle_image_with_a_tag_and_a_sha256_digest_is_accepted() {
    let image = format!("quay.io/foo/bundle:v0.1.0@sha256:{SHA256}");
    let model = Catalog::new()
        .edit(
            BUNDLES,
            "image: quay.io/foo/bundle:v0.1.0\n",
            &format!("image: {image}\n"),
        )
        .model();
    assert_eq!(
        model.packages[0]
            .bundle("foo.v0.1.0")
            .expect("bundle")
            .image,
        image
    );
}

#[test]
fn an_invalid_related_image_is_reported_with_its_index() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "    image: quay.io/foo/operator:v0.1.0\n",
            "    image: quay.io/Foo/operator:v0.1.0\n",
        ),
        "relatedImages[0].image: invalid image pull spec \"quay.io/Foo/operator:v0.1.0\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_in_no_channel_is_reported() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "  - name: foo.v0.2.0\n    replaces: foo.v0.1.0\n",
            "",
        ),
        "package \"foo\", bundle \"foo.v0.2.0\" not found in any channel entries",
    );
    assert_eq!(
        d.message,
        "package \"foo\", bundle \"foo.v0.2.0\" not found in any channel entries"
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.2.0");
    assert_eq!(d.location.document, Some(2));
}

#[test]
fn a_bundle_without_an_image_but_with_objects_is_valid() {
    let object = format!(
        "  - type: olm.bundle.object\n    value:\n      data: {}\n",
        b64(r#"{"kind":"ClusterServiceVersion","metadata":{"name":"foo.v0.1.0"}}"#)
    );
    let model = Catalog::new()
        .edit(BUNDLES, "image: quay.io/foo/bundle:v0.1.0\n", "")
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            &format!("      version: 0.1.0\n{object}"),
        )
        .model();
    let b = model.packages[0].bundle("foo.v0.1.0").expect("bundle");
    assert_eq!(b.image, "");
    assert_eq!(b.objects.len(), 1);
    assert_eq!(b.csv_object, Some(0));
}

#[test]
fn a_bundle_without_an_image_or_objects_is_reported() {
    let d = only(
        &Catalog::new().edit(BUNDLES, "image: quay.io/foo/bundle:v0.1.0\n", ""),
        "bundle image must be set",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn an_invalid_release_is_reported_with_the_reference_message() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: \"!!!\"\n",
        ),
        "release version",
    );
    assert_eq!(
        d.message,
        "error parsing bundle release version \"!!!\": invalid release \"!!!\": segment 0: Invalid character(s) found in prerelease \"!!!\""
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_with_a_release_must_be_named_package_v_version_release() {
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: alpha.1.0.0\n",
        ),
        "name \"foo.v0.1.0\" does not match normalized name \"foo-v0.1.0-alpha.1.0.0\"",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn a_bundle_with_a_release_and_the_normalized_name_is_valid() {
    let model = Catalog::new()
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: alpha.1.0.0\n",
        )
        .rename_bundle("foo.v0.1.0", "foo-v0.1.0-alpha.1.0.0")
        .model();
    let b = model.packages[0]
        .bundle("foo-v0.1.0-alpha.1.0.0")
        .expect("bundle");
    assert_eq!(b.release.as_deref(), Some("alpha.1.0.0"));
    assert_eq!(b.version_text, "0.1.0");
}

#[test]
fn build_metadata_cannot_be_combined_with_a_release() {
    let d = only(
        &Catalog::new()
            .edit(
                BUNDLES,
                "      version: 0.1.0\n",
                "      version: 0.1.0+build.1\n      release: alpha\n",
            )
            .rename_bundle("foo.v0.1.0", "foo-v0.1.0+build.1-alpha"),
        "cannot use build metadata in version with a release version",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo-v0.1.0+build.1-alpha");
}

#[test]
fn two_bundles_with_the_same_version_are_reported_on_the_package() {
    let d = only(
        &Catalog::new().edit(BUNDLES, "      version: 0.2.0\n", "      version: 0.1.0\n"),
        "duplicate versions found in bundles: [{0.1.0: [foo.v0.1.0, foo.v0.2.0]}]",
    );
    assert_names(&d, PACKAGE, "foo", "", "");
}

#[test]
fn the_same_version_with_different_releases_is_not_a_duplicate() {
    Catalog::new()
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n      release: \"1\"\n",
        )
        .rename_bundle("foo.v0.1.0", "foo-v0.1.0-1")
        .edit(
            BUNDLES,
            "      version: 0.2.0\n",
            "      version: 0.1.0\n      release: \"2\"\n",
        )
        .rename_bundle("foo.v0.2.0", "foo-v0.1.0-2")
        .model();
}

#[test]
fn a_bundle_with_two_csv_metadata_properties_is_reported() {
    let meta = "  - type: olm.csv.metadata\n    value:\n      displayName: Foo\n";
    let d = only(
        &Catalog::new().edit(
            BUNDLES,
            "      version: 0.1.0\n",
            &format!("      version: 0.1.0\n{meta}{meta}"),
        ),
        "expected at most 1 property of type \"olm.csv.metadata\", found 2",
    );
    assert_names(&d, BUNDLES, "foo", "", "foo.v0.1.0");
}

#[test]
fn one_csv_metadata_property_is_kept() {
    let model = Catalog::new()
        .edit(
            BUNDLES,
            "      version: 0.1.0\n",
            "      version: 0.1.0\n  - type: olm.csv.metadata\n    value:\n      displayName: Foo\n",
        )
        .model();
    let b = model.packages[0].bundle("foo.v0.1.0").expect("bundle");
    let pieces = b.csv_pieces.as_ref().expect("a CSV is synthesised");
    let parts = crate::model::csv::PackageParts::new(&model.packages[0]).expect("parts");
    let csv: Vec<u8> = pieces.chunks(&parts).concat();
    let csv: serde_json::Value = serde_json::from_slice(&csv).expect("the CSV is JSON");
    assert_eq!(csv["spec"]["displayName"], "Foo");
}

// ---------------------------------------------------------------------------------
// Deprecations

const DEPRECATE_PACKAGE: &str =
    "  - reference:\n      schema: olm.package\n    message: foo is deprecated\n";

#[test]
fn deprecations_without_a_package_are_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc("foo", DEPRECATE_PACKAGE).replace("package: foo\n", ""),
        ),
        "package name must be set for olm.deprecations",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn deprecations_of_an_unknown_package_are_reported() {
    let d = only(
        &Catalog::new().add(EXTRA, &deprecations_doc("bar", DEPRECATE_PACKAGE)),
        "cannot apply deprecations to an unknown package \"bar\"",
    );
    assert_names(&d, EXTRA, "bar", "", "");
}

#[test]
fn a_second_deprecations_blob_for_a_package_is_reported() {
    let d = only(
        &Catalog::new()
            .add(EXTRA, &deprecations_doc("foo", DEPRECATE_PACKAGE))
            .add(
                "zz/deprecations.yaml",
                &deprecations_doc("foo", DEPRECATE_PACKAGE),
            ),
        "expected a maximum of one deprecation per package: \"foo\" (first at foo/extra.yaml: document 1 (line 1))",
    );
    assert_names(&d, "zz/deprecations.yaml", "foo", "", "");
}

#[test]
fn a_deprecation_entry_without_a_schema_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      name: foo.v0.1.0\n    message: gone\n",
            ),
        ),
        "schema must be set for deprecation entry [0]",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_duplicate_deprecation_entry_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc("foo", &format!("{DEPRECATE_PACKAGE}{DEPRECATE_PACKAGE}")),
        ),
        "duplicate deprecation entry for olm.package \"\"",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_an_unknown_bundle_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.bundle\n      name: foo.v9.9.9\n    message: gone\n",
            ),
        ),
        "cannot deprecate bundle \"foo.v9.9.9\": bundle not found",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_an_unknown_channel_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.channel\n      name: beta\n    message: gone\n",
            ),
        ),
        "cannot deprecate channel \"beta\": channel not found",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_a_package_by_name_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.package\n      name: foo\n    message: gone\n",
            ),
        ),
        "package name must be empty for deprecated package \"foo\" (specified \"foo\")",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn deprecating_an_object_of_an_unknown_schema_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.foo\n      name: x\n    message: gone\n",
            ),
        ),
        "cannot deprecate object olm.foo \"x\": object schema unknown",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_deprecation_without_a_message_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &deprecations_doc("foo", "  - reference:\n      schema: olm.package\n"),
        ),
        "invalid deprecation: entry [0] (olm.package \"\"): message must be set",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn valid_deprecations_are_attached_to_the_package_channel_and_bundle() {
    let model = Catalog::new()
        .add(
            EXTRA,
            &deprecations_doc(
                "foo",
                "  - reference:\n      schema: olm.package\n    message: foo is deprecated\n\
                 \x20 - reference:\n      schema: olm.channel\n      name: alpha\n    message: alpha is deprecated\n\
                 \x20 - reference:\n      schema: olm.bundle\n      name: foo.v0.1.0\n    message: foo.v0.1.0 is deprecated\n",
            ),
        )
        .model();
    let p = &model.packages[0];
    assert_eq!(p.deprecation.as_deref(), Some("foo is deprecated"));
    assert_eq!(
        p.channel("alpha").expect("alpha").deprecation.as_deref(),
        Some("alpha is deprecated")
    );
    assert_eq!(
        p.bundle("foo.v0.1.0")
            .expect("bundle")
            .deprecation
            .as_deref(),
        Some("foo.v0.1.0 is deprecated")
    );
    assert_eq!(p.bundle("foo.v0.2.0").expect("bundle").deprecation, None);
}

// ---------------------------------------------------------------------------------
// Custom schemas

#[test]
fn a_custom_schema_with_a_slash_is_invalid() {
    let d = only(
        &Catalog::new().add(EXTRA, "schema: a/b\nname: x\n"),
        "invalid custom schema meta: invalid schema \"a/b\": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn a_blob_without_a_schema_is_invalid() {
    let d = only(
        &Catalog::new().add(EXTRA, "hello: world\n"),
        "invalid custom schema meta: invalid schema: must not be empty",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn a_custom_blob_with_an_invalid_package_key_is_invalid() {
    let d = only(
        &Catalog::new().add(EXTRA, "schema: my-schema\npackage: ../foo\n"),
        "invalid custom schema meta: invalid package \"../foo\": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$",
    );
    assert_names(&d, EXTRA, "../foo", "", "");
}

#[test]
fn valid_custom_blobs_are_kept_in_walk_order() {
    let model = Catalog::new()
        .add("a/custom.yaml", "schema: my-schema\nname: first\n")
        .add(
            "a/custom.yaml",
            "schema: custom.operator.io\npackage: foo\nname: second\n",
        )
        .add(
            "z/custom.yaml",
            "schema: foo..\npackage: no-such-package\nname: third\n",
        )
        .add("z/custom.yaml", "schema: '123'\nname: fourth\n")
        .add("z/custom.yaml", "schema: my_schema\nname: fifth\n")
        .model();
    let names: Vec<(&str, &str)> = model
        .custom
        .iter()
        .map(|b| (b.schema.as_str(), b.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("my-schema", "first"),
            ("custom.operator.io", "second"),
            ("foo..", "third"),
            ("123", "fourth"),
            ("my_schema", "fifth"),
        ]
    );
    assert_eq!(model.custom[2].package, "no-such-package");
    assert_eq!(model.packages.len(), 1);
}

#[test]
fn meta_keys_follow_the_reference_pattern() {
    for ok in [
        "my-schema",
        "custom.operator.io",
        "foo..",
        "my_schema",
        "123",
    ] {
        assert!(super::is_valid_meta_key(ok), "{ok:?} should be valid");
    }
    for bad in [
        "",
        ".",
        "..",
        "...",
        "../foo",
        "foo/..",
        "foo/bar",
        "foo\\bar",
        "..foo",
        ".hidden",
        "-flag",
        "_private",
        "v1+beta",
        "custom:v1",
        "has space",
    ] {
        assert!(!super::is_valid_meta_key(bad), "{bad:?} should be invalid");
    }
}

// ---------------------------------------------------------------------------------
// Reporting

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
