//! Bounds on what one catalog can make the loader do.
//!
//! In: the operator's choice (command-line flags) or the defaults. Out: the numbers
//! the reader, the JSON and YAML parsers and the embedded-manifest decoder check
//! against. Catalog files come from other people's images and ConfigMaps, so every
//! quantity that an input controls and that costs memory, stack or time has a
//! ceiling here; going over one is a load error naming the file, the document, the
//! line and the limit, never a crash.
//!
//! The defaults leave a wide margin over every real catalog seen (the largest real
//! document is about 4 MB, the deepest real blob nests 11 levels and the deepest
//! embedded manifest, a CRD schema, 39).

/// The JSON parser's own nesting ceiling: `serde_json` refuses anything deeper.
/// `max_depth` cannot be raised above it, so JSON and YAML obey the same limit.
pub const DEPTH_CEILING: usize = 128;

/// Limits applied to every catalog file, document and embedded manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseLimits {
    /// Largest catalog file (and `.indexignore`) read, in bytes.
    pub max_file_bytes: u64,
    /// Largest single JSON value or YAML document, in bytes.
    pub max_document_bytes: u64,
    /// Deepest nesting of arrays and objects (sequences and mappings) in a document,
    /// counting the top-level object as 1; at most [`DEPTH_CEILING`].
    pub max_depth: usize,
    /// Most nodes that YAML anchors and aliases may copy into one document (each
    /// alias costs the size of the node it names; so does keeping an anchored node).
    pub max_alias_nodes: usize,
}

impl ParseLimits {
    /// Default largest file: 512 MiB.
    pub const DEFAULT_MAX_FILE_BYTES: u64 = 512 << 20;
    /// Default largest document: 64 MiB.
    pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 64 << 20;
    /// Default deepest nesting.
    pub const DEFAULT_MAX_DEPTH: usize = 100;
    /// Default alias expansion budget.
    pub const DEFAULT_MAX_ALIAS_NODES: usize = 1_000_000;
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_file_bytes: Self::DEFAULT_MAX_FILE_BYTES,
            max_document_bytes: Self::DEFAULT_MAX_DOCUMENT_BYTES,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_alias_nodes: Self::DEFAULT_MAX_ALIAS_NODES,
        }
    }
}

/// Which limit an input went over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// [`ParseLimits::max_file_bytes`].
    FileSize,
    /// [`ParseLimits::max_document_bytes`].
    DocumentSize,
    /// [`ParseLimits::max_depth`].
    Depth,
    /// [`ParseLimits::max_alias_nodes`].
    AliasNodes,
}

impl Limit {
    /// The command-line flag that raises it.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::FileSize => "--max-file-size",
            Limit::DocumentSize => "--max-document-size",
            Limit::Depth => "--max-depth",
            Limit::AliasNodes => "--max-yaml-alias-nodes",
        }
    }
}
