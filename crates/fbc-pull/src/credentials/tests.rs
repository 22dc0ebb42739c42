use super::*;

fn write(json: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.json");
    std::fs::write(&path, json).expect("write");
    (dir, path)
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

#[test]
fn keys_match_with_or_without_scheme_and_the_longest_repository_path_wins() {
    let json = format!(
        r#"{{"auths": {{
            "https://index.docker.io/v1/": {{"auth": "{hub}"}},
            "quay.io": {{"auth": "{quay}"}},
            "quay.io/org": {{"username": "org", "password": "o"}},
            "quay.io/org/catalog": {{"auth": "{exact}"}},
            "http://127.0.0.1:5000/v2/": {{"auth": "{local}"}}
        }}}}"#,
        hub = b64("hub:h"),
        quay = b64("quay:q:with:colons"),
        exact = b64("exact:e"),
        local = b64("local:l"),
    );
    let (_dir, path) = write(&json);
    let user = |registry, repo| {
        lookup(&path, registry, repo)
            .expect("read")
            .map(|c| (c.username, c.password))
    };
    assert_eq!(
        user("docker.io", "library/x"),
        Some(("hub".into(), "h".into()))
    );
    assert_eq!(
        user("index.docker.io", "x"),
        Some(("hub".into(), "h".into()))
    );
    assert_eq!(
        user("quay.io", "other/x"),
        Some(("quay".into(), "q:with:colons".into()))
    );
    assert_eq!(user("quay.io", "org/x"), Some(("org".into(), "o".into())));
    assert_eq!(
        user("quay.io", "organisation/x"),
        Some(("quay".into(), "q:with:colons".into()))
    );
    assert_eq!(
        user("quay.io", "org/catalog"),
        Some(("exact".into(), "e".into()))
    );
    assert_eq!(
        user("127.0.0.1:5000", "c"),
        Some(("local".into(), "l".into()))
    );
    assert_eq!(user("ghcr.io", "c"), None);
}

#[test]
fn a_legacy_dockercfg_is_the_map_itself() {
    let (_dir, path) = write(&format!(r#"{{"r.example": {{"auth": "{}"}}}}"#, b64("u:p")));
    let found = lookup(&path, "r.example", "x")
        .expect("read")
        .expect("found");
    assert_eq!(found.username, "u");
}

#[test]
fn a_bad_entry_is_named_and_its_secret_is_not() {
    let (_dir, path) = write(r#"{"auths": {"r.example": {"auth": "c2VjcmV0"}}}"#);
    let e = lookup(&path, "r.example", "x")
        .expect_err("no colon")
        .to_string();
    assert!(e.contains("auths[\"r.example\"].auth"), "{e}");
    assert!(e.contains(&path.display().to_string()), "{e}");
    assert!(!e.contains("secret") && !e.contains("c2VjcmV0"), "{e}");

    let (_dir, path) = write(r#"{"auths": {"r.example": {"auth": "!!"}}}"#);
    assert!(lookup(&path, "r.example", "x").is_err());
    let (_dir, path) = write("not json");
    assert!(lookup(&path, "r.example", "x").is_err());
    // An entry for another registry is not read at all.
    let (_dir, path) = write(r#"{"auths": {"other": {"auth": "!!"}}}"#);
    assert_eq!(lookup(&path, "r.example", "x").expect("read"), None);
}

#[test]
fn debug_never_prints_the_password() {
    let c = Credentials {
        username: "u".into(),
        password: "hunter2".into(),
    };
    assert!(!format!("{c:?}").contains("hunter2"));
}

#[test]
fn the_lookup_order_is_flag_then_env_then_docker_config_then_home() {
    let dir = tempfile::tempdir().expect("tempdir");
    let at = |name: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, "{}").expect("write");
        path
    };
    let home_file = at("home/.docker/config.json");
    let docker_file = at("docker/config.json");
    let env_file = at("env.json");
    let mut lookup = AuthLookup {
        explicit: None,
        registry_auth_file: Some(env_file.clone()),
        docker_config: Some(dir.path().join("docker")),
        home: Some(dir.path().join("home")),
    };
    assert_eq!(lookup.file(), Some(env_file));
    lookup.registry_auth_file = None;
    assert_eq!(lookup.file(), Some(docker_file));
    lookup.docker_config = None;
    assert_eq!(lookup.file(), Some(home_file));
    lookup.explicit = Some(dir.path().join("missing.json"));
    assert_eq!(lookup.file(), Some(dir.path().join("missing.json")));
    assert!(
        lookup.credentials("r", "x").is_err(),
        "an explicit file must exist"
    );
}
