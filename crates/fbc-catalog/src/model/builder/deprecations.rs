//! `olm.deprecations` blobs → deprecation messages on the packages, channels and
//! bundles they name, with the reference's rules: a known package, at most one
//! blob per package, each entry with a schema and a message and naming an
//! object that exists, no entry twice.
//!
//! In: the [`Builder`](super::Builder) and one deprecations blob. Out: the
//! drafts marked, and diagnostics for every entry that cannot apply.

use super::*;

impl Builder {
    pub(super) fn add_deprecations(&mut self, blob: &Blob, diags: &mut Vec<Diagnostic>) {
        let origin = Some(&blob.origin);
        let package = blob.package.clone();
        if package.is_empty() {
            diags.push(
                Diagnostic::at(
                    Kind::Invalid,
                    origin,
                    "package name must be set for olm.deprecations",
                )
                .field("package"),
            );
            return;
        }
        let Some(draft) = self
            .packages
            .get_mut(&package)
            .filter(|d| d.package.is_some())
        else {
            diags.push(
                Diagnostic::at(
                    Kind::Reference,
                    origin,
                    format!("cannot apply deprecations to an unknown package {package:?}"),
                )
                .package(&package),
            );
            return;
        };
        let err = |m: String| Diagnostic::at(Kind::Invalid, origin, m).package(&package);
        if let Some(first) = &draft.deprecations {
            diags.push(
                err(format!(
                    "expected a maximum of one deprecation per package: {package:?} (first at {first})"
                ))
                .kind(Kind::Duplicate),
            );
            return;
        }
        draft.deprecations = Some(blob.origin.clone());
        let Some(obj) = blob.value.as_object() else {
            return;
        };
        let items = match decode::objects(obj, "entries") {
            Ok(items) => items,
            Err(e) => {
                diags.push(
                    err(format!("parse deprecation: {e}"))
                        .kind(Kind::Decode)
                        .field("entries"),
                );
                return;
            }
        };
        let mut seen = BTreeSet::new();
        for (j, item) in items.into_iter().enumerate() {
            let Some(entry) = deprecation_entry(j, item, &err, diags) else {
                continue;
            };
            if !seen.insert((entry.schema.clone(), entry.name.clone())) {
                diags.push(
                    err(format!(
                        "duplicate deprecation entry for {} {:?}",
                        entry.schema, entry.name
                    ))
                    .kind(Kind::Duplicate)
                    .field(format!("entries[{j}].reference")),
                );
                continue;
            }
            if let Err(d) = apply_deprecation(draft, &package, j, entry) {
                diags.push(err(d.0).kind(d.1).field(d.2));
            }
        }
    }
}

/// One `olm.deprecations` entry: what it names and its message.
struct DeprecationEntry {
    schema: String,
    name: String,
    message: String,
}

/// Decodes entry `j`; a problem is reported and the entry skipped (`None`).
fn deprecation_entry(
    j: usize,
    item: Option<&serde_json::Map<String, Value>>,
    err: &dyn Fn(String) -> Diagnostic,
    diags: &mut Vec<Diagnostic>,
) -> Option<DeprecationEntry> {
    let parsed = (|| -> Result<DeprecationEntry, String> {
        let Some(item) = item else {
            return Ok(DeprecationEntry {
                schema: String::new(),
                name: String::new(),
                message: String::new(),
            });
        };
        let reference = decode::object(item, "reference")?;
        let (schema, name) = match reference {
            Some(r) => (decode::string(r, "schema")?, decode::string(r, "name")?),
            None => (String::new(), String::new()),
        };
        Ok(DeprecationEntry {
            schema,
            name,
            message: decode::string(item, "message")?,
        })
    })();
    let entry = match parsed {
        Ok(entry) => entry,
        Err(e) => {
            diags.push(
                err(format!("parse deprecation: entries[{j}]: {e}"))
                    .kind(Kind::Decode)
                    .field(format!("entries[{j}]")),
            );
            return None;
        }
    };
    if entry.schema.is_empty() {
        diags.push(
            err(format!("schema must be set for deprecation entry [{j}]"))
                .field(format!("entries[{j}].reference.schema")),
        );
        return None;
    }
    Some(entry)
}

/// A problem with an entry: message, kind, field.
struct EntryProblem(String, Kind, String);

/// Applies entry `j` to the package, channel or bundle it names.
fn apply_deprecation(
    draft: &mut PackageDraft,
    package: &str,
    j: usize,
    entry: DeprecationEntry,
) -> Result<(), EntryProblem> {
    let DeprecationEntry {
        schema,
        name,
        message,
    } = entry;
    let at = |field: &str| format!("entries[{j}].{field}");
    if message.is_empty() {
        return Err(EntryProblem(
            format!("invalid deprecation: entry [{j}] ({schema} {name:?}): message must be set"),
            Kind::Invalid,
            at("message"),
        ));
    }
    match schema.as_str() {
        schema::BUNDLE => {
            if draft.bundles.contains_key(&name) || draft.broken_bundles.contains(&name) {
                draft.bundle_deprecations.insert(name, message);
                Ok(())
            } else {
                Err(EntryProblem(
                    format!("cannot deprecate bundle {name:?}: bundle not found"),
                    Kind::Reference,
                    at("reference.name"),
                ))
            }
        }
        schema::CHANNEL => {
            if draft.channels.contains_key(&name) {
                draft.channel_deprecations.insert(name, message);
                Ok(())
            } else {
                Err(EntryProblem(
                    format!("cannot deprecate channel {name:?}: channel not found"),
                    Kind::Reference,
                    at("reference.name"),
                ))
            }
        }
        schema::PACKAGE => {
            if !name.is_empty() {
                return Err(EntryProblem(
                    format!(
                        "package name must be empty for deprecated package {package:?} (specified {name:?})"
                    ),
                    Kind::Invalid,
                    at("reference.name"),
                ));
            }
            if let Some(p) = draft.package.as_mut() {
                p.deprecation = Some(message);
            }
            Ok(())
        }
        other => Err(EntryProblem(
            format!("cannot deprecate object {other} {name:?}: object schema unknown"),
            Kind::Invalid,
            at("reference.schema"),
        )),
    }
}
