//! Unit tests of model building: every invariant of the reference's model conversion
//! and validation (operator-registry's `alpha/model` rules) and the model cases of its `alpha/declcfg` tests.
//!
//! Each test starts from a valid baseline catalog written as YAML text (package `foo`,
//! default channel `alpha`, bundles `foo.v0.1.0` and `foo.v0.2.0`), breaks one thing,
//! and checks the message, the file the diagnostic points at and the object it names.
//!
//! This file holds the baseline catalog and the helpers every topic shares; the tests
//! are in one submodule per topic.

mod baseline;
mod bundles;
mod channels;
mod custom_schemas;
mod deprecations;
mod no_panic;
mod packages;
mod reporting;

use super::{ChainRule, Diagnostic, Kind, Model, build, build_with};
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
