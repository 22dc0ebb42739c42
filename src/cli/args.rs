//! The command line's arguments: the commands, and what `serve` and
//! `validate` accept (the values people type are read in [`super::values`]).
//!
//! In: `std::env::args`. Out: validated argument structs, and the
//! [`ServeConfig`] the app runs from.

use super::values::LimitArgs;
use super::values::parse_duration;
#[cfg(test)]
use super::values::{parse_depth, parse_size};
use crate::app::{Listen, ServeConfig};
use crate::fleet::config::CatalogSpec;
use crate::http::{HttpConfig, HttpLimits};
use crate::snapshot::fetch::{FetchOptions, Fetched};
use crate::snapshot::poll::PollConfig;
use crate::transport::limits::HANDSHAKE_TIMEOUT;
use crate::transport::limits::TransportLimits;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

mod memory;
pub use memory::MemoryArgs;

/// `opm serve`'s port, the gRPC port when `--port` is not given.
pub const DEFAULT_PORT: u16 = 50051;

/// Top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "fbc-registry",
    version,
    about = "Serve, validate and query OLM file-based catalogs"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a catalog and print every problem found.
    Validate(ValidateArgs),
    /// Serve a catalog over the OLM registry gRPC API (compatible with `opm serve`).
    Serve(Box<ServeArgs>),
    /// Version ranges in OLM's two grammars.
    #[command(subcommand)]
    Range(crate::cli::graph::args::RangeCommand),
    /// OLM v1: the bundles an installed bundle may move to.
    Successors(crate::cli::graph::args::SuccessorsArgs),
    /// The bundles a subscription passes through, one install at a time (OLM v0, or v1).
    UpgradePath(crate::cli::graph::args::UpgradePathArgs),
    /// Package upgrade graphs as JSON, Graphviz DOT or Mermaid.
    Graph(crate::cli::graph::args::GraphArgs),
    /// Upgrade-graph problems opm validate accepts: stranded entries, OLM v0/v1 divergence, typos.
    Lint(crate::cli::graph::args::LintArgs),
    /// OLM v0 dependency resolution: what OLM would install for these subscriptions.
    Resolve(crate::cli::resolve::ResolveArgs),
    /// Packages across several catalogs, or which catalog OLM v1 would install one from.
    Search(crate::cli::search::SearchArgs),
    /// A catalog cut down for a mirror by a FilterConfiguration: still valid, still
    /// upgradable, dependencies included.
    Filter(crate::cli::filter::FilterArgs),
    /// What changed between two catalogs (directories, images or servers) and what it
    /// does to installed bundles: stranded versions, broken or changed upgrade paths.
    Diff(crate::cli::diff::DiffArgs),
    /// Bundles and catalogs (directories or images) → one FBC stream, as `opm render`.
    Render(crate::cli::render::RenderArgs),
    /// A catalog template (olm.template.basic, olm.semver) → the catalog, as
    /// `opm alpha render-template`.
    Template(crate::cli::template::TemplateArgs),
    /// Does every image a catalog names exist? Bundle and related images checked with one
    /// manifest HEAD each; missing, refused and unpinned ones reported.
    CheckImages(crate::cli::check_images::CheckImagesArgs),
    /// Which installed bundles block an OpenShift upgrade to 4.Y through
    /// olm.maxOpenShiftVersion, and the upgrade path (or uninstall) that clears each.
    ClusterUpgrade(crate::cli::cluster::upgrade::ClusterUpgradeArgs),
    /// For each Subscription (OLM v0) and ClusterExtension (OLM v1) of a cluster state:
    /// where it is, what OLM does next, and when nothing moves, why and the smallest fix.
    ExplainUpgrade(crate::cli::cluster::explain::ExplainUpgradeArgs),
    /// A catalog made of other catalogs and bundles (the FBC documents' catalog.yaml): one
    /// subdirectory per reference, validated as a whole, only changed references re-rendered.
    Compose(crate::cli::compose::ComposeArgs),
    /// The catalog image built and published with no container engine: the binary, the
    /// catalog at /configs, its index cache, a non-root user; to an OCI layout or a registry.
    Publish(crate::cli::publish::PublishArgs),
    /// A gRPC health check with grpc_health_probe's flags and exit codes (`-addr=:50051`);
    /// the binary also answers to the name `grpc_health_probe`.
    Probe(ProbeArgs),
}

/// `probe`'s arguments, in grpc_health_probe's syntax (`-addr=HOST:PORT`, `-h` for the list).
#[derive(Clone, Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct ProbeArgs {
    /// grpc_health_probe's flags, read as Go's flag package reads them.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

/// Format of the server's log lines (stderr).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// `TIMESTAMP LEVEL target: message key=value …`.
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `message` and the fields.
    Json,
}

/// Output format of `validate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// One line per problem, or a one-line summary.
    Text,
    /// One JSON object: `{"valid": bool, "errors": [...], "packages": n, ...}`.
    Json,
}

/// `validate` arguments.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The catalog: its root directory, an image in an OCI layout (`oci-layout:PATH[:TAG|@DIGEST]`),
    /// or an image in a registry (`HOST[:PORT]/REPO[:TAG][@sha256:…]`, `docker://` accepted).
    pub dir: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Also check the catalog for a consumer: `olm-v1`, `console` or `ocp-4.Y`
    /// (docs/cluster-upgrade.md); a warning makes it invalid for that target.
    #[arg(long, value_name = "TARGET")]
    pub target: Option<String>,
    /// Parsing limits.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `serve` arguments, the flags of `opm serve`.
///
/// Boolean flags take a value only with `=` (`--watch=false`), as Go's pflag does,
/// so `serve --watch DIR` reads DIR as the catalog.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The catalog: its root directory, an image in an OCI layout (`oci-layout:PATH[:TAG|@DIGEST]`),
    /// or an image in a registry (`HOST[:PORT]/REPO[:TAG][@sha256:…]`, `docker://` accepted).
    /// Not given with --config or --catalog.
    #[arg(required_unless_present_any = ["config", "catalogs"], conflicts_with_all = ["config", "catalogs"])]
    pub dir: Option<PathBuf>,
    /// Port to listen on, on all interfaces (IPv4 and IPv6) [default: 50051]. With several
    /// catalogs, the port that answers health for every catalog by name (opened only
    /// when given).
    #[arg(short, long)]
    pub port: Option<u16>,
    /// Serve the catalogs this YAML file lists (`catalogs:` entries with `name`, `source`,
    /// `port`, `pollInterval`, `priority`, `filter`, `limits`); the file is watched and catalogs
    /// added, removed or changed in it are started and stopped without touching the others.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Serve this catalog (repeatable):
    /// NAME=SOURCE[,port=N][,pollInterval=D][,priority=P][,filter=FILE].
    /// HTTP serves it at /catalogs/NAME/…; `port` gives it its own api.Registry port.
    #[arg(long = "catalog", id = "catalogs", value_name = "NAME=SOURCE[,port=N]",
          value_parser = parse_catalog)]
    pub catalogs: Vec<CatalogSpec>,
    /// Index cache directory: a start whose catalog matches the cache reads the index
    /// from it instead of parsing and validating (kept in `fbc-registry.v1/`,
    /// beside any cache written by opm).
    #[arg(long, default_value = "")]
    pub cache_dir: String,
    /// Build (or check) the index cache, then exit 0 without serving; without
    /// --cache-dir, only validate.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = false,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub cache_only: bool,
    /// Fail at start instead of rebuilding a missing or stale cache. Off unless
    /// given (`opm serve` turns it on whenever --cache-dir is set, the crash-loop
    /// its users keep reporting; here a rebuild is logged and counted instead).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub cache_enforce_integrity: Option<bool>,
    /// File that receives the reason for a fatal exit (Kubernetes termination message).
    #[arg(short = 't', long, default_value = "/dev/termination-log")]
    pub termination_log: PathBuf,
    /// Log our own debug lines (one per call, reload details); HTTP/2 internals stay
    /// at warn unless RUST_LOG says otherwise.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = false,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub debug: bool,
    /// Log lines as text, or as one JSON object per line.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Accepted for compatibility; Go's pprof has no Rust counterpart, no listener is opened.
    #[arg(long, default_value = "localhost:6060")]
    pub pprof_addr: String,
    /// Accepted for compatibility; ignored.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = false,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub pprof_capture_profiles: bool,
    /// Watch the catalog and reload it in place when its files change (`--watch=false`
    /// to read it once, like `opm serve`). SIGHUP reloads either way.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub watch: bool,
    /// Quiet time after the last file change before a reload starts (e.g. 250ms, 1.5s).
    #[arg(long, value_name = "DURATION", default_value = "250ms", value_parser = parse_duration)]
    pub reload_debounce: std::time::Duration,
    /// For a registry image given by tag: how often to ask whether the tag names a new image
    /// (e.g. 5m), with up to 10% jitter; a new image is pulled, validated and served, a bad one
    /// never replaces the served catalog. Off by default; a digest reference never changes.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub poll_interval: Option<std::time::Duration>,
    /// Serve the catalog through this filter (a FilterConfiguration, as `fbc-registry
    /// filter --config` reads): every API sees only the filtered catalog, the catalog
    /// itself is left as it is. The file is watched with the catalog; one that does not
    /// read or apply never replaces the served catalog. Not with --cache-only.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["config", "catalogs"])]
    pub filter: Option<PathBuf>,
    /// Parsing limits and the load timeout.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Connection, call and memory limits against hostile or broken clients.
    #[command(flatten)]
    pub transport: TransportArgs,
    /// Where a loaded catalog's bytes are kept.
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Also serve catalogd's HTTP API (`/catalogs/NAME/api/v1/all`, `/metas`) on
    /// this address: `HOST:PORT`, or `:PORT` for all interfaces. Off unless given.
    #[arg(long, value_name = "ADDR", value_parser = parse_listen)]
    pub http_addr: Option<Listen>,
    /// PEM certificate chain for TLS on the gRPC, HTTP and metrics listeners (with --tls-key);
    /// reloaded when the file changes. Plain text without it, as OLM expects.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// PEM CA bundle: clients must present a certificate it signed (mutual TLS).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
    /// Serve Prometheus metrics at `/metrics` on this address (`HOST:PORT`, or `:PORT`
    /// for all interfaces). Off unless given.
    #[arg(long, value_name = "ADDR", value_parser = parse_listen)]
    pub metrics_addr: Option<Listen>,
    /// With --tls-cert, serve the metrics over TLS too (with --tls-client-ca, the
    /// scraper needs a client certificate); `--metrics-tls=false` keeps them in
    /// plain text.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub metrics_tls: bool,
    /// The catalog's name in HTTP paths (`/catalogs/NAME/…`), a DNS-1123 subdomain;
    /// defaults to the catalog directory's name.
    #[arg(long, value_name = "NAME")]
    pub catalog_name: Option<String>,
    /// HTTP connections served at once; at the cap a new one closes the one
    /// inactive longest.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub http_max_connections: u32,
    /// Serve the catalog browser (`/`, `/packages/NAME`) beside the API;
    /// `--browser=false` leaves only catalogd's routes, where `/` is a 404.
    #[arg(long, num_args = 0..=1, require_equals = true, default_value_t = true,
          default_missing_value = "true", action = clap::ArgAction::Set)]
    pub browser: bool,
    /// With --http-addr: build the HTTP view (catalogd's JSON Lines and gzip) and the
    /// browser's cards as each catalog is loaded, so the first request finds them ready.
    /// Without it each is built when a request first needs it, and a view no request
    /// needs is never built (see docs/operations.md, "Memory").
    #[arg(long)]
    pub eager_views: bool,
}

/// Reads a `--catalog` value.
fn parse_catalog(value: &str) -> Result<CatalogSpec, String> {
    crate::fleet::config::parse_flag(value).map_err(|e| e.message)
}

impl ServeArgs {
    /// The catalog argument (empty with --config or --catalog).
    pub fn dir(&self) -> &std::path::Path {
        self.dir.as_deref().unwrap_or(std::path::Path::new(""))
    }

    /// The TLS files, when `--tls-cert` and `--tls-key` are given.
    pub fn tls_files(&self) -> Option<crate::transport::tls::TlsFiles> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(crate::transport::tls::TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: self.tls_client_ca.clone(),
            }),
            _ => None,
        }
    }

    /// Whether several catalogs are served (--config or --catalog).
    pub fn several(&self) -> bool {
        self.config.is_some() || !self.catalogs.is_empty()
    }

    /// `--cache-enforce-integrity`: only when given (`=true` or bare). Unlike
    /// `opm serve`, a `--cache-dir` alone does not turn it on.
    pub fn enforce_integrity(&self) -> bool {
        self.cache_enforce_integrity.unwrap_or(false)
    }
}

impl ServeArgs {
    /// The server configuration these flags describe.
    pub fn serve_config(
        &self,
        fetched: &Fetched,
        fetch: &FetchOptions,
    ) -> Result<ServeConfig, String> {
        if self.filter.is_some() && self.cache_only {
            return Err(
                "--cache-only writes the index cache, which holds catalogs as they are: it does not go with --filter"
                    .to_owned(),
            );
        }
        Ok(ServeConfig {
            root: fetched.dir.clone(),
            listen: Listen::AllInterfaces(self.port.unwrap_or(DEFAULT_PORT)),
            load: self.limits.load_options(),
            load_timeout: self.limits.load_timeout,
            spill: self.memory.spill(),
            cache: (!self.cache_dir.is_empty()).then(|| crate::snapshot::cache::CacheConfig {
                dir: PathBuf::from(&self.cache_dir),
                enforce_integrity: self.enforce_integrity(),
                must_write: self.cache_only,
            }),
            // An image's unpacked files never change: nothing to watch.
            watch: self.watch && fetched.image.is_none(),
            reload_debounce: self.reload_debounce,
            sighup: true,
            transport: self.transport.limits(),
            http: self.http_config(fetched)?,
            metrics: self.metrics_addr.clone(),
            metrics_tls: self.metrics_tls,
            tls: self.tls_files(),
            image: fetched.image.clone(),
            poll: self.poll_config(fetched, fetch)?,
            filter: self.filter.clone(),
        })
    }

    /// Polling, when `--poll-interval` is given: only a registry tag can move.
    fn poll_config(
        &self,
        fetched: &Fetched,
        fetch: &FetchOptions,
    ) -> Result<Option<PollConfig>, String> {
        let Some(interval) = self.poll_interval else {
            return Ok(None);
        };
        match &fetched.registry {
            _ if interval < Duration::from_secs(1) => {
                Err("--poll-interval must be at least 1s".to_owned())
            }
            Some(source) if source.pinned => Err(format!(
                "--poll-interval: {} names a digest, which never changes; give a tag to poll",
                self.dir().display()
            )),
            Some(source) => Ok(Some(PollConfig {
                interval,
                source: source.clone(),
                fetch: fetch.clone(),
            })),
            None => Err(format!(
                "--poll-interval polls a registry image's tag; {} is not one",
                self.dir().display()
            )),
        }
    }

    /// The HTTP server's settings, when `--http-addr` is given: the catalog name
    /// must pass catalogd's check, or clients could not name it.
    fn http_config(&self, fetched: &Fetched) -> Result<Option<(Listen, HttpConfig)>, String> {
        let Some(listen) = self.http_addr.clone() else {
            return Ok(None);
        };
        let Some(settings) = self.http_settings("") else {
            return Ok(None);
        };
        let name = match &self.catalog_name {
            Some(name) => name.clone(),
            None if fetched.image.is_some() => fetched
                .image
                .as_ref()
                .map(|i| i.name.clone())
                .unwrap_or_default(),
            None => std::fs::canonicalize(self.dir())
                .unwrap_or_else(|_| self.dir().to_path_buf())
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        fbc_catalog::catalogd::name::check(&name).map_err(|e| {
            format!("catalog name {name:?} for the HTTP API: {e} (set one with --catalog-name)")
        })?;
        Ok(Some((
            listen,
            HttpConfig {
                catalog_name: name,
                ..settings
            },
        )))
    }

    /// The HTTP server's settings when `--http-addr` is given, for the catalog `name`
    /// (several catalogs: each has its own name, this one is unused).
    pub fn http_settings(&self, name: &str) -> Option<HttpConfig> {
        self.http_addr.as_ref()?;
        Some(HttpConfig {
            catalog_name: name.to_owned(),
            limits: HttpLimits {
                max_connections: self.http_max_connections as usize,
                stall_timeout: self.transport.stall_timeout,
                ..HttpLimits::default()
            },
            browser: self.browser,
            eager_views: self.eager_views,
        })
    }
}

/// A listen address: `HOST:PORT` (the host resolved now), or `:PORT` for every
/// interface as Go writes it.
pub fn parse_listen(s: &str) -> Result<Listen, String> {
    if let Some(port) = s.strip_prefix(':') {
        return port
            .parse()
            .map(Listen::AllInterfaces)
            .map_err(|e| format!("invalid port in {s:?}: {e}"));
    }
    use std::net::ToSocketAddrs;
    s.to_socket_addrs()
        .map_err(|e| format!("invalid address {s:?}: {e}"))?
        .next()
        .map(Listen::Addr)
        .ok_or_else(|| format!("{s:?} resolves to no address"))
}

/// The transport flags of `serve`, flattened into its arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct TransportArgs {
    /// Connections served at once; at the cap a new connection closes the one
    /// inactive longest (idle ones first).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Close a connection with no call in progress for this long (0 = never).
    /// OLM's client re-resolves on every reconnect, so keep it long.
    #[arg(long, default_value = "30m", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Close a connection whose client has left a reply unread this long (0 = never).
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub stall_timeout: Duration,
    /// Interval of HTTP/2 keepalive pings to clients, also the TCP keepalive idle
    /// time (0 = no pings). Clients are never required to ping.
    #[arg(long, default_value = "2m", value_parser = parse_duration)]
    pub keepalive_interval: Duration,
    /// Close a connection whose client has not answered a ping within this time.
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    pub keepalive_timeout: Duration,
    /// Concurrent streams per connection (HTTP/2 SETTINGS); Go clients queue beyond it.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_concurrent_streams: u32,
    /// Calls in flight at once; beyond it calls get RESOURCE_EXHAUSTED (health and
    /// reflection excepted).
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_inflight_calls: u32,
    /// MiB of reply and request data waiting on slow clients above which new calls
    /// get RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_buffered_reply_mib: u32,
    /// On SIGTERM/SIGINT, time given to calls in flight before every connection is closed.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub shutdown_grace: Duration,
    /// On SIGTERM/SIGINT, time during which health answers NOT_SERVING while every
    /// call is still served, before the listeners close (so readiness probes and load
    /// balancers move clients away first).
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub shutdown_delay: Duration,
    /// Send GOAWAY to a gRPC connection once it is this old, so long-lived clients
    /// (OLM's catalog operator) reconnect and spread over replicas behind a Service
    /// (grpc-go's MaxConnectionAge); 0: never.
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub max_connection_age: Duration,
    /// After --max-connection-age, time calls on the old connection get before it is
    /// closed; 0: as long as they take.
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub max_connection_age_grace: Duration,
}

impl TransportArgs {
    /// The limits these flags ask for.
    pub fn limits(&self) -> TransportLimits {
        TransportLimits {
            max_connections: self.max_connections as usize,
            idle_timeout: self.idle_timeout,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            stall_timeout: self.stall_timeout,
            keepalive_interval: self.keepalive_interval,
            keepalive_timeout: self.keepalive_timeout,
            max_concurrent_streams: self.max_concurrent_streams,
            max_inflight_calls: self.max_inflight_calls as usize,
            max_buffered_reply_bytes: (self.max_buffered_reply_mib as usize) << 20,
            shutdown_grace: self.shutdown_grace,
            shutdown_delay: self.shutdown_delay,
            max_connection_age: (!self.max_connection_age.is_zero())
                .then_some(self.max_connection_age),
            max_connection_age_grace: (!self.max_connection_age_grace.is_zero())
                .then_some(self.max_connection_age_grace),
        }
    }
}

#[cfg(test)]
mod tests;
