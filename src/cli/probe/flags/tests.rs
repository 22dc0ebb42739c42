use super::*;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn probe(line: &str) -> ProbeOptions {
    match parse(&args(line)) {
        Ok(Parsed::Probe(options)) => *options,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn reads_gos_flag_syntax() {
    let o = probe("-addr=:50051 --service Registry -connect-timeout 2s -rpc-timeout=1500ms -v");
    assert_eq!(o.addr, ":50051");
    assert_eq!(o.service, "Registry");
    assert_eq!(o.connect_timeout, Duration::from_secs(2));
    assert_eq!(o.rpc_timeout, Duration::from_millis(1500));
    assert!(o.verbose);
    assert_eq!(o.user_agent, "grpc_health_probe");
    assert_eq!(o.tls, None);
}

#[test]
fn the_last_value_wins_and_headers_collect() {
    let o = probe("-addr a:1 -addr b:2 -rpc-header X-A:1 -rpc-header x-b: two -v=false");
    assert_eq!(o.addr, "b:2");
    assert_eq!(
        o.headers,
        vec![("x-a".into(), "1".into()), ("x-b".into(), "".into())]
    );
    assert!(!o.verbose);
}

#[test]
fn parsing_stops_at_the_first_argument() {
    let o = probe("-addr a:1 extra -service ignored");
    assert_eq!(o.service, "");
}

#[test]
fn bad_arguments_say_what_grpc_health_probe_says() {
    for (line, message) in [
        ("", "-addr not specified"),
        (
            "-addr a:1 -connect-timeout 0",
            "-connect-timeout must be greater than zero",
        ),
        (
            "-addr a:1 -rpc-timeout 0s",
            "-rpc-timeout must be greater than zero",
        ),
        (
            "-addr a:1 -tls-no-verify",
            "specified -tls-no-verify without specifying -tls",
        ),
        (
            "-addr a:1 -tls -tls-client-cert c",
            "specified -tls-client-cert without specifying -tls-client-key",
        ),
        (
            "-addr a:1 -tls -tls-no-verify -tls-ca-cert x",
            "cannot specify -tls-ca-cert with -tls-no-verify (CA cert would not be used)",
        ),
        ("-addr a:1 -nope", "flag provided but not defined: -nope"),
        ("-addr", "flag needs an argument: -addr"),
        (
            "-addr a:1 -rpc-timeout soon",
            "invalid value \"soon\" for flag -rpc-timeout: parse error",
        ),
        (
            "-addr a:1 -tls=maybe",
            "invalid boolean value \"maybe\" for -tls: parse error",
        ),
        (
            "-addr a:1 -rpc-header novalue",
            "-rpc-header \"novalue\": use key:value",
        ),
        ("---addr a:1", "bad flag syntax: ---addr"),
    ] {
        assert_eq!(parse(&args(line)), Err(message.to_string()), "{line}");
    }
}

#[test]
fn help_and_version() {
    assert_eq!(parse(&args("-h")), Ok(Parsed::Help));
    assert_eq!(parse(&args("--help")), Ok(Parsed::Help));
    assert_eq!(parse(&args("-version")), Ok(Parsed::Version));
}

#[test]
fn go_durations() {
    for (text, want) in [
        ("1s", Some(1_000)),
        ("1.5s", Some(1_500)),
        ("300ms", Some(300)),
        ("1m30s", Some(90_000)),
        ("0", Some(0)),
        ("5", None),
        ("-1s", None),
        ("1x", None),
        ("", None),
    ] {
        assert_eq!(
            go_duration(text).map(|d| d.as_millis() as u64),
            want,
            "{text}"
        );
    }
}
