//! The graph pictures through the real tools: `fbc-registry graph --format dot`
//! rendered by Graphviz's `dot -Tsvg`, and `--format mermaid` by mermaid-cli
//! (`tools/mermaid`, driving Debian's Chromium). A custom harness (see
//! `support`): without a tool the tests that need it are reported as ignored,
//! by name, with the reason; under CI (`.ci/run` installs graphviz, chromium and
//! mermaid-cli) they fail instead.

mod support;

use libtest_mimic::{Arguments, Failed};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fbc-registry");

fn main() {
    let args = Arguments::from_args();
    let dot = support::program_on_path("dot", "Graphviz, for the DOT output");
    let mut trials = support::trials(
        &dot,
        vec![(
            "dot_renders_every_graph_to_svg",
            dot_renders_every_graph_to_svg,
        )],
    );
    trials.extend(support::trials(
        &mermaid_cli(),
        vec![(
            "mermaid_cli_renders_every_graph",
            mermaid_cli_renders_every_graph,
        )],
    ));
    libtest_mimic::run(&args, trials).exit();
}

/// The catalogs to draw: this repo's, and the shared ones when present.
fn catalogs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![
        root.join("catalogs/example"),
        root.join("tests/fixtures/upgrade-graphs"),
    ];
    if let Some(shared) = std::env::var_os("FBC_SHARED_CATALOGS") {
        out.push(PathBuf::from(shared).join("community-v4.20"));
    }
    out
}

/// `tools/mermaid`'s mmdc (`npm ci` there) and Debian's Chromium.
fn mermaid_cli() -> support::Requirement<PathBuf> {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/mermaid");
    let mmdc = tools.join("node_modules/.bin/mmdc");
    if !mmdc.is_file() {
        return support::Requirement::Absent(format!(
            "{} is missing (npm ci in tools/mermaid)",
            mmdc.display()
        ));
    }
    if !Path::new("/usr/bin/chromium").is_file() {
        return support::Requirement::Absent(
            "/usr/bin/chromium is missing (apt-get install chromium)".into(),
        );
    }
    support::Requirement::Present(tools)
}

/// `fbc-registry graph --format FORMAT CATALOG`, its stdout.
fn graph(format: &str, catalog: &Path) -> Result<Vec<u8>, Failed> {
    let out = Command::new(BIN)
        .args(["graph", "--format", format])
        .arg(catalog)
        .output()
        .map_err(|e| format!("run fbc-registry: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{}: graph failed: {}",
            catalog.display(),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(out.stdout)
}

/// Every node name of the catalog's graph, from `graph --format json`.
fn node_names(catalog: &Path) -> Result<Vec<String>, Failed> {
    let export: serde_json::Value =
        serde_json::from_slice(&graph("json", catalog)?).map_err(|e| e.to_string())?;
    let packages = export["packages"].as_array().cloned().unwrap_or_default();
    Ok(packages
        .iter()
        .flat_map(|p| p["nodes"].as_array().cloned().unwrap_or_default())
        .filter_map(|n| n["name"].as_str().map(str::to_owned))
        .collect())
}

fn mermaid_cli_renders_every_graph(tools: PathBuf) -> Result<(), Failed> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    for (i, catalog) in catalogs().iter().enumerate() {
        let input = tmp.path().join(format!("g{i}.mmd"));
        let output = tmp.path().join(format!("g{i}.svg"));
        std::fs::write(&input, graph("mermaid", catalog)?).map_err(|e| e.to_string())?;
        let run = Command::new(tools.join("node_modules/.bin/mmdc"))
            .arg("-p")
            .arg(tools.join("puppeteer.json"))
            // Mermaid's default text and edge limits are below a big
            // catalog's graph; over them it draws an error picture and
            // exits 0, so the limits are raised and the error class checked.
            .arg("-c")
            .arg(tools.join("mermaid.json"))
            .arg("-i")
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .output()
            .map_err(|e| format!("run mmdc: {e}"))?;
        let svg = std::fs::read_to_string(&output).unwrap_or_default();
        // Over its limits Mermaid draws a one-node "Maximum text size"
        // picture and exits 0: every bundle must be in the drawing.
        let missing: Vec<String> = node_names(catalog)?
            .into_iter()
            .filter(|name| !svg.contains(name.as_str()))
            .take(3)
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "{}: the SVG lacks bundles {missing:?}: {}",
                catalog.display(),
                svg.chars().take(300).collect::<String>()
            )
            .into());
        }
        if !run.status.success() || !svg.contains("<svg") {
            return Err(format!(
                "{}: mmdc said: {}{}",
                catalog.display(),
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            )
            .into());
        }
    }
    Ok(())
}

fn dot_renders_every_graph_to_svg(dot: PathBuf) -> Result<(), Failed> {
    for catalog in catalogs() {
        let drawn = graph("dot", &catalog)?;
        let mut render = Command::new(&dot)
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("run dot: {e}"))?;
        if let Some(mut stdin) = render.stdin.take() {
            std::io::Write::write_all(&mut stdin, &drawn).map_err(|e| e.to_string())?;
        }
        let svg = render.wait_with_output().map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&svg.stdout);
        if !svg.status.success() || !text.contains("<svg") || !svg.stderr.is_empty() {
            return Err(format!(
                "{}: dot said: {}",
                catalog.display(),
                String::from_utf8_lossy(&svg.stderr)
            )
            .into());
        }
    }
    Ok(())
}
