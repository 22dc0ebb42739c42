//! The raw metas of a catalog: every blob of every schema, in walk order,
//! addressable by (schema, package, name).
//!
//! In: the metas a load recorded (envelope and origin of every blob), and either
//! their JSON prepared earlier (read back from an index cache) or the catalog
//! files they came from. Out: each meta's normalised JSON (the form catalogd
//! serves: sorted keys, compact, numbers through float64, `<>&` literal), and the
//! metas matching exact (schema, package, name) filters, in source order.
//!
//! Neither a load nor this table keeps the JSON: it would be a second copy of the
//! catalog in memory (the HTTP view, its one reader in the server, keeps its own
//! JSON Lines), and re-encoding every blob costs about 15 % of a cold start. It is
//! produced each time it is asked for, by reading the catalog files again. Each
//! file must still hash to what the load read (see [`crate::source::digest`]); if
//! one changed, the JSON of that snapshot can no longer be produced
//! ([`MetaError::Changed`]) and the reload that the change triggers brings a
//! snapshot whose can.

use crate::model::Meta;
use crate::source::{self, FileDigest, ParseLimits};
use bytes::Bytes;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Why the metas' JSON could not be produced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MetaError {
    /// A catalog file no longer holds what was loaded.
    #[error(
        "{file}: changed on disk since the catalog was loaded; the reload it triggers will serve it"
    )]
    Changed {
        /// The file, relative to the root.
        file: String,
    },
    /// A catalog file could not be read again.
    #[error("{0}")]
    Read(String),
}

/// Where the catalog was read, for producing the metas' JSON later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogFiles {
    /// The catalog root.
    pub root: PathBuf,
    /// The files read, in walk order, with their hashes.
    pub files: Vec<FileDigest>,
    /// The limits they were read under.
    pub limits: ParseLimits,
}

/// Every meta of a catalog.
#[derive(Debug)]
pub struct MetaTable {
    rows: Vec<Meta>,
    by_schema: HashMap<String, Vec<u32>>,
    by_package: HashMap<String, Vec<u32>>,
    by_name: HashMap<String, Vec<u32>>,
    files: Option<CatalogFiles>,
    /// The JSON given up front ([`MetaTable::with_json`]), else read when asked for.
    json: Option<Arc<[Bytes]>>,
}

impl MetaTable {
    /// The metas of a loaded catalog, whose JSON is read from `files` when asked for.
    pub fn new(rows: Vec<Meta>, files: CatalogFiles) -> MetaTable {
        Self::indexed(rows, Some(files), None)
    }

    /// The metas of a loaded catalog with their JSON already at hand (one entry per
    /// row, as the load encoded it) and the files it came from (their limits and
    /// digests stay known). A `json` of another length is not used: it is read back.
    pub fn with_files_and_json(
        rows: Vec<Meta>,
        files: CatalogFiles,
        json: Vec<Bytes>,
    ) -> MetaTable {
        let json = (json.len() == rows.len()).then(|| Arc::from(json));
        Self::indexed(rows, Some(files), json)
    }

    /// Metas without their JSON and with no files to read it from (built from
    /// text in memory, in tests and tools): [`MetaTable::json`] is an error.
    pub fn detached(rows: Vec<Meta>) -> MetaTable {
        Self::indexed(rows, None, None)
    }

    /// The metas with their JSON already at hand (one entry per row).
    pub fn with_json(rows: Vec<Meta>, json: Vec<Bytes>) -> MetaTable {
        Self::indexed(rows, None, Some(Arc::from(json)))
    }

    fn indexed(
        rows: Vec<Meta>,
        files: Option<CatalogFiles>,
        json: Option<Arc<[Bytes]>>,
    ) -> MetaTable {
        let mut by_schema: HashMap<String, Vec<u32>> = HashMap::new();
        let mut by_package: HashMap<String, Vec<u32>> = HashMap::new();
        let mut by_name: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, m) in rows.iter().enumerate() {
            let i = i as u32;
            by_schema.entry(m.schema.clone()).or_default().push(i);
            by_package.entry(m.package.clone()).or_default().push(i);
            by_name.entry(m.name.clone()).or_default().push(i);
        }
        MetaTable {
            rows,
            by_schema,
            by_package,
            by_name,
            files,
            json,
        }
    }

    /// The catalog files the metas were read from, when known.
    pub fn files(&self) -> Option<&CatalogFiles> {
        self.files.as_ref()
    }

    /// Every meta, in walk order.
    pub fn rows(&self) -> &[Meta] {
        &self.rows
    }

    /// The metas whose schema, package and name equal the given values (a `None`
    /// or empty filter matches all), in walk order.
    pub fn select(
        &self,
        schema: Option<&str>,
        package: Option<&str>,
        name: Option<&str>,
    ) -> Vec<u32> {
        let filters = [
            (schema, &self.by_schema),
            (package, &self.by_package),
            (name, &self.by_name),
        ];
        let mut chosen: Option<Vec<u32>> = None;
        for (value, index) in filters {
            let Some(value) = value.filter(|v| !v.is_empty()) else {
                continue;
            };
            let hits = index.get(value).map(Vec::as_slice).unwrap_or_default();
            chosen = Some(match chosen {
                None => hits.to_vec(),
                Some(so_far) => intersect(&so_far, hits),
            });
        }
        chosen.unwrap_or_else(|| (0..self.rows.len() as u32).collect())
    }

    /// Each meta's normalised JSON, one per row: the JSON given up front, or read
    /// from the catalog files again at every call (see the module docs).
    pub fn json(&self) -> Result<Arc<[Bytes]>, MetaError> {
        if let Some(json) = &self.json {
            return Ok(json.clone());
        }
        match &self.files {
            Some(files) => reread(files, &self.rows).map(Arc::from),
            None => Err(MetaError::Read(
                "no JSON and no catalog files to read it from".into(),
            )),
        }
    }
}

/// Two ascending lists' common elements.
fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Reads the catalog files again and re-encodes every blob, checking that each
/// file still hashes to what was loaded and yields the same metas. Files are
/// read on every core (each worker with its own read buffer), the results put
/// back in walk order.
fn reread(files: &CatalogFiles, rows: &[Meta]) -> Result<Vec<Bytes>, MetaError> {
    let per_file =
        crate::parallel::parallel_map_with(&files.files, |buffer: &mut Vec<u8>, file| {
            reread_one(files, file, buffer)
        });
    let mut out = Vec::with_capacity(rows.len());
    for (file, result) in files.files.iter().zip(per_file) {
        let blobs = result
            .unwrap_or_else(|| Err(MetaError::Read(format!("{}: reading it failed", file.rel))))?;
        out.extend(blobs);
    }
    if out.len() != rows.len() {
        return Err(MetaError::Read(format!(
            "the catalog files hold {} metas, the load recorded {}",
            out.len(),
            rows.len()
        )));
    }
    Ok(out)
}

/// One file's blobs, re-encoded, if it still hashes to what was loaded.
fn reread_one(
    files: &CatalogFiles,
    file: &FileDigest,
    buffer: &mut Vec<u8>,
) -> Result<Vec<Bytes>, MetaError> {
    let path = files.root.join(&file.rel);
    source::read::read_regular(&path, files.limits.max_file_bytes, buffer)
        .map_err(|e| MetaError::Read(format!("{}: {e}", file.rel)))?;
    if xxhash_rust::xxh3::xxh3_128(buffer) != file.hash {
        return Err(MetaError::Changed {
            file: file.rel.clone(),
        });
    }
    let parsed = source::parse_file_with(&file.rel, buffer, &files.limits);
    Ok(parsed
        .blobs
        .into_iter()
        .map(|blob| Bytes::from(blob.normalized_json()))
        .collect())
}
