//! `fbc-registry check-images CATALOG`: does every image a catalog names exist?
//!
//! In: a catalog (directory or image, read as `render` reads it), registry flags. Out: a
//! report, by package and bundle, of every bundle `image` and `relatedImages` entry that
//! is missing from its registry, refused to us, unreachable, not a valid reference, or not
//! pinned by digest (a tag that resolves is given with its digest, to pin it); `-o json`
//! lists every image. Each distinct image costs one manifest `HEAD` (no layer, no config),
//! at most `--concurrency` at once, one client per registry, with the credentials the auth
//! file gives that registry and `serve`'s retries. Exit 0: every image exists; 1: one is
//! missing, refused, unreachable or invalid, or the catalog could not be read.

use super::render::images;
use super::render::{RenderFlags, Renderer};
use super::values::LimitArgs;
use fbc_image::reference::CatalogSource;
use fbc_pull::PullErrorKind;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

/// `check-images`' arguments.
#[derive(Debug, clap::Args)]
pub struct CheckImagesArgs {
    /// The catalog: a directory, oci-layout:PATH[:TAG|@DIGEST] or a registry image.
    #[arg(value_name = "CATALOG")]
    pub catalog: String,
    /// Output: text (the problems) or json (every image).
    #[arg(short, long, value_enum, default_value_t = CheckOutput::Text)]
    pub output: CheckOutput,
    /// Most manifest requests at once.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// Speak plain HTTP to these images' registries.
    #[arg(long)]
    pub use_http: bool,
    /// Parsing and image limits, registry access.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `--output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckOutput {
    /// The problems, by package and bundle, and a summary line.
    Text,
    /// `{"images": [...], "summary": {...}}`, every image.
    Json,
}

/// Where a catalog names an image.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Use {
    /// The package.
    pub package: String,
    /// The bundle.
    pub bundle: String,
    /// `bundle` (the bundle's own image) or `related`.
    pub role: &'static str,
    /// The related image's name, when it has one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
}

/// What the registry said of an image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Status {
    /// It exists.
    Present {
        /// The digest it resolves to.
        digest: String,
        /// Whether the reference names that digest.
        pinned: bool,
    },
    /// The registry does not have it.
    Missing {
        /// The registry's answer.
        reason: String,
    },
    /// The registry refused us.
    Unauthorized {
        /// The registry's answer.
        reason: String,
    },
    /// No answer could be had.
    Unreachable {
        /// Why.
        reason: String,
    },
    /// Not an image reference.
    Invalid {
        /// Why.
        reason: String,
    },
}

impl Status {
    fn is_problem(&self) -> bool {
        !matches!(self, Status::Present { .. })
    }

    fn label(&self) -> &'static str {
        match self {
            Status::Present { pinned: true, .. } => "present",
            Status::Present { pinned: false, .. } => "not pinned",
            Status::Missing { .. } => "missing",
            Status::Unauthorized { .. } => "unauthorized",
            Status::Unreachable { .. } => "unreachable",
            Status::Invalid { .. } => "invalid",
        }
    }
}

/// One image and its verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    /// The reference as the catalog writes it.
    pub image: String,
    /// What the registry said.
    #[serde(flatten)]
    pub status: Status,
    /// Where the catalog names it, sorted.
    pub uses: Vec<Use>,
}

/// Runs `check-images`.
pub fn run(args: &CheckImagesArgs) -> ExitCode {
    let flags = RenderFlags {
        migrate_level: None,
        use_http: args.use_http,
        cache_dir: None,
        no_cache: true,
        limits: args.limits.clone(),
    };
    let renderer = Renderer::new(&flags, false, None);
    let config = match renderer.render(std::slice::from_ref(&args.catalog)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("check-images: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut uses: BTreeMap<String, Vec<Use>> = BTreeMap::new();
    for b in &config.bundles {
        let at = |role, name: &str| Use {
            package: b.package.clone(),
            bundle: b.name.clone(),
            role,
            name: name.to_string(),
        };
        if !b.image.is_empty() {
            uses.entry(b.image.clone())
                .or_default()
                .push(at("bundle", ""));
        }
        for r in b.related_images.iter().filter(|r| !r.image.is_empty()) {
            if r.image != b.image {
                uses.entry(r.image.clone())
                    .or_default()
                    .push(at("related", &r.name));
            }
        }
    }
    let mut options = args.limits.fetch_options(None);
    if args.use_http {
        for image in uses.keys() {
            if let Ok(CatalogSource::Registry(r)) = CatalogSource::parse(image) {
                options.registry.insecure.push(r.registry);
            }
        }
    }
    let statuses = check_all(
        uses.keys().cloned().collect(),
        &options,
        usize::from(args.concurrency),
    );
    let checked: Vec<Checked> = uses
        .into_iter()
        .map(|(image, mut uses)| {
            uses.sort();
            uses.dedup();
            let status = statuses
                .get(&image)
                .cloned()
                .unwrap_or(Status::Unreachable {
                    reason: "not checked".into(),
                });
            Checked {
                image,
                status,
                uses,
            }
        })
        .collect();
    let text = match args.output {
        CheckOutput::Json => json_report(&checked),
        CheckOutput::Text => text_report(&checked),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if checked.iter().any(|c| c.status.is_problem()) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Checks every image, `concurrency` at once; one client per registry.
fn check_all(
    images: Vec<String>,
    options: &crate::snapshot::fetch::FetchOptions,
    concurrency: usize,
) -> BTreeMap<String, Status> {
    let (pullers, failed) = images::pullers(&images, options);
    let mut out: BTreeMap<String, Status> = failed
        .into_iter()
        .map(|(image, reason)| {
            let status = if CatalogSource::parse(&image)
                .is_ok_and(|s| matches!(s, CatalogSource::Registry(_)))
            {
                Status::Unreachable { reason }
            } else {
                Status::Invalid { reason }
            };
            (image, status)
        })
        .collect();
    for (image, answer) in images::each_concurrently(pullers, concurrency, |puller, _| async move {
        Ok(match puller.head().await {
            Ok(digest) => Status::Present {
                digest: digest.to_string(),
                pinned: false,
            },
            Err(e) => match plain_kind(&e.kind) {
                PullErrorKind::NotFound { .. } => Status::Missing {
                    reason: e.kind.to_string(),
                },
                PullErrorKind::Unauthorized { .. } | PullErrorKind::Credentials(_) => {
                    Status::Unauthorized {
                        reason: e.kind.to_string(),
                    }
                }
                _ => Status::Unreachable {
                    reason: e.kind.to_string(),
                },
            },
        })
    }) {
        let status = match answer {
            Ok(Status::Present { digest, .. }) => Status::Present {
                digest,
                pinned: image.contains("@sha256:"),
            },
            Ok(status) => status,
            Err(reason) => Status::Unreachable { reason },
        };
        out.insert(image, status);
    }
    out
}

fn summary(checked: &[Checked]) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for c in checked {
        *counts.entry(c.status.label()).or_insert(0) += 1;
    }
    counts
}

fn json_report(checked: &[Checked]) -> String {
    let report = serde_json::json!({"images": checked, "summary": summary(checked)});
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}

fn text_report(checked: &[Checked]) -> String {
    // Problems and unpinned images, by package and bundle.
    let mut by_bundle: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for c in checked {
        let line = match &c.status {
            Status::Present { pinned: true, .. } => continue,
            Status::Present {
                digest,
                pinned: false,
            } => format!("not pinned    {} (resolves to {digest})", c.image),
            Status::Missing { reason }
            | Status::Unauthorized { reason }
            | Status::Unreachable { reason }
            | Status::Invalid { reason } => {
                format!("{:<13} {}: {reason}", c.status.label(), c.image)
            }
        };
        for u in &c.uses {
            let role = match (u.role, u.name.as_str()) {
                ("bundle", _) => "bundle image".to_string(),
                (_, "") => "related image".to_string(),
                (_, name) => format!("related image {name:?}"),
            };
            by_bundle
                .entry((&u.package, &u.bundle))
                .or_default()
                .push(format!("{line} [{role}]"));
        }
    }
    let mut out = String::new();
    let mut package = "";
    for ((p, b), lines) in &by_bundle {
        if *p != package {
            out.push_str(&format!("package {p}\n"));
            package = p;
        }
        out.push_str(&format!("  bundle {b}\n"));
        for line in lines {
            out.push_str(&format!("    {line}\n"));
        }
    }
    let counts: Vec<String> = summary(checked)
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    out.push_str(&format!(
        "{} images: {}\n",
        checked.len(),
        counts.join(", ")
    ));
    out
}

/// The answer that counts: for a registry tried over HTTPS and then plain HTTP, the plain
/// answer (HTTPS failing to connect says nothing about the image).
fn plain_kind(kind: &PullErrorKind) -> &PullErrorKind {
    match kind {
        PullErrorKind::BothSchemes { plain, .. } => plain,
        other => other,
    }
}
