//! The HTTP view of one snapshot: catalogd's bytes, prepared once.
//!
//! In: the snapshot's metas (their normalised JSON and the (schema, package,
//! name) index), its digest and its `Last-Modified` time. Out: an [`HttpView`]:
//! the JSON Lines of every meta (catalogd's `catalog.jsonl`: one meta per line,
//! keys sorted, walk order), the same gzipped once, the validators (`ETag`,
//! `Last-Modified`), and [`HttpView::select`], which answers `/metas` filters
//! with slices of those buffers — nothing is re-encoded or compressed per
//! request. The per-meta gzip segments `/metas` needs ([`gzip::Segments`]) are
//! made the first time a `/metas` answer is asked for gzipped: most clients
//! (operator-controller among them) only ever read `/all`. Under a memory target
//! ([`Gzip::OnRequest`]) no gzip is kept: each gzipped answer is compressed for
//! its request.
//!
//! | module | in → out |
//! |---|---|
//! | [`gzip`] | pieces → per-piece deflate segments that join into one gzip |

pub(crate) mod gzip;

use bytes::Bytes;
use fbc_catalog::source::CatalogDigest;
use fbc_catalog::tables::metas::{MetaError, MetaTable};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Why a snapshot has no HTTP view.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// A catalog file changed since the load: the reload it triggers will serve.
    #[error("{0}")]
    Changed(String),
    /// The tables or the metas' JSON could not be read.
    #[error("{0}")]
    Failed(String),
}

impl From<MetaError> for ViewError {
    fn from(error: MetaError) -> Self {
        match error {
            MetaError::Changed { .. } => ViewError::Changed(error.to_string()),
            MetaError::Read(_) => ViewError::Failed(error.to_string()),
        }
    }
}

/// A body in parts, sent in order (zero-copy slices of the view's buffers).
#[derive(Clone, Debug, Default)]
pub struct Parts {
    /// The slices.
    pub parts: Vec<Bytes>,
    /// Their total length.
    pub len: u64,
}

impl Parts {
    fn of(parts: Vec<Bytes>) -> Parts {
        let len = parts.iter().map(|p| p.len() as u64).sum();
        Parts { parts, len }
    }

    /// The parts joined (for tests and small bodies).
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts.iter().flat_map(|p| p.iter().copied()).collect()
    }
}

/// One representation of a selection: identity and gzip.
#[derive(Clone, Debug)]
pub struct Selection {
    /// The JSON Lines.
    pub identity: Parts,
    /// The same, gzipped.
    pub gzip: Parts,
}

/// The JSON Lines being written. Past [`JsonLines::MAPPED_FROM`] bytes they live in
/// pages mapped for them alone, so that dropping the view hands them back to the OS
/// whichever thread drops it: the allocator keeps a large block freed on a thread
/// other than its own (a view dropped by the memory target after its last answer
/// was sent) until that thread allocates again.
enum JsonLines {
    Heap(Vec<u8>),
    Mapped { map: memmap2::MmapMut, len: usize },
}

impl JsonLines {
    const MAPPED_FROM: usize = 1 << 20;

    fn with_capacity(total: usize) -> JsonLines {
        if total >= Self::MAPPED_FROM
            && let Ok(map) = memmap2::MmapMut::map_anon(total)
        {
            return JsonLines::Mapped { map, len: 0 };
        }
        JsonLines::Heap(Vec::with_capacity(total))
    }

    /// Appends `line` and a newline; returns the length so far. The mapping was
    /// sized for every line, so it never overflows (a longer input goes to the heap).
    fn push_line(&mut self, line: &[u8]) -> usize {
        if let JsonLines::Mapped { map, len } = self {
            let end = *len + line.len() + 1;
            if end <= map.len() {
                map[*len..end - 1].copy_from_slice(line);
                map[end - 1] = b'\n';
                *len = end;
                return end;
            }
            let mut heap = map[..*len].to_vec();
            heap.reserve(line.len() + 1);
            *self = JsonLines::Heap(heap);
        }
        match self {
            JsonLines::Heap(heap) => {
                heap.extend_from_slice(line);
                heap.push(b'\n');
                heap.len()
            }
            JsonLines::Mapped { len, .. } => *len,
        }
    }

    fn freeze(self) -> Bytes {
        match self {
            JsonLines::Heap(heap) => Bytes::from(heap),
            JsonLines::Mapped { map, len } => Bytes::from_owner(map).slice(..len),
        }
    }
}

/// Whether a view keeps its gzip bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Gzip {
    /// `/all` gzipped once at build, `/metas` segments on first use, both kept.
    #[default]
    Kept,
    /// Nothing kept: each gzipped answer is compressed for its request.
    OnRequest,
}

/// catalogd's bytes of one snapshot (see the module docs).
#[derive(Debug)]
pub struct HttpView {
    jsonl: Bytes,
    /// Meta `i` is `jsonl[offsets[i]..offsets[i + 1]]`.
    offsets: Box<[usize]>,
    /// `jsonl` gzipped as one stream; `None` under [`Gzip::OnRequest`].
    all_gzip: Option<Bytes>,
    segments: OnceLock<gzip::Segments>,
    /// The strong validator of the identity bytes of every resource of this view.
    pub etag: String,
    /// The same for gzip-encoded bodies (gzhttp's `SuffixETag` form).
    pub etag_gzip: String,
    /// The snapshot's `Last-Modified` (whole seconds).
    pub last_modified: SystemTime,
}

impl HttpView {
    /// Builds the view from the snapshot's metas (reading their JSON; blocking,
    /// compresses on all cores unless `gzip` is [`Gzip::OnRequest`]).
    pub fn build(
        metas: &MetaTable,
        digest: CatalogDigest,
        last_modified: SystemTime,
        gzip: Gzip,
    ) -> Result<HttpView, MetaError> {
        let json = metas.json()?;
        let total: usize = json.iter().map(|j| j.len() + 1).sum();
        let mut jsonl = JsonLines::with_capacity(total);
        let mut offsets = Vec::with_capacity(json.len() + 1);
        offsets.push(0);
        for meta in json.iter() {
            offsets.push(jsonl.push_line(meta));
        }
        drop(json);
        let jsonl = jsonl.freeze();
        let all_gzip = (gzip == Gzip::Kept).then(|| gzip::whole(&jsonl));
        let etag = etag_of(digest);
        Ok(HttpView {
            jsonl,
            offsets: offsets.into_boxed_slice(),
            all_gzip,
            segments: OnceLock::new(),
            etag_gzip: format!("{}-gzip\"", etag.trim_end_matches('"')),
            etag,
            last_modified: whole_seconds(last_modified),
        })
    }

    /// Every meta (`/api/v1/all`); blocking when [`HttpView::gzip_on_request`]
    /// (the gzip is compressed then).
    pub fn all(&self) -> Selection {
        let gzip = match &self.all_gzip {
            Some(gzip) => gzip.clone(),
            None => gzip::whole(&self.jsonl),
        };
        Selection {
            identity: self.all_identity(),
            gzip: Parts::of(vec![gzip]),
        }
    }

    /// Every meta's JSON Lines, identity only (never blocks).
    pub fn all_identity(&self) -> Parts {
        Parts::of(vec![self.jsonl.clone()])
    }

    /// Whether gzipped answers are compressed for each request ([`Gzip::OnRequest`]).
    pub fn gzip_on_request(&self) -> bool {
        self.all_gzip.is_none()
    }

    /// The metas `chosen` (ascending indexes of the meta table), in order, as
    /// identity bytes only.
    pub fn select_identity(&self, chosen: &[u32]) -> Parts {
        if chosen.len() + 1 == self.offsets.len() {
            return self.all_identity();
        }
        let identity = gzip::runs(chosen)
            .into_iter()
            .map(|(start, end)| self.jsonl.slice(self.offsets[start]..self.offsets[end]))
            .collect();
        Parts::of(identity)
    }

    /// The metas `chosen`, identity and gzip (blocking the first time: the
    /// segments are compressed then, on all cores; and every time when
    /// [`HttpView::gzip_on_request`]).
    pub fn select(&self, chosen: &[u32]) -> Selection {
        if chosen.len() + 1 == self.offsets.len() {
            return self.all();
        }
        let identity = self.select_identity(chosen);
        let gzip = if self.gzip_on_request() {
            vec![gzip::whole(&identity.to_vec())]
        } else {
            self.segments().select(chosen)
        };
        Selection {
            identity,
            gzip: Parts::of(gzip),
        }
    }

    /// Whether [`HttpView::select`] would compress first.
    pub fn segments_ready(&self) -> bool {
        self.segments.get().is_some()
    }

    fn segments(&self) -> &gzip::Segments {
        self.segments.get_or_init(|| {
            let pieces: Vec<&[u8]> = self
                .offsets
                .windows(2)
                .map(|w| &self.jsonl[w[0]..w[1]])
                .collect();
            gzip::Segments::compress(&pieces)
        })
    }

    /// Meta `i`'s JSON, without its newline (empty past the end).
    pub fn meta(&self, i: usize) -> Bytes {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&start), Some(&end)) => self.jsonl.slice(start..end - 1),
            _ => Bytes::new(),
        }
    }

    /// The number of metas.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether the catalog has no metas.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held: JSON Lines, its gzip, and the per-meta segments if made.
    pub fn bytes(&self) -> ViewBytes {
        ViewBytes {
            jsonl: self.jsonl.len(),
            gzip: self.all_gzip.as_ref().map_or(0, Bytes::len),
            segments: self.segments.get().map_or(0, gzip::Segments::bytes),
        }
    }
}

/// What an [`HttpView`] holds, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewBytes {
    /// The JSON Lines of every meta.
    pub jsonl: usize,
    /// Their one-stream gzip.
    pub gzip: usize,
    /// The per-meta gzip segments (0 until a gzipped `/metas` answer needed them).
    pub segments: usize,
}

impl ViewBytes {
    /// All of them.
    pub fn total(&self) -> usize {
        self.jsonl + self.gzip + self.segments
    }
}

/// `"<digest>-<version hash>"`: a new release (whose normaliser may differ)
/// never reuses a previous release's validator.
fn etag_of(digest: CatalogDigest) -> String {
    let version = xxhash_rust::xxh3::xxh3_64(env!("CARGO_PKG_VERSION").as_bytes());
    format!("\"{digest}-{:08x}\"", version as u32)
}

/// `time` truncated to whole seconds (HTTP dates have no more).
pub fn whole_seconds(time: SystemTime) -> SystemTime {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    UNIX_EPOCH + Duration::from_secs(secs)
}

#[cfg(test)]
mod tests;
