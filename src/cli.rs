//! Command line → validated configuration → run.
//!
//! `fbc-registry validate DIR` checks a catalog; `fbc-registry serve DIR` serves
//! it with the flags of `opm serve` (pflag syntax: `--flag=value`, `--flag value`,
//! `-p 50051`, bare booleans and `--bool=false` all work).

use crate::catalog::{self, LoadReport};
use crate::snapshot::Publisher;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "fbc-registry",
    version,
    about = "Serve and validate OLM file-based catalogs"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a catalog and print every problem found.
    Validate(ValidateArgs),
    /// Serve a catalog over the OLM registry gRPC API (compatible with `opm serve`).
    Serve(ServeArgs),
}

/// Output format of `validate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// One line per problem, or a one-line summary.
    Text,
    /// One JSON object: `{"valid": bool, "errors": [...], "packages": n, ...}`.
    Json,
}

/// `validate` arguments.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The catalog root directory.
    pub dir: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// `serve` arguments, the flags of `opm serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The catalog root directory.
    pub dir: PathBuf,
    /// Port to listen on, on all interfaces (IPv4 and IPv6).
    #[arg(short, long, default_value_t = 50051)]
    pub port: u16,
    /// Index cache directory: a start whose catalog matches the cache reads the index
    /// from it instead of parsing and validating (kept in `fbc-registry.v1/`,
    /// beside any cache written by opm).
    #[arg(long, default_value = "")]
    pub cache_dir: String,
    /// Build (or check) the index cache, then exit 0 without serving; without
    /// --cache-dir, only validate.
    #[arg(long)]
    pub cache_only: bool,
    /// Fail instead of rebuilding a stale cache. Defaults to true when --cache-dir is
    /// set and --cache-only is not, as in `opm serve`.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", require_equals = false)]
    pub cache_enforce_integrity: Option<bool>,
    /// File that receives the reason for a fatal exit (Kubernetes termination message).
    #[arg(short = 't', long, default_value = "/dev/termination-log")]
    pub termination_log: PathBuf,
    /// Log every call at debug level.
    #[arg(long)]
    pub debug: bool,
    /// Accepted for compatibility; Go's pprof has no Rust counterpart, no listener is opened.
    #[arg(long, default_value = "localhost:6060")]
    pub pprof_addr: String,
    /// Accepted for compatibility; ignored.
    #[arg(long)]
    pub pprof_capture_profiles: bool,
    /// Watch the catalog and reload it in place when its files change (`--watch=false`
    /// to read it once, like `opm serve`). SIGHUP reloads either way.
    #[arg(long, num_args = 0..=1, default_value_t = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub watch: bool,
    /// Quiet time after the last file change before a reload starts (e.g. 250ms, 2s).
    #[arg(long, default_value = "250ms", value_parser = crate::reload::parse_duration)]
    pub reload_debounce: std::time::Duration,
    /// Connection, call and memory limits against hostile or broken clients.
    #[command(flatten)]
    pub transport: crate::server::TransportArgs,
}

impl ServeArgs {
    /// `--cache-enforce-integrity` after `opm serve`'s defaulting rule.
    pub fn enforce_integrity(&self) -> bool {
        self.cache_enforce_integrity
            .unwrap_or(!self.cache_dir.is_empty() && !self.cache_only)
    }
}

/// Parses `std::env::args` and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Validate(args) => validate(&args),
        Command::Serve(args) => serve(&args),
    }
}

fn validate(args: &ValidateArgs) -> ExitCode {
    match catalog::load(&args.dir) {
        Ok((_, report)) => {
            let s = &report.stats;
            match args.output {
                Output::Text => {
                    for w in &report.warnings {
                        eprintln!("warning: {w}");
                    }
                    println!(
                        "{}: valid: {} packages, {} channels, {} bundles ({} channel entries)",
                        args.dir.display(),
                        s.packages,
                        s.channels,
                        s.bundles,
                        s.copies
                    );
                }
                Output::Json => println!(
                    "{}",
                    serde_json::json!({
                        "valid": true,
                        "packages": s.packages,
                        "channels": s.channels,
                        "bundles": s.bundles,
                        "channelEntries": s.copies,
                        "warnings": report.warnings,
                        "errors": [],
                    })
                ),
            }
            ExitCode::SUCCESS
        }
        Err(errors) => {
            match args.output {
                Output::Text => {
                    for e in &errors {
                        println!("{e}");
                    }
                    eprintln!("{}: invalid: {} error(s)", args.dir.display(), errors.len());
                }
                Output::Json => {
                    println!("{}", serde_json::json!({"valid": false, "errors": errors}))
                }
            }
            ExitCode::FAILURE
        }
    }
}

fn init_logging(debug: bool) {
    let default = if debug { "debug" } else { "info" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Writes the reason for a fatal exit where Kubernetes reads it.
fn write_termination_log(path: &Path, reason: &str) {
    if let Err(e) = std::fs::write(path, reason) {
        tracing::warn!(path = %path.display(), error = %e, "unable to write the termination log");
    }
}

fn fatal(args: &ServeArgs, reason: &str) -> ExitCode {
    tracing::error!("{reason}");
    write_termination_log(&args.termination_log, reason);
    ExitCode::FAILURE
}

fn log_loaded(dir: &Path, report: &LoadReport, generation: u64) {
    let s = &report.stats;
    tracing::info!(
        configs = %dir.display(),
        generation,
        packages = s.packages,
        channels = s.channels,
        bundles = s.bundles,
        channel_entries = s.copies,
        files = report.files,
        bytes = report.bytes,
        index_bytes = s.encoded_bytes,
        load_ms = report.total().as_millis() as u64,
        parse_ms = report.parse.as_millis() as u64,
        validate_ms = report.validate.as_millis() as u64,
        index_ms = report.index.as_millis() as u64,
        "catalog loaded"
    );
    for w in &report.warnings {
        tracing::warn!("{w}");
    }
}

fn serve(args: &ServeArgs) -> ExitCode {
    init_logging(args.debug);
    if args.enforce_integrity() && args.cache_dir.is_empty() {
        return fatal(
            args,
            "--cache-dir must be specified with --cache-enforce-integrity",
        );
    }
    let loaded = if args.cache_dir.is_empty() {
        catalog::load(&args.dir)
    } else {
        let cfg = crate::cache::CacheConfig {
            dir: PathBuf::from(&args.cache_dir),
            enforce_integrity: args.enforce_integrity(),
            must_write: args.cache_only,
        };
        crate::cache::load(&args.dir, &cfg).map(|(index, report, outcome, notes)| {
            if let Some(layout) = notes.foreign {
                tracing::warn!(
                    cache = %args.cache_dir,
                    layout,
                    "found an index cache written by opm; it is left untouched and fbc-registry keeps its own beside it, in {}",
                    crate::cache::SUBDIR
                );
            }
            if let Some(stale) = &notes.stale {
                tracing::warn!(cache = %args.cache_dir, "cache requires rebuild: {stale}");
            }
            match &outcome {
                crate::cache::Outcome::Warm => tracing::info!(cache = %args.cache_dir, "index read from the cache"),
                crate::cache::Outcome::BuiltAndWritten => tracing::info!(cache = %args.cache_dir, "index built and cached"),
                crate::cache::Outcome::BuiltInMemory(why) => {
                    tracing::warn!(cache = %args.cache_dir, error = %why, "cannot write the index cache; keeping the index in memory")
                }
            }
            (index, report)
        })
    };
    let (index, report) = match loaded {
        Ok(v) => v,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            let reason = format!(
                "cannot serve {}: {} error(s); first: {}",
                args.dir.display(),
                errors.len(),
                errors.first().map(String::as_str).unwrap_or("")
            );
            return fatal(args, &reason);
        }
    };
    let (mut publisher, catalog) = Publisher::new();
    let generation = publisher.publish(index);
    log_loaded(&args.dir, &report, generation);
    if args.cache_only {
        tracing::info!("--cache-only: done, exiting");
        return ExitCode::SUCCESS;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fatal(args, &format!("failed to start the async runtime: {e}")),
    };
    let limits = crate::server::limits::fit_fd_limit(args.transport.limits());
    let result = runtime.block_on(async {
        let listener = crate::server::bind_all_interfaces(args.port)
            .map_err(|e| format!("failed to listen on port {}: {e}", args.port))?;
        let addr = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
        tracing::info!(address = %addr, port = args.port, configs = %args.dir.display(), "serving registry");
        let reload = crate::reload::spawn(
            crate::reload::ReloadConfig {
                root: args.dir.clone(),
                watch: args.watch,
                debounce: args.reload_debounce,
                sighup: true,
            },
            publisher,
        );
        if args.watch {
            tracing::info!(debounce_ms = args.reload_debounce.as_millis() as u64, "watching the catalog for changes");
        }
        let _reload = reload;
        crate::server::serve(listener, catalog, limits, shutdown_signal())
            .await
            .map_err(|e| format!("server failed: {e}"))
    });
    match result {
        Ok(()) => {
            tracing::info!("server stopped");
            ExitCode::SUCCESS
        }
        Err(reason) => fatal(args, &reason),
    }
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down server");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_args(argv: &[&str]) -> ServeArgs {
        let mut full = vec!["fbc-registry", "serve", "/configs"];
        full.extend_from_slice(argv);
        match Cli::try_parse_from(full).expect("valid args").command {
            Command::Serve(a) => a,
            Command::Validate(_) => panic!("not serve"),
        }
    }

    #[test]
    fn opm_flag_spellings_parse() {
        let a = serve_args(&[
            "-p",
            "50052",
            "--cache-dir=/tmp/cache",
            "-t",
            "/tmp/t",
            "--debug",
        ]);
        assert_eq!(a.port, 50052);
        assert_eq!(a.cache_dir, "/tmp/cache");
        assert!(a.debug);
        let a = serve_args(&[
            "--port=1",
            "--cache-dir",
            "/c",
            "--cache-enforce-integrity=false",
        ]);
        assert_eq!(a.port, 1);
        assert!(!a.enforce_integrity());
    }

    #[test]
    fn enforce_integrity_defaults_like_opm() {
        assert!(!serve_args(&[]).enforce_integrity());
        assert!(serve_args(&["--cache-dir=/c"]).enforce_integrity());
        assert!(!serve_args(&["--cache-dir=/c", "--cache-only"]).enforce_integrity());
        assert!(serve_args(&["--cache-enforce-integrity"]).enforce_integrity());
    }
}
