//! `render` of bundle images on a real registry, checked against what opm v1.32.0 printed
//! for the same images (recorded by `tools/render-diff.py --record
//! tests/fixtures/render/expected`, the registry's address replaced by `REGISTRY`): every
//! bundle of `tests/fixtures/render/bundles` as JSON, as YAML and with `--migrate`, and
//! opm's error text for the broken ones. Then the same bundles as directories: with
//! `--alpha-image-ref-template` naming the image they are, the output is the image's.

use crate::distribution::{Auth, Registry};
use crate::process::BIN;
use crate::support::block_on;
use fbc_image::testing::{self, Tar};
use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TESTS: &[crate::support::NamedTest<PathBuf>] = &[
    (
        "render_of_bundle_images_equals_opms_recorded_output",
        render_of_bundle_images_equals_opms_recorded_output,
    ),
    (
        "a_bundle_directory_renders_as_the_image_it_would_be",
        a_bundle_directory_renders_as_the_image_it_would_be,
    ),
    (
        "a_cached_bundle_image_is_not_pulled_again",
        a_cached_bundle_image_is_not_pulled_again,
    ),
    (
        "template_lint_findings_come_first_and_deny_warnings_fails",
        template_lint_findings_come_first_and_deny_warnings_fails,
    ),
    (
        "templates_equal_opms_recorded_output",
        templates_equal_opms_recorded_output,
    ),
    (
        "a_template_renders_offline_from_bundles_from",
        a_template_renders_offline_from_bundles_from,
    ),
];

/// The flag sets `tools/render-diff.py` records.
const FLAG_SETS: &[(&str, &[&str])] = &[
    ("json", &[]),
    ("yaml", &["-o", "yaml"]),
    ("migrate", &["--migrate"]),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render")
}

fn bundle_dirs() -> Vec<PathBuf> {
    dirs_in("bundles")
}

fn dirs_in(folder: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join(folder))
        .expect("bundles")
        .map(|e| e.expect("entry").path())
        .collect();
    dirs.sort();
    dirs
}

/// The image labels of a bundle: `image-labels.json` beside its directories, else the
/// annotations of `metadata/annotations.yaml` (as tools/bundle_images.py reads them).
fn labels_of(dir: &Path) -> Vec<(String, String)> {
    let value = match std::fs::read_to_string(dir.join("image-labels.json")) {
        Ok(text) => serde_json::from_str(&text).expect("labels json"),
        Err(_) => {
            let text =
                std::fs::read_to_string(dir.join("metadata/annotations.yaml")).unwrap_or_default();
            let doc = fbc_catalog::source::yaml::document_to_json(&text)
                .ok()
                .flatten();
            doc.and_then(|d| d.get("annotations").cloned())
                .unwrap_or_default()
        }
    };
    value
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// One gzip layer holding the bundle's `manifests/` and `metadata/`.
fn bundle_layer(dir: &Path) -> Vec<u8> {
    let mut tar = Tar::new();
    for top in ["manifests", "metadata"] {
        tar = tar.dir(&format!("{top}/"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(top))
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        for file in files {
            let name = file
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            tar = tar.file(
                &format!("{top}/{name}"),
                &std::fs::read(&file).expect("read"),
            );
        }
    }
    testing::gzip(&tar.finish())
}

fn push_bundles(registry: &Registry) -> Vec<(String, PathBuf)> {
    push_dirs(registry, bundle_dirs())
}

pub fn push_dirs(registry: &Registry, dirs: Vec<PathBuf>) -> Vec<(String, PathBuf)> {
    let mut pushed = Vec::new();
    block_on(async {
        for dir in dirs {
            let name = dir
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            let labels = labels_of(&dir);
            let labels: Vec<(&str, &str)> = labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            registry
                .push_image(
                    &format!("bundles/{name}"),
                    "v1",
                    &labels,
                    &[bundle_layer(&dir)],
                )
                .await;
            pushed.push((name, dir));
        }
    })
    .expect("runtime");
    pushed
}

/// `render ARGS`: exit status, stdout, and the last line of stderr.
fn render(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .arg("render")
        .args(args)
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("DOCKER_CONFIG")
        .env("HOME", "/nonexistent")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        last.to_owned(),
    )
}

fn render_of_bundle_images_equals_opms_recorded_output(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    let mut compared = 0;
    for (name, _) in push_bundles(&registry) {
        let reference = format!("{host}/bundles/{name}:v1");
        for (flags_name, flags) in FLAG_SETS {
            let mut args = vec![reference.as_str()];
            args.extend_from_slice(flags);
            let (ok, stdout, stderr) = render(&args);
            let expected = fixtures().join("expected");
            let (file, got) = if ok {
                (expected.join(format!("{name}.{flags_name}.out")), stdout)
            } else {
                (
                    expected.join(format!("{name}.{flags_name}.err")),
                    format!("{stderr}\n"),
                )
            };
            let want = std::fs::read_to_string(&file).map_err(|e| {
                format!(
                    "{name} [{flags_name}]: no recorded {} ({e}); got:\n{got}",
                    file.display()
                )
            })?;
            let got = got.replace(&host, "REGISTRY");
            if got != want {
                return Err(format!(
                    "{name} [{flags_name}] differs from opm's {}:\n{}",
                    file.display(),
                    first_difference(&want, &got)
                )
                .into());
            }
            compared += 1;
        }
    }
    assert_eq!(compared, bundle_dirs().len() * FLAG_SETS.len());
    Ok(())
}

fn first_difference(want: &str, got: &str) -> String {
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        if w != g {
            return format!("line {}:\n  opm: {w}\n  fbc: {g}", i + 1);
        }
    }
    format!(
        "lengths differ: opm {} lines, fbc {} lines",
        want.lines().count(),
        got.lines().count()
    )
}

fn a_bundle_directory_renders_as_the_image_it_would_be(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    for (name, dir) in push_bundles(&registry) {
        let reference = format!("{host}/bundles/{name}:v1");
        let (image_ok, from_image, image_err) = render(&[&reference]);
        let template = format!("--alpha-image-ref-template={reference}");
        let dir_arg = dir.to_str().expect("utf-8");
        let (dir_ok, from_dir, dir_err) = render(&[dir_arg, &template]);
        assert_eq!(image_ok, dir_ok, "{name}: {image_err} / {dir_err}");
        if image_ok {
            assert_eq!(from_image, from_dir, "{name}");
            // Without an image: every manifest as an olm.bundle.object, no image anywhere.
            let (ok, plain, err) = render(&[dir_arg]);
            assert!(ok, "{name}: {err}");
            let blob: serde_json::Value = serde_json::from_str(&plain).expect("json");
            assert_eq!(blob["image"], "", "{name}");
            let objects = blob["properties"]
                .as_array()
                .expect("properties")
                .iter()
                .filter(|p| p["type"] == "olm.bundle.object")
                .count();
            assert!(objects > 0, "{name}: {plain}");
            assert!(!plain.contains("olm.csv.metadata"), "{name}");
        } else {
            assert_eq!(
                image_err.replace(&reference, "REF"),
                dir_err.replace(dir_arg, "REF"),
                "{name}"
            );
        }
    }
    Ok(())
}

/// `template FILE ARGS`: exit status, stdout, last line of stderr.
fn template(file: &Path, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["template", file.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    let out = Command::new(BIN)
        .args(&all)
        .env("HOME", "/nonexistent")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        last.to_owned(),
    )
}

/// The recorded templates (tools/template-diff.py --record), with `REGISTRY` replaced.
fn recorded_templates(host: &str, dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join("templates"))
        .expect("templates")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".template.json"))
        .collect();
    files.sort();
    for file in files {
        let name = file
            .file_name()
            .expect("name")
            .to_string_lossy()
            .replace(".template.json", "");
        let text = std::fs::read_to_string(&file)
            .expect("read")
            .replace("REGISTRY", host);
        let path = dir.join(format!("{name}.yaml"));
        std::fs::write(&path, text).expect("write");
        out.push((name, path));
    }
    out
}

const TEMPLATE_OUTPUTS: &[(&str, &[&str])] = &[
    ("json", &[]),
    ("yaml", &["-o", "yaml"]),
    ("mermaid", &["-o", "mermaid"]),
];

fn templates_equal_opms_recorded_output(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    push_dirs(&registry, dirs_in("semver-bundles"));
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut compared = 0;
    for (name, path) in recorded_templates(&host, scratch.path()) {
        for (output, flags) in TEMPLATE_OUTPUTS {
            let expected = fixtures().join("templates");
            let (out_file, err_file) = (
                expected.join(format!("{name}.{output}.out")),
                expected.join(format!("{name}.{output}.err")),
            );
            if !out_file.exists() && !err_file.exists() {
                continue;
            }
            let (ok, stdout, stderr) = template(&path, flags);
            let (file, got) = if ok {
                (out_file, stdout)
            } else {
                (err_file, format!("{stderr}\n"))
            };
            let want = std::fs::read_to_string(&file).map_err(|e| {
                format!(
                    "{name} [{output}]: no {} ({e}); got:\n{got}",
                    file.display()
                )
            })?;
            let got = got
                .replace(&host, "REGISTRY")
                .replace(path.to_str().expect("utf-8"), "FILE");
            if got != want {
                return Err(format!(
                    "{name} [{output}] differs from opm's:\n{}",
                    first_difference(&want, &got)
                )
                .into());
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} compared");
    Ok(())
}

fn a_template_renders_offline_from_bundles_from(_: PathBuf) -> Result<(), Failed> {
    let mut registry = Registry::start(Auth::None, None);
    let host = registry.host();
    let pushed = push_dirs(&registry, dirs_in("semver-bundles"));
    let scratch = tempfile::tempdir().expect("tempdir");
    // A catalog holding the rendered bundles, as a maintainer's repository would.
    let refs: Vec<String> = pushed
        .iter()
        .map(|(name, _)| format!("{host}/bundles/{name}:v1"))
        .collect();
    let ref_args: Vec<&str> = refs.iter().map(String::as_str).collect();
    let (ok, catalog, err) = render(&ref_args);
    assert!(ok, "{err}");
    let catalog_dir = scratch.path().join("catalog");
    std::fs::create_dir_all(&catalog_dir).expect("mkdir");
    std::fs::write(catalog_dir.join("bundles.json"), catalog).expect("write");
    let templates = recorded_templates(&host, scratch.path());
    registry.stop();
    let from = format!("--bundles-from={}", catalog_dir.display());
    for (name, path) in templates
        .iter()
        .filter(|(n, _)| n == "semver-minor" || n == "basic")
    {
        let (ok, stdout, stderr) = template(path, &[&from]);
        assert!(ok, "{name}: {stderr}");
        let want = std::fs::read_to_string(fixtures().join(format!("templates/{name}.json.out")))
            .expect("recorded");
        assert_eq!(stdout.replace(&host, "REGISTRY"), want, "{name}");
    }
    // Without the catalog and without the registry, the pull fails and names the image.
    let (ok, _, stderr) = template(&templates[0].1, &[]);
    assert!(!ok && stderr.contains(&host), "{stderr}");
    Ok(())
}

fn a_cached_bundle_image_is_not_pulled_again(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    let dir = fixtures().join("bundles/etcd-0.9.2");
    push_dirs(&registry, vec![dir.clone()]);
    let reference = format!("{host}/bundles/etcd-0.9.2:v1");
    let scratch = tempfile::tempdir().expect("tempdir");
    let cache = format!("--cache-dir={}", scratch.path().join("cache").display());
    let (ok, first, err) = render(&[&reference, &cache]);
    assert!(ok, "{err}");
    // The layer is gone from the registry: only the kept copy can answer now.
    let layer = fbc_image::Digest::of(&bundle_layer(&dir));
    std::fs::remove_file(registry.blob_path(&layer)).expect("remove the layer blob");
    let (ok, second, err) = render(&[&reference, &cache]);
    assert!(ok, "{err}");
    assert_eq!(first, second);
    let (ok, _, err) = render(&[&reference, "--no-cache"]);
    assert!(
        !ok,
        "without the cache the missing layer must fail the pull"
    );
    assert!(err.contains(&reference), "{err}");
    // An entry is a labels file and the unpacked image, named by the manifest's digest.
    let entries: Vec<String> = std::fs::read_dir(scratch.path().join("cache"))
        .expect("cache")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].len(), 64, "{entries:?}");
    Ok(())
}

fn template_lint_findings_come_first_and_deny_warnings_fails(_: PathBuf) -> Result<(), Failed> {
    let scratch = tempfile::tempdir().expect("tempdir");
    // The bundles come from a catalog (no registry): 1.0.0, 1.1.0 and 2.0.0.
    let catalog = scratch.path().join("catalog");
    std::fs::create_dir_all(&catalog).expect("mkdir");
    let bundle = |v: &str| {
        serde_json::json!({"schema": "olm.bundle", "name": format!("demo.v{v}"), "package": "demo",
            "image": format!("quay.io/example/demo:{v}"),
            "properties": [{"type": "olm.package", "value": {"packageName": "demo", "version": v}}]})
    };
    let text: String = ["1.0.0", "1.1.0", "2.0.0"]
        .iter()
        .map(|v| format!("{}\n", bundle(v)))
        .collect();
    std::fs::write(catalog.join("bundles.json"), text).expect("write");
    // A hand-written channel in which 1.0.0 has no way up (1.1.0 replaces nothing): two heads.
    let basic = serde_json::json!({"schema": "olm.template.basic", "entries": [
        {"schema": "olm.package", "name": "demo", "defaultChannel": "stable"},
        {"schema": "olm.channel", "name": "stable", "package": "demo", "entries": [
            {"name": "demo.v1.0.0"}, {"name": "demo.v1.1.0"}, {"name": "demo.v2.0.0", "replaces": "demo.v1.1.0"}]},
        {"schema": "olm.bundle", "image": "quay.io/example/demo:1.0.0"},
        {"schema": "olm.bundle", "image": "quay.io/example/demo:1.1.0"},
        {"schema": "olm.bundle", "image": "quay.io/example/demo:2.0.0"}]});
    let file = scratch.path().join("basic.json");
    std::fs::write(&file, basic.to_string()).expect("write");
    let from = format!("--bundles-from={}", catalog.display());
    let out = Command::new(BIN)
        .args([
            "template",
            file.to_str().expect("utf-8"),
            &from,
            "--no-cache",
        ])
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("does not validate") && stderr.contains("demo.v1.0.0"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"name\": \"demo.v2.0.0\""));
    let denied = Command::new(BIN)
        .args([
            "template",
            file.to_str().expect("utf-8"),
            &from,
            "--no-cache",
            "--deny-warnings",
        ])
        .output()
        .expect("run");
    assert!(
        !denied.status.success(),
        "--deny-warnings must fail on a warning"
    );
    assert_eq!(
        denied.stdout, out.stdout,
        "the catalog is written all the same"
    );
    Ok(())
}
