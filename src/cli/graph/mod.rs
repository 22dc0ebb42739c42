//! The graph commands: `range check`, `successors`, `upgrade-path`, `graph`, `lint`.
//!
//! In: their arguments. Out: the answer on stdout (text or JSON) and an exit
//! code: 0 for an answer; 2 for a negative one (no successor, a STUCK path,
//! warnings under `--deny-warnings`); 1 for errors (a catalog that does not
//! validate, an unknown name, a server that cannot be reached).

pub(crate) mod args;
pub(crate) mod source;

use crate::views::graph::json;

use crate::fbc_v1 as pb;
use crate::grpc::graph::answer;
use crate::views::graph::convert;
use args::{
    GrammarArg, GraphArgs, GraphFormat, LintArgs, Output, PolicyArg, RangeCheckArgs,
    ReleaseModeArg, SemanticsArg, SuccessorsArgs, UpgradePathArgs,
};
use fbc_catalog::graph::export;
use source::{AskError, Source};
use std::process::ExitCode;

const NEGATIVE: u8 = 2;

/// Writes `text` to stdout; a reader that went away (`| head`) ends the output
/// quietly instead of a panic.
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn print(output: Output, json: serde_json::Value, text: Vec<String>) {
    match output {
        Output::Json => emit(&format!("{json}\n")),
        Output::Text => emit(&text.iter().map(|l| format!("{l}\n")).collect::<String>()),
    }
}

/// Reports why there is no answer; exit 1.
pub(crate) fn failed(e: AskError, output: Output) -> ExitCode {
    match e {
        AskError::Invalid(errors) => {
            match output {
                Output::Json => emit(&format!(
                    "{}\n",
                    serde_json::json!({ "valid": false, "errors": errors })
                )),
                Output::Text => {
                    let mut text = String::new();
                    for d in &errors {
                        text.push_str(&format!("{d}\n"));
                        if let Some(hint) = &d.hint {
                            text.push_str(&format!("  hint: {hint}\n"));
                        }
                    }
                    emit(&text);
                }
            }
            eprintln!("the catalog does not validate: {} error(s)", errors.len());
        }
        other => eprintln!("error: {other}"),
    }
    ExitCode::FAILURE
}

/// `range check`.
pub fn range_check(a: &RangeCheckArgs) -> ExitCode {
    let grammar = match a.grammar {
        GrammarArg::Blang => pb::Grammar::Blang,
        GrammarArg::Masterminds => pb::Grammar::Masterminds,
    };
    let request = pb::CheckRangeRequest {
        grammar: grammar as i32,
        range: a.range.clone(),
        versions: a.versions.clone(),
    };
    match answer::check_range(&request) {
        Ok(reply) => {
            print(a.output, json::range_json(&reply), json::range_text(&reply));
            if reply.parse_error.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(status) => failed(AskError::Status(status), a.output),
    }
}

/// `successors`.
pub fn successors(a: &SuccessorsArgs) -> ExitCode {
    let request = pb::GetSuccessorsRequest {
        catalog: a.source.catalog.clone().unwrap_or_default(),
        package: a.package.clone(),
        installed: (a.installed.is_some() || a.installed_version.is_some()).then(|| {
            pb::InstalledBundle {
                name: a.installed.clone().unwrap_or_default(),
                version: a.installed_version.clone().unwrap_or_default(),
                release: None,
            }
        }),
        version_range: a.version_range.clone().unwrap_or_default(),
        channels: a.channels.clone(),
        policy: match a.policy {
            PolicyArg::Catalog => pb::Policy::CatalogProvided,
            PolicyArg::SelfCertified => pb::Policy::SelfCertified,
        } as i32,
        release_mode: match a.release_mode {
            ReleaseModeArg::Legacy => pb::ReleaseMode::Legacy,
            ReleaseModeArg::Explicit => pb::ReleaseMode::Explicit,
        } as i32,
        explain: a.explain,
        snapshot_digest: String::new(),
    };
    let reply = match Source::open(&a.source).and_then(|mut s| s.successors(request)) {
        Ok(reply) => reply,
        Err(e) => return failed(e, a.output),
    };
    print(
        a.output,
        json::successors_json(&reply),
        json::successors_text(&reply),
    );
    if reply.selected.is_empty() {
        ExitCode::from(NEGATIVE)
    } else {
        ExitCode::SUCCESS
    }
}

/// `upgrade-path`.
pub fn upgrade_path(a: &UpgradePathArgs) -> ExitCode {
    let request = pb::GetUpgradePathRequest {
        catalog: a.source.catalog.clone().unwrap_or_default(),
        package: a.package.clone(),
        channel: a.channel.clone().unwrap_or_default(),
        from: Some(pb::InstalledBundle {
            name: a.from.clone().unwrap_or_default(),
            version: a.from_version.clone().unwrap_or_default(),
            release: None,
        }),
        to: a.to.clone().unwrap_or_default(),
        semantics: match a.semantics {
            SemanticsArg::V0 => pb::Semantics::OlmV0,
            SemanticsArg::V1 => pb::Semantics::OlmV1,
        } as i32,
        max_steps: a.max_steps,
        snapshot_digest: String::new(),
    };
    let reply = match Source::open(&a.source).and_then(|mut s| s.upgrade_path(request)) {
        Ok(reply) => reply,
        Err(e) => return failed(e, a.output),
    };
    print(a.output, json::path_json(&reply), json::path_text(&reply));
    if reply.outcome == pb::Outcome::Stuck as i32 {
        ExitCode::from(NEGATIVE)
    } else {
        ExitCode::SUCCESS
    }
}

/// `graph`: every package's graph in one JSON object, DOT digraph or Mermaid
/// flowchart, rendered here from the structured graphs (offline or a server's).
pub fn graph(a: &GraphArgs) -> ExitCode {
    let request = pb::ExportGraphRequest {
        catalog: a.source.catalog.clone().unwrap_or_default(),
        package: a.package.clone().unwrap_or_default(),
        format: pb::Format::Json as i32,
        snapshot_digest: String::new(),
    };
    let replies = match Source::open(&a.source).and_then(|mut s| s.export(request)) {
        Ok(replies) => replies,
        Err(e) => return failed(e, Output::Text),
    };
    let graphs: Vec<export::PackageGraph> = replies
        .into_iter()
        .filter_map(|r| r.graph)
        .map(convert::package_graph_back)
        .collect();
    match a.format {
        GraphFormat::Json => emit(&format!("{}\n", serde_json::json!({ "packages": graphs }))),
        GraphFormat::Dot => emit(&export::to_dot(&graphs)),
        GraphFormat::Mermaid => emit(&export::to_mermaid(&graphs)),
    }
    ExitCode::SUCCESS
}

/// `lint`.
pub fn lint(a: &LintArgs) -> ExitCode {
    let request = pb::LintRequest {
        catalog: a.source.catalog.clone().unwrap_or_default(),
        package: a.package.clone().unwrap_or_default(),
        snapshot_digest: String::new(),
        target: a.target.clone().unwrap_or_default(),
    };
    let reply = match Source::open(&a.source).and_then(|mut s| s.lint(request)) {
        Ok(reply) => reply,
        Err(e) => return failed(e, a.output),
    };
    let text = reply.findings.iter().map(json::finding_text).collect();
    print(a.output, json::lint_json(&reply), text);
    let (warnings, info) = json::counts(&reply);
    eprintln!("{warnings} warning(s), {info} info");
    if let Some(ready) = &reply.readiness {
        eprintln!("{}", json::readiness_text(ready));
    }
    if a.deny_warnings && warnings > 0 {
        return ExitCode::from(NEGATIVE);
    }
    ExitCode::SUCCESS
}
