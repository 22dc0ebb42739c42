//! Decoded blobs → a model: packages joined with their channels, bundles and
//! deprecations, with every cross-blob rule checked.
//!
//! In: decoded blobs in walk order. Out: a [`Model`] (and diagnostics pushed to
//! the caller's list). The per-package graph rules are in `validate`;
//! `olm.deprecations` blobs are applied in [`deprecations`].

use super::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

mod deprecations;

/// RFC 1123 DNS label: lowercase alphanumerics and `-`, alphanumeric at both ends, ≤ 63.
fn dns_label_problem(name: &str) -> Option<String> {
    let b = name.as_bytes();
    if b.len() > 63 {
        return Some("must be no more than 63 characters".into());
    }
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    if !b.iter().all(|c| alnum(c) || *c == b'-')
        || !b.first().is_some_and(alnum)
        || !b.last().is_some_and(alnum)
    {
        return Some(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', \
             and must start and end with an alphanumeric character"
                .into(),
        );
    }
    None
}

#[derive(Default)]
pub(super) struct Builder {
    packages: BTreeMap<String, PackageDraft>,
    /// The replaces-chain rule channels must pass.
    pub(super) chain_rule: ChainRule,
    /// Problems the chain rule accepts, reported as warnings.
    pub(super) warnings: Vec<Diagnostic>,
}

pub(super) struct PackageDraft {
    pub(super) package: Option<Package>,
    pub(super) channels: BTreeMap<String, Channel>,
    pub(super) bundles: BTreeMap<String, Bundle>,
    /// Bundle names with a blob that failed to decode (so entries referring to them
    /// do not also report a missing blob).
    pub(super) broken_bundles: BTreeSet<String>,
    pub(super) deprecations: Option<Origin>,
    pub(super) bundle_deprecations: HashMap<String, String>,
    pub(super) channel_deprecations: HashMap<String, String>,
}

impl PackageDraft {
    fn new() -> Self {
        PackageDraft {
            package: None,
            channels: BTreeMap::new(),
            bundles: BTreeMap::new(),
            broken_bundles: BTreeSet::new(),
            deprecations: None,
            bundle_deprecations: HashMap::new(),
            channel_deprecations: HashMap::new(),
        }
    }
}

impl Builder {
    pub(super) fn build(&mut self, blobs: Vec<Decoded>, diags: &mut Vec<Diagnostic>) -> Model {
        let mut custom = Vec::new();
        let mut channels = Vec::new();
        let mut bundles = Vec::new();
        let mut deprecations = Vec::new();
        for decoded in blobs {
            let blob = match decoded {
                Decoded::Bundle(b) => {
                    bundles.push(b);
                    continue;
                }
                Decoded::Channel(c) => {
                    channels.push(*c);
                    continue;
                }
                Decoded::Other(blob) => blob,
            };
            match blob.schema.as_str() {
                schema::PACKAGE => self.add_package(&blob, diags),
                schema::DEPRECATIONS => deprecations.push(blob),
                _ => {
                    if let Some(d) = custom_meta_problem(&blob) {
                        diags.push(d);
                    } else {
                        custom.push(blob);
                    }
                }
            }
        }
        for channel in channels {
            self.add_channel(channel, diags);
        }
        for blob in bundles {
            self.add_bundle(blob, diags);
        }
        for blob in &deprecations {
            self.add_deprecations(blob, diags);
        }
        let mut packages = Vec::new();
        let mut found = validate::Findings {
            errors: diags,
            warnings: &mut self.warnings,
            rule: self.chain_rule,
        };
        for (name, draft) in std::mem::take(&mut self.packages) {
            if let Some(p) = validate::finish_package(&name, draft, &mut found) {
                packages.push(p);
            }
        }
        Model {
            packages,
            custom,
            metas: Vec::new(),
        }
    }

    fn add_package(&mut self, blob: &Blob, diags: &mut Vec<Diagnostic>) {
        let origin = Some(&blob.origin);
        let Some(obj) = blob.value.as_object() else {
            return;
        };
        let decoded = (|| -> Result<(String, String, Option<Icon>), String> {
            let default_channel = decode::string(obj, "defaultChannel")?;
            let description = decode::string(obj, "description")?;
            let icon = match decode::object(obj, "icon")? {
                None => None,
                Some(icon) => {
                    let data = decode::string(icon, "base64data")?;
                    let data = property::decode_go_base64(&data)
                        .map_err(|e| format!("icon.base64data: illegal base64 data: {e}"))?;
                    Some(Icon {
                        data: bytes::Bytes::from(data),
                        media_type: decode::string(icon, "mediatype")?,
                    })
                }
            };
            Ok((default_channel, description, icon))
        })();
        let name = blob.name.clone();
        if name.is_empty() {
            diags.push(
                Diagnostic::at(Kind::Envelope, origin, "olm.package blob has no name")
                    .field("name"),
            );
            return;
        }
        let (default_channel, description, icon) = match decoded {
            Ok(d) => d,
            Err(e) => {
                diags.push(
                    Diagnostic::at(Kind::Decode, origin, format!("parse package: {e}"))
                        .package(&name),
                );
                self.packages.entry(name).or_insert_with(PackageDraft::new);
                return;
            }
        };
        if let Some(problem) = dns_label_problem(&name) {
            diags.push(
                Diagnostic::at(
                    Kind::Invalid,
                    origin,
                    format!("invalid package name {name:?}: {problem}"),
                )
                .package(&name)
                .field("name"),
            );
        }
        let draft = self
            .packages
            .entry(name.clone())
            .or_insert_with(PackageDraft::new);
        if let Some(first) = &draft.package {
            diags.push(
                Diagnostic::at(
                    Kind::Duplicate,
                    origin,
                    format!(
                        "duplicate package {name:?} (first defined at {})",
                        first.origin
                    ),
                )
                .package(&name),
            );
            return;
        }
        draft.package = Some(Package {
            name,
            default_channel,
            description,
            icon,
            channels: Vec::new(),
            bundles: Vec::new(),
            deprecation: None,
            origin: blob.origin.clone(),
        });
    }

    fn draft_for(
        &mut self,
        blob: &Blob,
        what: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<&mut PackageDraft> {
        let origin = Some(&blob.origin);
        if blob.package.is_empty() {
            diags.push(
                Diagnostic::at(
                    Kind::Invalid,
                    origin,
                    format!("package name must be set for {what} {:?}", blob.name),
                )
                .field("package"),
            );
            return None;
        }
        match self.packages.get_mut(&blob.package) {
            Some(d) if d.package.is_some() => Some(d),
            // the olm.package blob exists but failed to decode: already reported
            Some(_) => None,
            None => {
                diags.push(
                    Diagnostic::at(Kind::Reference,
                        origin,
                        format!("unknown package {:?} for {what} {:?}: no olm.package blob has that name", blob.package, blob.name),
                    )
                    .package(&blob.package)
                    .field("package"),
                );
                None
            }
        }
    }

    fn add_channel(&mut self, decoded: DecodedChannel, diags: &mut Vec<Diagnostic>) {
        let DecodedChannel {
            envelope: blob,
            entries,
            diags: entry_diags,
        } = decoded;
        let origin = Some(&blob.origin);
        let package = blob.package.clone();
        let Some(draft) = self.draft_for(&blob, "channel", diags) else {
            return;
        };
        if blob.name.is_empty() {
            diags.push(
                Diagnostic::at(Kind::Envelope, origin, "channel has no name")
                    .package(&package)
                    .field("name"),
            );
            return;
        }
        let name = blob.name.clone();
        if let Some(first) = draft.channels.get(&name) {
            diags.push(
                Diagnostic::at(
                    Kind::Duplicate,
                    origin,
                    format!(
                        "duplicate channel {name:?} (first defined at {})",
                        first.origin
                    ),
                )
                .package(&package)
                .channel(&name),
            );
            return;
        }
        diags.extend(entry_diags);
        let Some(entries) = entries else {
            return;
        };
        draft.channels.insert(
            name.clone(),
            Channel {
                name,
                entries,
                head: 0,
                deprecation: None,
                origin: blob.origin,
            },
        );
    }

    fn add_bundle(&mut self, decoded: Box<DecodedBundle>, diags: &mut Vec<Diagnostic>) {
        let DecodedBundle {
            envelope: blob,
            bundle,
            diags: bundle_diags,
        } = *decoded;
        let origin = Some(&blob.origin);
        let package = blob.package.clone();
        let name = blob.name.clone();
        let Some(draft) = self.draft_for(&blob, "bundle", diags) else {
            return;
        };
        let err = |m: String| {
            Diagnostic::at(Kind::Invalid, origin, m)
                .package(&package)
                .bundle(&name)
        };
        if name.is_empty() {
            diags.push(
                Diagnostic::at(Kind::Envelope, origin, "bundle has no name")
                    .package(&package)
                    .field("name"),
            );
            return;
        }
        if let Some(first) = draft.bundles.get(&name) {
            diags.push(
                err(format!(
                    "duplicate bundle {name:?} (first defined at {})",
                    first.origin
                ))
                .kind(Kind::Duplicate),
            );
            return;
        }
        diags.extend(bundle_diags);
        match bundle {
            Some(b) => {
                draft.bundles.insert(name, b);
            }
            None => {
                draft.broken_bundles.insert(name);
            }
        }
    }
}

fn custom_meta_problem(blob: &Blob) -> Option<Diagnostic> {
    let rule = "must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$";
    let message = if blob.schema.is_empty() {
        "invalid custom schema meta: invalid schema: must not be empty (every catalog object needs a \"schema\")".to_string()
    } else if !is_valid_meta_key(&blob.schema) {
        format!(
            "invalid custom schema meta: invalid schema {:?}: {rule}",
            blob.schema
        )
    } else if !blob.package.is_empty() && !is_valid_meta_key(&blob.package) {
        format!(
            "invalid custom schema meta: invalid package {:?}: {rule}",
            blob.package
        )
    } else {
        return None;
    };
    let field = if blob.schema.is_empty() || !is_valid_meta_key(&blob.schema) {
        "schema"
    } else {
        "package"
    };
    Some(
        Diagnostic::at(Kind::Invalid, Some(&blob.origin), message)
            .package(&blob.package)
            .field(field),
    )
}
