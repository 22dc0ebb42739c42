//! `ExportCatalog` and `DiffCatalog`: a served catalog out as a JSON stream, and the
//! served catalog compared with one a client sends.
//!
//! In: a snapshot (and, for `DiffCatalog`, the client's chunks). Out: the snapshot's
//! `/api/v1/all` bytes in chunks of at most [`CHUNK`]; or [`fbc_catalog::diff`]'s
//! answer in JSON, markdown and text with its summary.
//!
//! The client's catalog is held to [`MAX_UPLOAD`] bytes in all (RESOURCE_EXHAUSTED
//! past it, before more is read), parsed under the default parse limits and
//! validated as `validate` does (INVALID_ARGUMENT naming the first problems). One
//! `DiffCatalog` runs at a time per server (another is refused with
//! RESOURCE_EXHAUSTED at once, never queued), so uploads never hold more than one
//! [`MAX_UPLOAD`] of memory.

use crate::fbc_v1 as pb;
use crate::snapshot::Snapshot;
use fbc_catalog::diff::{self, render};
use fbc_catalog::model::ChainRule;
use fbc_catalog::source::ParseLimits;
use fbc_catalog::tables::Tables;
use std::sync::Arc;
use tonic::{Status, Streaming};

/// Largest chunk `ExportCatalog` sends.
pub const CHUNK: usize = 1 << 20;
/// Most bytes `DiffCatalog` accepts from a client.
pub const MAX_UPLOAD: usize = 64 << 20;

/// The snapshot's catalog as `ExportCatalog` messages, made one at a time (a copy of
/// one chunk at most is held beyond the view).
pub async fn export(snap: &Arc<Snapshot>, info: pb::SnapshotInfo) -> Result<Chunks, Status> {
    let view = snap
        .http_view()
        .await
        .map_err(|e| Status::internal(format!("the catalog's JSON cannot be read: {e}")))?;
    Ok(Chunks {
        parts: view.all_identity().parts.into_iter().collect(),
        info: Some(info),
    })
}

/// The messages of one export, in order.
pub struct Chunks {
    parts: std::collections::VecDeque<bytes::Bytes>,
    info: Option<pb::SnapshotInfo>,
}

impl Iterator for Chunks {
    type Item = Result<pb::ExportCatalogResponse, Status>;

    fn next(&mut self) -> Option<Self::Item> {
        while let Some(part) = self.parts.front_mut() {
            if part.is_empty() {
                self.parts.pop_front();
                continue;
            }
            let chunk = part.split_to(part.len().min(CHUNK));
            return Some(Ok(pb::ExportCatalogResponse {
                data: chunk.to_vec(),
                snapshot: self.info.take(),
            }));
        }
        // an empty catalog still names its snapshot
        self.info.take().map(|info| {
            Ok(pb::ExportCatalogResponse {
                data: Vec::new(),
                snapshot: Some(info),
            })
        })
    }
}

/// The first message's catalog fields, and every chunk's bytes, at most [`MAX_UPLOAD`].
pub struct Upload {
    /// The served catalog named.
    pub catalog: String,
    /// The snapshot insisted on.
    pub snapshot_digest: String,
    /// The catalog sent.
    pub bytes: Vec<u8>,
}

/// Reads the client's stream to its end.
pub async fn receive(mut stream: Streaming<pb::DiffCatalogRequest>) -> Result<Upload, Status> {
    let mut upload = Upload {
        catalog: String::new(),
        snapshot_digest: String::new(),
        bytes: Vec::new(),
    };
    let mut first = true;
    while let Some(message) = stream.message().await? {
        if first {
            upload.catalog = message.catalog;
            upload.snapshot_digest = message.snapshot_digest;
            first = false;
        }
        if upload.bytes.len() + message.data.len() > MAX_UPLOAD {
            return Err(Status::resource_exhausted(format!(
                "the catalog sent is larger than {MAX_UPLOAD} bytes"
            )));
        }
        upload.bytes.extend_from_slice(&message.data);
    }
    Ok(upload)
}

/// The diff from `old` (served) to the catalog in `sent`, with `info` naming `old`.
pub fn answer(
    old: &Tables,
    sent: &[u8],
    info: pb::SnapshotInfo,
) -> Result<pb::DiffCatalogResponse, Status> {
    let file = if sent.trim_ascii_start().starts_with(b"{") {
        "sent.json"
    } else {
        "sent.yaml"
    };
    let new = Tables::from_stream(file, sent, ChainRule::Legacy, &ParseLimits::default()).map_err(
        |problems| {
            Status::invalid_argument(format!(
                "the catalog sent does not validate: {}",
                fbc_catalog::diagnostic::first_few(&problems, 5)
            ))
        },
    )?;
    let d = diff::diff(old, &new);
    let json = serde_json::to_string(&d)
        .map_err(|e| Status::internal(format!("the diff does not serialise: {e}")))?;
    Ok(pb::DiffCatalogResponse {
        snapshot: Some(info),
        summary: Some(summary(&d)),
        json,
        markdown: render::render(&d, render::Form::Markdown),
        text: render::render(&d, render::Form::Text),
    })
}

fn summary(d: &diff::CatalogDiff) -> pb::DiffSummary {
    let s = d.summary();
    let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    pb::DiffSummary {
        packages_added: n(s.packages_added),
        packages_removed: n(s.packages_removed),
        packages_changed: n(s.packages_changed),
        bundles_added: n(s.bundles_added),
        bundles_removed: n(s.bundles_removed),
        heads_moved: n(s.heads_moved),
        bundles_gone: n(s.bundles_gone),
        stranded: n(s.stranded),
        broken_paths: n(s.broken_paths),
        lengthened: n(s.lengthened),
        shortened: n(s.shortened),
        rerouted: n(s.rerouted),
        successors_lost: n(s.successors_lost),
        removals: d.has_removals(),
    }
}

#[cfg(test)]
mod tests;
