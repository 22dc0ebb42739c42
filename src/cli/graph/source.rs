//! Where a graph command gets its answers: a catalog read here (a directory, an OCI layout or
//! a registry image, through [`crate::snapshot::fetch`]), or a running server asked over gRPC.
//!
//! In: [`SourceArgs`]. Out: a [`Source`] whose methods take `fbc.v1` requests and
//! return `fbc.v1` replies. Offline, the same functions the server runs
//! ([`crate::grpc::graph::answer`]) answer from the directory's tables, so the
//! two ways agree by construction.

use super::args::SourceArgs;
use crate::fbc_v1 as pb;
use crate::fbc_v1::graph_client::GraphClient;
use crate::grpc::graph::answer;
use crate::snapshot::load;
use fbc_catalog::diagnostic::Diagnostic;
use fbc_catalog::model::ChainRule;
use fbc_catalog::tables::Tables;
use tonic::Status;
use tonic::transport::Channel;

/// Why a command got no answer.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// The directory is not a valid catalog.
    #[error("the catalog does not validate ({} problems)", .0.len())]
    Invalid(Vec<Diagnostic>),
    /// The catalog image could not be fetched.
    #[error("{0}")]
    Fetch(Box<crate::snapshot::fetch::FetchError>),
    /// The server could not be reached.
    #[error("cannot reach {addr}: {message}")]
    Connect {
        /// The address asked.
        addr: String,
        /// What went wrong.
        message: String,
    },
    /// The question has no answer: an unknown name, a malformed field.
    #[error("{}", .0.message())]
    Status(#[from] Status),
}

impl From<crate::snapshot::fetch::FetchError> for AskError {
    fn from(e: crate::snapshot::fetch::FetchError) -> Self {
        AskError::Fetch(Box::new(e))
    }
}

/// A catalog to ask.
pub enum Source {
    /// A catalog loaded here.
    Offline(Box<Offline>),
    /// A server.
    Remote(Box<Remote>),
}

/// A catalog loaded here, and the unpacked image it came from (kept while it is asked).
pub struct Offline {
    tables: Tables,
    _fetched: crate::snapshot::fetch::Fetched,
    /// The filtered catalog's own files, when it was loaded through a filter.
    _filtered: Option<crate::snapshot::load::FilteredSource>,
}

impl std::ops::Deref for Offline {
    type Target = Tables;
    fn deref(&self) -> &Tables {
        &self.tables
    }
}

/// A connection to a server.
pub struct Remote {
    /// Runs the client's calls.
    runtime: tokio::runtime::Runtime,
    /// The `fbc.v1.Graph` client.
    client: GraphClient<Channel>,
}

impl Source {
    /// Opens the directory or connects to the server the arguments name.
    pub fn open(args: &SourceArgs) -> Result<Source, AskError> {
        match (&args.dir, &args.addr) {
            (_, Some(addr)) => connect(addr),
            (Some(dir), None) => load(dir, &args.limits, args.strict),
            (None, None) => Err(AskError::Status(Status::invalid_argument(
                "give a catalog directory or --addr",
            ))),
        }
    }

    /// `GetSuccessors`.
    pub fn successors(
        &mut self,
        r: pb::GetSuccessorsRequest,
    ) -> Result<pb::GetSuccessorsResponse, AskError> {
        match self {
            Source::Offline(t) => Ok(answer::successors(t, &r)?),
            Source::Remote(remote) => {
                let Remote { runtime, client } = &mut **remote;
                Ok(runtime.block_on(client.get_successors(r))?.into_inner())
            }
        }
    }

    /// `GetUpgradePath`.
    pub fn upgrade_path(
        &mut self,
        r: pb::GetUpgradePathRequest,
    ) -> Result<pb::GetUpgradePathResponse, AskError> {
        match self {
            Source::Offline(t) => Ok(answer::upgrade_path(t, &r)?),
            Source::Remote(remote) => {
                let Remote { runtime, client } = &mut **remote;
                Ok(runtime.block_on(client.get_upgrade_path(r))?.into_inner())
            }
        }
    }

    /// `ExportGraph`, every message of the stream.
    pub fn export(
        &mut self,
        r: pb::ExportGraphRequest,
    ) -> Result<Vec<pb::ExportGraphResponse>, AskError> {
        match self {
            Source::Offline(t) => {
                let format = answer::export_format(r.format)?;
                let packages = answer::export_packages(t, &r.package)?;
                Ok(packages
                    .into_iter()
                    .map(|i| answer::export_one(t, i, format))
                    .collect::<Result<_, _>>()?)
            }
            Source::Remote(remote) => {
                let Remote { runtime, client } = &mut **remote;
                runtime.block_on(async {
                    let mut stream = client.export_graph(r).await?.into_inner();
                    let mut out = Vec::new();
                    while let Some(message) = stream.message().await? {
                        out.push(message);
                    }
                    Ok(out)
                })
            }
        }
    }

    /// `Resolve`, giving up after `timeout`.
    pub fn resolve(
        &mut self,
        r: pb::ResolveRequest,
        timeout: std::time::Duration,
    ) -> Result<pb::ResolveResponse, AskError> {
        match self {
            Source::Offline(t) => Ok(crate::grpc::graph::resolve::resolve(
                &[&t.tables],
                &r,
                std::time::Instant::now() + timeout,
            )?),
            Source::Remote(remote) => {
                let Remote { runtime, client } = &mut **remote;
                let mut request = tonic::Request::new(r);
                request.set_timeout(timeout);
                Ok(runtime.block_on(client.resolve(request))?.into_inner())
            }
        }
    }

    /// `ExplainUpgrade`, giving up after `timeout`; offline, the cluster state is
    /// read with `limits`.
    pub fn explain_upgrade(
        &mut self,
        r: pb::ExplainUpgradeRequest,
        limits: &fbc_catalog::source::ParseLimits,
        timeout: std::time::Duration,
    ) -> Result<pb::ExplainUpgradeResponse, AskError> {
        match self {
            Source::Offline(t) => Ok(crate::grpc::graph::cluster::explain_upgrade(
                t,
                &r,
                limits,
                Some(std::time::Instant::now() + timeout),
            )?),
            Source::Remote(remote) => {
                let Remote { runtime, client } = &mut **remote;
                let mut request = tonic::Request::new(r);
                request.set_timeout(timeout);
                Ok(runtime
                    .block_on(client.explain_upgrade(request))?
                    .into_inner())
            }
        }
    }

    /// `CheckClusterUpgrade`; offline, the cluster state is read with `limits`.
    pub fn check_cluster_upgrade(
        &mut self,
        r: pb::CheckClusterUpgradeRequest,
        limits: &fbc_catalog::source::ParseLimits,
    ) -> Result<pb::CheckClusterUpgradeResponse, AskError> {
        match self {
            Source::Offline(t) => Ok(crate::grpc::graph::cluster::check_cluster_upgrade(
                t, &r, limits,
            )?),
            Source::Remote(remote) => {
                let Remote { runtime, client } = &mut **remote;
                Ok(runtime
                    .block_on(client.check_cluster_upgrade(r))?
                    .into_inner())
            }
        }
    }

    /// `Lint`.
    pub fn lint(&mut self, r: pb::LintRequest) -> Result<pb::LintResponse, AskError> {
        match self {
            Source::Offline(t) => Ok(answer::lint(t, &r)?),
            Source::Remote(remote) => {
                let Remote { runtime, client } = &mut **remote;
                Ok(runtime.block_on(client.lint(r))?.into_inner())
            }
        }
    }
}

fn connect(addr: &str) -> Result<Source, AskError> {
    let failed = |message: String| AskError::Connect {
        addr: addr.to_string(),
        message,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let uri = if addr.contains("://") {
        addr.to_string()
    } else {
        format!("http://{addr}")
    };
    let client = runtime
        .block_on(GraphClient::connect(uri))
        .map_err(|e| failed(e.to_string()))?;
    Ok(Source::Remote(Box::new(Remote { runtime, client })))
}

/// Loads and validates the directory under `--load-timeout` (exit 1 when it
/// passes, as `validate` does). Without `strict`, a channel only opm before
/// v1.58.0 accepts is answered as OLM answers it, with a warning on stderr
/// (stdout stays the answer alone, for tools).
fn load(
    arg: &std::path::Path,
    limits: &crate::cli::values::LimitArgs,
    strict: bool,
) -> Result<Source, AskError> {
    load_offline(arg, limits, strict, None).map(|o| Source::Offline(Box::new(o)))
}

/// [`load`]'s catalog, read here.
pub(crate) fn load_offline(
    arg: &std::path::Path,
    limits: &crate::cli::values::LimitArgs,
    strict: bool,
    filter: Option<&std::path::Path>,
) -> Result<Offline, AskError> {
    read_offline(arg, limits, strict, filter, false)
}

/// [`load_offline`] keeping every meta's JSON from the one parse (see
/// [`fbc_catalog::load::load_model_with_json`]): for a command that writes metas out.
pub(crate) fn load_offline_with_json(
    arg: &std::path::Path,
    limits: &crate::cli::values::LimitArgs,
    strict: bool,
) -> Result<Offline, AskError> {
    read_offline(arg, limits, strict, None, true)
}

fn read_offline(
    arg: &std::path::Path,
    limits: &crate::cli::values::LimitArgs,
    strict: bool,
    filter: Option<&std::path::Path>,
    keep_json: bool,
) -> Result<Offline, AskError> {
    let fetched = crate::snapshot::fetch::fetch(arg, &limits.fetch_options(None))?;
    let dir = fetched.dir.as_path();
    let missed = load::timeout_diagnostic(dir, limits.load_timeout);
    let _watchdog = crate::snapshot::deadline::Watchdog::start(limits.load_timeout, move || {
        eprintln!("{missed}");
        std::process::exit(1);
    });
    let options = fbc_catalog::load::LoadOptions {
        chain_rule: if strict {
            ChainRule::Current
        } else {
            ChainRule::Legacy
        },
        ..limits.load_options()
    };
    let filtered = filter
        .map(|filter| crate::snapshot::filtered::apply(dir, filter, &options))
        .transpose()
        .map_err(AskError::Invalid)?;
    let dir = filtered.as_ref().map_or(dir, |f| f.dir());
    let (warnings, tables) = if keep_json {
        let loaded =
            fbc_catalog::load::load_model_with_json(dir, &options).map_err(AskError::Invalid)?;
        let warnings = loaded.loaded.warnings.clone();
        (warnings, loaded.tables(dir, options.limits))
    } else {
        let loaded = fbc_catalog::load::load_model(dir, &options).map_err(AskError::Invalid)?;
        let warnings = loaded.warnings.clone();
        (warnings, loaded.tables(dir, options.limits))
    };
    for warning in &warnings {
        let why = warning.hint.as_deref().unwrap_or_default();
        eprintln!("warning: {warning}; {why}; --strict refuses it");
    }
    Ok(Offline {
        tables,
        _fetched: fetched,
        _filtered: filtered,
    })
}
