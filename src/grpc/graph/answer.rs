//! The graph questions, answered from a catalog's tables: one function per
//! `fbc.v1.Graph` RPC, shared by the server and the offline CLI.
//!
//! In: [`Tables`] and a decoded request. Out: the reply message (without its
//! [`crate::fbc_v1::SnapshotInfo`], which the caller adds), or a status with a
//! real code: INVALID_ARGUMENT for malformed fields, ranges and versions;
//! NOT_FOUND for an unknown package, channel or bundle, naming the nearest.

use crate::fbc_v1 as pb;
use crate::views::graph::convert;
use fbc_catalog::cluster::profile;
use fbc_catalog::graph::GraphError;
use fbc_catalog::graph::export::{self, PackageGraph};
use fbc_catalog::graph::lint;
use fbc_catalog::graph::successors::{self as v1, Installed, Policy, ReleaseMode, SuccessorQuery};
use fbc_catalog::graph::upgrade_path::{self as path, PathQuery, Semantics};
use fbc_catalog::tables::Tables;
use fbc_catalog::version_range::check::{self as range, Grammar};
use prost::Message;
use tonic::Status;

/// Longest name, version or range accepted in a request.
pub const MAX_FIELD_LEN: usize = 4096;
/// Most versions one `CheckRange` may ask about, and most channels one question may name.
pub const MAX_LIST_LEN: usize = 1000;
/// Replies stay under gRPC's default 4 MiB message limit, with room to spare.
pub const MAX_REPLY_BYTES: usize = 3 * 1024 * 1024;

/// The status for a graph error.
pub fn status(e: GraphError) -> Status {
    match e {
        GraphError::UnknownPackage { .. }
        | GraphError::UnknownChannel { .. }
        | GraphError::UnknownBundle { .. } => Status::not_found(e.to_string()),
        GraphError::InvalidArgument(message) => Status::invalid_argument(message),
        GraphError::AmbiguousVersion { .. } => Status::invalid_argument(e.to_string()),
        GraphError::TooLarge { .. } => Status::resource_exhausted(e.to_string()),
    }
}

fn check_field(name: &str, value: &str) -> Result<(), Status> {
    if value.len() > MAX_FIELD_LEN {
        return Err(Status::invalid_argument(format!(
            "{name} is {} bytes long; at most {MAX_FIELD_LEN} are accepted",
            value.len()
        )));
    }
    Ok(())
}

fn check_list(name: &str, values: &[String]) -> Result<(), Status> {
    if values.len() > MAX_LIST_LEN {
        return Err(Status::invalid_argument(format!(
            "{name} has {} items; at most {MAX_LIST_LEN} are accepted",
            values.len()
        )));
    }
    values.iter().try_for_each(|v| check_field(name, v))
}

fn enum_value<T: TryFrom<i32>>(name: &str, value: i32) -> Result<T, Status> {
    T::try_from(value)
        .map_err(|_| Status::invalid_argument(format!("{name} {value} is not a known value")))
}

/// `CheckRange`. A range that does not parse is an answer (`parse_error`).
pub fn check_range(r: &pb::CheckRangeRequest) -> Result<pb::CheckRangeResponse, Status> {
    check_field("range", &r.range)?;
    check_list("versions", &r.versions)?;
    let grammar = match enum_value::<pb::Grammar>("grammar", r.grammar)? {
        pb::Grammar::Blang => Grammar::Blang,
        pb::Grammar::Masterminds => Grammar::Masterminds,
        pb::Grammar::Unspecified => {
            return Err(Status::invalid_argument(
                "grammar must be BLANG or MASTERMINDS",
            ));
        }
    };
    Ok(match range::check(grammar, &r.range, &r.versions) {
        Ok(answer) => convert::range_check(answer),
        Err(parse_error) => pb::CheckRangeResponse {
            parse_error,
            ..pb::CheckRangeResponse::default()
        },
    })
}

/// `GetSuccessors`. An installed bundle given by name only takes its version
/// (and, in EXPLICIT mode, its release) from the catalog; one given by version
/// only is found by that version (the library's `graph::installed`).
pub fn successors(
    tables: &Tables,
    r: &pb::GetSuccessorsRequest,
) -> Result<pb::GetSuccessorsResponse, Status> {
    check_field("package", &r.package)?;
    check_field("version_range", &r.version_range)?;
    check_list("channels", &r.channels)?;
    let release_mode = match enum_value::<pb::ReleaseMode>("release_mode", r.release_mode)? {
        pb::ReleaseMode::Legacy => ReleaseMode::Legacy,
        pb::ReleaseMode::Explicit => ReleaseMode::Explicit,
    };
    let policy = match enum_value::<pb::Policy>("policy", r.policy)? {
        pb::Policy::CatalogProvided => Policy::CatalogProvided,
        pb::Policy::SelfCertified => Policy::SelfCertified,
    };
    let installed = match &r.installed {
        Some(i) => Some(installed(tables, &r.package, i, release_mode)?),
        None => None,
    };
    let q = SuccessorQuery {
        package: r.package.clone(),
        installed,
        version_range: Some(r.version_range.clone()).filter(|v| !v.is_empty()),
        channels: r.channels.clone(),
        policy,
        release_mode,
        explain: r.explain,
    };
    let answer = v1::successors(tables, &q).map_err(status)?;
    let package = tables.package(&r.package).map(|(_, p)| p);
    let image = |name: &str| {
        package
            .and_then(|p| p.bundle(name))
            .map(|b| b.image.clone())
            .unwrap_or_default()
    };
    Ok(convert::successors(answer, image))
}

/// The installed bundle of a request, its version filled in from the catalog
/// when the request names it only.
fn installed(
    tables: &Tables,
    package: &str,
    i: &pb::InstalledBundle,
    mode: ReleaseMode,
) -> Result<Installed, Status> {
    check_field("installed.name", &i.name)?;
    check_field("installed.version", &i.version)?;
    if !i.version.is_empty() {
        return Ok(Installed {
            name: i.name.clone(),
            version: i.version.clone(),
            release: i.release.clone(),
        });
    }
    let (_, p) = fbc_catalog::graph::find_package(tables, package).map_err(status)?;
    let Some(b) = p.bundle(&i.name) else {
        return Err(status(GraphError::UnknownBundle {
            package: p.name.clone(),
            name: i.name.clone(),
            near: fbc_catalog::graph::near_names(
                &i.name,
                p.bundles.iter().map(|b| b.name.as_str()),
            ),
        }));
    };
    Ok(Installed {
        name: b.name.clone(),
        version: b.version_text.clone(),
        release: if mode == ReleaseMode::Explicit {
            b.release.clone()
        } else {
            None
        },
    })
}

/// `GetUpgradePath`.
pub fn upgrade_path(
    tables: &Tables,
    r: &pb::GetUpgradePathRequest,
) -> Result<pb::GetUpgradePathResponse, Status> {
    for (name, value) in [
        ("package", &r.package),
        ("channel", &r.channel),
        ("to", &r.to),
    ] {
        check_field(name, value)?;
    }
    let from = r
        .from
        .as_ref()
        .filter(|f| !f.name.is_empty() || !f.version.is_empty())
        .ok_or_else(|| Status::invalid_argument("from.name or from.version must be set"))?;
    check_field("from.name", &from.name)?;
    check_field("from.version", &from.version)?;
    let semantics = match enum_value::<pb::Semantics>("semantics", r.semantics)? {
        pb::Semantics::OlmV0 => Semantics::V0,
        pb::Semantics::OlmV1 => Semantics::V1,
    };
    let q = PathQuery {
        package: r.package.clone(),
        channel: r.channel.clone(),
        from: from.name.clone(),
        from_version: Some(from.version.clone()).filter(|v| !v.is_empty()),
        to: Some(r.to.clone()).filter(|t| !t.is_empty()),
        semantics,
        max_steps: r.max_steps as usize,
    };
    path::upgrade_path(tables, &q)
        .map(convert::upgrade_path)
        .map_err(status)
}

/// The packages `ExportGraph` streams: one, or all (by name).
pub fn export_packages(tables: &Tables, package: &str) -> Result<Vec<u32>, Status> {
    check_field("package", package)?;
    if package.is_empty() {
        return Ok((0..tables.packages().len() as u32).collect());
    }
    let (i, _) = fbc_catalog::graph::find_package(tables, package).map_err(status)?;
    Ok(vec![i])
}

/// The format an `ExportGraph` request asks for.
pub fn export_format(format: i32) -> Result<pb::Format, Status> {
    enum_value("format", format)
}

/// One `ExportGraph` message: package `index`'s graph, rendered as asked;
/// RESOURCE_EXHAUSTED for a graph over [`export::MAX_GRAPH_EDGES`].
pub fn export_one(
    tables: &Tables,
    index: u32,
    format: pb::Format,
) -> Result<pb::ExportGraphResponse, Status> {
    let name = &tables
        .packages()
        .get(index as usize)
        .ok_or_else(|| Status::internal(format!("no package at index {index}")))?
        .name;
    let graph: PackageGraph = export::package_graph(tables, name).map_err(status)?;
    let rendered = match format {
        pb::Format::Json => String::new(),
        pb::Format::Dot => export::to_dot(std::slice::from_ref(&graph)),
        pb::Format::Mermaid => export::to_mermaid(std::slice::from_ref(&graph)),
    };
    Ok(pb::ExportGraphResponse {
        snapshot: None,
        graph: Some(convert::package_graph(graph)),
        rendered,
    })
}

/// `Lint`, cut to [`MAX_REPLY_BYTES`] (then `truncated`).
pub fn lint(tables: &Tables, r: &pb::LintRequest) -> Result<pb::LintResponse, Status> {
    check_field("package", &r.package)?;
    let package = Some(r.package.as_str()).filter(|p| !p.is_empty());
    let findings = match r.target.as_str() {
        "" => lint::lint(tables, package),
        text => {
            let target = profile::Target::parse(text).map_err(Status::invalid_argument)?;
            profile::lint(tables, package, target)
        }
    }
    .map_err(status)?;
    let mut reply = pb::LintResponse {
        readiness: match r.target.as_str() {
            "olm-v1" => Some(convert::readiness_summary(
                &fbc_catalog::cluster::readiness::catalog(tables, package).map_err(status)?,
            )),
            _ => None,
        },
        ..pb::LintResponse::default()
    };
    let mut size = 0;
    for f in findings {
        let finding = convert::lint_finding(f);
        size += finding.encoded_len() + 4;
        if size > MAX_REPLY_BYTES {
            reply.truncated = true;
            break;
        }
        reply.findings.push(finding);
    }
    Ok(reply)
}
