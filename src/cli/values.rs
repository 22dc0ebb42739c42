//! Flag values as people write them, and the flags every catalog-reading
//! command shares.
//!
//! In: flag text (`250ms`, `64MiB`, `40`). Out: durations, byte counts,
//! depths, and [`LimitArgs`] → the loader's options. A leaf: the argument
//! structs of every command use it, and it uses none of them.

pub use crate::fleet::values::{parse_duration, parse_size};
use crate::snapshot::fetch::FetchOptions;
use crate::snapshot::load::LoadOptions;
use fbc_catalog::source::ParseLimits;
use fbc_catalog::source::limits::DEPTH_CEILING;
use fbc_image::ImageLimits;
use fbc_image::manifest::Platform;
use fbc_pull::RegistryOptions;
use fbc_pull::credentials::AuthLookup;
use std::path::PathBuf;

/// Bounds on what a catalog can make the loader do (see `docs/security.md`).
#[derive(Clone, Debug, clap::Args)]
pub struct LimitArgs {
    /// Largest catalog file read (e.g. 512MiB, 1GB).
    #[arg(long, value_name = "SIZE", default_value = "512MiB", value_parser = parse_size)]
    pub max_file_size: u64,
    /// Largest single JSON value or YAML document.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_document_size: u64,
    /// Deepest nesting of arrays and objects in a document (at most 128).
    #[arg(long, value_name = "LEVELS", default_value_t = ParseLimits::DEFAULT_MAX_DEPTH,
          value_parser = parse_depth)]
    pub max_depth: usize,
    /// Most nodes that YAML anchors and aliases may copy into one document.
    #[arg(long, value_name = "NODES", default_value_t = ParseLimits::DEFAULT_MAX_ALIAS_NODES)]
    pub max_yaml_alias_nodes: usize,
    /// A load (at start or on reload) still running after this long fails like an
    /// invalid catalog (e.g. 2m, 90s).
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub load_timeout: std::time::Duration,
    /// How catalog images are read.
    #[command(flatten)]
    pub image: ImageArgs,
}

/// Bounds and choices for a catalog given as an image (`oci-layout:PATH[:TAG]`).
#[derive(Clone, Debug, clap::Args)]
pub struct ImageArgs {
    /// The platform taken from a multi-platform image (os/arch[/variant]); any platform is
    /// taken when all of an index's images are the same. Default: this machine's.
    #[arg(long, value_name = "PLATFORM", value_parser = parse_platform)]
    pub platform: Option<Platform>,
    /// Most layers in an image.
    #[arg(long, value_name = "N", default_value_t = ImageLimits::default().max_layers)]
    pub max_layers: usize,
    /// Largest sum of an image's layer sizes as stored.
    #[arg(long, value_name = "SIZE", default_value = "4GiB", value_parser = parse_size)]
    pub max_image_size: u64,
    /// Largest sum of an image's uncompressed layers, read or skipped (stops compression bombs).
    #[arg(long, value_name = "SIZE", default_value = "8GiB", value_parser = parse_size)]
    pub max_unpack_size: u64,
    /// Most tar entries over an image's layers.
    #[arg(long, value_name = "N", default_value_t = ImageLimits::default().max_entries)]
    pub max_unpack_entries: u64,
    /// How many unpacked images `--cache-dir` keeps (the served one always).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub image_cache_keep: usize,
    /// Registry credentials, plain-HTTP registries, extra CAs.
    #[command(flatten)]
    pub registry: RegistryArgs,
}

/// How registries are reached: the flags of every command that talks to one.
#[derive(Clone, Debug, clap::Args)]
pub struct RegistryArgs {
    /// Registry credentials: a docker config.json or a Kubernetes .dockerconfigjson. Default: the
    /// first of $REGISTRY_AUTH_FILE, $DOCKER_CONFIG/config.json, ~/.docker/config.json.
    #[arg(long, value_name = "FILE")]
    pub auth_file: Option<PathBuf>,
    /// A registry (host[:port]) spoken to over plain HTTP; loopback registries always are.
    /// Repeatable.
    #[arg(long, value_name = "HOST[:PORT]")]
    pub insecure_registry: Vec<String>,
    /// A PEM file of certificate authorities trusted for registries, besides the system's.
    /// Repeatable.
    #[arg(long, value_name = "FILE")]
    pub registry_ca: Vec<PathBuf>,
}

impl RegistryArgs {
    /// The registry options these flags describe.
    pub fn options(&self) -> RegistryOptions {
        RegistryOptions {
            auth: AuthLookup::from_env(self.auth_file.clone()),
            insecure: self.insecure_registry.clone(),
            ca_files: self.registry_ca.clone(),
            ..RegistryOptions::default()
        }
    }
}

impl LimitArgs {
    /// How images are fetched, into `store` (the image store) or a scratch directory.
    pub fn fetch_options(&self, store: Option<std::path::PathBuf>) -> FetchOptions {
        let image = &self.image;
        FetchOptions {
            limits: ImageLimits {
                max_layers: image.max_layers,
                max_image_bytes: image.max_image_size,
                max_unpack_bytes: image.max_unpack_size,
                max_entries: image.max_unpack_entries,
                max_file_bytes: self.max_file_size,
                ..ImageLimits::default()
            },
            platform: image.platform.clone().unwrap_or_else(Platform::current),
            store,
            keep: image.image_cache_keep,
            registry: image.registry.options(),
        }
    }
}

fn parse_platform(s: &str) -> Result<Platform, String> {
    Platform::parse(s).ok_or_else(|| format!("{s:?} is not os/arch[/variant], e.g. linux/amd64"))
}

impl LimitArgs {
    /// The load options these flags describe.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            limits: ParseLimits {
                max_file_bytes: self.max_file_size,
                max_document_bytes: self.max_document_size,
                max_depth: self.max_depth,
                max_alias_nodes: self.max_yaml_alias_nodes,
            },
            ..LoadOptions::default()
        }
    }
}

/// Parses `--max-depth`: 1 to [`DEPTH_CEILING`].
pub(crate) fn parse_depth(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=DEPTH_CEILING).contains(&n) => Ok(n),
        _ => Err(format!(
            "invalid depth {s:?}: a number from 1 to {DEPTH_CEILING} (the JSON parser's own ceiling)"
        )),
    }
}
