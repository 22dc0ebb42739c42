//! `cluster-upgrade CATALOG --to 4.Y`: which installed bundles block that OpenShift
//! upgrade through `olm.maxOpenShiftVersion`, and the way out of each.
//!
//! In: the catalog (a directory or an image, read here), the installed bundles —
//! from cluster state (`--cluster-state FILE|-`: Subscriptions with their CSVs,
//! ClusterExtensions, as `kubectl get -o yaml` prints them) or named
//! (`--installed NAME`) — and the target. Out: a line per installed bundle (or one
//! JSON object), exit 0 when nothing blocks, 2 when something does, 1 on errors.
//! The rules are `fbc_catalog::cluster::{openshift, upgrade}`'s.

use crate::cli::graph::args::{Output, SourceArgs};
use crate::cli::graph::emit;
use crate::cli::graph::source::Source;
use fbc_catalog::cluster::openshift::{self, MinorVersion};
use fbc_catalog::cluster::state::ClusterState;
use fbc_catalog::cluster::upgrade::{self, Installed, MaxSource, Olm, Verdict, WayOut};
use fbc_catalog::source::ParseLimits;
use fbc_catalog::tables::Tables;
use std::path::PathBuf;
use std::process::ExitCode;

/// `cluster-upgrade`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ClusterUpgradeArgs {
    /// The catalog.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The OpenShift version to reach: 4.Y or 4.Y.Z (only the minor counts).
    #[arg(long, value_name = "4.Y[.Z]")]
    pub to: String,
    /// Cluster state: a YAML or JSON file (`-` for standard input) of Subscriptions,
    /// ClusterServiceVersions and ClusterExtensions; repeatable.
    #[arg(long, value_name = "FILE|-")]
    pub cluster_state: Vec<PathBuf>,
    /// An installed bundle, by name (as OLM v0 installs it); repeatable.
    #[arg(long, value_name = "NAME")]
    pub installed: Vec<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Output::Text)]
    pub output: Output,
}

/// Runs `cluster-upgrade`.
pub fn run(a: &ClusterUpgradeArgs) -> ExitCode {
    // an invalid catalog is reported as the graph commands report it: every problem
    let source = match Source::open(&a.source) {
        Ok(source) => source,
        Err(e) => return crate::cli::graph::failed(e, a.output),
    };
    match answer(a, &source) {
        Ok((verdicts, notes)) => {
            let blocked = verdicts.iter().any(|v| v.blocks);
            match a.output {
                Output::Json => emit(&format!(
                    "{}\n",
                    serde_json::json!({"to": a.to, "verdicts": verdicts, "notes": notes, "blocked": blocked})
                )),
                Output::Text => {
                    let mut text: String = verdicts.iter().map(line).collect();
                    for note in &notes {
                        text.push_str(&format!("note: {note}\n"));
                    }
                    emit(&text);
                }
            }
            if blocked {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("cluster-upgrade: {e}");
            ExitCode::FAILURE
        }
    }
}

fn answer(a: &ClusterUpgradeArgs, source: &Source) -> Result<(Vec<Verdict>, Vec<String>), String> {
    let target = MinorVersion::parse_target(&a.to)?;
    if a.cluster_state.is_empty() && a.installed.is_empty() {
        return Err("say what is installed: --cluster-state FILE|- or --installed NAME".into());
    }
    let Source::Offline(tables) = source else {
        return Err(
            "cluster-upgrade reads the catalog here: give a directory or an image, not --addr"
                .into(),
        );
    };
    let mut state = ClusterState::default();
    for path in &a.cluster_state {
        state.extend(read_state(path, &a.source.limits.load_options().limits)?);
    }
    let mut notes = Vec::new();
    let mut installed = from_state(tables, &state, &mut notes);
    for name in &a.installed {
        installed.push(named(tables, name)?);
    }
    Ok((upgrade::check(tables, &installed, target), notes))
}

fn read_state(path: &std::path::Path, limits: &ParseLimits) -> Result<ClusterState, String> {
    let (name, bytes) = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        // one byte past the limit tells a stream that is too large from one that fits
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::io::stdin(), limits.max_file_bytes.saturating_add(1)),
            &mut bytes,
        )
        .map_err(|e| format!("standard input: {e}"))?;
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(format!(
                "standard input: larger than {} bytes (limit --max-file-size)",
                limits.max_file_bytes
            ));
        }
        ("<stdin>".to_owned(), bytes)
    } else {
        let mut bytes = Vec::new();
        fbc_catalog::source::read::read_regular(path, limits.max_file_bytes, &mut bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        (path.display().to_string(), bytes)
    };
    ClusterState::read(&name, &bytes, limits).map_err(|e| e.to_string())
}

/// The package whose bundle is named `name`, if exactly one has it.
fn package_of(tables: &Tables, name: &str) -> Result<Option<String>, String> {
    let owners: Vec<&str> = tables
        .packages()
        .iter()
        .filter(|p| p.bundle(name).is_some())
        .map(|p| p.name.as_str())
        .collect();
    match owners.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some((*one).to_owned())),
        many => Err(format!(
            "bundle {name:?} is in several packages: {}",
            many.join(", ")
        )),
    }
}

fn named(tables: &Tables, name: &str) -> Result<Installed, String> {
    let package = package_of(tables, name)?
        .ok_or_else(|| format!("no package of the catalog has a bundle named {name:?}"))?;
    Ok(Installed {
        owner: "--installed".into(),
        package,
        bundle: name.into(),
        channel: String::new(),
        olm: Olm::V0,
        on_cluster: None,
    })
}

/// Every installed bundle the state shows: each Subscription's installed CSV, every
/// other CSV (OLM v0 counts them all), and each ClusterExtension's bundle.
fn from_state(tables: &Tables, state: &ClusterState, notes: &mut Vec<String>) -> Vec<Installed> {
    let mut out = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for s in &state.subscriptions {
        if s.installed_csv.is_empty() {
            notes.push(format!(
                "subscription {}/{}: nothing installed yet",
                s.namespace, s.name
            ));
            continue;
        }
        let csv = state
            .csvs
            .iter()
            .find(|c| c.name == s.installed_csv && c.namespace == s.namespace);
        covered.insert((s.namespace.clone(), s.installed_csv.clone()));
        out.push(Installed {
            owner: format!("{}/{}", s.namespace, s.name),
            package: s.package.clone(),
            bundle: s.installed_csv.clone(),
            channel: s.channel.clone(),
            olm: Olm::V0,
            on_cluster: csv.map(|c| match &c.olm_properties {
                Some(annotation) => openshift::from_v0_annotation(annotation),
                None => Ok(None),
            }),
        });
    }
    for c in &state.csvs {
        if covered.contains(&(c.namespace.clone(), c.name.clone())) {
            continue;
        }
        let package = match package_of(tables, &c.name) {
            Ok(Some(p)) => p,
            Ok(None) => String::new(),
            Err(e) => {
                notes.push(format!("CSV {}/{}: {e}", c.namespace, c.name));
                String::new()
            }
        };
        out.push(Installed {
            owner: format!("{}/{} (no subscription)", c.namespace, c.name),
            package,
            bundle: c.name.clone(),
            channel: String::new(),
            olm: Olm::V0,
            on_cluster: Some(match &c.olm_properties {
                Some(annotation) => openshift::from_v0_annotation(annotation),
                None => Ok(None),
            }),
        });
    }
    for e in &state.extensions {
        if e.installed_name.is_empty() {
            notes.push(format!(
                "ClusterExtension {}: nothing installed yet",
                e.name
            ));
            continue;
        }
        if e.channels.len() > 1 {
            notes.push(format!(
                "ClusterExtension {}: the way out is looked for in channel {:?}, the first of {}",
                e.name,
                e.channels[0],
                e.channels.len()
            ));
        }
        out.push(Installed {
            owner: format!("ClusterExtension {}", e.name),
            package: e.package.clone(),
            bundle: e.installed_name.clone(),
            channel: e.channels.first().cloned().unwrap_or_default(),
            olm: Olm::V1,
            // OLM v1 reads the bundle image's CSV annotation; the catalog's properties stand in
            on_cluster: None,
        });
    }
    out
}

fn line(v: &Verdict) -> String {
    let i = &v.installed;
    let max = match (&v.max, &v.error, v.read_from) {
        (_, Some(e), _) => format!("invalid olm.maxOpenShiftVersion ({e})"),
        (_, None, MaxSource::Unknown) => {
            "max OpenShift version unknown (the catalog has no such bundle and the cluster state no CSV for it)".into()
        }
        (Some(m), None, MaxSource::Cluster) => format!("max OpenShift {m} (read from the cluster)"),
        (Some(m), None, MaxSource::Catalog) => format!("max OpenShift {m} (read from the catalog)"),
        (None, None, _) => "no olm.maxOpenShiftVersion".into(),
    };
    let olm = match i.olm {
        Olm::V0 => "OLM v0",
        Olm::V1 => "OLM v1",
    };
    let what = match &v.way_out {
        WayOut::None => "does not block".to_owned(),
        WayOut::Upgrade { path, .. } => {
            format!("BLOCKS: upgrade first, through {}", path.join(" -> "))
        }
        WayOut::Uninstall { reason } => format!("BLOCKS: uninstall it ({reason})"),
    };
    format!(
        "{} {} ({olm}, {}): {max}: {what}\n",
        i.package, i.bundle, i.owner
    )
}
