//! `validate` and `serve` of registry references against a real registry.

use crate::distribution::{Auth, OCI_INDEX, OCI_MANIFEST, Registry, Tls, catalog_layer, copy_dir};
use crate::process::{self, BIN};
use crate::support::{NamedTest, block_on};
use fbc_image::testing::{self, Tar};
use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TESTS: &[NamedTest<PathBuf>] = &[
    (
        "the_graph_commands_read_a_registry_image_as_its_directory",
        the_graph_commands_read_a_registry_image_as_its_directory,
    ),
    (
        "a_tag_validates_as_its_directory_does",
        a_tag_validates_as_its_directory_does,
    ),
    (
        "basic_auth_needs_the_credentials_and_never_prints_them",
        basic_auth_needs_the_credentials_and_never_prints_them,
    ),
    (
        "a_bearer_challenge_is_answered_with_the_files_credentials",
        a_bearer_challenge_is_answered_with_the_files_credentials,
    ),
    (
        "tls_registries_are_trusted_through_registry_ca",
        tls_registries_are_trusted_through_registry_ca,
    ),
    (
        "refused_images_name_the_image_and_why",
        refused_images_name_the_image_and_why,
    ),
    (
        "a_blob_altered_in_the_registry_is_refused_by_its_digest",
        a_blob_altered_in_the_registry_is_refused_by_its_digest,
    ),
    ("platforms_zstd_and_whiteouts", platforms_zstd_and_whiteouts),
    (
        "hostile_layers_are_refused_naming_image_layer_and_entry",
        hostile_layers_are_refused_naming_image_layer_and_entry,
    ),
    (
        "the_image_store_serves_a_restart_without_the_registry",
        the_image_store_serves_a_restart_without_the_registry,
    ),
];

const LABEL: (&str, &str) = (
    "operators.operatorframework.io.index.configs.v1",
    "/configs",
);

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example")
}

/// `fbc-registry validate -o json ARGS`: success and the JSON printed.
fn validate(args: &[&str]) -> (bool, serde_json::Value, String) {
    let out = Command::new(BIN)
        .args(["validate", "-o", "json"])
        .args(args)
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("DOCKER_CONFIG")
        .env("HOME", "/nonexistent")
        .output()
        .expect("run");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.success(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn error_of(args: &[&str]) -> String {
    let (ok, json, stderr) = validate(args);
    assert!(!ok, "expected a refusal: {json} {stderr}");
    json["error"]
        .as_str()
        .map_or_else(|| format!("{json} {stderr}"), str::to_owned)
}

fn auth_file(dir: &Path, host: &str, user: &str, password: &str) -> PathBuf {
    use base64::Engine;
    let path = dir.join("auth.json");
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    std::fs::write(
        &path,
        serde_json::json!({"auths": {host: {"auth": auth}}}).to_string(),
    )
    .expect("auth file");
    path
}

fn a_tag_validates_as_its_directory_does(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let digest = block_on_value(registry.push_image(
        "catalogs/example",
        "v1",
        &[LABEL],
        &[catalog_layer(&example())],
    ));
    let (ok, from_dir, _) = validate(&[example().to_str().expect("utf-8")]);
    assert!(ok, "{from_dir}");
    for reference in [
        format!("{}/catalogs/example:v1", registry.host()),
        format!("docker://{}/catalogs/example:v1", registry.host()),
        format!("{}/catalogs/example@{digest}", registry.host()),
    ] {
        let (ok, from_image, stderr) = validate(&[&reference]);
        assert!(ok, "{reference}: {from_image} {stderr}");
        assert_eq!(from_image["digest"], from_dir["digest"], "{reference}");
        assert_eq!(
            from_image["image"]["digest"],
            digest.to_string(),
            "{reference}"
        );
    }
    Ok(())
}

fn basic_auth_needs_the_credentials_and_never_prints_them(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::Htpasswd, None);
    let (user, password) = registry.user.clone().expect("a provisioned user");
    block_on_value(registry.push_image("c", "v1", &[LABEL], &[catalog_layer(&example())]));
    let reference = format!("{}/c:v1", registry.host());
    let e = error_of(&[&reference]);
    assert!(
        e.contains("not authorized") && e.contains(&reference),
        "{e}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let wrong = auth_file(dir.path(), &registry.host(), &user, "wrong-password-1234");
    let (ok, json, stderr) = validate(&["--auth-file", wrong.to_str().expect("utf-8"), &reference]);
    assert!(!ok, "{json}");
    let all = format!("{json}{stderr}");
    assert!(all.contains("not authorized"), "{all}");
    assert!(
        !all.contains("wrong-password-1234") && !all.contains(&password),
        "{all}"
    );

    let right = auth_file(dir.path(), &registry.host(), &user, &password);
    let (ok, json, stderr) = validate(&["--auth-file", right.to_str().expect("utf-8"), &reference]);
    assert!(ok, "{json} {stderr}");
    // The same file through the environment.
    let out = Command::new(BIN)
        .args(["validate", "-o", "json", &reference])
        .env("REGISTRY_AUTH_FILE", &right)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

fn a_bearer_challenge_is_answered_with_the_files_credentials(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::Bearer, None);
    block_on_value(registry.push_image("c", "v1", &[LABEL], &[catalog_layer(&example())]));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = auth_file(dir.path(), &registry.host(), "alice", "s3cret");
    let before = registry.token_requests.lock().map(|t| t.len()).unwrap_or(0);
    let (ok, json, stderr) = validate(&[
        "--auth-file",
        file.to_str().expect("utf-8"),
        &format!("{}/c:v1", registry.host()),
    ]);
    assert!(ok, "{json} {stderr}");
    let seen = registry
        .token_requests
        .lock()
        .map(|t| t.clone())
        .unwrap_or_default();
    // base64("alice:s3cret")
    assert!(
        seen[before..].iter().any(|h| h == "Basic YWxpY2U6czNjcmV0"),
        "the token endpoint saw {seen:?}"
    );
    Ok(())
}

fn tls_registries_are_trusted_through_registry_ca(_: PathBuf) -> Result<(), Failed> {
    let (tls, ca_pem) = test_tls();
    let registry = Registry::start(Auth::None, Some(&tls));
    block_on_value(registry.push_image("c", "v1", &[LABEL], &[catalog_layer(&example())]));
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, ca_pem).expect("ca");
    let reference = format!("localhost:{}/c:v1", registry.addr.port());
    let e = error_of(&[&reference]);
    assert!(e.contains(&reference) && e.contains("certificate"), "{e}");
    let (ok, json, stderr) = validate(&["--registry-ca", ca.to_str().expect("utf-8"), &reference]);
    assert!(ok, "{json} {stderr}");
    Ok(())
}

fn refused_images_name_the_image_and_why(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    block_on_value(registry.push_image(
        "nolabel",
        "v1",
        &[("org.opencontainers.image.title", "not a catalog")],
        &[catalog_layer(&example())],
    ));
    let e = error_of(&[&format!("{host}/nolabel:v1")]);
    assert!(
        e.contains(&format!("{host}/nolabel:v1"))
            && e.contains("not a catalog")
            && e.contains("org.opencontainers.image.title=not a catalog"),
        "{e}"
    );
    // An artifact whose config is no image config at all.
    let config = br#"{"mediaType":"application/vnd.cncf.helm.config.v1+json"}"#.to_vec();
    let manifest = testing::manifest(&config, &[testing::gzip(b"chart")]);
    block_on_value(registry.push(
        "chart",
        &[&config, &testing::gzip(b"chart")],
        &[(&manifest, OCI_MANIFEST, Some("v1"))],
    ));
    let e = error_of(&[&format!("{host}/chart:v1")]);
    assert!(e.contains("it has no labels"), "{e}");
    let e = error_of(&[&format!("{host}/nolabel:nope")]);
    assert!(
        e.contains("not found") && e.contains("MANIFEST_UNKNOWN"),
        "{e}"
    );
    let e = error_of(&[&format!("{host}/nothing/here:v1")]);
    assert!(e.contains("not found"), "{e}");
    Ok(())
}

fn a_blob_altered_in_the_registry_is_refused_by_its_digest(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let layer = catalog_layer(&example());
    block_on_value(registry.push_image("c", "v1", &[LABEL], std::slice::from_ref(&layer)));
    let layer_digest = fbc_image::Digest::of(&layer);
    let stored = registry.blob_path(&layer_digest);
    let mut bytes = std::fs::read(&stored).expect("the stored blob");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&stored, bytes).expect("alter");
    let e = error_of(&[&format!("{}/c:v1", registry.host())]);
    assert!(
        e.contains(&format!("layer 0 {layer_digest}")) && e.contains("digest mismatch"),
        "{e}"
    );
    Ok(())
}

fn platforms_zstd_and_whiteouts(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    let arm_dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&example(), arm_dir.path());
    // The arm64 image's catalog lacks one package: the answers tell the platforms apart.
    let removed = arm_dir.path().join("example-dependency/catalog.json");
    std::fs::remove_file(&removed).expect("remove");
    // Two configs: an index whose images all share one config serves any platform.
    let config = testing::config(&[LABEL]);
    let arm_config = testing::config(&[LABEL, ("arch", "arm64")]);
    let amd = catalog_layer(&example());
    let arm = catalog_layer(arm_dir.path());
    let amd_manifest = testing::manifest(&config, std::slice::from_ref(&amd));
    let arm_manifest = testing::manifest(&arm_config, std::slice::from_ref(&arm));
    let index = testing::index(&[
        (&amd_manifest, Some("linux/amd64")),
        (&arm_manifest, Some("linux/arm64")),
    ]);
    let index_digest = block_on_value(registry.push(
        "multi",
        &[&config, &arm_config, &amd, &arm],
        &[
            (&amd_manifest, OCI_MANIFEST, None),
            (&arm_manifest, OCI_MANIFEST, None),
            (&index, OCI_INDEX, Some("v1")),
        ],
    ));
    let reference = format!("{host}/multi:v1");
    let (ok, amd_json, e) = validate(&["--platform", "linux/amd64", &reference]);
    assert!(ok, "{amd_json} {e}");
    let (ok, arm_json, e) = validate(&["--platform", "linux/arm64", &reference]);
    assert!(ok, "{arm_json} {e}");
    assert_ne!(amd_json["packages"], arm_json["packages"]);
    assert_eq!(
        amd_json["image"]["digest"],
        index_digest.to_string(),
        "the index's digest is reported"
    );
    let e = error_of(&["--platform", "linux/s390x", &reference]);
    assert!(
        e.contains("linux/amd64, linux/arm64") && e.contains("--platform"),
        "{e}"
    );
    // One config for every platform: any platform is served.
    let same = testing::index(&[
        (&amd_manifest, Some("linux/amd64")),
        (&amd_manifest, Some("linux/arm64")),
    ]);
    block_on_value(registry.push(
        "same",
        &[&config, &amd],
        &[
            (&amd_manifest, OCI_MANIFEST, None),
            (&same, OCI_INDEX, Some("v1")),
        ],
    ));
    let (ok, any, e) = validate(&["--platform", "linux/s390x", &format!("{host}/same:v1")]);
    assert!(ok, "{any} {e}");

    // zstd, and a whiteout in a later layer removing a file of an earlier one.
    let base = testing::zstd(&testing::configs_tar(&example()));
    let name = removed
        .strip_prefix(arm_dir.path())
        .expect("inside")
        .display()
        .to_string();
    let (parent, file) = name
        .rsplit_once('/')
        .map_or((String::new(), name.clone()), |(p, f)| {
            (format!("{p}/"), f.to_owned())
        });
    let whiteout = Tar::new()
        .file(&format!("configs/{parent}.wh.{file}"), b"")
        .finish();
    block_on_value(registry.push_image("layered", "v1", &[LABEL], &[base, whiteout]));
    let (ok, layered, e) = validate(&[&format!("{host}/layered:v1")]);
    assert!(ok, "{layered} {e}");
    assert_eq!(
        layered["packages"], arm_json["packages"],
        "the whiteout removed {name}"
    );
    Ok(())
}

fn hostile_layers_are_refused_naming_image_layer_and_entry(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    let host = registry.host();
    let cases: Vec<(&str, Vec<u8>, Vec<&str>, &str)> = vec![
        (
            "dotdot",
            Tar::new().file("configs/../../x.json", b"{}").finish(),
            vec![],
            "configs/../../x.json",
        ),
        (
            "absolute",
            Tar::new().file("/etc/x.json", b"{}").finish(),
            vec![],
            "\"/etc/x.json\": the path is absolute",
        ),
        (
            "absolute-link",
            Tar::new()
                .file("configs/a.json", b"{}")
                .symlink("configs/abs", "/etc")
                .finish(),
            vec![],
            "configs/abs",
        ),
        (
            "symlink",
            Tar::new().symlink("configs/out", "../../../etc").finish(),
            vec![],
            "configs/out",
        ),
        (
            "hardlink",
            Tar::new()
                .hard_link("configs/passwd", "etc/passwd")
                .finish(),
            vec![],
            "configs/passwd",
        ),
        (
            "device",
            Tar::new()
                .special("configs/null", tar::EntryType::Char)
                .finish(),
            vec![],
            "configs/null",
        ),
        (
            "fifo",
            Tar::new()
                .special("configs/pipe", tar::EntryType::Fifo)
                .finish(),
            vec![],
            "configs/pipe",
        ),
        (
            "bomb",
            Tar::new().sized_file("configs/big.json", 3 << 20).finish(),
            vec!["--max-unpack-size", "1MiB"],
            "--max-unpack-size",
        ),
        (
            "filebomb",
            Tar::new().sized_file("configs/big.json", 3 << 20).finish(),
            vec!["--max-file-size", "1MiB"],
            "configs/big.json",
        ),
        (
            "entries",
            (0..50)
                .fold(Tar::new(), |t, i| {
                    t.file(&format!("configs/{i}.json"), b"{}")
                })
                .finish(),
            vec!["--max-unpack-entries", "10"],
            "--max-unpack-entries",
        ),
    ];
    for (repo, tar, flags, named) in cases {
        block_on_value(registry.push_image(repo, "v1", &[LABEL], &[testing::gzip(&tar)]));
        let reference = format!("{host}/{repo}:v1");
        let mut args = flags.clone();
        args.push(&reference);
        let e = error_of(&args);
        assert!(
            e.contains(&reference) && e.contains("layer 0") && e.contains(named),
            "{repo}: {e}"
        );
    }
    // Limits on the image as a whole, checked from its manifest before any layer is fetched.
    let small = testing::gzip(&Tar::new().file("configs/a.json", b"{}").finish());
    block_on_value(registry.push_image(
        "layers",
        "v1",
        &[LABEL],
        &[small.clone(), small.clone(), small],
    ));
    let reference = format!("{host}/layers:v1");
    let e = error_of(&["--max-layers", "2", &reference]);
    assert!(
        e.contains(&reference) && e.contains("3 layers") && e.contains("--max-layers"),
        "{e}"
    );
    let e = error_of(&["--max-image-size", "10B", &reference]);
    assert!(
        e.contains(&reference) && e.contains("--max-image-size"),
        "{e}"
    );
    Ok(())
}

fn the_image_store_serves_a_restart_without_the_registry(_: PathBuf) -> Result<(), Failed> {
    let mut registry = Registry::start(Auth::None, None);
    let digest =
        block_on_value(registry.push_image("c", "v1", &[LABEL], &[catalog_layer(&example())]));
    let cache = tempfile::tempdir().expect("tempdir");
    let cache_dir = cache.path().to_str().expect("utf-8").to_owned();
    let tag = format!("{}/c:v1", registry.host());
    let pinned = format!("{}/c@{digest}", registry.host());
    let first = process::serve(["--cache-dir", &cache_dir, "--http-addr=127.0.0.1:0", &tag]);
    first.grpc();
    assert!(
        first.stderr().contains("catalog image pulled"),
        "{}",
        first.stderr()
    );
    drop(first);
    // The tag has not moved: no pull.
    let warm = process::serve(["--cache-dir", &cache_dir, &tag]);
    warm.grpc();
    assert!(
        warm.stderr()
            .contains("found in the image store; not pulled"),
        "{}",
        warm.stderr()
    );
    drop(warm);
    registry.stop();
    // A digest reference needs no registry at all; a tag serves the last image unpacked for it.
    let offline = process::serve(["--cache-dir", &cache_dir, &pinned]);
    offline.grpc();
    drop(offline);
    let offline = process::serve(["--cache-dir", &cache_dir, &tag]);
    offline.grpc();
    assert!(
        offline.stderr().contains("serving the image last unpacked"),
        "{}",
        offline.stderr()
    );
    Ok(())
}

fn the_graph_commands_read_a_registry_image_as_its_directory(_: PathBuf) -> Result<(), Failed> {
    let registry = Registry::start(Auth::None, None);
    block_on_value(registry.push_image("c", "v1", &[LABEL], &[catalog_layer(&example())]));
    let image = format!("{}/c:v1", registry.host());
    let dir = example().to_str().expect("utf-8").to_owned();
    let run = |args: &[String]| {
        let out = Command::new(BIN).args(args).output().expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    for command in [
        vec!["successors", "CATALOG", "--package", "example-operator"],
        vec!["graph", "CATALOG"],
        vec!["lint", "CATALOG"],
    ] {
        let with = |catalog: &str| -> Vec<String> {
            command
                .iter()
                .map(|a| if *a == "CATALOG" { catalog } else { a }.to_owned())
                .collect()
        };
        let (code, from_dir) = run(&with(&dir));
        assert!(!from_dir.is_empty(), "{command:?}");
        assert_eq!(run(&with(&image)), (code, from_dir), "{command:?}");
    }
    Ok(())
}

/// A TLS pair for `localhost` signed by a fresh CA, and the CA's PEM.
fn test_tls() -> (Tls, String) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().expect("key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "registry test CA");
    let ca_pem = ca_params.self_signed(&ca_key).expect("CA").pem();
    let key = KeyPair::generate().expect("key");
    let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
    params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    let cert = params
        .signed_by(&key, &Issuer::from_params(&ca_params, &ca_key))
        .expect("leaf");
    (
        Tls {
            cert: cert.pem(),
            key: key.serialize_pem(),
            ca: ca_pem.clone(),
        },
        ca_pem,
    )
}

fn block_on_value<T: Send + 'static>(f: impl std::future::Future<Output = T>) -> T {
    let mut out = None;
    block_on(async { out = Some(f.await) }).expect("runtime");
    out.expect("finished")
}
