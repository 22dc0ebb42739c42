//! `fbc-registry resolve DIR|--addr HOST:PORT|--catalog NAME=DIR… --request FILE`:
//! what OLM v0 would install, from one catalog or several (the request's
//! `catalogs`, with their priorities).
//!
//! In: a catalog directory (or a server) and a request file (see
//! `fbc_catalog::resolve::request`; `-` for stdin). Out, on stdout:
//! `{"operators":[…]}` and exit 0; `{"error":"constraints not satisfiable:
//! …","unsat_constraints":[…]}` and exit 2; `{"error":…}` and exit 1 when OLM
//! would stop before solving, the request is malformed, the catalog does not
//! load or the server cannot be asked. Text output says the same for people.
//! `--explain` adds `"explanation"` (see `explain`).
//! Offline and `--addr` answers come from the same function, so they agree.

mod explain;

use super::graph::args::{Output, SourceArgs};
use super::graph::emit;
use super::graph::source::{AskError, Offline, Source, load_offline};
use super::values::parse_duration;
use crate::fbc_v1 as pb;
use crate::grpc::graph::resolve::request_from_json;
use fbc_catalog::tables::Tables;
use serde::Serialize;
use std::io::Read;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Largest request file read.
const MAX_REQUEST_BYTES: u64 = 16 << 20;

/// `resolve` arguments.
#[derive(Debug, clap::Args)]
pub struct ResolveArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Instead of CATALOG: a catalog of the request, read here (repeat the flag):
    /// NAME=SOURCE, NAME one of the request's catalogs; a catalog of the request
    /// given no source holds nothing.
    #[arg(long = "catalog", value_name = "NAME=SOURCE", group = "source")]
    pub catalogs: Vec<String>,
    /// The request: a JSON file, or `-` for stdin.
    #[arg(long, value_name = "FILE")]
    pub request: PathBuf,
    /// Give up after this long (e.g. 10s, 1m; a server caps it at 30s).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Also say why: for each operator, what needed it and which preferred
    /// candidates were passed over and why; when nothing fits, the smallest
    /// set of constraints that cannot hold together. OLM's words, then plain
    /// words.
    #[arg(long)]
    pub explain: bool,
}

/// One operator, its fields in the documented order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OperatorJson<'a> {
    name: &'a str,
    package: &'a str,
    channel: &'a str,
    replaces: &'a str,
    catalog: &'a str,
    catalog_namespace: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    subscription: Option<&'a str>,
}

#[derive(Serialize)]
struct Operators<'a> {
    operators: Vec<OperatorJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct Unsatisfiable<'a> {
    error: &'a str,
    unsat_constraints: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<serde_json::Value>,
}

/// Runs `resolve` (see the module docs).
pub fn run(a: &ResolveArgs) -> ExitCode {
    let request = match read_request(&a.request) {
        Ok(r) => pb::ResolveRequest {
            explain: a.explain,
            ..r
        },
        Err(message) => return error(a.output, &message),
    };
    let answered = if a.catalogs.is_empty() {
        Source::open(&a.source).and_then(|mut s| s.resolve(request, a.timeout))
    } else {
        several(a, request)
    };
    let reply = match answered {
        Ok(reply) => reply,
        Err(AskError::Invalid(problems)) => {
            problems.iter().for_each(|d| eprintln!("{d}"));
            let first = problems
                .first()
                .map(ToString::to_string)
                .unwrap_or_default();
            let message = format!(
                "the catalog does not validate ({} problems): {first}",
                problems.len()
            );
            return error(a.output, &message);
        }
        Err(e) => return error(a.output, &e.to_string()),
    };
    let explanation = reply.explanation.as_ref();
    let why = explanation.map(explain::text).unwrap_or_default();
    if !reply.error.is_empty() {
        let json = Unsatisfiable {
            error: &reply.error,
            unsat_constraints: &reply.unsat_constraints,
            explanation: explanation.map(explain::json),
        };
        let mut text = vec!["constraints not satisfiable:".to_owned()];
        text.extend(reply.unsat_constraints.iter().map(|c| format!("  {c}")));
        text.extend(why);
        print(
            a.output,
            serde_json::to_string(&json).unwrap_or_default(),
            &text,
        );
        return ExitCode::from(2);
    }
    let mut text: Vec<String> = reply.operators.iter().map(describe).collect();
    text.extend(why);
    let json = Operators {
        operators: reply.operators.iter().map(operator_json).collect(),
        explanation: explanation.map(explain::json),
    };
    print(
        a.output,
        serde_json::to_string(&json).unwrap_or_default(),
        &text,
    );
    ExitCode::SUCCESS
}

/// Resolves against the catalogs `--catalog` names, read here.
fn several(a: &ResolveArgs, request: pb::ResolveRequest) -> Result<pb::ResolveResponse, AskError> {
    let names = crate::grpc::graph::resolve::catalog_names(&request);
    let mut given: Vec<(String, Offline)> = Vec::new();
    for flag in &a.catalogs {
        let Some((name, source)) = flag.split_once('=') else {
            return Err(AskError::Status(tonic::Status::invalid_argument(format!(
                "--catalog {flag}: write NAME=SOURCE"
            ))));
        };
        if !names.iter().any(|n| n == name) || given.iter().any(|(n, _)| n == name) {
            return Err(AskError::Status(tonic::Status::invalid_argument(format!(
                "--catalog {flag}: the request's catalogs are [{}], each given once",
                names.join(" ")
            ))));
        }
        let offline = load_offline(Path::new(source), &a.source.limits, a.source.strict, None)?;
        given.push((name.to_string(), offline));
    }
    let empty = Tables::empty();
    let catalogs: Vec<&Tables> = names
        .iter()
        .map(|n| {
            given
                .iter()
                .find(|(g, _)| g == n)
                .map_or(&empty, |(_, o)| &**o)
        })
        .collect();
    let deadline = std::time::Instant::now() + a.timeout;
    Ok(crate::grpc::graph::resolve::resolve(
        &catalogs, &request, deadline,
    )?)
}

fn operator_json(o: &pb::Operator) -> OperatorJson<'_> {
    OperatorJson {
        name: &o.name,
        package: &o.package,
        channel: &o.channel,
        replaces: &o.replaces,
        catalog: &o.catalog,
        catalog_namespace: &o.catalog_namespace,
        subscription: o.subscription.as_deref(),
    }
}

fn describe(o: &pb::Operator) -> String {
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
}

fn read_request(path: &PathBuf) -> Result<pb::ResolveRequest, String> {
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
    request_from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn print(output: Output, json: String, text: &[String]) {
    emit(&match output {
        Output::Json => format!("{json}\n"),
        Output::Text => text.iter().map(|l| format!("{l}\n")).collect(),
    });
}

/// `{"error": message}` (or the message on stderr), exit 1.
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
