//! The command line as people type it: opm's spellings, booleans that never
//! swallow the directory, durations, sizes, depths and the transport flags.

use super::*;

fn serve_args(argv: &[&str]) -> ServeArgs {
    let mut full = vec!["fbc-registry", "serve", "/configs"];
    full.extend_from_slice(argv);
    match Cli::try_parse_from(full).expect("valid args").command {
        Command::Serve(a) => *a,
        other => panic!("not serve: {other:?}"),
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
    assert_eq!(a.port, Some(50052));
    assert_eq!(a.cache_dir, "/tmp/cache");
    assert!(a.debug);
    let a = serve_args(&[
        "--port=1",
        "--cache-dir",
        "/c",
        "--cache-enforce-integrity=false",
    ]);
    assert_eq!(a.port, Some(1));
    assert!(!a.enforce_integrity());
}

#[test]
fn enforce_integrity_is_on_only_when_asked_for() {
    assert!(!serve_args(&[]).enforce_integrity());
    assert!(
        !serve_args(&["--cache-dir=/c"]).enforce_integrity(),
        "opm's default (on with --cache-dir) is the crash-loop users report"
    );
    assert!(!serve_args(&["--cache-dir=/c", "--cache-only"]).enforce_integrity());
    assert!(serve_args(&["--cache-dir=/c", "--cache-enforce-integrity"]).enforce_integrity());
    assert!(serve_args(&["--cache-dir=/c", "--cache-enforce-integrity=true"]).enforce_integrity());
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
        "--browser",
        "--metrics-tls",
    ] {
        let Command::Serve(a) = parse(&["serve", flag, "/configs"]).expect(flag).command else {
            panic!("not serve")
        };
        assert_eq!(a.dir, Some(PathBuf::from("/configs")), "{flag}");
    }
    let Command::Serve(a) = parse(&["serve", "--watch=false", "/c"])
        .expect("=false")
        .command
    else {
        panic!("not serve")
    };
    assert!(!a.watch);
    let a = serve_args(&["--metrics-tls=false"]);
    assert!(!a.metrics_tls && serve_args(&[]).metrics_tls);
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

#[derive(Debug, clap::Parser)]
struct TransportOnly {
    #[command(flatten)]
    transport: TransportArgs,
}

#[test]
fn flag_defaults_are_the_struct_defaults() {
    let cli = TransportOnly::try_parse_from(["x"]).expect("no flags");
    assert_eq!(cli.transport.limits(), TransportLimits::default());
}

#[test]
fn flags_parse_durations_and_sizes() {
    let cli = TransportOnly::try_parse_from([
        "x",
        "--idle-timeout=5m",
        "--stall-timeout",
        "2s",
        "--max-buffered-reply-mib=8",
        "--keepalive-interval=0",
    ])
    .expect("flags");
    let l = cli.transport.limits();
    assert_eq!(l.idle_timeout, Duration::from_secs(300));
    assert_eq!(l.stall_timeout, Duration::from_secs(2));
    assert_eq!(l.max_buffered_reply_bytes, 8 << 20);
    assert_eq!(l.keepalive(), None);
    assert!(TransportOnly::try_parse_from(["x", "--max-connections=0"]).is_err());
}
