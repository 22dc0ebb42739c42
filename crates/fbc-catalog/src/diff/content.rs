//! Two versions of one package → what differs in its content.
//!
//! In: the package as OLD and as NEW have it. Out: a [`PackageDiff`] (or `None` when
//! nothing differs): its default channel and deprecation; channels added and removed;
//! per channel in both, its head, deprecation, entries and upgrade edges (`replaces`,
//! `skips`, `skipRange`) added and removed; bundles added and removed; per bundle in
//! both, its image, version, deprecation, properties and related images added and
//! removed. Every list is sorted.
//!
//! Properties are compared by type and value (normalised JSON); an `olm.bundle.object`
//! or `olm.csv.metadata` property, whose value is kept decoded rather than as text, is
//! compared by a digest of what it holds and shown by that digest.

use super::Change;
use crate::model::{Bundle, Channel, Entry, Package};
use serde::Serialize;
use std::collections::BTreeSet;

/// How one package differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PackageDiff {
    /// The package.
    pub name: String,
    /// Its default channel, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_channel: Option<Change<String>>,
    /// Its deprecation message, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecation: Option<Change<Option<String>>>,
    /// Channels only in NEW.
    pub channels_added: Vec<String>,
    /// Channels only in OLD.
    pub channels_removed: Vec<String>,
    /// Channels in both that differ.
    pub channels: Vec<ChannelDiff>,
    /// Bundles only in NEW.
    pub bundles_added: Vec<String>,
    /// Bundles only in OLD.
    pub bundles_removed: Vec<String>,
    /// Bundles in both that differ.
    pub bundles: Vec<BundleDiff>,
}

/// How one channel differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ChannelDiff {
    /// The channel.
    pub name: String,
    /// Its head, when it moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<Change<String>>,
    /// Its deprecation message, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecation: Option<Change<Option<String>>>,
    /// Entries only in NEW.
    pub entries_added: Vec<String>,
    /// Entries only in OLD.
    pub entries_removed: Vec<String>,
    /// Upgrade edges only in NEW.
    pub edges_added: Vec<EdgeRef>,
    /// Upgrade edges only in OLD.
    pub edges_removed: Vec<EdgeRef>,
}

/// An upgrade edge as a channel entry declares it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct EdgeRef {
    /// The entry declaring it (the bundle upgraded to).
    pub entry: String,
    /// `replaces`, `skips` or `skipRange`.
    pub kind: &'static str,
    /// The bundle replaced or skipped, or the range skipped.
    pub target: String,
}

/// How one bundle differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BundleDiff {
    /// The bundle.
    pub name: String,
    /// Its image, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<Change<String>>,
    /// Its version, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<Change<String>>,
    /// Its deprecation message, when it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecation: Option<Change<Option<String>>>,
    /// Properties only in NEW.
    pub properties_added: Vec<PropertyRef>,
    /// Properties only in OLD.
    pub properties_removed: Vec<PropertyRef>,
    /// Related images only in NEW (their references).
    pub related_images_added: Vec<String>,
    /// Related images only in OLD.
    pub related_images_removed: Vec<String>,
}

/// A property, by type and value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PropertyRef {
    /// `type`.
    #[serde(rename = "type")]
    pub typ: String,
    /// `value` as normalised JSON, or `xxh3:` and a digest of a decoded value.
    pub value: String,
}

/// How `old` and `new`, the same package in two catalogs, differ; `None` when they do not.
pub fn package(old: &Package, new: &Package) -> Option<PackageDiff> {
    let (channels_added, channels_removed) = added_removed(
        old.channels.iter().map(|c| &c.name),
        new.channels.iter().map(|c| &c.name),
    );
    let (bundles_added, bundles_removed) = added_removed(
        old.bundles.iter().map(|b| &b.name),
        new.bundles.iter().map(|b| &b.name),
    );
    let d = PackageDiff {
        name: old.name.clone(),
        default_channel: Change::of(old.default_channel.clone(), new.default_channel.clone()),
        deprecation: Change::of(old.deprecation.clone(), new.deprecation.clone()),
        channels_added,
        channels_removed,
        channels: old
            .channels
            .iter()
            .filter_map(|c| channel(c, new.channel(&c.name)?))
            .collect(),
        bundles_added,
        bundles_removed,
        bundles: old
            .bundles
            .iter()
            .filter_map(|b| bundle(b, new.bundle(&b.name)?))
            .collect(),
    };
    let same = d.default_channel.is_none()
        && d.deprecation.is_none()
        && d.channels_added.is_empty()
        && d.channels_removed.is_empty()
        && d.channels.is_empty()
        && d.bundles_added.is_empty()
        && d.bundles_removed.is_empty()
        && d.bundles.is_empty();
    (!same).then_some(d)
}

/// How one channel differs; `None` when it does not.
fn channel(old: &Channel, new: &Channel) -> Option<ChannelDiff> {
    let (entries_added, entries_removed) = added_removed(
        old.entries.iter().map(|e| &e.name),
        new.entries.iter().map(|e| &e.name),
    );
    let (edges_added, edges_removed) = added_removed(edges(old), edges(new));
    let d = ChannelDiff {
        name: old.name.clone(),
        head: Change::of(old.head_entry().name.clone(), new.head_entry().name.clone()),
        deprecation: Change::of(old.deprecation.clone(), new.deprecation.clone()),
        entries_added,
        entries_removed,
        edges_added,
        edges_removed,
    };
    let same = d.head.is_none()
        && d.deprecation.is_none()
        && d.entries_added.is_empty()
        && d.entries_removed.is_empty()
        && d.edges_added.is_empty()
        && d.edges_removed.is_empty();
    (!same).then_some(d)
}

/// Every edge a channel's entries declare.
fn edges(channel: &Channel) -> impl Iterator<Item = EdgeRef> + '_ {
    channel.entries.iter().flat_map(entry_edges)
}

fn entry_edges(e: &Entry) -> Vec<EdgeRef> {
    let edge = |kind, target: &str| EdgeRef {
        entry: e.name.clone(),
        kind,
        target: target.to_owned(),
    };
    let mut out = Vec::new();
    if !e.replaces.is_empty() {
        out.push(edge("replaces", &e.replaces));
    }
    out.extend(e.skips.iter().map(|s| edge("skips", s)));
    if !e.skip_range.is_empty() {
        out.push(edge("skipRange", &e.skip_range));
    }
    out
}

/// How one bundle differs; `None` when it does not.
fn bundle(old: &Bundle, new: &Bundle) -> Option<BundleDiff> {
    let (properties_added, properties_removed) = added_removed(properties(old), properties(new));
    let (related_images_added, related_images_removed) = added_removed(
        old.related_images.iter().map(|r| &r.image),
        new.related_images.iter().map(|r| &r.image),
    );
    let d = BundleDiff {
        name: old.name.clone(),
        image: Change::of(old.image.clone(), new.image.clone()),
        version: Change::of(old.version_text.clone(), new.version_text.clone()),
        deprecation: Change::of(old.deprecation.clone(), new.deprecation.clone()),
        properties_added,
        properties_removed,
        related_images_added,
        related_images_removed,
    };
    let same = d.image.is_none()
        && d.version.is_none()
        && d.deprecation.is_none()
        && d.properties_added.is_empty()
        && d.properties_removed.is_empty()
        && d.related_images_added.is_empty()
        && d.related_images_removed.is_empty();
    (!same).then_some(d)
}

/// A bundle's properties by type and value; the decoded ones (bundle objects, CSV
/// metadata) by a digest of their content.
fn properties(b: &Bundle) -> impl Iterator<Item = PropertyRef> + '_ {
    let mut objects = b.objects.iter();
    b.properties.iter().map(move |p| {
        let value = if p.value_json != "null" {
            p.value_json.clone()
        } else if p.typ == "olm.bundle.object" {
            let bytes = objects.next().map(|o| o.as_ref()).unwrap_or_default();
            format!("xxh3:{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
        } else {
            let text = format!("{:?}", b.csv_pieces);
            format!("xxh3:{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
        };
        PropertyRef {
            typ: p.typ.clone(),
            value,
        }
    })
}

/// What only `new` has and what only `old` has, each sorted, duplicates once.
fn added_removed<T: Ord + Clone>(
    old: impl IntoIterator<Item = impl std::borrow::Borrow<T>>,
    new: impl IntoIterator<Item = impl std::borrow::Borrow<T>>,
) -> (Vec<T>, Vec<T>) {
    let old: BTreeSet<T> = old.into_iter().map(|x| x.borrow().clone()).collect();
    let new: BTreeSet<T> = new.into_iter().map(|x| x.borrow().clone()).collect();
    (
        new.difference(&old).cloned().collect(),
        old.difference(&new).cloned().collect(),
    )
}
