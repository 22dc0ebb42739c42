//! `fbc-registry template FILE|-`: a catalog template → the catalog, as
//! `opm alpha render-template` builds it.
//!
//! In: a template file (or stdin) of schema `olm.template.basic`, `olm.semver` or
//! `olm.template.substitutes`, output
//! and registry flags, optionally `--bundles-from CATALOG` (a directory or catalog image
//! whose bundles stand in for the images they name, so a template renders offline). Out:
//! lint findings of the result on stderr, then the catalog on stdout (`-o json|yaml`) or
//! its channels as a Mermaid graph (`-o mermaid`). Exit 1 when the template cannot be
//! rendered, or with `--deny-warnings` when the result has a warning or does not validate.
//!
//! Every bundle image is pulled once, all of them at once, before anything is built.

use super::render::{RenderFlags, Renderer};
use super::values::LimitArgs;
use fbc_catalog::render::declcfg::Bundle;
use fbc_catalog::render::{self, DeclarativeConfig, Output};
use fbc_catalog::template::{self, Bundles, Kind};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::ExitCode;

/// The largest template read.
const MAX_TEMPLATE_BYTES: u64 = 64 << 20;

/// `template`'s arguments.
#[derive(Debug, clap::Args)]
pub struct TemplateArgs {
    /// The template file; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    pub file: Option<String>,
    /// Output: json, yaml, or mermaid (the channels as a graph).
    #[arg(short, long, value_enum, default_value_t = TemplateOutput::Json)]
    pub output: TemplateOutput,
    /// A catalog (directory or image) whose bundles are used for the images they name,
    /// instead of pulling those images.
    #[arg(long, value_name = "DIR|IMAGE")]
    pub bundles_from: Option<String>,
    /// Exit 1 when the result has a lint warning or does not validate.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Migrations, plain HTTP, the bundle cache, limits and registry access (as `render`).
    #[command(flatten)]
    pub flags: RenderFlags,
}

/// `--output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TemplateOutput {
    /// opm's JSON stream.
    Json,
    /// opm's YAML stream.
    Yaml,
    /// opm's Mermaid graph of the channels.
    Mermaid,
}

/// Runs `template`.
pub fn run(args: &TemplateArgs) -> ExitCode {
    let (source, text) = match read_input(args.file.as_deref()) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let config = match build(args, &source, &text) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let findings = findings(&config, &args.flags.limits);
    for finding in &findings.lines {
        eprintln!("{finding}");
    }
    let text = match args.output {
        TemplateOutput::Json => render::write(&config, Output::Json),
        TemplateOutput::Yaml => render::write(&config, Output::Yaml),
        TemplateOutput::Mermaid => render::mermaid::channels(&config),
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("template: writing the output: {e}");
        return ExitCode::FAILURE;
    }
    if args.deny_warnings && findings.warnings > 0 {
        eprintln!("{} warning(s) and --deny-warnings", findings.warnings);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn read_input(file: Option<&str>) -> Result<(String, String), String> {
    let (source, reader): (String, Box<dyn Read>) = match file {
        None | Some("-") => ("stdin".into(), Box::new(std::io::stdin())),
        Some(path) => {
            let f =
                std::fs::File::open(path).map_err(|e| format!("unable to open {path:?}: {e}"))?;
            (path.to_string(), Box::new(f))
        }
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_TEMPLATE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading {source:?}: {e}"))?;
    if bytes.len() as u64 > MAX_TEMPLATE_BYTES {
        return Err(format!(
            "{source:?}: larger than {MAX_TEMPLATE_BYTES} bytes"
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| format!("{source:?}: not UTF-8: {e}"))?;
    Ok((source, text))
}

fn build(args: &TemplateArgs, source: &str, text: &str) -> Result<DeclarativeConfig, String> {
    let kind = template::detect(text)?;
    let mut renderer = Renderer::new(&args.flags, false, None);
    // opm renders a template's references with only bundle images allowed.
    renderer.bundle_images_only = true;
    let known = match &args.bundles_from {
        Some(catalog) => bundles_of(&renderer, catalog)?,
        None => BTreeMap::new(),
    };
    match kind {
        Kind::Basic => {
            let images = template::basic::images(text)?;
            let mut bundles = Prefetched::new(&mut renderer, known, &images)?;
            template::basic::build(text, &mut bundles)
        }
        Kind::Substitutes => {
            let parsed = template::substitutes::parse(text)?;
            let mut bundles = Prefetched::new(&mut renderer, known, &parsed.images())?;
            let limits = args.flags.limits.clone();
            let mut check = |config: &DeclarativeConfig| validate(config, &limits);
            template::substitutes::build(&parsed, &mut bundles, &mut check)
        }
        Kind::Semver => {
            let fail = |e: String| format!("semver {source:?}: {e}");
            let parsed = template::semver::parse(text).map_err(fail)?;
            let mut bundles =
                Prefetched::new(&mut renderer, known, &parsed.images()).map_err(fail)?;
            template::semver::build(&parsed, &mut bundles).map_err(fail)
        }
    }
}

/// The bundles of `catalog`, by image.
fn bundles_of(renderer: &Renderer, catalog: &str) -> Result<BTreeMap<String, Vec<Bundle>>, String> {
    let config = Renderer {
        bundle_images_only: false,
        ..renderer.clone()
    }
    .render(&[catalog.to_string()])?;
    let mut out: BTreeMap<String, Vec<Bundle>> = BTreeMap::new();
    for bundle in config.bundles {
        if !bundle.image.is_empty() {
            out.entry(bundle.image.clone()).or_default().push(bundle);
        }
    }
    Ok(out)
}

/// Bundles rendered up front (all images pulled at once), or taken from a catalog.
struct Prefetched {
    by_image: BTreeMap<String, Vec<Bundle>>,
}

impl Prefetched {
    fn new(
        renderer: &mut Renderer,
        mut known: BTreeMap<String, Vec<Bundle>>,
        images: &[String],
    ) -> Result<Prefetched, String> {
        let missing: Vec<String> = images
            .iter()
            .filter(|i| !known.contains_key(*i))
            .cloned()
            .collect();
        for (image, config) in renderer.render_each(&missing)? {
            known.insert(image, config.bundles);
        }
        Ok(Prefetched { by_image: known })
    }
}

impl Bundles for Prefetched {
    fn render(&mut self, image: &str) -> Result<Vec<Bundle>, String> {
        self.by_image
            .get(image)
            .cloned()
            .ok_or_else(|| format!("render reference {image:?}: not rendered"))
    }
}

/// Whether `config` is a valid catalog (as `validate` would say of it written out).
fn validate(config: &DeclarativeConfig, limits: &LimitArgs) -> Result<(), String> {
    let dir = tempfile::Builder::new()
        .prefix("fbc-registry-template-")
        .tempdir()
        .map_err(|e| format!("making a scratch directory: {e}"))?;
    std::fs::write(
        dir.path().join("catalog.json"),
        render::write(config, Output::Json),
    )
    .map_err(|e| e.to_string())?;
    match fbc_catalog::load::load_model(dir.path(), &limits.load_options()) {
        Ok(_) => Ok(()),
        Err(problems) => Err(fbc_catalog::diagnostic::first_few(&problems, 3)),
    }
}

/// What `lint` and `validate` say about the result.
struct Findings {
    /// One line per finding.
    lines: Vec<String>,
    /// Warnings and validation errors.
    warnings: usize,
}

/// Lints the result as `lint` would lint it written to a directory.
fn findings(config: &DeclarativeConfig, limits: &LimitArgs) -> Findings {
    let mut out = Findings {
        lines: Vec::new(),
        warnings: 0,
    };
    let dir = match tempfile::Builder::new()
        .prefix("fbc-registry-template-")
        .tempdir()
    {
        Ok(dir) => dir,
        Err(e) => {
            out.lines.push(format!(
                "warning: not linted: making a scratch directory: {e}"
            ));
            return out;
        }
    };
    let file = dir.path().join("catalog.json");
    if let Err(e) = std::fs::write(&file, render::write(config, Output::Json)) {
        out.lines.push(format!("warning: not linted: {e}"));
        return out;
    }
    let options = limits.load_options();
    match fbc_catalog::load::load_model(dir.path(), &options) {
        Err(problems) => {
            out.warnings += problems.len();
            out.lines.extend(
                problems
                    .iter()
                    .map(|p| format!("error: the result does not validate: {p}")),
            );
        }
        Ok(loaded) => {
            let tables = loaded.tables(dir.path(), options.limits);
            match fbc_catalog::graph::lint::lint(&tables, None) {
                Ok(found) => {
                    out.warnings += found
                        .iter()
                        .filter(|f| f.severity == fbc_catalog::graph::lint::Severity::Warning)
                        .count();
                    out.lines.extend(found.iter().map(ToString::to_string));
                }
                Err(e) => out.lines.push(format!("warning: not linted: {e}")),
            }
        }
    }
    out
}
