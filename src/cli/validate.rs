//! `fbc-registry validate CATALOG [--target olm-v1|console|ocp-4.Y]`: does the
//! catalog load as opm would load it — and, with a target, is it right for that
//! consumer?
//!
//! In: a directory or an image, the limits, an optional target. Out: `valid: …`
//! with the counts (or every problem, with file, document and line) and exit 0/1;
//! with a target, its lint findings ([`fbc_catalog::cluster::profile`]) are
//! printed, and a warning among them makes the catalog invalid for the target
//! (exit 1; info findings never fail). `-o json` says the same as one object.

use super::{Output, ValidateArgs};
use crate::snapshot::fetch;
use crate::snapshot::load;
use fbc_catalog::cluster::profile;
use fbc_catalog::diagnostic::Diagnostic;
use fbc_catalog::graph::lint::Severity;
use std::path::Path;
use std::process::ExitCode;

/// Runs `validate`.
pub fn run(args: &ValidateArgs) -> ExitCode {
    let target = match args
        .target
        .as_deref()
        .map(profile::Target::parse)
        .transpose()
    {
        Ok(target) => target,
        Err(e) => {
            eprintln!("validate: {e}");
            return ExitCode::FAILURE;
        }
    };
    let fetched = match fetch::fetch(&args.dir, &args.limits.fetch_options(None)) {
        Ok(fetched) => fetched,
        Err(e) => {
            match args.output {
                Output::Text => eprintln!("{}: invalid: {e}", args.dir.display()),
                Output::Json => println!(
                    "{}",
                    serde_json::json!({"valid": false, "errors": [], "error": e.to_string()})
                ),
            }
            return ExitCode::FAILURE;
        }
    };
    let options = args.limits.load_options();
    let missed = load::timeout_diagnostic(&fetched.dir, args.limits.load_timeout);
    let output = args.output;
    let dir = args.dir.clone();
    let watchdog =
        crate::snapshot::deadline::Watchdog::start(args.limits.load_timeout, move || {
            print_invalid(&dir, output, std::slice::from_ref(&missed));
            std::process::exit(1);
        });
    let result = load::load(&fetched.dir, &options);
    drop(watchdog);
    let image = fetched
        .image
        .as_ref()
        .map(|i| serde_json::json!({"reference": i.reference, "digest": i.digest.to_string()}));
    let findings = match (&result, &target) {
        (Ok(loaded), Some(target)) => match loaded.tables.get() {
            Ok(tables) => match profile::lint(tables, None, *target) {
                Ok(findings) => findings,
                Err(e) => {
                    eprintln!("{}: {e}", args.dir.display());
                    return ExitCode::FAILURE;
                }
            },
            Err(e) => {
                eprintln!(
                    "{}: the catalog's tables cannot be read: {e}",
                    args.dir.display()
                );
                return ExitCode::FAILURE;
            }
        },
        _ => Vec::new(),
    };
    let refused = findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    let for_target = args.target.as_deref().unwrap_or_default();
    match (result, args.output) {
        (Ok(loaded), Output::Text) => {
            let s = &loaded.report.stats;
            for w in &loaded.report.warnings {
                eprintln!("warning: {w}");
            }
            for f in &findings {
                println!("{f}");
            }
            let verdict = match (target.is_some(), refused) {
                (false, _) => "valid".to_owned(),
                (true, 0) => format!("valid for {for_target}"),
                (true, n) => format!("valid, but not for {for_target} ({n} warning(s))"),
            };
            println!(
                "{}: {verdict}: {} packages, {} channels, {} bundles ({} channel entries)",
                args.dir.display(),
                s.packages,
                s.channels,
                s.bundles,
                s.copies
            );
            if refused > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        (Ok(loaded), Output::Json) => {
            let report = &loaded.report;
            let s = &report.stats;
            println!(
                "{}",
                serde_json::json!({
                    "valid": refused == 0,
                    "digest": report.digest.to_string(),
                    "packages": s.packages,
                    "channels": s.channels,
                    "bundles": s.bundles,
                    "channelEntries": s.copies,
                    "warnings": report.warnings,
                    "errors": [],
                    "image": image,
                    "target": target.map(|_| serde_json::json!({
                        "name": for_target, "findings": findings, "warnings": refused,
                    })),
                })
            );
            if refused > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
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
