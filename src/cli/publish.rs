//! `fbc-registry publish CATALOG REF`: the catalog image built and published with no
//! container engine.
//!
//! In: a catalog directory, a target (`oci-layout:DIR[:TAG]` or a registry reference),
//! the platforms and the fbc-registry binary for each. Out: the image — the binary at
//! `/bin/fbc-registry` with `/bin/opm` and `/bin/grpc_health_probe` linking to it, the
//! catalog at `/configs` with the `operators.operatorframework.io.index.configs.v1=/configs`
//! label, the index cache built by this binary at `/tmp/cache` (writable by the image's
//! user), user `65532:65532`, entrypoint `/bin/fbc-registry serve`, command `/configs
//! --cache-dir=/tmp/cache` (as deploy/Containerfile), port 50051 — written to the layout or pushed; for several
//! platforms an index over one image each. Two layers: the binary (shared by every catalog
//! built with it) and the catalog with its cache. The catalog is validated first; the
//! digest published is printed. Exit 1 on any failure, nothing published.

use fbc_image::build::{self, Entry, EntryKind, ImageConfig};
use fbc_image::manifest::Platform;
use fbc_image::reference::CatalogSource;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The image's user: the conventional non-root id of distroless images.
const USER: (u64, u64) = (65532, 65532);

/// `publish`'s arguments.
#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    /// The catalog directory.
    #[arg(value_name = "CATALOG")]
    pub catalog: PathBuf,
    /// Where: oci-layout:DIR[:TAG] (tag default `latest`) or HOST[:PORT]/REPO[:TAG].
    #[arg(value_name = "REF")]
    pub target: String,
    /// The platforms (os/arch[/variant], comma-separated or repeated); default this machine's.
    #[arg(long, value_name = "PLATFORM", value_delimiter = ',')]
    pub platform: Vec<String>,
    /// The fbc-registry binary for a platform: `PATH` (this machine's platform) or
    /// `os/arch=PATH`; repeated. Default for this machine's platform: this binary.
    #[arg(long, value_name = "[PLATFORM=]PATH")]
    pub binary: Vec<String>,
    /// Accept a dynamically linked binary (it will not run in the image, which has no
    /// libc: for tests that only read the image's catalog).
    #[arg(long)]
    pub allow_dynamic_binary: bool,
    /// Extra image labels, `KEY=VALUE`, repeated.
    #[arg(long, value_name = "KEY=VALUE")]
    pub label: Vec<String>,
    /// Speak plain HTTP to the target registry.
    #[arg(long)]
    pub use_http: bool,
    /// Registry credentials, plain-HTTP registries, extra CAs (as for `serve`).
    #[command(flatten)]
    pub registry: super::values::RegistryArgs,
}

/// Runs `publish`.
pub fn run(args: &PublishArgs) -> ExitCode {
    match publish(args) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("publish: {e}");
            ExitCode::FAILURE
        }
    }
}

fn publish(args: &PublishArgs) -> Result<String, String> {
    if let Err(problems) = fbc_catalog::load::load_model(&args.catalog, &Default::default()) {
        let shown: Vec<String> = problems.iter().take(20).map(ToString::to_string).collect();
        return Err(format!(
            "{} does not validate:\n{}",
            args.catalog.display(),
            shown.join("\n")
        ));
    }
    let binaries = binaries(args)?;
    let scratch = tempfile::Builder::new()
        .prefix("fbc-registry-publish-")
        .tempdir()
        .map_err(|e| format!("making a scratch directory: {e}"))?;
    let cache = scratch.path().join("cache");
    build_cache(&args.catalog, &cache)?;
    let mut labels: BTreeMap<String, String> = BTreeMap::from([(
        fbc_image::manifest::CONFIGS_LABEL.to_string(),
        "/configs".to_string(),
    )]);
    for label in &args.label {
        let (k, v) = label
            .split_once('=')
            .ok_or_else(|| format!("--label {label:?}: KEY=VALUE"))?;
        labels.insert(k.to_string(), v.to_string());
    }
    let mut catalog_layer = build::tree_entries(&args.catalog, "configs", (0, 0))?;
    catalog_layer.push(Entry {
        path: "tmp".into(),
        kind: EntryKind::Directory,
        owner: (0, 0),
        mode: 0o1777,
    });
    catalog_layer.extend(build::tree_entries(&cache, "tmp/cache", USER)?);
    let mut images = Vec::new();
    for (platform, binary) in &binaries {
        let binary_layer = vec![
            Entry {
                path: "bin".into(),
                kind: EntryKind::Directory,
                owner: (0, 0),
                mode: 0o755,
            },
            Entry {
                path: "bin/fbc-registry".into(),
                kind: EntryKind::File(binary.clone()),
                owner: (0, 0),
                mode: 0o755,
            },
            Entry {
                path: "bin/grpc_health_probe".into(),
                kind: EntryKind::Symlink("fbc-registry".into()),
                owner: (0, 0),
                mode: 0o777,
            },
            Entry {
                path: "bin/opm".into(),
                kind: EntryKind::Symlink("fbc-registry".into()),
                owner: (0, 0),
                mode: 0o777,
            },
        ];
        let config = ImageConfig {
            platform: platform.clone(),
            user: format!("{}:{}", USER.0, USER.1),
            entrypoint: vec!["/bin/fbc-registry".into(), "serve".into()],
            cmd: vec!["/configs".into(), "--cache-dir=/tmp/cache".into()],
            working_dir: "/".into(),
            labels: labels.clone(),
            exposed_ports: vec!["50051/tcp".into()],
        };
        images.push(build::build(
            &[binary_layer, catalog_layer.clone()],
            &config,
        )?);
    }
    if let Some(rest) = args.target.strip_prefix("oci-layout:") {
        let (dir, tag) = match rest.rsplit_once(':') {
            Some((dir, tag)) if !tag.contains('/') => (dir, tag),
            _ => (rest, "latest"),
        };
        let digest = build::write_layout(Path::new(dir), &images, tag)?;
        return Ok(format!("{} {digest}", args.target));
    }
    let target = match CatalogSource::parse(&args.target) {
        Ok(CatalogSource::Registry(r)) => r,
        Ok(_) => {
            return Err(format!(
                "{}: not a registry reference or oci-layout:DIR[:TAG]",
                args.target
            ));
        }
        Err(e) => return Err(e.to_string()),
    };
    let mut options = args.registry.options();
    if args.use_http {
        options.insecure.push(target.registry.clone());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let digest = runtime
        .block_on(fbc_pull::push::push(&target, &options, &images))
        .map_err(|e| e.to_string())?;
    Ok(format!("{} {digest}", args.target))
}

/// The binary for each platform asked for.
fn binaries(args: &PublishArgs) -> Result<Vec<(Platform, PathBuf)>, String> {
    let current = Platform::current();
    let mut given: Vec<(Platform, PathBuf)> = Vec::new();
    for b in &args.binary {
        let (platform, path) = match b.split_once('=') {
            Some((p, path)) => (
                Platform::parse(p)
                    .ok_or_else(|| format!("--binary {b:?}: {p:?} is not os/arch[/variant]"))?,
                path,
            ),
            None => (current.clone(), b.as_str()),
        };
        given.push((platform, PathBuf::from(path)));
    }
    let platforms: Vec<Platform> = if args.platform.is_empty() {
        vec![current.clone()]
    } else {
        args.platform
            .iter()
            .map(|p| {
                Platform::parse(p)
                    .ok_or_else(|| format!("--platform {p:?} is not os/arch[/variant]"))
            })
            .collect::<Result<_, _>>()?
    };
    let mut out = Vec::new();
    for platform in platforms {
        let path = match given.iter().find(|(p, _)| *p == platform) {
            Some((_, path)) => path.clone(),
            None if platform == current => {
                std::env::current_exe().map_err(|e| format!("this binary's path: {e}"))?
            }
            None => {
                return Err(format!(
                    "no binary for {}/{}: give one with --binary {}/{}=PATH",
                    platform.os, platform.architecture, platform.os, platform.architecture
                ));
            }
        };
        match interpreter(&path)? {
            Some(interp) if !args.allow_dynamic_binary => {
                return Err(format!(
                    "{} is dynamically linked (it needs {interp}) and the image has no libc: build it static \
                     (RUSTFLAGS=\"-C target-feature=+crt-static\" cargo build --release --target x86_64-unknown-linux-gnu)",
                    path.display()
                ));
            }
            _ => {}
        }
        out.push((platform, path));
    }
    Ok(out)
}

/// The ELF program interpreter a binary names (`PT_INTERP`), if it is dynamically linked.
/// Read by hand: 64-bit little-endian ELF headers only; anything else is taken as static.
fn interpreter(path: &Path) -> Result<Option<String>, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // Every offset comes from the file: added with overflow checks, read with `get`.
    let field = |at: usize, len: usize| at.checked_add(len).and_then(|end| data.get(at..end));
    let u16_at = |at: usize| field(at, 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let u64_at = |at: usize| {
        field(at, 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    if data.get(..4) != Some(b"\x7fELF") || data.get(4) != Some(&2) || data.get(5) != Some(&1) {
        return Ok(None);
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38))
    else {
        return Ok(None);
    };
    let Ok(phoff) = usize::try_from(phoff) else {
        return Ok(None);
    };
    for i in 0..usize::from(phnum) {
        let Some(at) = phoff.checked_add(i * usize::from(phentsize)) else {
            return Ok(None);
        };
        let kind = field(at, 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes);
        if kind == Some(3) {
            let (Some(offset), Some(size)) = (
                at.checked_add(8).and_then(u64_at),
                at.checked_add(32).and_then(u64_at),
            ) else {
                return Ok(Some("an interpreter".into()));
            };
            let (offset, size) = (
                usize::try_from(offset).unwrap_or(usize::MAX),
                usize::try_from(size).unwrap_or(0),
            );
            let name = field(offset, size).unwrap_or_default();
            return Ok(Some(
                String::from_utf8_lossy(name)
                    .trim_end_matches('\0')
                    .to_string(),
            ));
        }
    }
    Ok(None)
}

/// Builds the index cache of `catalog` into `cache` with this binary (`serve --cache-only`).
fn build_cache(catalog: &Path, cache: &Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("this binary's path: {e}"))?;
    let out = std::process::Command::new(exe)
        .arg("serve")
        .arg(catalog)
        .arg(format!("--cache-dir={}", cache.display()))
        .args(["--cache-only", "--termination-log=/dev/null"])
        .output()
        .map_err(|e| format!("building the index cache: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building the index cache: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::interpreter;

    fn elf(phoff: u64, phnum: u16) -> Vec<u8> {
        let mut data = vec![0u8; 64];
        data[..4].copy_from_slice(b"\x7fELF");
        data[4] = 2;
        data[5] = 1;
        data[0x20..0x28].copy_from_slice(&phoff.to_le_bytes());
        data[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        data[0x38..0x3a].copy_from_slice(&phnum.to_le_bytes());
        data
    }

    #[test]
    fn hostile_program_headers_are_read_without_panicking() {
        let dir = tempfile::tempdir().expect("tempdir");
        for (phoff, phnum) in [
            (u64::MAX, 3),
            (u64::MAX - 10, 1),
            (1 << 40, 65535),
            (64, 65535),
        ] {
            let path = dir.path().join("bin");
            std::fs::write(&path, elf(phoff, phnum)).expect("write");
            assert_eq!(interpreter(&path), Ok(None), "phoff {phoff}");
        }
    }

    #[test]
    fn the_interpreter_of_a_dynamic_binary_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut data = elf(64, 1);
        let mut header = vec![0u8; 56];
        header[..4].copy_from_slice(&3u32.to_le_bytes());
        header[8..16].copy_from_slice(&120u64.to_le_bytes());
        header[32..40].copy_from_slice(&11u64.to_le_bytes());
        data.extend(header);
        data.extend(b"/lib/ld.so\0");
        let path = dir.path().join("bin");
        std::fs::write(&path, data).expect("write");
        assert_eq!(interpreter(&path), Ok(Some("/lib/ld.so".into())));
    }
}
