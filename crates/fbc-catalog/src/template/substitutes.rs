//! `olm.template.substitutes`: a catalog with some bundles replaced by rebuilt ones.
//!
//! In: `{schema: olm.template.substitutes, entries: [FBC…], substitutions: [{name:
//! <bundle image>, base: <bundle name>}]}` and the bundles the images render to. Out: the
//! entries with, for each substitution, the substitute's bundle added and in every
//! channel holding `base`: a substitute entry taking over `base`'s edges and also
//! skipping `base` (whose own edges are cleared), entries that replaced `base` now
//! replacing the substitute and skipping `base`, entries that skipped `base` skipping the
//! substitute instead (opm ≥ v1.62, `alpha/template/substitutes`). The substitute's
//! version must be above the base's; no base or substitute may be used twice. Validity
//! of the entries and of each result is the caller's to check (`check`).

use super::{Bundles, first_document};
use crate::render::declcfg::{Bundle, ChannelEntry, DeclarativeConfig, GoObject};
use crate::source::Blob;
use std::collections::BTreeMap;

/// One substitution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Substitution {
    /// The substitute's bundle image.
    pub name: String,
    /// The name of the bundle it stands in for.
    pub base: String,
}

/// A parsed substitutes template.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    entries: DeclarativeConfig,
    /// The substitutions, in order.
    pub substitutions: Vec<Substitution>,
}

impl Template {
    /// The images to render.
    pub fn images(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.substitutions {
            if !out.contains(&s.name) {
                out.push(s.name.clone());
            }
        }
        out
    }

    /// The entries as a catalog, before any substitution.
    pub fn entries(&self) -> &DeclarativeConfig {
        &self.entries
    }
}

/// Reads a substitutes template; errors are opm's (`render: unable to parse template: …`).
pub fn parse(text: &str) -> Result<Template, String> {
    let fail = |e: String| format!("render: unable to parse template: {e}");
    let document =
        first_document(text).map_err(|e| fail(format!("decoding template schema: {e}")))?;
    let object = GoObject::of(&document)
        .ok_or_else(|| fail("unmarshalling template: not an object".into()))?;
    let owner = "SubstitutesTemplateData";
    let schema = object
        .string(owner, "schema")
        .map_err(|e| fail(format!("unmarshalling template: {e}")))?;
    if schema != "olm.template.substitutes" {
        return Err(fail(format!(
            "template has unknown schema ({schema:?}), should be \"olm.template.substitutes\""
        )));
    }
    let items = object
        .array(owner, "entries", "*declcfg.Meta")
        .map_err(|e| fail(format!("unmarshalling template: {e}")))?
        .cloned()
        .unwrap_or_default();
    let blobs: Vec<Blob> = items
        .into_iter()
        .enumerate()
        .map(|(i, value)| super::entry_blob(i, value))
        .collect();
    let entries = DeclarativeConfig::from_blobs(&blobs)
        .map_err(|e| format!("render: unable to create declarative config from entries: {e}"))?;
    let substitutions = object
        .array(owner, "substitutions", "substitutes.Substitute")
        .map_err(|e| fail(format!("unmarshalling template: {e}")))?
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|item| {
            let o = GoObject::of(item).ok_or_else(|| {
                fail("unmarshalling template: a substitution is not an object".into())
            })?;
            Ok(Substitution {
                name: o
                    .string("Substitute", "name")
                    .map_err(|e| fail(format!("unmarshalling template: {e}")))?,
                base: o
                    .string("Substitute", "base")
                    .map_err(|e| fail(format!("unmarshalling template: {e}")))?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Template {
        entries,
        substitutions,
    })
}

/// A bundle's version (`olm.package`), for the comparison.
fn version_of(bundle: &Bundle) -> Result<semver::Version, String> {
    let text = bundle
        .package_version()
        .ok_or_else(|| format!("bundle {:?} has no olm.package version", bundle.name))?;
    semver::Version::parse(&text)
        .map_err(|e| format!("bundle {:?} has invalid version {text:?}: {e}", bundle.name))
}

/// Applies every substitution; `check` validates a catalog (the entries first, then each
/// result), returning why not.
pub fn build(
    template: &Template,
    bundles: &mut dyn Bundles,
    check: &mut dyn FnMut(&DeclarativeConfig) -> Result<(), String>,
) -> Result<DeclarativeConfig, String> {
    let mut config = template.entries.clone();
    check(&config).map_err(|e| format!("render: entries are not valid FBC: {e}"))?;
    let mut bases: Vec<&str> = Vec::new();
    let mut substitutes: BTreeMap<&str, &str> = BTreeMap::new();
    for s in &template.substitutions {
        if bases.contains(&s.base.as_str()) {
            return Err(format!(
                "render: cannot reuse the same substitution base {:?}",
                s.base
            ));
        }
        bases.push(&s.base);
        if let Some(earlier) = substitutes.get(s.name.as_str()) {
            return Err(format!(
                "render: cannot reuse the same substitution {:?} for different bases ({earlier:?} and {:?})",
                s.name, s.base
            ));
        }
        substitutes.insert(&s.name, &s.base);
        substitute(&mut config, s, bundles, check).map_err(|e| {
            format!(
                "render: error processing substitution {:?} -> {:?}: {e}",
                s.base, s.name
            )
        })?;
    }
    Ok(config)
}

fn substitute(
    config: &mut DeclarativeConfig,
    s: &Substitution,
    bundles: &mut dyn Bundles,
    check: &mut dyn FnMut(&DeclarativeConfig) -> Result<(), String>,
) -> Result<(), String> {
    if s.name.is_empty() {
        return Err("substitution name cannot be empty".into());
    }
    if s.base.is_empty() {
        return Err("substitution base cannot be empty".into());
    }
    if s.name == s.base {
        return Err("substitution name and base cannot be the same".into());
    }
    let rendered = bundles
        .render(&s.name)
        .map_err(|e| format!("failed to render bundle image reference {:?}: {e}", s.name))?;
    let substitute = rendered.into_iter().next().ok_or_else(|| {
        format!(
            "rendered bundle image reference {:?} contains no bundles",
            s.name
        )
    })?;
    let substitute_version = version_of(&substitute).map_err(|e| {
        format!(
            "failed to get VersionRelease for substitute bundle {:?}: {e}",
            s.name
        )
    })?;
    let base = config
        .bundles
        .iter()
        .find(|b| b.name == s.base)
        .ok_or_else(|| format!("base bundle {:?} does not exist in catalog", s.base))?;
    let base_version = version_of(base).map_err(|e| {
        format!(
            "failed to get VersionRelease for base bundle {:?}: {e}",
            s.base
        )
    })?;
    if base_version.cmp_precedence(&substitute_version).is_ge() {
        return Err(format!(
            "base bundle {:?} is not less than substitute bundle {:?}",
            s.base, s.name
        ));
    }
    for channel in &mut config.channels {
        let Some(entries) = channel.entries.as_mut() else {
            continue;
        };
        let at: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.name == s.base)
            .map(|(i, _)| i)
            .collect();
        for &i in at.iter().rev() {
            let old = &mut entries[i];
            let mut skips = std::mem::take(&mut old.skips);
            skips.push(s.base.clone());
            let added = ChannelEntry {
                name: substitute.name.clone(),
                replaces: std::mem::take(&mut old.replaces),
                skips,
                skip_range: std::mem::take(&mut old.skip_range),
            };
            entries.push(added);
        }
        let original = entries.len() - at.len();
        for entry in entries.iter_mut().take(original) {
            if entry.replaces == s.base {
                entry.replaces = substitute.name.clone();
                entry.skips.push(s.base.clone());
            } else if entry.skips.contains(&s.base) {
                entry.skips.push(substitute.name.clone());
                entry.skips.retain(|skip| skip != &s.base);
            }
        }
    }
    config.bundles.push(substitute);
    check(config).map_err(|e| format!("resulting config is not valid FBC: {e}"))
}
