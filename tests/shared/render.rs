//! `render` over the shared catalogs, against digests of opm v1.32.0's output recorded by
//! `tools/render-record-shared.py` (`tests/fixtures/render/shared.sha256`): each catalog
//! directory as JSON, YAML and with `--migrate`; and every bundle two of them carry as
//! `olm.bundle.object`, re-packed into bundle directories and rendered in one call with
//! `--alpha-image-ref-template REGISTRY/bundles/{{.Name}}:v1` — the image each was pushed as
//! when opm rendered it (a directory renders as the image it would be:
//! tests/registry/render.rs).

use base64::Engine;
use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::process::Command;

fn recorded() -> Vec<(String, String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render/shared.sha256");
    let text = std::fs::read_to_string(&path).expect("shared.sha256");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].to_owned(),
                f[1].to_owned(),
                f[2].to_owned(),
                f[3].to_owned(),
            )
        })
        .collect()
}

fn flags(name: &str) -> &'static [&'static str] {
    match name {
        "yaml" => &["-o", "yaml"],
        "migrate" => &["--migrate"],
        _ => &[],
    }
}

fn render_digest(args: &[String]) -> Result<String, Failed> {
    let out = Command::new(env!("CARGO_BIN_EXE_fbc-registry"))
        .arg("render")
        .args(args)
        .output()
        .map_err(|e| format!("run: {e}"))?;
    if !out.status.success() {
        return Err(format!("render {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(fbc_image::Digest::of(&out.stdout).hex().to_owned())
}

/// Writes every bundle of `catalog` that carries `olm.bundle.object` as a bundle
/// directory under `out` (as tools/bundles-from-catalog.py does); returns them by name.
fn repack(catalog: &Path, out: &Path) -> Vec<PathBuf> {
    let loaded = fbc_catalog::source::load_dir(catalog);
    let mut dirs = Vec::new();
    for blob in loaded.blobs.iter().filter(|b| b.schema == "olm.bundle") {
        let objects: Vec<Vec<u8>> = blob.value["properties"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["type"] == "olm.bundle.object")
            .filter_map(|p| p["value"]["data"].as_str())
            .filter_map(|d| base64::engine::general_purpose::STANDARD.decode(d).ok())
            .collect();
        if objects.is_empty() {
            continue;
        }
        let dir = out.join(&blob.name);
        std::fs::create_dir_all(dir.join("manifests")).expect("mkdir");
        std::fs::create_dir_all(dir.join("metadata")).expect("mkdir");
        for (i, data) in objects.iter().enumerate() {
            let kind = serde_json::from_slice::<serde_json::Value>(data)
                .ok()
                .and_then(|v| v["kind"].as_str().map(str::to_lowercase))
                .unwrap_or_else(|| "object".into());
            std::fs::write(dir.join(format!("manifests/{i:02}-{kind}.json")), data).expect("write");
        }
        let annotations = format!(
            "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.package.v1: {}\n",
            blob.package
        );
        std::fs::write(dir.join("metadata/annotations.yaml"), annotations).expect("write");
        dirs.push(dir);
    }
    dirs.sort();
    dirs
}

pub fn render_of_every_shared_catalog_and_its_bundles_equals_opms(
    root: PathBuf,
) -> Result<(), Failed> {
    let lines = recorded();
    assert!(lines.len() >= 21, "{} recorded digests", lines.len());
    let scratch = tempfile::tempdir().expect("tempdir");
    for (kind, catalog, flags_name, want) in lines {
        let mut args: Vec<String> = match kind.as_str() {
            "catalog" => vec![root.join(&catalog).to_string_lossy().into_owned()],
            "bundles" => {
                let out = scratch.path().join(&catalog);
                if !out.exists() {
                    repack(&root.join(&catalog), &out);
                }
                let mut dirs: Vec<String> = std::fs::read_dir(&out)
                    .expect("dirs")
                    .map(|e| e.expect("entry").path().to_string_lossy().into_owned())
                    .collect();
                dirs.sort();
                dirs.push("--alpha-image-ref-template=REGISTRY/bundles/{{.Name}}:v1".into());
                dirs
            }
            other => return Err(format!("unknown line kind {other}").into()),
        };
        args.extend(flags(&flags_name).iter().map(|s| (*s).to_owned()));
        let got = render_digest(&args)?;
        if got != want {
            return Err(
                format!("{kind} {catalog} [{flags_name}]: sha256 {got}, opm's {want}").into(),
            );
        }
    }
    Ok(())
}
