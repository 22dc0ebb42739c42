//! Command line → validated configuration → run.
//!
//! `fbc-registry validate DIR` checks a catalog; `fbc-registry serve DIR` serves
//! it with the flags of `opm serve` (pflag syntax: `--flag=value`, `--flag value`,
//! `-p 50051`, bare booleans and `--bool=false` all work). The graph commands
//! (`range check`, `successors`, `upgrade-path`, `graph`, `lint`) live in [`graph`];
//! `search` (packages across catalogs) in [`search`].

pub(crate) mod args;
pub(crate) mod check_images;
pub(crate) mod cluster;
pub(crate) mod compose;
pub(crate) mod diff;
pub(crate) mod filter;
pub(crate) mod graph;
mod many;
pub(crate) mod opm;
pub(crate) mod probe;
pub(crate) mod publish;
pub(crate) mod render;
pub(crate) mod resolve;
pub(crate) mod search;
pub(crate) mod template;
mod validate;
pub(crate) mod values;

pub use args::{Cli, Command, LogFormat, Output, ServeArgs, ValidateArgs};
pub use values::{LimitArgs, parse_duration, parse_size};

use crate::app::{self, ServeConfig, StartError};
use crate::snapshot::fetch;
use crate::snapshot::load::{self, LoadedCatalog};
use clap::Parser;
use fbc_catalog::diagnostic::Diagnostic;
use std::path::Path;
use std::process::ExitCode;

/// Parses `std::env::args` and runs the command; called as `grpc_health_probe`
/// (a link to this binary), runs [`probe`] with the arguments; called as `opm`, answers
/// `opm serve` and `opm validate` ([`opm`]).
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .first()
        .is_some_and(|argv0| probe::called_as_probe(argv0))
    {
        let rest: Vec<String> = args[1..]
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        return probe::main(&rest);
    }
    let cli = match args.first() {
        Some(argv0) if opm::called_as_opm(argv0) => match opm::answer(&args[1..]) {
            opm::Answer::Run(cli) if opm::allowed(&cli.command) => *cli,
            opm::Answer::Run(_) => return ExitCode::FAILURE,
            opm::Answer::Help(text) => {
                print!("{text}");
                return ExitCode::SUCCESS;
            }
            opm::Answer::Refused(text) => {
                eprint!("{text}");
                return ExitCode::FAILURE;
            }
        },
        _ => Cli::parse_from(args),
    };
    match cli.command {
        Command::Validate(args) => validate::run(&args),
        Command::Serve(args) => serve(&args),
        Command::Range(graph::args::RangeCommand::Check(args)) => graph::range_check(&args),
        Command::Successors(args) => graph::successors(&args),
        Command::UpgradePath(args) => graph::upgrade_path(&args),
        Command::Graph(args) => graph::graph(&args),
        Command::Lint(args) => graph::lint(&args),
        Command::Resolve(args) => resolve::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Filter(args) => filter::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Template(args) => template::run(&args),
        Command::CheckImages(args) => check_images::run(&args),
        Command::ClusterUpgrade(args) => cluster::upgrade::run(&args),
        Command::ExplainUpgrade(args) => cluster::explain::run(&args),
        Command::Compose(args) => compose::run(&args),
        Command::Publish(args) => publish::run(&args),
        Command::Probe(args) => probe::main(&args.args),
    }
}

/// Logging to stderr: `--debug` turns on this program's debug lines, while the
/// HTTP/2 stack (h2, hyper, tower, tonic) stays at warn; `RUST_LOG` overrides both.
fn init_logging(debug: bool, format: LogFormat) {
    let default = if debug {
        "debug,h2=warn,hyper=warn,hyper_util=warn,tower=warn,tonic=warn,mio=warn,notify=info"
    } else {
        "info,h2=warn,hyper=warn,hyper_util=warn,tower=warn,tonic=warn"
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
        // One JSON object per line: timestamp, level, target and every field
        // at the top level, for log pipelines that parse rather than read.
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
    };
}

/// Writes the reason for a fatal exit where Kubernetes reads it.
fn write_termination_log(path: &Path, reason: &str) {
    if let Err(e) = std::fs::write(path, reason) {
        tracing::warn!(path = %path.display(), error = %e, "unable to write the termination log");
    }
}

/// Logs the reason for a fatal exit once, writes it to the termination log, exits 1.
fn fatal(args: &ServeArgs, reason: &str) -> ExitCode {
    tracing::error!("{reason}");
    write_termination_log(&args.termination_log, reason);
    ExitCode::FAILURE
}

/// Reports a catalog that cannot be served: each problem once, then a summary
/// that does not repeat them (the termination log gets the first one too).
fn fatal_diagnostics(args: &ServeArgs, errors: &[Diagnostic]) -> ExitCode {
    if let [only] = errors {
        return fatal(
            args,
            &format!("cannot serve {}: {only}", args.dir().display()),
        );
    }
    for e in errors {
        tracing::error!("{e}");
    }
    tracing::error!(
        "cannot serve {}: {} errors",
        args.dir().display(),
        errors.len()
    );
    let first = errors.first().map(ToString::to_string).unwrap_or_default();
    write_termination_log(
        &args.termination_log,
        &format!(
            "cannot serve {}: {} errors; first: {first}",
            args.dir().display(),
            errors.len()
        ),
    );
    ExitCode::FAILURE
}

/// The first load on this (the main) thread: a load still running after
/// `--load-timeout` ends the process as an invalid catalog would (exit 1, the
/// reason in the termination log).
fn first_load_with_deadline(
    args: &ServeArgs,
    config: &ServeConfig,
) -> Result<LoadedCatalog, StartError> {
    let missed = format!(
        "cannot serve {}: {}",
        args.dir().display(),
        load::timeout_diagnostic(&config.root, args.limits.load_timeout)
    );
    let log = args.termination_log.clone();
    let _watchdog =
        crate::snapshot::deadline::Watchdog::start(args.limits.load_timeout, move || {
            tracing::error!("{missed}");
            write_termination_log(&log, &missed);
            std::process::exit(1);
        });
    app::first_load(config)
}

fn serve(args: &ServeArgs) -> ExitCode {
    init_logging(args.debug, args.log_format);
    if let Some(target) = args.memory.target() {
        crate::snapshot::budget::set_target(target.bytes);
        tracing::info!(
            bytes = target.bytes,
            from = target.from,
            "memory target set"
        );
    }
    if args.several() {
        return many::serve(args);
    }
    if args.enforce_integrity() && args.cache_dir.is_empty() {
        return fatal(
            args,
            "--cache-dir must be specified with --cache-enforce-integrity",
        );
    }
    let store = (!args.cache_dir.is_empty()).then(|| Path::new(&args.cache_dir).join("images"));
    let options = args.limits.fetch_options(store);
    let fetched = match fetch::fetch(args.dir(), &options) {
        Ok(fetched) => fetched,
        Err(e) => return fatal(args, &format!("cannot serve {}: {e}", args.dir().display())),
    };
    let config = match args.serve_config(&fetched, &options) {
        Ok(config) => config,
        Err(reason) => return fatal(args, &reason),
    };
    let loaded = match first_load_with_deadline(args, &config) {
        Ok(loaded) => loaded,
        Err(StartError::Catalog(errors)) => return fatal_diagnostics(args, &errors),
        Err(other) => {
            return fatal(
                args,
                &format!("cannot serve {}: {other}", args.dir().display()),
            );
        }
    };
    if args.cache_only {
        crate::snapshot::reload::log_loaded(
            args.dir(),
            fetched.image.as_ref(),
            &loaded.report,
            1,
            "catalog loaded",
        );
        tracing::info!("--cache-only: done, exiting");
        return ExitCode::SUCCESS;
    }
    run_server(args, async {
        let handle = app::serve(config, loaded)
            .await
            .map_err(|e| e.to_string())?;
        handle.run_until(shutdown_signal()).await
    })
}

/// Runs `server` (start, then serve until a signal) on a new runtime; exit 0 when it
/// stops cleanly, else the reason as a fatal exit.
fn run_server(
    args: &ServeArgs,
    server: impl std::future::Future<Output = Result<(), String>>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fatal(args, &format!("failed to start the async runtime: {e}")),
    };
    let result = runtime.block_on(server);
    // Anything still running (a cache write on a hung disk) must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
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
