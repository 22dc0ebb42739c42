//! `filter --output-dir DIR`: the filtered catalog as a directory, laid out as
//! the input was.
//!
//! In: the input's tables (their meta rows and where each was read) and the
//! output metas. Out: DIR with one file per input file that keeps a meta, at
//! the same relative path: a file whose metas are all kept unchanged is copied
//! byte for byte (so a filter that keeps everything reproduces the catalog
//! exactly, and a vendor's files stay as they were); any other is written anew
//! from its kept metas as a JSON stream, one object per line, under its own
//! name: opm (apimachinery's YAML-or-JSON decoder) and this loader read a
//! `.yaml` file that starts with `{` as a JSON stream, so the name can stay.
//! DIR must not exist or be empty; nothing is written outside it.

use fbc_catalog::filter::write::OutputMeta;
use fbc_catalog::tables::Tables;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Writes the directory (see the module docs).
pub fn write(dir: &Path, input: &Tables, metas: &[OutputMeta]) -> Result<(), String> {
    let files = input
        .metas()
        .files()
        .ok_or("the input's files are not known; cannot lay them out")?;
    prepare(dir)?;
    let rows = input.metas().rows();
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for row in rows {
        *per_file.entry(&row.origin.file).or_default() += 1;
    }
    let mut kept: BTreeMap<&str, Vec<&OutputMeta>> = BTreeMap::new();
    for m in metas {
        let file: &str = &rows[m.row].origin.file;
        kept.entry(file).or_default().push(m);
    }
    for file in &files.files {
        let Some(out) = kept.get(file.rel.as_str()) else {
            continue;
        };
        let target = inside(dir, &file.rel)?;
        let unchanged = out.len() == per_file.get(file.rel.as_str()).copied().unwrap_or(0)
            && out.iter().all(|m| !m.changed);
        let bytes = if unchanged {
            let source = files.root.join(&file.rel);
            crate::fleet::config::read_capped(&source, files.limits.max_file_bytes)
                .map_err(|e| format!("{}: {e}", source.display()))?
        } else {
            rewritten(out)
        };
        create(&target, &bytes)?;
    }
    Ok(())
}

/// Creates DIR, or accepts it when it is an empty directory.
fn prepare(dir: &Path) -> Result<(), String> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => match entries.next() {
            None => Ok(()),
            Some(_) => Err(format!(
                "{}: not empty; the output directory must not exist or be empty",
                dir.display()
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))
        }
        Err(e) => Err(format!("{}: {e}", dir.display())),
    }
}

/// `rel` under `dir`, refused when it would leave it.
fn inside(dir: &Path, rel: &str) -> Result<PathBuf, String> {
    let rel = Path::new(rel);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(format!("{}: not a plain relative path", rel.display()));
    }
    Ok(dir.join(rel))
}

/// A file's kept metas as a JSON stream.
fn rewritten(metas: &[&OutputMeta]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in metas {
        out.extend_from_slice(&m.json);
        out.push(b'\n');
    }
    out
}

/// Writes a new file (never through an existing one), creating its folders.
fn create(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    file.write_all(bytes)
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::inside;
    use std::path::Path;

    #[test]
    fn a_path_that_leaves_the_directory_is_refused() {
        let dir = Path::new("/out");
        assert!(inside(dir, "a/catalog.json").is_ok());
        assert!(inside(dir, "../x.json").is_err());
        assert!(inside(dir, "/etc/x.json").is_err());
        assert!(inside(dir, "a/../../x.json").is_err());
    }
}
