//! `fbc-registry resolve DIR --request FILE`: what OLM v0 would install.
//!
//! In: a catalog directory and a request file (see
//! `fbc_catalog::resolve::request`). Out, on stdout: `{"operators":[…]}` and
//! exit 0; `{"error":"constraints not satisfiable: …","unsat_constraints":[…]}`
//! and exit 2; `{"error":…}` and exit 1 when OLM would stop before solving, the
//! request is malformed, or the catalog does not load. Text output says the
//! same for people.

use super::args::{LimitArgs, parse_duration};
use super::graph::args::{Output, SourceArgs};
use super::graph::source::{AskError, Source};
use fbc_catalog::resolve::{self, Limits, Outcome, request};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Largest request file read.
const MAX_REQUEST_BYTES: u64 = 16 << 20;

/// `resolve` arguments.
#[derive(Debug, clap::Args)]
pub struct ResolveArgs {
    /// The catalog root directory.
    pub dir: PathBuf,
    /// The request: a JSON file, or `-` for stdin.
    #[arg(long, value_name = "FILE")]
    pub request: PathBuf,
    /// Give up after this long (e.g. 10s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Parsing limits.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// Runs `resolve` (see the module docs).
pub fn run(a: &ResolveArgs) -> ExitCode {
    let request = match read_request(&a.request) {
        Ok(r) => r,
        Err(message) => return error(a.output, &message),
    };
    let source = SourceArgs {
        dir: Some(a.dir.clone()),
        addr: None,
        limits: a.limits.clone(),
    };
    let tables = match Source::open(&source) {
        Ok(Source::Offline(tables)) => tables,
        Ok(Source::Remote(_)) => return error(a.output, "resolve reads a directory"),
        Err(AskError::Invalid(errors)) => {
            let first = errors.first().map(ToString::to_string).unwrap_or_default();
            return error(
                a.output,
                &format!(
                    "the catalog does not validate ({} problems): {first}",
                    errors.len()
                ),
            );
        }
        Err(e) => return error(a.output, &e.to_string()),
    };
    let limits = Limits {
        deadline: Some(Instant::now() + a.timeout),
        ..Limits::default()
    };
    match resolve::resolve(&tables, &request, &limits) {
        Ok(Outcome::Resolved(operators)) => {
            let text = operators
                .iter()
                .map(|o| {
                    let replaces = if o.replaces.is_empty() {
                        String::new()
                    } else {
                        format!(", replacing {}", o.replaces)
                    };
                    let sub = o
                        .subscription
                        .as_deref()
                        .map(|s| format!(" (subscription {s})"))
                        .unwrap_or_default();
                    format!(
                        "install {} from {}/{}{replaces}{sub}",
                        o.name, o.package, o.channel
                    )
                })
                .collect::<Vec<_>>();
            // A struct, not `json!`, so the fields keep their documented order.
            #[derive(serde::Serialize)]
            struct Reply<'a> {
                operators: &'a [resolve::Operator],
            }
            let json = serde_json::to_string(&Reply {
                operators: &operators,
            })
            .unwrap_or_default();
            print(a.output, json, &text);
            ExitCode::SUCCESS
        }
        Ok(Outcome::Unsatisfiable { error, constraints }) => {
            let json =
                serde_json::json!({"error": error, "unsat_constraints": constraints}).to_string();
            let mut text = vec!["constraints not satisfiable:".to_owned()];
            text.extend(constraints.iter().map(|c| format!("  {c}")));
            print(a.output, json, &text);
            ExitCode::from(2)
        }
        Err(e) => error(a.output, &e.to_string()),
    }
}

fn read_request(path: &PathBuf) -> Result<request::Request, String> {
    let mut text = String::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .take(MAX_REQUEST_BYTES + 1)
            .read_to_string(&mut text)
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_REQUEST_BYTES + 1).read_to_string(&mut text))
    };
    read.map_err(|e| format!("{}: {e}", path.display()))?;
    if text.len() as u64 > MAX_REQUEST_BYTES {
        return Err(format!(
            "{}: larger than {MAX_REQUEST_BYTES} bytes",
            path.display()
        ));
    }
    request::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn print(output: Output, json: String, text: &[String]) {
    use std::io::Write;
    let out = match output {
        Output::Json => format!("{json}\n"),
        Output::Text => text.iter().map(|l| format!("{l}\n")).collect(),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
}

/// `{"error": message}` (or the message), exit 1.
fn error(output: Output, message: &str) -> ExitCode {
    match output {
        Output::Json => print(
            output,
            serde_json::json!({ "error": message }).to_string(),
            &[],
        ),
        Output::Text => eprintln!("error: {message}"),
    }
    ExitCode::FAILURE
}
