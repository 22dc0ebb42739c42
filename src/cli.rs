//! Command line → validated configuration → run.
//!
//! `fbc-registry validate DIR` checks a catalog; `fbc-registry serve DIR` serves
//! it with the flags of `opm serve` (pflag syntax: `--flag=value`, `--flag value`,
//! `-p 50051`, bare booleans and `--bool=false` all work).

use crate::app::{self, Listen, ServeConfig, StartError};
use crate::catalog::{self, LoadOptions, LoadedCatalog};
use clap::{Parser, Subcommand, ValueEnum};
use fbc_catalog::diagnostic::Diagnostic;
use fbc_catalog::source::ParseLimits;
use fbc_catalog::source::limits::DEPTH_CEILING;
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

/// Bounds on what a catalog can make the loader do (see `docs/security.md`).
#[derive(Clone, Debug, clap::Args)]
pub struct LimitArgs {
    /// Largest catalog file read (e.g. 512MiB, 1GB).
    #[arg(long, value_name = "SIZE", default_value = "512MiB", value_parser = parse_size)]
    pub max_file_size: u64,
    /// Largest single JSON value or YAML document.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_document_size: u64,
    /// Deepest nesting of arrays and objects in a document (at most 128).
    #[arg(long, value_name = "LEVELS", default_value_t = ParseLimits::DEFAULT_MAX_DEPTH,
          value_parser = parse_depth)]
    pub max_depth: usize,
    /// Most nodes that YAML anchors and aliases may copy into one document.
    #[arg(long, value_name = "NODES", default_value_t = ParseLimits::DEFAULT_MAX_ALIAS_NODES)]
    pub max_yaml_alias_nodes: usize,
    /// A load (at start or on reload) still running after this long fails like an
    /// invalid catalog (e.g. 2m, 90s).
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub load_timeout: std::time::Duration,
}

impl LimitArgs {
    /// The load options these flags describe.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            limits: ParseLimits {
                max_file_bytes: self.max_file_size,
                max_document_bytes: self.max_document_size,
                max_depth: self.max_depth,
                max_alias_nodes: self.max_yaml_alias_nodes,
            },
        }
    }
}

/// `validate` arguments.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The catalog root directory.
    pub dir: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Parsing limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `serve` arguments, the flags of `opm serve`.
///
/// Boolean flags take a value only with `=` (`--watch=false`), as Go's pflag does,
/// so `serve --watch DIR` reads DIR as the catalog.
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
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = false,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub cache_only: bool,
    /// Fail instead of rebuilding a stale cache. Defaults to true when --cache-dir is
    /// set and --cache-only is not, as in `opm serve`.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub cache_enforce_integrity: Option<bool>,
    /// File that receives the reason for a fatal exit (Kubernetes termination message).
    #[arg(short = 't', long, default_value = "/dev/termination-log")]
    pub termination_log: PathBuf,
    /// Log our own debug lines (one per call, reload details); HTTP/2 internals stay
    /// at warn unless RUST_LOG says otherwise.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = false,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub debug: bool,
    /// Accepted for compatibility; Go's pprof has no Rust counterpart, no listener is opened.
    #[arg(long, default_value = "localhost:6060")]
    pub pprof_addr: String,
    /// Accepted for compatibility; ignored.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = false,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub pprof_capture_profiles: bool,
    /// Watch the catalog and reload it in place when its files change (`--watch=false`
    /// to read it once, like `opm serve`). SIGHUP reloads either way.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub watch: bool,
    /// Quiet time after the last file change before a reload starts (e.g. 250ms, 1.5s).
    #[arg(long, value_name = "DURATION", default_value = "250ms", value_parser = parse_duration)]
    pub reload_debounce: std::time::Duration,
    /// Parsing limits and the load timeout.
    #[command(flatten)]
    pub limits: LimitArgs,
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

/// Parses a duration as people write them: `250ms`, `1.5s`, `2m`, `1h30m`
/// (humantime's grammar). A bare number is milliseconds, as earlier releases read it.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse()
            .map(std::time::Duration::from_millis)
            .map_err(|e| format!("invalid duration {s:?}: {e}"));
    }
    humantime::parse_duration(s)
        .map_err(|e| format!("invalid duration {s:?}: {e} (write e.g. 250ms, 1.5s, 2m)"))
}

/// Parses `--max-depth`: 1 to [`DEPTH_CEILING`].
fn parse_depth(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=DEPTH_CEILING).contains(&n) => Ok(n),
        _ => Err(format!(
            "invalid depth {s:?}: a number from 1 to {DEPTH_CEILING} (the JSON parser's own ceiling)"
        )),
    }
}

/// Parses a size such as `512MiB`, `64 MB` or `1048576` (bytes).
pub fn parse_size(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<bytesize::ByteSize>()
        .map(|b| b.as_u64())
        .map_err(|e| format!("invalid size {s:?}: {e} (write e.g. 64MiB, 1GB)"))
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
    let options = args.limits.load_options();
    let missed = catalog::timeout_diagnostic(&args.dir, args.limits.load_timeout);
    let output = args.output;
    let dir = args.dir.clone();
    let watchdog = crate::deadline::Watchdog::start(args.limits.load_timeout, move || {
        print_invalid(&dir, output, std::slice::from_ref(&missed));
        std::process::exit(1);
    });
    let result = catalog::load(&args.dir, &options);
    drop(watchdog);
    match (result, args.output) {
        (Ok(loaded), Output::Text) => {
            let s = &loaded.report.stats;
            for w in &loaded.report.warnings {
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
            ExitCode::SUCCESS
        }
        (Ok(loaded), Output::Json) => {
            let report = &loaded.report;
            let s = &report.stats;
            println!(
                "{}",
                serde_json::json!({
                    "valid": true,
                    "digest": report.digest.to_string(),
                    "packages": s.packages,
                    "channels": s.channels,
                    "bundles": s.bundles,
                    "channelEntries": s.copies,
                    "warnings": report.warnings,
                    "errors": [],
                })
            );
            ExitCode::SUCCESS
        }
        (Err(errors), output) => {
            print_invalid(&args.dir, output, &errors);
            ExitCode::FAILURE
        }
    }
}

/// Prints what `validate` found wrong.
fn print_invalid(dir: &Path, output: Output, errors: &[Diagnostic]) {
    match output {
        Output::Text => {
            for e in errors {
                println!("{e}");
            }
            eprintln!("{}: invalid: {} error(s)", dir.display(), errors.len());
        }
        Output::Json => println!("{}", serde_json::json!({"valid": false, "errors": errors})),
    }
}

/// Logging to stderr: `--debug` turns on this program's debug lines, while the
/// HTTP/2 stack (h2, hyper, tower, tonic) stays at warn; `RUST_LOG` overrides both.
fn init_logging(debug: bool) {
    let default = if debug {
        "debug,h2=warn,hyper=warn,hyper_util=warn,tower=warn,tonic=warn,mio=warn,notify=info"
    } else {
        "info,h2=warn,hyper=warn,hyper_util=warn,tower=warn,tonic=warn"
    };
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
            &format!("cannot serve {}: {only}", args.dir.display()),
        );
    }
    for e in errors {
        tracing::error!("{e}");
    }
    tracing::error!(
        "cannot serve {}: {} errors",
        args.dir.display(),
        errors.len()
    );
    let first = errors.first().map(ToString::to_string).unwrap_or_default();
    write_termination_log(
        &args.termination_log,
        &format!(
            "cannot serve {}: {} errors; first: {first}",
            args.dir.display(),
            errors.len()
        ),
    );
    ExitCode::FAILURE
}

impl ServeArgs {
    /// The server configuration these flags describe.
    pub fn serve_config(&self) -> ServeConfig {
        ServeConfig {
            root: self.dir.clone(),
            listen: Listen::AllInterfaces(self.port),
            load: self.limits.load_options(),
            load_timeout: self.limits.load_timeout,
            cache: (!self.cache_dir.is_empty()).then(|| crate::cache::CacheConfig {
                dir: PathBuf::from(&self.cache_dir),
                enforce_integrity: self.enforce_integrity(),
                must_write: self.cache_only,
            }),
            watch: self.watch,
            reload_debounce: self.reload_debounce,
            sighup: true,
            transport: self.transport.limits(),
        }
    }
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
        args.dir.display(),
        catalog::timeout_diagnostic(&args.dir, args.limits.load_timeout)
    );
    let log = args.termination_log.clone();
    let _watchdog = crate::deadline::Watchdog::start(args.limits.load_timeout, move || {
        tracing::error!("{missed}");
        write_termination_log(&log, &missed);
        std::process::exit(1);
    });
    app::first_load(config)
}

fn serve(args: &ServeArgs) -> ExitCode {
    init_logging(args.debug);
    if args.enforce_integrity() && args.cache_dir.is_empty() {
        return fatal(
            args,
            "--cache-dir must be specified with --cache-enforce-integrity",
        );
    }
    let config = args.serve_config();
    let loaded = match first_load_with_deadline(args, &config) {
        Ok(loaded) => loaded,
        Err(StartError::Catalog(errors)) => return fatal_diagnostics(args, &errors),
        Err(other) => {
            return fatal(
                args,
                &format!("cannot serve {}: {other}", args.dir.display()),
            );
        }
    };
    if args.cache_only {
        crate::reload::log_loaded(&args.dir, &loaded.report, 1, "catalog loaded");
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
    let result = runtime.block_on(async {
        let handle = app::serve(config, loaded)
            .await
            .map_err(|e| e.to_string())?;
        handle.run_until(shutdown_signal()).await
    });
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

    fn parse(argv: &[&str]) -> Result<Cli, clap::Error> {
        let mut full = vec!["fbc-registry"];
        full.extend_from_slice(argv);
        Cli::try_parse_from(full)
    }

    #[test]
    fn boolean_flags_never_swallow_the_directory() {
        for flag in [
            "--watch",
            "--cache-enforce-integrity",
            "--cache-only",
            "--debug",
            "--pprof-capture-profiles",
        ] {
            let Command::Serve(a) = parse(&["serve", flag, "/configs"]).expect(flag).command else {
                panic!("not serve")
            };
            assert_eq!(a.dir, PathBuf::from("/configs"), "{flag}");
        }
        let Command::Serve(a) = parse(&["serve", "--watch=false", "/c"])
            .expect("=false")
            .command
        else {
            panic!("not serve")
        };
        assert!(!a.watch);
        assert!(
            parse(&["serve", "--watch", "false", "/c"]).is_err(),
            "two directories"
        );
    }

    #[test]
    fn durations_are_read_as_people_write_them() {
        use std::time::Duration;
        for (text, want) in [
            ("1.5s", Duration::from_millis(1500)),
            ("500ms", Duration::from_millis(500)),
            ("2m", Duration::from_secs(120)),
            ("1h30m", Duration::from_secs(5400)),
            ("250", Duration::from_millis(250)),
        ] {
            assert_eq!(parse_duration(text), Ok(want), "{text}");
        }
        for bad in ["fast", "", "1.5", "-1s", "1 parsec"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            serve_args(&["--reload-debounce", "1.5s"]).reload_debounce,
            Duration::from_millis(1500)
        );
    }

    #[test]
    fn sizes_and_depths_are_checked() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("1 GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert_eq!(parse_depth("128"), Ok(128));
        assert!(parse_depth("129").is_err() && parse_depth("0").is_err());
        let a = serve_args(&["--max-depth=40", "--max-document-size", "1MiB"]);
        let limits = a.limits.load_options().limits;
        assert_eq!((limits.max_depth, limits.max_document_bytes), (40, 1 << 20));
    }

    proptest::proptest! {
        #[test]
        fn parsers_of_flag_values_never_panic(s in "\\PC{0,30}") {
            let _ = parse_duration(&s);
            let _ = parse_size(&s);
            let _ = parse_depth(&s);
        }
    }
}
