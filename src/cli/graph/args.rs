//! Arguments of the graph commands: `range check`, `successors`, `upgrade-path`,
//! `graph`, `lint`.
//!
//! In: the command line after the subcommand. Out: argument structs. Every
//! command but `range check` reads a catalog directory (`DIR`) or asks a running
//! server (`--addr host:port`), never both.

use crate::cli::values::LimitArgs;
use clap::ValueEnum;
use std::path::PathBuf;

/// Where the catalog comes from.
#[derive(Debug, clap::Args)]
#[group(id = "source", required = true, multiple = false)]
pub struct SourceArgs {
    /// The catalog, read offline: a directory, oci-layout:PATH[:TAG|@DIGEST], or a registry
    /// image HOST[:PORT]/REPO[:TAG][@sha256:…].
    #[arg(group = "source", value_name = "CATALOG")]
    pub dir: Option<PathBuf>,
    /// Ask the server at this address instead (host:port, e.g. localhost:50051).
    #[arg(long, value_name = "HOST:PORT", group = "source")]
    pub addr: Option<String>,
    /// With --addr: the served catalog to ask, by name (a server started with
    /// --config or --catalog); without it, the catalog of the port called.
    #[arg(long = "catalog-name", value_name = "NAME", requires = "addr")]
    pub catalog: Option<String>,
    /// Parsing limits, for a directory.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Refuse a directory only opm before v1.58.0 accepts (a skipped entry on a
    /// channel's replaces chain strands the entries below it), as `validate`
    /// does; without it such a catalog is answered, with a warning, as OLM does.
    #[arg(long)]
    pub strict: bool,
}

/// Output format of the graph commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// For people.
    Text,
    /// One JSON object.
    Json,
}

/// `range` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum RangeCommand {
    /// Check versions against a range: exit 0 with the answers, 1 if the range
    /// does not parse.
    Check(RangeCheckArgs),
}

/// Range grammars.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GrammarArg {
    /// blang/semver v4: OLM v0's skipRange and olm.package.required.
    Blang,
    /// Masterminds/semver v3: OLM v1's ClusterExtension version.
    Masterminds,
}

/// `range check` arguments.
#[derive(Debug, clap::Args)]
pub struct RangeCheckArgs {
    /// Which grammar the range is in.
    #[arg(long, value_enum)]
    pub grammar: GrammarArg,
    /// The range (quote it: `'>=1.0.0 <2.0.0'`).
    pub range: String,
    /// Versions to check.
    pub versions: Vec<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// OLM v1 upgrade constraint policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PolicyArg {
    /// Only catalog-declared edges (OLM v1's default).
    Catalog,
    /// Any version in range, downgrades included.
    SelfCertified,
}

/// How releases are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReleaseModeArg {
    /// Build metadata that looks like a release (1.0.0+2).
    Legacy,
    /// The olm.package property's release field.
    Explicit,
}

/// `successors` arguments.
#[derive(Debug, clap::Args)]
pub struct SuccessorsArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The package.
    #[arg(long)]
    pub package: String,
    /// The installed bundle's name; without it (and without
    /// --installed-version), what a new install would get.
    #[arg(long, value_name = "NAME")]
    pub installed: Option<String>,
    /// The installed version: alone, the package's bundle with that version is
    /// the installed one; with --installed, the version of a bundle the catalog
    /// no longer has.
    #[arg(long, value_name = "VERSION")]
    pub installed_version: Option<String>,
    /// A Masterminds version range (`>=1.2 <2`).
    #[arg(long, value_name = "RANGE", allow_hyphen_values = true)]
    pub version_range: Option<String>,
    /// Channels to consider (repeat the flag); all when absent.
    #[arg(long = "channel", value_name = "CHANNEL")]
    pub channels: Vec<String>,
    /// Upgrade constraint policy.
    #[arg(long, value_enum, default_value_t = PolicyArg::Catalog)]
    pub policy: PolicyArg,
    /// How releases are read.
    #[arg(long, value_enum, default_value_t = ReleaseModeArg::Legacy)]
    pub release_mode: ReleaseModeArg,
    /// Also say why every other bundle is not a candidate.
    #[arg(long)]
    pub explain: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// Whose rules walk an upgrade path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SemanticsArg {
    /// OLM v0: nearest the channel head, skipped entries hidden.
    V0,
    /// OLM v1: highest version among direct successors.
    V1,
}

/// `upgrade-path` arguments.
#[derive(Debug, clap::Args)]
pub struct UpgradePathArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The package.
    #[arg(long)]
    pub package: String,
    /// The channel; the package's default channel when absent.
    #[arg(long)]
    pub channel: Option<String>,
    /// The installed bundle's name.
    #[arg(long, value_name = "NAME", required_unless_present = "from_version")]
    pub from: Option<String>,
    /// Its version: alone, the package's bundle with that version is where the
    /// path starts; with --from, the version of a bundle the catalog no longer has.
    #[arg(long, value_name = "VERSION")]
    pub from_version: Option<String>,
    /// Stop at this bundle if the path reaches it.
    #[arg(long, value_name = "NAME")]
    pub to: Option<String>,
    /// Whose rules.
    #[arg(long, value_enum, default_value_t = SemanticsArg::V0)]
    pub semantics: SemanticsArg,
    /// At most this many steps (0: 10000).
    #[arg(long, default_value_t = 0)]
    pub max_steps: u32,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// Graph formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// `{"packages":[…]}`: nodes, edges by kind, channels with heads and chains.
    Json,
    /// Graphviz DOT (`dot -Tsvg`).
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
}

/// `graph` arguments.
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// One package; all when absent.
    #[arg(long)]
    pub package: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Json)]
    pub format: GraphFormat,
}

/// `lint` arguments.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// One package; all when absent.
    #[arg(long)]
    pub package: Option<String>,
    /// Exit 2 when there is a warning (info findings never fail).
    #[arg(long)]
    pub deny_warnings: bool,
    /// What to check for: the graph checks (default), `olm-v1` (can OLM v1 install
    /// each bundle, a finding per reason), `console` or `ocp-4.Y` (what the
    /// OpenShift console, or that release, needs: metadata form, digests, icon,
    /// olm.maxOpenShiftVersion).
    #[arg(long, value_name = "TARGET")]
    pub target: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}
