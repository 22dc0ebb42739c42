//! `fbc-registry diff OLD NEW`: what changed between two catalogs, and what it does to
//! people with something installed.
//!
//! In: two catalogs, each a directory, an OCI layout, a registry image, or a running
//! server (`grpc://HOST:PORT[/CATALOG]`, read with `fbc.v1.Graph/ExportCatalog`). Out:
//! [`fbc_catalog::diff`]'s answer on stdout as text, JSON or markdown; the exit code
//! says whether a `--fail-on` condition holds (for CI). Exit 0: written, no condition
//! met; 1: a catalog could not be read; 2: written, and a `--fail-on` condition holds.

use super::graph::source::{AskError, Offline, load_offline};
use super::values::LimitArgs;
use crate::fbc_v1 as pb;
use crate::fbc_v1::graph_client::GraphClient;
use fbc_catalog::diff::{self, CatalogDiff, render};
use fbc_catalog::model::ChainRule;
use fbc_catalog::tables::Tables;
use std::io::Write;
use std::process::ExitCode;

/// `diff`'s arguments.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The catalog before: a directory, oci-layout:PATH[:TAG|@DIGEST], a registry image
    /// HOST[:PORT]/REPO[:TAG][@sha256:…], or a server grpc://HOST:PORT[/CATALOG].
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The catalog after, in the same forms.
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Output form: text, json, or markdown (for a pull-request comment).
    #[arg(short, long, value_enum, default_value_t = DiffOutput::Text)]
    pub output: DiffOutput,
    /// Exit 2 when the diff has any of these (comma-separated or repeated): `removal`
    /// (a package, channel, bundle or channel entry removed), `stranded` (an installed
    /// bundle newly without an upgrade), `broken-path` (an upgrade path that no longer
    /// reaches its channel's head).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub fail_on: Vec<FailOn>,
    /// Parsing limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `--output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffOutput {
    /// Lines for a terminal.
    Text,
    /// The whole diff as one JSON object.
    Json,
    /// GitHub-flavoured markdown.
    Markdown,
}

/// `--fail-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Something was removed.
    Removal,
    /// An installed bundle is newly stranded.
    Stranded,
    /// An upgrade path no longer reaches its head.
    BrokenPath,
}

/// Runs `diff`.
pub fn run(args: &DiffArgs) -> ExitCode {
    let sides =
        read(&args.old, &args.limits).and_then(|old| Ok((old, read(&args.new, &args.limits)?)));
    let d = match sides {
        Ok((old, new)) => diff::diff(&old, &new),
        Err(message) => {
            eprintln!("diff: {message}");
            return ExitCode::FAILURE;
        }
    };
    let text = match args.output {
        DiffOutput::Json => match serde_json::to_string_pretty(&d) {
            Ok(json) => json + "\n",
            Err(e) => {
                eprintln!("diff: {e}");
                return ExitCode::FAILURE;
            }
        },
        DiffOutput::Text => render::render(&d, render::Form::Text),
        DiffOutput::Markdown => render::render(&d, render::Form::Markdown),
    };
    if let Err(e) = std::io::stdout().lock().write_all(text.as_bytes()) {
        eprintln!("diff: stdout: {e}");
        return ExitCode::FAILURE;
    }
    let hits = failed(&d, &args.fail_on);
    if hits.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprintln!("diff: --fail-on: {}", hits.join(", "));
    ExitCode::from(2)
}

/// The `--fail-on` conditions that hold, in words.
fn failed(d: &CatalogDiff, on: &[FailOn]) -> Vec<String> {
    let s = d.summary();
    on.iter()
        .filter_map(|c| match c {
            FailOn::Removal if d.has_removals() => Some("something was removed".to_owned()),
            FailOn::Stranded if s.stranded > 0 => {
                Some(format!("{} installed bundle(s) stranded", s.stranded))
            }
            FailOn::BrokenPath if s.broken_paths > 0 => {
                Some(format!("{} upgrade path(s) broken", s.broken_paths))
            }
            _ => None,
        })
        .collect()
}

/// A catalog argument's tables (and what keeps them readable).
enum Read {
    Here(Box<Offline>),
    Served(Box<Tables>),
}

impl std::ops::Deref for Read {
    type Target = Tables;
    fn deref(&self) -> &Tables {
        match self {
            Read::Here(offline) => offline,
            Read::Served(tables) => tables,
        }
    }
}

/// Reads one side: a server by `grpc://`, anything else through the loader.
fn read(arg: &str, limits: &LimitArgs) -> Result<Read, String> {
    if let Some(rest) = arg.strip_prefix("grpc://") {
        return export(rest, limits).map(|t| Read::Served(Box::new(t)));
    }
    load_offline(std::path::Path::new(arg), limits, false, None)
        .map(|o| Read::Here(Box::new(o)))
        .map_err(|e| describe(arg, e))
}

fn describe(arg: &str, e: AskError) -> String {
    match e {
        AskError::Invalid(problems) => format!(
            "{arg}: the catalog does not validate: {}",
            fbc_catalog::diagnostic::first_few(&problems, 5)
        ),
        other => format!("{arg}: {other}"),
    }
}

/// The catalog a server serves (`HOST:PORT[/CATALOG]`), read with `ExportCatalog`:
/// at most `--max-file-size` bytes, parsed under the limits given.
fn export(target: &str, limits: &LimitArgs) -> Result<Tables, String> {
    let (addr, catalog) = target.split_once('/').unwrap_or((target, ""));
    let failed = |m: String| format!("grpc://{target}: {m}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let bytes = runtime.block_on(async {
        let mut client = GraphClient::connect(format!("http://{addr}"))
            .await
            .map_err(|e| failed(format!("cannot connect: {e}")))?;
        let mut stream = client
            .export_catalog(pb::ExportCatalogRequest {
                catalog: catalog.to_owned(),
                snapshot_digest: String::new(),
            })
            .await
            .map_err(|e| failed(e.message().to_owned()))?
            .into_inner();
        let mut bytes = Vec::new();
        while let Some(m) = stream
            .message()
            .await
            .map_err(|e| failed(e.message().to_owned()))?
        {
            if (bytes.len() + m.data.len()) as u64 > limits.max_file_size {
                return Err(failed(format!(
                    "the served catalog is larger than {} bytes (--max-file-size)",
                    limits.max_file_size
                )));
            }
            bytes.extend_from_slice(&m.data);
        }
        Ok::<_, String>(bytes)
    })?;
    let limits = limits.load_options().limits;
    Tables::from_stream("exported.json", &bytes, ChainRule::Legacy, &limits).map_err(|problems| {
        failed(format!(
            "the served catalog does not validate here: {}",
            fbc_catalog::diagnostic::first_few(&problems, 5)
        ))
    })
}
