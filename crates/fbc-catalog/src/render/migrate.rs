//! opm's catalog migrations, applied to rendered output.
//!
//! In: a [`DeclarativeConfig`] and a [`MigrateLevel`]. Out: the config migrated in
//! place, or opm's error. The only migration, `bundle-object-to-csv-metadata`,
//! replaces every `olm.bundle.object` of a bundle that has an image and a known CSV by
//! one `olm.csv.metadata` appended after its other properties; a bundle that already
//! has `olm.csv.metadata` is left alone.

use super::declcfg::{DeclarativeConfig, Property};

/// A migration level, by opm's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MigrateLevel {
    /// `none`.
    None,
    /// `bundle-object-to-csv-metadata` (also what opm's `--migrate` ran).
    BundleObjectToCsvMetadata,
}

impl MigrateLevel {
    /// The levels in order, with their names.
    pub const ALL: [(&'static str, MigrateLevel); 2] = [
        ("none", MigrateLevel::None),
        (
            "bundle-object-to-csv-metadata",
            MigrateLevel::BundleObjectToCsvMetadata,
        ),
    ];

    /// The level named `name` (`all` is the last); opm's error otherwise.
    pub fn parse(name: &str) -> Result<MigrateLevel, String> {
        if name == "all" {
            return Ok(MigrateLevel::BundleObjectToCsvMetadata);
        }
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, level)| *level)
            .ok_or_else(|| format!("unknown migration level {name:?}"))
    }
}

/// Runs every migration up to `level`.
pub fn migrate(config: &mut DeclarativeConfig, level: MigrateLevel) -> Result<(), String> {
    if level == MigrateLevel::None {
        return Ok(());
    }
    for bundle in &mut config.bundles {
        let Some(csv_json) = bundle.csv_json.as_deref().filter(|c| !c.is_empty()) else {
            continue;
        };
        if bundle.image.is_empty()
            || bundle
                .properties
                .iter()
                .any(|p| p.typ == "olm.csv.metadata")
        {
            continue;
        }
        let csv: serde_json::Value = serde_json::from_str(csv_json).map_err(|e| e.to_string())?;
        let value = crate::model::csv::csv_metadata_value(&csv)?;
        bundle.properties.retain(|p| p.typ != "olm.bundle.object");
        bundle.properties.push(Property {
            typ: "olm.csv.metadata".into(),
            value,
        });
    }
    Ok(())
}
