//! `fbc-registry render REF...`: bundles and catalogs → one FBC stream, as `opm render`
//! prints it.
//!
//! In: references — bundle directories (`manifests/` + `metadata/`), catalog
//! directories, bundle images and catalog images (registry references or
//! `oci-layout:PATH[:TAG|@DIGEST]`) — and the output flags. Out: the FBC on stdout
//! (`-o json|yaml`), the same bytes as opm v1.32.0 for the same input; exit 1 with
//! opm's message (`render reference "REF": …`) when a reference cannot be rendered.
//!
//! A reference is classified as opm does: a path that exists is a directory (a bundle
//! directory when it holds both `manifests/` and `metadata/`, else a catalog); anything
//! else is an image, whose config labels say what it is. Images are pulled first, all
//! at once ([`images`]); a directory needs no network.

pub mod cache;
pub mod images;

use super::values::LimitArgs;
use crate::snapshot::fetch::FetchOptions;
use fbc_catalog::render::bundle::{is_bundle_dir, read_bundle_dir};
use fbc_catalog::render::{self, DeclarativeConfig, MigrateLevel, ObjectForm, Output};
use fbc_catalog::source::ParseLimits;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The label that makes an image a bundle image.
const BUNDLE_PACKAGE_LABEL: &str = "operators.operatorframework.io.bundle.package.v1";
/// The label of the sqlite index images opm no longer renders.
const DATABASE_LABEL: &str = "operators.operatorframework.io.index.database.v1";

/// `render`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// What to render: bundle or catalog directories, bundle or catalog images
    /// (HOST[:PORT]/REPO[:TAG][@sha256:…] or oci-layout:PATH[:TAG|@DIGEST]).
    #[arg(value_name = "REF", required = true)]
    pub refs: Vec<String>,
    /// Output format: json or yaml.
    #[arg(short, long, value_enum, default_value_t = RenderOutput::Json)]
    pub output: RenderOutput,
    /// Deprecated (opm v1.32.0's flag): the same as `--migrate-level bundle-object-to-csv-metadata`.
    #[arg(long, conflicts_with = "migrate_level")]
    pub migrate: bool,
    /// The image reference recorded for a bundle directory, as a template over
    /// `{{.Package}}`, `{{.Name}}` and `{{.Version}}` (default: none, as opm).
    #[arg(long, value_name = "TEMPLATE")]
    pub alpha_image_ref_template: Option<String>,
    /// Migrations, plain HTTP, the bundle cache, limits and registry access.
    #[command(flatten)]
    pub flags: RenderFlags,
}

/// The flags of every command that renders (`render`, `template`, `compose`).
#[derive(Clone, Debug, clap::Args)]
pub struct RenderFlags {
    /// Run migrations up to this level: `none` (bundles keep every manifest as an
    /// `olm.bundle.object`, as today's opm writes them) or `bundle-object-to-csv-metadata`
    /// (every bundle with an image, catalogs' too, carries `olm.csv.metadata` instead).
    /// Unset: opm v1.32.0's output (a bundle rendered from an image carries
    /// `olm.csv.metadata`; catalogs are left as they are).
    #[arg(long, value_name = "LEVEL", value_parser = parse_level)]
    pub migrate_level: Option<MigrateLevel>,
    /// Speak plain HTTP to the registries of the images rendered (opm's flag).
    #[arg(long)]
    pub use_http: bool,
    /// Where bundle images are kept by digest between runs (default
    /// `$XDG_CACHE_HOME/fbc-registry/bundles`, else `~/.cache/fbc-registry/bundles`).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Keep no bundle images between runs.
    #[arg(long)]
    pub no_cache: bool,
    /// Parsing and image limits, registry access.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `--output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RenderOutput {
    /// opm's JSON stream (four-space indent).
    Json,
    /// opm's YAML stream (`---` documents).
    Yaml,
}

fn parse_level(s: &str) -> Result<MigrateLevel, String> {
    MigrateLevel::parse(s)
}

/// Runs `render`.
pub fn run(args: &RenderArgs) -> ExitCode {
    match render_refs(args) {
        Ok(config) => {
            let output = match args.output {
                RenderOutput::Json => Output::Json,
                RenderOutput::Yaml => Output::Yaml,
            };
            let text = render::write(&config, output);
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("render: writing the output: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Everything `render` needs besides the references.
#[derive(Clone)]
pub struct Renderer {
    /// How images are pulled and unpacked.
    pub fetch: FetchOptions,
    /// Parsing limits for directories and unpacked images.
    pub limits: ParseLimits,
    /// How bundles carry their manifests.
    pub form: ObjectForm,
    /// The migration run on each reference's output.
    pub level: Option<MigrateLevel>,
    /// The image template for bundle directories.
    pub image_template: Option<String>,
    /// Only bundle images may be rendered (templates: opm's `RefBundleImage` mask).
    pub bundle_images_only: bool,
    /// Plain HTTP for the registries of every image rendered (`--use-http`).
    pub use_http: bool,
    /// Bundle images kept between runs.
    pub cache: Option<cache::BundleCache>,
}

impl Renderer {
    /// The renderer `args` describe.
    pub fn from_args(args: &RenderArgs) -> Renderer {
        Renderer::new(
            &args.flags,
            args.migrate,
            args.alpha_image_ref_template.clone(),
        )
    }

    /// The renderer `flags` describe; `migrate` is opm v1.32.0's `--migrate`.
    pub fn new(flags: &RenderFlags, migrate: bool, image_template: Option<String>) -> Renderer {
        let level = if migrate {
            Some(MigrateLevel::BundleObjectToCsvMetadata)
        } else {
            flags.migrate_level
        };
        Renderer {
            fetch: flags.limits.fetch_options(None),
            limits: flags.limits.load_options().limits,
            form: match level {
                Some(MigrateLevel::None) => ObjectForm::BundleObjects,
                _ => ObjectForm::CsvMetadataWithImage,
            },
            level,
            image_template,
            bundle_images_only: false,
            use_http: flags.use_http,
            cache: open_cache(flags.cache_dir.as_deref(), flags.no_cache),
        }
    }

    /// Renders `refs` into one config, in order; the error is opm's message.
    pub fn render(&self, refs: &[String]) -> Result<DeclarativeConfig, String> {
        let mut out = DeclarativeConfig::default();
        for (_, config) in self.render_each(refs)? {
            out.merge(config);
        }
        Ok(out)
    }

    /// Renders each of `refs` (pulled all at once), in order.
    pub fn render_each(&self, refs: &[String]) -> Result<Vec<(String, DeclarativeConfig)>, String> {
        let scratch = tempfile::Builder::new()
            .prefix("fbc-registry-render-")
            .tempdir()
            .map_err(|e| format!("making a scratch directory: {e}"))?;
        let image_refs: Vec<String> = refs
            .iter()
            .filter(|r| !Path::new(r).exists())
            .cloned()
            .collect();
        let mut fetch = self.fetch.clone();
        if self.use_http {
            for reference in &image_refs {
                if let Ok(fbc_image::CatalogSource::Registry(r)) =
                    fbc_image::CatalogSource::parse(reference)
                {
                    fetch.registry.insecure.push(r.registry);
                }
            }
        }
        let pulled = images::pull_all(
            &image_refs,
            &fetch,
            &scratch.path().join("blobs"),
            self.cache.as_ref(),
        );
        if let Some(cache) = &self.cache {
            cache.prune();
        }
        let mut out = Vec::with_capacity(refs.len());
        for (i, reference) in refs.iter().enumerate() {
            let unpack_dir = scratch.path().join(format!("unpack-{i}"));
            let mut config = self
                .render_one(reference, &pulled, &unpack_dir)
                .map_err(|e| format!("render reference {reference:?}: {e}"))?;
            render::finish(&mut config);
            if let Some(level) = self.level {
                render::migrate(&mut config, level).map_err(|e| format!("migrate: {e}"))?;
            }
            out.push((reference.clone(), config));
            let _ = std::fs::remove_dir_all(&unpack_dir);
        }
        Ok(out)
    }

    fn render_one(
        &self,
        reference: &str,
        pulled: &BTreeMap<String, Result<images::PulledImage, String>>,
        unpack_dir: &Path,
    ) -> Result<DeclarativeConfig, String> {
        let path = Path::new(reference);
        if let Ok(meta) = std::fs::metadata(path) {
            if !meta.is_dir() {
                return Err(format!("ref {reference:?} is not a directory: not allowed"));
            }
            if self.bundle_images_only {
                return Err("cannot render declarative config directory: not allowed".into());
            }
            return self.render_dir(path, reference, true);
        }
        let image = match pulled.get(reference) {
            Some(Ok(image)) => image,
            Some(Err(e)) => return Err(format!("failed to pull image {reference:?}: {e}")),
            None => return Err(format!("failed to pull image {reference:?}: not pulled")),
        };
        let labels = &image.labels;
        if labels.contains_key(DATABASE_LABEL) {
            return Err(format!(
                "render {reference:?}: sqlite-based index images are no longer supported, migrate to a file-based catalog: not allowed"
            ));
        }
        if self.bundle_images_only && !labels.contains_key(BUNDLE_PACKAGE_LABEL) {
            return Err("cannot render declarative config image: not allowed".into());
        }
        if let Some(configs) = labels.get(fbc_image::manifest::CONFIGS_LABEL) {
            images::unpack(reference, image, configs, unpack_dir, &self.fetch)?;
            return self.render_dir(unpack_dir, reference, false);
        }
        if labels.contains_key(BUNDLE_PACKAGE_LABEL) {
            let root = match (&image.cached, &self.cache, &image.digest) {
                (Some(cached), _, _) => cached.root.clone(),
                (None, Some(cache), Some(digest)) => {
                    let unpack =
                        |root: &Path| images::unpack(reference, image, "/", root, &self.fetch);
                    cache.insert(digest, labels, unpack)?.root
                }
                _ => {
                    images::unpack(reference, image, "/", unpack_dir, &self.fetch)?;
                    unpack_dir.to_owned()
                }
            };
            let files = read_bundle_dir(&root, &self.limits).map_err(|e| e.to_string())?;
            let bundle = render::render_bundle(&files, reference, self.form)?;
            return Ok(DeclarativeConfig {
                bundles: vec![bundle],
                ..Default::default()
            });
        }
        if labels.is_empty() {
            return Err(format!(
                "render {reference:?}: image type could not be determined: image has no labels"
            ));
        }
        let found: Vec<String> = labels.iter().map(|(k, v)| format!("  {k}={v}")).collect();
        Err(format!(
            "render {reference:?}: image type could not be determined, found labels\n{}",
            found.join("\n")
        ))
    }

    /// A bundle directory (when `bundles_allowed`) or a catalog directory.
    fn render_dir(
        &self,
        dir: &Path,
        reference: &str,
        bundles_allowed: bool,
    ) -> Result<DeclarativeConfig, String> {
        if bundles_allowed && is_bundle_dir(dir) {
            let files = read_bundle_dir(dir, &self.limits).map_err(|e| e.to_string())?;
            let mut bundle = render::render_bundle(&files, "", self.form)?;
            if let Some(template) = &self.image_template {
                let image = fill_template(template, &bundle)?;
                bundle = render::render_bundle(&files, &image, self.form)?;
            }
            return Ok(DeclarativeConfig {
                bundles: vec![bundle],
                ..Default::default()
            });
        }
        let loaded = fbc_catalog::source::load_dir_with(dir, &self.limits, |_: &mut (), blob| blob);
        if let Some(error) = loaded.errors.first() {
            return Err(format!("{reference}: {error}"));
        }
        DeclarativeConfig::from_blobs(&loaded.blobs)
    }
}

/// The bundle cache the flags name; none when it cannot be opened (with a warning).
pub fn open_cache(dir: Option<&Path>, disabled: bool) -> Option<cache::BundleCache> {
    if disabled {
        return None;
    }
    let dir = dir
        .map(Path::to_path_buf)
        .or_else(cache::BundleCache::default_dir)?;
    match cache::BundleCache::open(&dir) {
        Ok(cache) => Some(cache),
        Err(e) => {
            eprintln!("warning: {e}; bundle images will not be kept");
            None
        }
    }
}

/// `--alpha-image-ref-template`: `{{.Package}}`, `{{.Name}}` and `{{.Version}}`
/// replaced by the bundle's.
fn fill_template(template: &str, bundle: &render::declcfg::Bundle) -> Result<String, String> {
    let version = bundle.package_version().unwrap_or_default();
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| format!("image ref template {template:?}: unclosed action"))?;
        let value = match after[..end].trim() {
            ".Package" => &bundle.package,
            ".Name" => &bundle.name,
            ".Version" => &version,
            other => {
                return Err(format!(
                    "image ref template {template:?}: unknown field {other:?}"
                ));
            }
        };
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Renders `args.refs`.
fn render_refs(args: &RenderArgs) -> Result<DeclarativeConfig, String> {
    Renderer::from_args(args).render(&args.refs)
}
