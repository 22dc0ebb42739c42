//! A snapshot's typed tables: built by a load, or read from a cache image the
//! first time something asks for them.
//!
//! In: [`Tables`] from a load, or the encoded tables of a mapped cache image.
//! Out: `&Tables`. A warm start serves `api.Registry` from its own view and needs
//! no table; decoding them only when a feature does (graphs, resolution, the HTTP
//! view) keeps a warm start to the cost of the view, and its memory to what is used.

use super::data_section::{DecodeError, Spans};
use super::persist_table_messages::PTables;
use bytes::Bytes;
use fbc_catalog::source::ParseLimits;
use fbc_catalog::tables::Tables;
use prost::Message;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The encoded tables of a cache image and what decoding them needs.
#[derive(Debug)]
pub(super) struct TablesImage {
    /// The encoded `PTables` message.
    pub(super) encoded: Bytes,
    /// The image's data section.
    pub(super) data: Bytes,
    /// The catalog root, for the metas' JSON.
    pub(super) root: PathBuf,
    /// The limits the catalog was read under.
    pub(super) limits: ParseLimits,
}

/// The typed tables of one snapshot (see the module docs).
#[derive(Debug)]
pub struct SnapshotTables {
    ready: OnceLock<Result<Tables, DecodeError>>,
    image: Option<TablesImage>,
}

impl SnapshotTables {
    /// Tables a load built.
    pub fn built(tables: Tables) -> Self {
        let ready = OnceLock::new();
        let _ = ready.set(Ok(tables));
        SnapshotTables { ready, image: None }
    }

    pub(super) fn cached(image: TablesImage) -> Self {
        SnapshotTables {
            ready: OnceLock::new(),
            image: Some(image),
        }
    }

    /// The tables, decoded from the cache image on first use.
    pub fn get(&self) -> Result<&Tables, DecodeError> {
        self.ready
            .get_or_init(|| match &self.image {
                Some(image) => decode(image),
                None => Err(DecodeError::new("no tables")),
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

fn decode(image: &TablesImage) -> Result<Tables, DecodeError> {
    let message = PTables::decode(image.encoded.clone())
        .map_err(|e| DecodeError::new(&format!("tables: {e}")))?;
    message.into_tables(&Spans::new(image.data.clone()), &image.root, image.limits)
}
