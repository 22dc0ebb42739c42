//! Registry credentials from docker `config.json` files and Kubernetes pull secrets.
//!
//! In: the `--auth-file` flag and the environment. Out: the [`Credentials`] for one registry
//! (and repository), or none (anonymous). The file is the first of: `--auth-file`,
//! `$REGISTRY_AUTH_FILE`, `$DOCKER_CONFIG/config.json`, `~/.docker/config.json` — the same
//! format in each (`{"auths": {KEY: {"auth": base64("user:pass")}}}` or `username`/`password`
//! fields); a Kubernetes `.dockerconfigjson` secret's content is that format too, and a legacy
//! `.dockercfg` (the `auths` map alone) is read as well. Keys are matched as containers/image
//! does: `host/repo/path` prefixes longest first, then the host, with or without a scheme and
//! a `/v1/` or `/v2/` suffix; `index.docker.io` and `docker.io` are one host.
//!
//! Credential helpers (`credHelpers`, `credsStore`) run programs and are not followed; an
//! identity token (an OAuth refresh token) is not used either: both are named in a warning.
//! A password never appears in a log line, an error or a `Debug` print.

use base64::Engine;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest credentials file read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// A username and password for a registry.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The username.
    pub username: String,
    /// The password (or token), never printed.
    pub password: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// Why a credentials file could not be used. Names the file and the entry, never its secret.
#[derive(Debug, thiserror::Error)]
#[error("credentials file {path}: {reason}")]
pub struct CredentialsError {
    /// The file.
    pub path: String,
    /// What is wrong, naming the key and field.
    pub reason: String,
}

/// Where credentials are looked up, in order.
#[derive(Debug, Clone, Default)]
pub struct AuthLookup {
    /// `--auth-file`: must exist when given.
    pub explicit: Option<PathBuf>,
    /// `$REGISTRY_AUTH_FILE`.
    pub registry_auth_file: Option<PathBuf>,
    /// `$DOCKER_CONFIG`, a directory holding `config.json`.
    pub docker_config: Option<PathBuf>,
    /// `$HOME`.
    pub home: Option<PathBuf>,
}

impl AuthLookup {
    /// The lookup the environment describes, with `explicit` first.
    pub fn from_env(explicit: Option<PathBuf>) -> AuthLookup {
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        AuthLookup {
            explicit,
            registry_auth_file: var("REGISTRY_AUTH_FILE"),
            docker_config: var("DOCKER_CONFIG"),
            home: var("HOME"),
        }
    }

    /// The file to read: the explicit one, or the first that exists of the others.
    pub fn file(&self) -> Option<PathBuf> {
        if let Some(explicit) = &self.explicit {
            return Some(explicit.clone());
        }
        [
            self.registry_auth_file.clone(),
            self.docker_config.as_ref().map(|d| d.join("config.json")),
            self.home
                .as_ref()
                .map(|h| h.join(".docker").join("config.json")),
        ]
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
    }

    /// The credentials for `registry`/`repository`, if the file has any.
    pub fn credentials(
        &self,
        registry: &str,
        repository: &str,
    ) -> Result<Option<Credentials>, CredentialsError> {
        match self.file() {
            Some(path) => lookup(&path, registry, repository),
            None => Ok(None),
        }
    }
}

/// Reads `path` and returns the credentials for `registry`/`repository`.
pub fn lookup(
    path: &Path,
    registry: &str,
    repository: &str,
) -> Result<Option<Credentials>, CredentialsError> {
    let fail = |reason: String| CredentialsError {
        path: path.display().to_string(),
        reason,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(fail(format!("larger than {MAX_FILE_BYTES} bytes")));
    }
    let file: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        // serde_json's message quotes no input, only the position.
        fail(format!("not JSON: {e}"))
    })?;
    let Some(object) = file.as_object() else {
        return Err(fail("not a JSON object".to_owned()));
    };
    let auths = match object.get("auths") {
        Some(serde_json::Value::Object(auths)) => auths,
        Some(_) => return Err(fail("\"auths\" is not an object".to_owned())),
        // A legacy .dockercfg is the map itself.
        None if !object.contains_key("credHelpers") && !object.contains_key("credsStore") => object,
        None => &serde_json::Map::new(),
    };
    let host = normalize_host(registry);
    let mut best: Option<(usize, &str)> = None;
    for key in auths.keys() {
        let Some(scope) = key_scope(key) else {
            continue;
        };
        if let Some(rank) = matches(&scope, &host, repository)
            && best.is_none_or(|(r, _)| rank > r)
        {
            best = Some((rank, key));
        }
    }
    for helpers in ["credHelpers", "credsStore"] {
        if object.contains_key(helpers) && best.is_none() {
            tracing::warn!(file = %path.display(), "{helpers} is set: credential helpers are not run; put the credentials for {registry} in an auth file");
        }
    }
    let Some((_, key)) = best else {
        return Ok(None);
    };
    entry(auths.get(key), key).map_err(fail)
}

/// One `auths` entry → credentials.
fn entry(value: Option<&serde_json::Value>, key: &str) -> Result<Option<Credentials>, String> {
    let Some(value) = value.and_then(serde_json::Value::as_object) else {
        return Err(format!("auths[{key:?}] is not an object"));
    };
    let field = |name: &str| -> Result<Option<&str>, String> {
        match value.get(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) if s.is_empty() => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(format!("auths[{key:?}].{name} is not a string")),
        }
    };
    if let Some(auth) = field("auth")? {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(auth.trim())
            .map_err(|_| format!("auths[{key:?}].auth is not base64"))?;
        let text = String::from_utf8(decoded)
            .map_err(|_| format!("auths[{key:?}].auth is not UTF-8 once decoded"))?;
        let Some((username, password)) = text.split_once(':') else {
            return Err(format!(
                "auths[{key:?}].auth is not base64 of \"username:password\" (no colon)"
            ));
        };
        return Ok(Some(Credentials {
            username: username.to_owned(),
            password: password.to_owned(),
        }));
    }
    match (field("username")?, field("password")?) {
        (Some(username), Some(password)) => Ok(Some(Credentials {
            username: username.to_owned(),
            password: password.to_owned(),
        })),
        (Some(_), None) => Err(format!("auths[{key:?}] has a username and no password")),
        _ => {
            if field("identitytoken")?.is_some() {
                tracing::warn!(
                    key,
                    "an identity token is not used; give a username and password for this registry"
                );
            }
            Ok(None)
        }
    }
}

/// A key's host and path: `https://host/v1/` → (`host`, ""), `host/org/repo` → (`host`, `org/repo`).
fn key_scope(key: &str) -> Option<(String, String)> {
    let bare = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    let bare = bare.trim_end_matches('/');
    let bare = bare
        .strip_suffix("/v1")
        .or_else(|| bare.strip_suffix("/v2"))
        .unwrap_or(bare);
    let (host, path) = bare.split_once('/').unwrap_or((bare, ""));
    (!host.is_empty()).then(|| (normalize_host(host), path.trim_end_matches('/').to_owned()))
}

/// Docker Hub has two names.
fn normalize_host(host: &str) -> String {
    let host = host.to_ascii_lowercase();
    match host.as_str() {
        "index.docker.io" | "registry-1.docker.io" => "docker.io".to_owned(),
        _ => host,
    }
}

/// How well a key's scope matches: `None` not at all; longer paths rank higher.
fn matches(scope: &(String, String), host: &str, repository: &str) -> Option<usize> {
    let (key_host, key_path) = scope;
    if key_host != host {
        return None;
    }
    if key_path.is_empty() {
        return Some(0);
    }
    let inside = repository == key_path
        || repository
            .strip_prefix(key_path.as_str())
            .is_some_and(|rest| rest.starts_with('/'));
    inside.then_some(1 + key_path.len())
}

#[cfg(test)]
mod tests;
