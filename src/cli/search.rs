//! `fbc-registry search`: packages across several catalogs, and which catalog
//! OLM v1 would install one from — the server's `/api/v1/packages` and
//! `…/providers`, answered offline.
//!
//! In: the catalogs (`--catalog NAME=SOURCE[,priority=P]`, repeatable, and/or
//! `--config FILE`, the server's file), a query, or `--package P` with
//! `--version`/`--channel`. Out: a table or one JSON object (the HTTP API's);
//! exit 0 with an answer, 2 when nothing matches or no catalog is chosen, 1 for
//! errors (a catalog that does not load, a bad flag, a bad range).

use super::graph::args::Output;
use super::graph::emit;
use super::graph::source::{AskError, Offline, load_offline};
use super::values::LimitArgs;
use crate::fleet::config::{self, CatalogSpec};
use crate::views::across::{self, SearchHit, Shelf};
use crate::views::browser::Browser;
use fbc_catalog::graph::providers::Providers;
use fbc_catalog::graph::successors::SuccessorQuery;
use std::path::PathBuf;
use std::process::ExitCode;

const NEGATIVE: u8 = 2;

/// `search` arguments.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Whitespace-separated terms, all of which must match a package's name,
    /// display name, keyword, provider, provided API or category; none lists every package.
    #[arg(value_name = "TERMS", conflicts_with = "package")]
    pub query: Vec<String>,
    /// A catalog to search (repeat the flag): NAME=SOURCE[,priority=P], SOURCE a
    /// directory, oci-layout:PATH or a registry image.
    #[arg(long = "catalog", value_name = "NAME=SOURCE[,priority=P]")]
    pub catalogs: Vec<String>,
    /// The server's `--config` file: every catalog it names, with its priority.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Instead of searching: which catalog OLM v1 would install this package from, and why.
    #[arg(long, value_name = "PACKAGE")]
    pub package: Option<String>,
    /// With --package: a version or Masterminds range (`>=1.2 <2`).
    #[arg(
        long,
        value_name = "RANGE",
        allow_hyphen_values = true,
        requires = "package"
    )]
    pub version: Option<String>,
    /// With --package: channels to consider (repeat the flag); all when absent.
    #[arg(long = "channel", value_name = "CHANNEL", requires = "package")]
    pub channels: Vec<String>,
    /// Parsing limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// One catalog, loaded.
struct Loaded {
    spec: CatalogSpec,
    offline: Offline,
    cards: Browser,
}

/// `search`.
pub fn run(a: &SearchArgs) -> ExitCode {
    let specs = match specs(a) {
        Ok(specs) => specs,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let mut loaded = Vec::with_capacity(specs.len());
    for spec in specs {
        match load_offline(
            std::path::Path::new(&spec.source),
            &a.limits,
            false,
            spec.filter.as_deref(),
        ) {
            Ok(offline) => {
                let cards = Browser::build(&offline);
                loaded.push(Loaded {
                    spec,
                    offline,
                    cards,
                });
            }
            Err(e) => return failed(&spec.name, e),
        }
    }
    let shelves: Vec<Shelf<'_>> = loaded
        .iter()
        .map(|l| Shelf {
            name: &l.spec.name,
            priority: l.spec.priority,
            tables: &l.offline,
            cards: &l.cards.cards,
        })
        .collect();
    match &a.package {
        Some(package) => providers(a, package, &shelves),
        None => search(a, &shelves),
    }
}

/// The catalogs the flags and the file name, checked together.
fn specs(a: &SearchArgs) -> Result<Vec<CatalogSpec>, String> {
    let mut specs = match &a.config {
        Some(file) => config::read_file(file).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    for flag in &a.catalogs {
        specs.push(config::parse_flag(flag).map_err(|e| e.to_string())?);
    }
    if specs.is_empty() {
        return Err(
            "name the catalogs: --catalog NAME=SOURCE (repeatable) or --config FILE".into(),
        );
    }
    config::check_all(&specs, &[]).map_err(|e| e.to_string())?;
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(specs)
}

fn failed(name: &str, e: AskError) -> ExitCode {
    match e {
        AskError::Invalid(problems) => {
            for p in &problems {
                eprintln!("{p}");
            }
            eprintln!(
                "catalog {name:?} does not validate: {} error(s)",
                problems.len()
            );
        }
        other => eprintln!("error: catalog {name:?}: {other}"),
    }
    ExitCode::FAILURE
}

fn search(a: &SearchArgs, shelves: &[Shelf<'_>]) -> ExitCode {
    let query = a.query.join(" ");
    if query.len() > across::MAX_QUERY {
        eprintln!(
            "error: the query is longer than {} bytes",
            across::MAX_QUERY
        );
        return ExitCode::FAILURE;
    }
    let hits = across::search(shelves, &query);
    match a.output {
        Output::Json => {
            let catalogs: Vec<&str> = shelves.iter().map(|s| s.name).collect();
            emit(&format!(
                "{}\n",
                serde_json::json!({"query": query, "catalogs": catalogs, "total": hits.len(), "packages": hits})
            ));
        }
        Output::Text => emit(&table(&hits)),
    }
    if hits.is_empty() {
        ExitCode::from(NEGATIVE)
    } else {
        ExitCode::SUCCESS
    }
}

/// Package, catalog, priority, default channel, latest version, provider: one row per hit.
fn table(hits: &[SearchHit]) -> String {
    let mut rows = vec![[
        "PACKAGE".to_string(),
        "CATALOG".into(),
        "PRIORITY".into(),
        "CHANNEL".into(),
        "LATEST".into(),
        "PROVIDER".into(),
    ]];
    for h in hits {
        rows.push([
            h.package.clone(),
            h.catalog.clone(),
            h.priority.to_string(),
            h.default_channel.clone(),
            h.versions.first().cloned().unwrap_or_default(),
            h.provider.clone(),
        ]);
    }
    if hits.is_empty() {
        return "no package matches\n".into();
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn providers(a: &SearchArgs, package: &str, shelves: &[Shelf<'_>]) -> ExitCode {
    let q = SuccessorQuery {
        package: package.to_string(),
        version_range: a.version.clone(),
        channels: a.channels.clone(),
        ..SuccessorQuery::default()
    };
    let answer: Providers = match across::provider(shelves, &q) {
        Ok(answer) => answer,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match a.output {
        Output::Json => emit(&format!("{}\n", serde_json::json!(answer))),
        Output::Text => {
            let mut out = match (&answer.catalog, &answer.message) {
                (Some(catalog), _) => format!(
                    "{package}: {} ({}) from catalog {catalog}\n",
                    answer.bundle.as_deref().unwrap_or_default(),
                    answer.version.as_deref().unwrap_or_default()
                ),
                (None, Some(message)) => format!("{message}\n"),
                (None, None) => String::new(),
            };
            for v in &answer.catalogs {
                out.push_str(&format!(
                    "  {} (priority {}): {}\n",
                    v.catalog, v.priority, v.reason
                ));
            }
            emit(&out);
        }
    }
    if answer.catalog.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NEGATIVE)
    }
}
