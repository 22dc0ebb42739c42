//! A channel and its configuration → the entries selected and the head the
//! output channel gets.
//!
//! In: a channel of the input, its package's bundles, a [`Selection`]. Out: a
//! [`ChannelSelection`]: the selected entries, each with why, and the target
//! head — the input head when the selection keeps it (heads only, full, or a
//! window or list that includes it); otherwise the selected entry of highest
//! version (then latest in the channel's `replaces` order by name), since a
//! window that stops below the head means "not above this". `None` when
//! nothing is selected: the channel leaves the output.

use super::config::Selection;
use crate::model::{Channel, Package};
use std::collections::BTreeMap;

/// What the configuration selects in one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelSelection {
    /// Selected entries (indices into the channel's entries) and why, in words.
    pub selected: BTreeMap<u32, String>,
    /// The entry the output channel's head must be.
    pub target: u32,
}

/// The selection of `selection` in `channel` of `package` (see the module docs).
pub fn select(
    package: &Package,
    channel: &Channel,
    selection: &Selection,
) -> Option<ChannelSelection> {
    let head = channel.head as u32;
    let mut selected = BTreeMap::new();
    let version = |i: u32| {
        package
            .bundle(&channel.entries[i as usize].name)
            .map(|b| &b.version)
    };
    match selection {
        Selection::HeadsOnly => {
            selected.insert(head, "the channel's head (heads only)".to_string());
        }
        Selection::Full => {
            for i in 0..channel.entries.len() as u32 {
                selected.insert(i, "every bundle of the channel (full)".to_string());
            }
        }
        Selection::Range { text, range } => {
            for i in 0..channel.entries.len() as u32 {
                if let Some(v) = version(i).filter(|v| range.matches(v)) {
                    selected.insert(i, format!("version {v} is in {text:?}"));
                }
            }
        }
        Selection::Bundles(names) => {
            for (i, e) in channel.entries.iter().enumerate() {
                if names.contains(&e.name) {
                    selected.insert(i as u32, "named in bundles".to_string());
                }
            }
        }
    }
    if selected.is_empty() {
        return None;
    }
    let target = if selected.contains_key(&head) {
        head
    } else {
        *selected
            .keys()
            .max_by(|a, b| {
                version(**a).cmp(&version(**b)).then_with(|| {
                    channel.entries[**b as usize]
                        .name
                        .cmp(&channel.entries[**a as usize].name)
                })
            })
            .unwrap_or(&head)
    };
    Some(ChannelSelection { selected, target })
}
