//! `fbc-registry filter CATALOG --config FILE`: a catalog cut down for a mirror,
//! still valid, still upgradable, dependencies included.
//!
//! In: a catalog (directory, OCI layout or registry image) and a
//! `FilterConfiguration` file. Out: the filtered catalog as a JSON stream on
//! stdout (one meta per line, catalogd's form), or as a catalog directory with
//! `--output-dir`; with `--explain`, every input bundle's verdict and reason on
//! stderr; with `--images FILE`, every image the output references. The work is
//! [`fbc_catalog::filter`]'s; this module reads the inputs and writes the outputs.
//! Exit 0 when written, 1 when the catalog, the configuration or a guarantee
//! fails (nothing is written then).

use super::graph::source::load_offline_with_json;
use super::values::LimitArgs;
use fbc_catalog::filter::{self, Decision, FilterOptions, Verdict, config};
use fbc_catalog::model::ChainRule;
use fbc_catalog::tables::Tables;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod images;
mod output_dir;

/// `filter`'s arguments.
#[derive(Debug, clap::Args)]
pub struct FilterArgs {
    /// The catalog: a directory, oci-layout:PATH[:TAG|@DIGEST], or a registry image
    /// HOST[:PORT]/REPO[:TAG][@sha256:…].
    #[arg(value_name = "CATALOG")]
    pub catalog: PathBuf,
    /// The filter: a FilterConfiguration (apiVersion
    /// olm.operatorframework.io/filter/mirror/v1alpha1), YAML or JSON.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Write a catalog directory here (created; must not exist or be empty)
    /// instead of a JSON stream on stdout. Input files the filter does not
    /// change are copied byte for byte.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Print every input bundle's verdict and the reason on stderr.
    #[arg(long)]
    pub explain: bool,
    /// Write every bundle and related image of the output here: one reference
    /// per line, or JSON when FILE ends in `.json`; references not pinned by
    /// digest are flagged.
    #[arg(long, value_name = "FILE")]
    pub images: Option<PathBuf>,
    /// Do not add the bundles kept bundles' dependencies need.
    #[arg(long)]
    pub no_dependencies: bool,
    /// Parsing limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `filter`.
pub fn run(args: &FilterArgs) -> ExitCode {
    match filter_and_write(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("filter: {message}");
            ExitCode::FAILURE
        }
    }
}

fn filter_and_write(args: &FilterArgs) -> Result<(), String> {
    let config = read_config(&args.config)?;
    let offline =
        load_offline_with_json(&args.catalog, &args.limits, false).map_err(|e| match e {
            super::graph::source::AskError::Invalid(problems) => {
                let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
                format!(
                    "{}: the catalog does not validate:\n{}",
                    args.catalog.display(),
                    lines.join("\n")
                )
            }
            other => format!("{}: {other}", args.catalog.display()),
        })?;
    let tables: &Tables = &offline;
    let options = FilterOptions {
        dependencies: !args.no_dependencies,
    };
    let filtered =
        filter::filter(tables, &config, &options, ChainRule::Current).map_err(|e| e.to_string())?;
    if args.explain {
        explain(&filtered.plan.decisions);
    }
    for package in &filtered.plan.packages {
        for c in &package.channels {
            for b in c.bundles.iter().filter(|b| b.note.is_some()) {
                eprintln!(
                    "warning: {}/{} in {}: {}",
                    package.name,
                    b.name,
                    c.name,
                    b.note.as_deref().unwrap_or_default()
                );
            }
        }
    }
    if let Some(path) = &args.images {
        images::write(path, &filtered.output)?;
    }
    match &args.output_dir {
        Some(dir) => output_dir::write(dir, tables, &filtered.metas),
        None => std::io::stdout()
            .lock()
            .write_all(&filtered.stream)
            .map_err(|e| format!("stdout: {e}")),
    }
}

/// Reads and checks the filter file (see [`config::read`]).
pub fn read_config(path: &Path) -> Result<config::FilterConfig, String> {
    config::read(path)
        .map(|file| file.config)
        .map_err(|e| e.problems.join("\n"))
}

/// `--explain`: one line per input bundle, by package then bundle.
fn explain(decisions: &[Decision]) {
    let mut err = std::io::stderr().lock();
    for d in decisions {
        let verdict = match d.verdict {
            Verdict::Kept(k) => format!("kept ({})", k.as_str()),
            Verdict::Dropped => "dropped".to_string(),
        };
        let channels = if d.channels.is_empty() {
            String::new()
        } else {
            format!(" [{}]", d.channels.join(", "))
        };
        let _ = writeln!(
            err,
            "{}/{}: {verdict}{channels}: {}",
            d.package, d.bundle, d.reason
        );
    }
}
