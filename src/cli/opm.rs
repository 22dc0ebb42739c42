//! The binary answering to the name `opm`, as OLM's catalog pods call it.
//!
//! In: argv when the program's file name is `opm` (a link, as `grpc_health_probe` is).
//! Out: `opm serve` and `opm validate` run as ours — `serve` takes `opm serve`'s command
//! line as it is, including OLM's `extractContent` pods (`/bin/opm serve
//! /extracted-catalog/catalog --cache-dir=/extracted-catalog/cache`) and the images `opm
//! generate dockerfile` writes (`/bin/opm serve /configs --cache-dir=/tmp/cache`, and
//! `--cache-only` at build time); every other subcommand says it is not provided and
//! exits 1, so a script never mistakes this binary for the whole of opm.

use super::{Cli, Command};
use clap::Parser;
use std::ffi::OsString;

/// The subcommands answered as opm answers them.
const PROVIDED: [&str; 2] = ["serve", "validate"];

/// Whether the program was started under the name `opm`.
pub fn called_as_opm(argv0: &std::ffi::OsStr) -> bool {
    std::path::Path::new(argv0)
        .file_name()
        .is_some_and(|name| name == "opm")
}

/// What to run for `opm ARGS` (`args` without the program name).
pub(super) enum Answer {
    /// One of ours, with its arguments.
    Run(Box<Cli>),
    /// Text for stdout, exit 0 (`opm`, `opm --help`).
    Help(String),
    /// Text for stderr, exit 1.
    Refused(String),
}

/// Reads `opm ARGS` as ours would be read.
pub(super) fn answer(args: &[OsString]) -> Answer {
    let Some(first) = args.first().map(|a| a.to_string_lossy().into_owned()) else {
        return Answer::Help(usage());
    };
    match first.as_str() {
        "-h" | "--help" | "help" => Answer::Help(usage()),
        sub if PROVIDED.contains(&sub) => {
            let argv = std::iter::once(OsString::from("fbc-registry")).chain(args.iter().cloned());
            match Cli::try_parse_from(argv) {
                Ok(cli) => Answer::Run(Box::new(cli)),
                Err(e)
                    if matches!(
                        e.kind(),
                        clap::error::ErrorKind::DisplayHelp
                            | clap::error::ErrorKind::DisplayVersion
                    ) =>
                {
                    Answer::Help(e.to_string())
                }
                Err(e) => Answer::Refused(format!("opm {sub}: {e}")),
            }
        }
        other => Answer::Refused(format!(
            "opm {other}: not provided by fbc-registry, which answers only `opm serve` and `opm validate`; use opm itself for {other}\n"
        )),
    }
}

/// `opm --help`.
fn usage() -> String {
    format!(
        "fbc-registry {}, answering as opm: `opm serve DIR` (opm serve's flags) and `opm validate DIR`.\n\
         Other opm subcommands are not provided; run fbc-registry --help for everything this binary does.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Whether a parsed command is one `opm` may run (a safety net over [`answer`]).
pub(super) fn allowed(command: &Command) -> bool {
    matches!(command, Command::Serve(_) | Command::Validate(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn olm_s_pod_command_lines_are_served() {
        for line in [
            "serve /extracted-catalog/catalog --cache-dir=/extracted-catalog/cache",
            "serve /configs --cache-dir=/tmp/cache",
            "serve /configs --cache-dir=/tmp/cache --cache-only",
            "serve /configs -p 50052 --termination-log=/tmp/log --cache-enforce-integrity=true",
        ] {
            match answer(&args(line)) {
                Answer::Run(cli) => match cli.command {
                    Command::Serve(serve) => assert!(serve.dir.is_some(), "{line}"),
                    _ => panic!("{line}: not serve"),
                },
                _ => panic!("{line}: not run"),
            }
        }
        match answer(&args("serve /configs --cache-dir=/tmp/cache --cache-only")) {
            Answer::Run(cli) => match cli.command {
                Command::Serve(serve) => {
                    assert!(serve.cache_only);
                    assert_eq!(serve.cache_dir, "/tmp/cache");
                }
                _ => panic!("not serve"),
            },
            _ => panic!("not run"),
        }
    }

    #[test]
    fn validate_maps_to_ours_and_the_rest_is_refused_by_name() {
        assert!(matches!(answer(&args("validate /configs")), Answer::Run(_)));
        for sub in [
            "render", "generate", "index", "alpha", "migrate", "version", "registry",
        ] {
            match answer(&args(&format!("{sub} x"))) {
                Answer::Refused(text) => {
                    assert!(text.contains(&format!("opm {sub}: not provided")), "{text}")
                }
                _ => panic!("{sub} was not refused"),
            }
        }
        assert!(matches!(answer(&[]), Answer::Help(_)));
        assert!(matches!(answer(&args("--help")), Answer::Help(_)));
        assert!(matches!(
            answer(&args("serve --no-such-flag /configs")),
            Answer::Refused(_)
        ));
    }

    #[test]
    fn only_the_name_opm_is_opm() {
        assert!(called_as_opm(std::ffi::OsStr::new("/bin/opm")));
        assert!(called_as_opm(std::ffi::OsStr::new("opm")));
        assert!(!called_as_opm(std::ffi::OsStr::new("/bin/fbc-registry")));
        assert!(!called_as_opm(std::ffi::OsStr::new("opm-serve")));
    }
}
