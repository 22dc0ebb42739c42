//! `fbc-registry compose CONFIG`: a catalog made of other catalogs and bundles, one
//! subdirectory per reference, as the FBC documents' `catalog.yaml` describes it.
//!
//! In: the config (`name`, `repo`, `tag`, `references: [{name, image}]`; YAML or JSON,
//! unknown fields refused) and `render`'s flags. Out: the directory `--output` (default
//! `<config's folder>/<name>`) holding `<reference>/index.yaml` (or `index.json`) for
//! each reference, rendered as `render` renders it, validated as a whole; and a lock
//! file beside the config (`<config stem>.lock.json`) recording each reference's image,
//! digest and the SHA-256 of what was written.
//!
//! Re-running is idempotent and renders only what changed: a reference whose image,
//! digest (one `HEAD` per tag; none for a digest), output form and written file are what
//! the lock says is copied as it is. The new tree is built beside the old one and swapped
//! in only when it validates: a reference that fails, or a result that does not validate,
//! leaves the previous catalog untouched. Subdirectories of references no longer listed
//! go with the swap.

use super::render::{RenderFlags, RenderOutput, Renderer, images};
use fbc_catalog::render::{self, Output};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The largest config read.
const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// `compose`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ComposeArgs {
    /// The catalog config (`name`, `repo`, `tag`, `references`).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// The catalog directory to write (default: `<config's folder>/<name>`).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// The form of each reference's file: yaml (`index.yaml`) or json (`index.json`).
    #[arg(long, value_enum, default_value_t = RenderOutput::Yaml)]
    pub format: RenderOutput,
    /// Migrations, plain HTTP, the bundle cache, limits and registry access (as `render`).
    #[command(flatten)]
    pub flags: RenderFlags,
}

/// The config, as the FBC documents write it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComposeConfig {
    /// The catalog's name: the default output directory.
    pub name: String,
    /// The repository the catalog image is published to (read by `publish`).
    #[serde(default)]
    pub repo: String,
    /// Its tag.
    #[serde(default)]
    pub tag: String,
    /// The references, each its own subdirectory.
    #[serde(default)]
    pub references: Vec<Reference>,
}

/// One reference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// Its subdirectory.
    pub name: String,
    /// What is rendered into it: an image or a directory.
    pub image: String,
}

/// What the lock records of a reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Locked {
    image: String,
    /// The digest the image resolved to (empty for a directory: always rendered).
    digest: String,
    /// The output form and migration, as one string.
    form: String,
    /// SHA-256 of the file written.
    sha256: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Lock {
    /// The catalog image the config names (`repo:tag`), for publishing.
    #[serde(default)]
    image: String,
    references: BTreeMap<String, Locked>,
}

/// Reads and checks the config: names that are one safe path component, no repeats.
pub fn read_config(path: &Path) -> Result<ComposeConfig, String> {
    let shown = path.display();
    let mut bytes = Vec::new();
    fbc_catalog::source::read::read_regular(path, MAX_CONFIG_BYTES, &mut bytes)
        .map_err(|e| format!("{shown}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| format!("{shown}: not UTF-8: {e}"))?;
    let value =
        fbc_catalog::template::first_document(&text).map_err(|e| format!("{shown}: {e}"))?;
    let config: ComposeConfig =
        serde_json::from_value(value).map_err(|e| format!("{shown}: {e}"))?;
    let safe = |name: &str| {
        !name.is_empty()
            && name != "."
            && name != ".."
            && name.len() <= 255
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    };
    if !safe(&config.name) {
        return Err(format!(
            "{shown}: name {:?}: one path component of letters, digits, '.', '-', '_'",
            config.name
        ));
    }
    let mut seen = BTreeMap::new();
    for (i, r) in config.references.iter().enumerate() {
        if !safe(&r.name) {
            return Err(format!(
                "{shown}: references[{i}].name {:?}: one path component of letters, digits, '.', '-', '_'",
                r.name
            ));
        }
        if r.image.is_empty() {
            return Err(format!("{shown}: references[{i}].image is empty"));
        }
        if let Some(first) = seen.insert(r.name.clone(), i) {
            return Err(format!(
                "{shown}: references[{i}].name {:?} repeats references[{first}]",
                r.name
            ));
        }
    }
    Ok(config)
}

/// Runs `compose`.
pub fn run(args: &ComposeArgs) -> ExitCode {
    match compose(args) {
        Ok(summary) => {
            eprintln!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compose: {e}");
            ExitCode::FAILURE
        }
    }
}

fn sha256(bytes: &[u8]) -> String {
    fbc_image::Digest::of(bytes).hex().to_string()
}

fn compose(args: &ComposeArgs) -> Result<String, String> {
    let config = read_config(&args.config)?;
    let folder = args
        .config
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| folder.join(&config.name));
    let stem = args
        .config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "catalog".into());
    let lock_path = folder.join(format!("{stem}.lock.json"));
    let old_lock: Lock = std::fs::read(&lock_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let (file_name, out_form) = match args.format {
        RenderOutput::Yaml => ("index.yaml", Output::Yaml),
        RenderOutput::Json => ("index.json", Output::Json),
    };
    let form = format!("{file_name} {:?}", args.flags.migrate_level);
    let renderer = Renderer::new(&args.flags, false, None);
    // What each image names now.
    let image_refs: Vec<String> = config
        .references
        .iter()
        .filter(|r| !Path::new(&r.image).exists())
        .map(|r| r.image.clone())
        .collect();
    let mut fetch = args.flags.limits.fetch_options(None);
    if args.flags.use_http {
        for image in &image_refs {
            if let Ok(fbc_image::CatalogSource::Registry(r)) =
                fbc_image::CatalogSource::parse(image)
            {
                fetch.registry.insecure.push(r.registry);
            }
        }
    }
    let digests = images::resolve_all(&image_refs, &fetch);
    let mut unchanged = BTreeMap::new();
    let mut to_render = Vec::new();
    for r in &config.references {
        let digest = match digests.get(&r.image) {
            Some(Ok(d)) => d.clone(),
            Some(Err(e)) if !Path::new(&r.image).exists() => {
                return Err(format!("reference {:?} ({}): {e}", r.name, r.image));
            }
            _ => String::new(),
        };
        let file = output.join(&r.name).join(file_name);
        let kept = old_lock.references.get(&r.name).filter(|l| {
            !digest.is_empty()
                && l.image == r.image
                && l.digest == digest
                && l.form == form
                && std::fs::read(&file).is_ok_and(|b| sha256(&b) == l.sha256)
        });
        match kept {
            Some(locked) => {
                unchanged.insert(r.name.clone(), locked.clone());
            }
            None => to_render.push((r.clone(), digest)),
        }
    }
    let refs: Vec<String> = to_render.iter().map(|(r, _)| r.image.clone()).collect();
    let rendered = renderer.render_each(&refs).map_err(|e| e.to_string())?;
    // The new tree, beside the old one.
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{}-", config.name))
        .tempdir_in(parent)
        .map_err(|e| format!("{}: {e}", parent.display()))?;
    let mut lock = Lock {
        image: match (config.repo.is_empty(), config.tag.is_empty()) {
            (true, _) => String::new(),
            (false, true) => config.repo.clone(),
            (false, false) => format!("{}:{}", config.repo, config.tag),
        },
        ..Lock::default()
    };
    for (name, locked) in &unchanged {
        let dir = staging.path().join(name);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        std::fs::copy(output.join(name).join(file_name), dir.join(file_name))
            .map_err(|e| format!("{name}: {e}"))?;
        lock.references.insert(name.clone(), locked.clone());
    }
    for ((r, digest), (_, config)) in to_render.iter().zip(rendered) {
        let text = render::write(&config, out_form);
        let dir = staging.path().join(&r.name);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        std::fs::write(dir.join(file_name), &text).map_err(|e| format!("{}: {e}", r.name))?;
        lock.references.insert(
            r.name.clone(),
            Locked {
                image: r.image.clone(),
                digest: digest.clone(),
                form: form.clone(),
                sha256: sha256(text.as_bytes()),
            },
        );
    }
    if let Err(problems) =
        fbc_catalog::load::load_model(staging.path(), &args.flags.limits.load_options())
    {
        let shown: Vec<String> = problems.iter().take(20).map(ToString::to_string).collect();
        return Err(format!(
            "the composed catalog does not validate; {} is left as it was:\n{}",
            output.display(),
            shown.join("\n")
        ));
    }
    swap_in(staging, &output)?;
    let text = serde_json::to_vec_pretty(&lock).map_err(|e| e.to_string())?;
    std::fs::write(&lock_path, text).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    let removed = old_lock
        .references
        .keys()
        .filter(|k| !lock.references.contains_key(*k))
        .count();
    Ok(format!(
        "{}: {} references, {} rendered, {} unchanged, {} removed",
        output.display(),
        config.references.len(),
        to_render.len(),
        unchanged.len(),
        removed
    ))
}

/// Puts `staging` where `output` is: the old tree moved aside first, removed after.
fn swap_in(staging: tempfile::TempDir, output: &Path) -> Result<(), String> {
    let staged = staging.keep();
    if output.exists() {
        let aside = output.with_file_name(format!(
            ".{}.old-{}",
            output
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        std::fs::rename(output, &aside).map_err(|e| format!("{}: {e}", output.display()))?;
        if let Err(e) = std::fs::rename(&staged, output) {
            let _ = std::fs::rename(&aside, output);
            let _ = std::fs::remove_dir_all(&staged);
            return Err(format!("{}: {e}", output.display()));
        }
        let _ = std::fs::remove_dir_all(&aside);
    } else {
        std::fs::rename(&staged, output).map_err(|e| format!("{}: {e}", output.display()))?;
    }
    Ok(())
}
