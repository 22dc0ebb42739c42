//! What the crash tests share: the seeded random source, the catalogs they serve (from
//! `catalogs`), the answers a server gives (the reply digest), a `serve` child killed at a chosen moment,
//! a restarted one, and what a cache directory may hold once a start is done.
//!
//! **The reply digest.** What a client receives from a server: the SHA-256 of every
//! ListBundles message (in order, each length-prefixed), the ListPackages names and each
//! GetPackage reply; the catalog digest the server reports for what it serves
//! (`GET /api/v1/catalogs`); and, when asked, catalogd's `/all` (its SHA-256 and length)
//! with its `ETag`. The expected answers are those of a server started on the same
//! directory with no cache at all.
//!
//! **Temporary names.** The index cache writes `.{file}.{pid}.{nanos}.tmp` in
//! `<cache-dir>/fbc-registry.v1/` and renames it over `index.pb`, `fingerprint`, `digest`;
//! the image store unpacks and downloads in `<cache-dir>/images/.tmp-{pid}-{n}/` and renames
//! a complete entry to `sha256-{hex}/`, whose `image.json` says it is complete. After a
//! start, a cache directory holds nothing else: [`leftovers`] names every other entry.

use crate::process::{self, BIN, Served};
use fbc_registry::api::{self, registry_client::RegistryClient};
use prost::Message;
use sha2::Digest as _;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::catalogs::*;

/// The catalog's name in HTTP paths, for every server of these tests.
pub const NAME: &str = "cc";
/// Our subdirectory of a cache directory.
pub const SUBDIR: &str = "fbc-registry.v1";
/// The files of a complete index cache.
pub const CACHE_FILES: [&str; 3] = ["digest", "fingerprint", "index.pb"];

/// The base seed: `CRASH_CONSISTENCY_SEED`, else the clock.
pub fn seed() -> u64 {
    std::env::var("CRASH_CONSISTENCY_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// SplitMix64: small, seeded, the same sequence for the same seed.
pub struct Rng(u64);

impl Rng {
    /// The sequence of `seed`, told apart per test by `salt`.
    pub fn new(seed: u64, salt: &str) -> Rng {
        let mut mixed = seed;
        for b in salt.bytes() {
            mixed = mixed.rotate_left(5) ^ u64::from(b);
        }
        Rng(mixed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A duration in `[0, max]`.
    pub fn upto(&mut self, max: Duration) -> Duration {
        let nanos = max.as_nanos().min(u128::from(u64::MAX - 1)) as u64;
        Duration::from_nanos(self.next() % (nanos + 1))
    }
}

// ---------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------

/// What a server answers: see the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answers {
    /// ListBundles messages.
    pub bundles: usize,
    /// SHA-256 of the ListBundles messages, the package names and GetPackage replies.
    pub registry: String,
    /// The catalog digest the server reports.
    pub digest: String,
    /// `/all`: SHA-256, length, ETag; when asked for.
    pub all: Option<(String, usize, String)>,
}

impl Answers {
    /// Why `self` (a restarted server's) is not `expected`, if it is not.
    pub fn differs_from(&self, expected: &Answers) -> Option<String> {
        let mut why = Vec::new();
        if self.bundles != expected.bundles || self.registry != expected.registry {
            why.push(format!(
                "api.Registry replies: {} bundles, digest {}, expected {} bundles, digest {}",
                self.bundles, self.registry, expected.bundles, expected.registry
            ));
        }
        if self.digest != expected.digest {
            why.push(format!(
                "catalog digest {}, expected {}",
                self.digest, expected.digest
            ));
        }
        if let (Some(all), Some(want)) = (&self.all, &expected.all)
            && all != want
        {
            why.push(format!("/all {all:?}, expected {want:?}"));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// A runtime for the clients.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// The answers of `server` (started with `--http-addr`); `/all` too when `with_all`.
pub fn answers(rt: &tokio::runtime::Runtime, server: &Served, with_all: bool) -> Answers {
    let grpc = server.grpc();
    let http = server
        .addrs
        .http
        .unwrap_or_else(|| panic!("no HTTP listener logged:\n{}", server.stderr()));
    rt.block_on(async {
        let mut client = RegistryClient::connect(format!("http://{grpc}"))
            .await
            .unwrap_or_else(|e| panic!("connect to {grpc}: {e}"));
        let mut hasher = sha2::Sha256::new();
        let mut add = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        let mut stream = client
            .list_bundles(api::ListBundlesRequest {})
            .await
            .expect("ListBundles")
            .into_inner();
        let mut bundles = 0;
        while let Some(bundle) = stream.message().await.expect("a ListBundles message") {
            add(&bundle.encode_to_vec());
            bundles += 1;
        }
        let mut names = Vec::new();
        let mut stream = client
            .list_packages(api::ListPackageRequest {})
            .await
            .expect("ListPackages")
            .into_inner();
        while let Some(name) = stream.message().await.expect("a ListPackages message") {
            names.push(name.name);
        }
        for name in names {
            add(name.as_bytes());
            let package = client
                .get_package(api::GetPackageRequest { name: name.clone() })
                .await
                .unwrap_or_else(|e| panic!("GetPackage {name}: {e}"))
                .into_inner();
            add(&package.encode_to_vec());
        }
        let registry = hex(&hasher.finalize());
        let catalogs = crate::http_client::get(http, "/api/v1/catalogs").await;
        assert_eq!(
            catalogs.status,
            200,
            "/api/v1/catalogs: {}",
            catalogs.text()
        );
        let catalogs: serde_json::Value =
            serde_json::from_slice(&catalogs.body).expect("/api/v1/catalogs is JSON");
        let digest = catalogs["catalogs"][0]["digest"]
            .as_str()
            .unwrap_or_else(|| panic!("no digest in {catalogs}"))
            .to_owned();
        let all = if with_all {
            let reply =
                crate::http_client::get(http, &format!("/catalogs/{NAME}/api/v1/all")).await;
            assert_eq!(reply.status, 200, "/all: {}", reply.text());
            let etag = reply.header("etag").unwrap_or_default().to_owned();
            Some((
                hex(&sha2::Sha256::digest(&reply.body)),
                reply.body.len(),
                etag,
            ))
        } else {
            None
        };
        Answers {
            bundles,
            registry,
            digest,
            all,
        }
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The answers of a server started on `catalog` with no cache (its own scratch `TMPDIR`).
pub fn reference(rt: &tokio::runtime::Runtime, catalog: &str, scratch: &Path) -> Answers {
    let server = restart(&[catalog], scratch);
    let answers = answers(rt, &server, true);
    drop(server);
    answers
}

// ---------------------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------------------

/// `serve -p 0 --http-addr=127.0.0.1:0 --catalog-name cc ARGS`, its temporary directory and
/// termination log in `scratch` (made if missing).
fn command(args: &[&str], scratch: &Path) -> Command {
    std::fs::create_dir_all(scratch).expect("mkdir scratch");
    let mut command = Command::new(BIN);
    command
        .args([
            "serve",
            "-p",
            "0",
            "--http-addr=127.0.0.1:0",
            "--catalog-name",
            NAME,
        ])
        .arg("-t")
        .arg(scratch.join("termination-log"))
        .args(args)
        .env("TMPDIR", scratch.join("tmp"))
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("DOCKER_CONFIG")
        .env("HOME", "/nonexistent");
    std::fs::create_dir_all(scratch.join("tmp")).expect("mkdir scratch/tmp");
    command
}

/// A server started and waited for (at most 30 s); it must serve, or the test fails with
/// its log.
pub fn restart(args: &[&str], scratch: &Path) -> Served {
    let served = process::start(command(args, scratch));
    if served.addrs.grpc.is_none() || served.addrs.http.is_none() {
        panic!(
            "serve {args:?} did not start:\n{}",
            tail(&served.stderr(), 40)
        );
    }
    served
}

/// The last `n` lines of `log`.
pub fn tail(log: &str, n: usize) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A `serve` child that is going to be killed: started, not waited for.
pub struct Victim {
    child: Option<Child>,
    log: Arc<Mutex<String>>,
    ready: Arc<AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
    pub started: Instant,
}

impl Victim {
    /// Starts `serve … ARGS` (as [`restart`] would) without waiting.
    pub fn spawn(args: &[&str], scratch: &Path) -> Victim {
        let mut child = command(args, scratch)
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the binary");
        let started = Instant::now();
        let pipe = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let ready = Arc::new(AtomicBool::new(false));
        let (text, serving) = (log.clone(), ready.clone());
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if line.contains("serving registry") {
                    serving.store(true, Ordering::Release);
                }
                if let Ok(mut text) = text.lock() {
                    text.push_str(&line);
                    text.push('\n');
                }
            }
        });
        Victim {
            child: Some(child),
            log,
            ready,
            reader: Some(reader),
            started,
        }
    }

    /// Whether it said it serves.
    pub fn ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Whether it has exited (it should not, before it is killed).
    pub fn exited(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(Some(_))))
    }

    /// SIGKILL, reaped (a zombie's pid would look alive to the next start); its log.
    pub fn kill(mut self) -> String {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.log.lock().map(|t| t.clone()).unwrap_or_default()
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// SIGKILLs a started server and reaps it; its log.
pub fn kill(server: Served) -> String {
    server.signal(libc::SIGKILL);
    server.wait().1
}

/// Polls `done` every millisecond until it holds or `limit` passes; whether it held.
pub fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

// ---------------------------------------------------------------------------------------
// What a cache directory holds
// ---------------------------------------------------------------------------------------

/// The names in `dir` (none when it does not exist).
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Temporary files of the index cache in `cache` (see the module docs).
pub fn cache_temps(cache: &Path) -> usize {
    names(&cache.join(SUBDIR))
        .iter()
        .filter(|n| n.ends_with(".tmp"))
        .count()
}

/// Everything in the cache directory `cache` that a complete start must not leave: in
/// our subdirectory anything but the three cache files; in the image store any `.tmp-`
/// directory and any entry without its `image.json`; beside them anything else.
pub fn leftovers(cache: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for name in names(cache) {
        match name.as_str() {
            SUBDIR => found.extend(
                names(&cache.join(SUBDIR))
                    .into_iter()
                    .filter(|n| !CACHE_FILES.contains(&n.as_str()))
                    .map(|n| format!("{SUBDIR}/{n}")),
            ),
            "images" => {
                for entry in names(&cache.join("images")) {
                    let complete = entry.starts_with("sha256-")
                        && cache
                            .join("images")
                            .join(&entry)
                            .join("image.json")
                            .is_file();
                    if !complete {
                        found.push(format!("images/{entry}"));
                    }
                }
            }
            other => found.push(other.to_owned()),
        }
    }
    found
}

/// Whether our subdirectory of `cache` holds a complete cache (the three files).
pub fn cache_complete(cache: &Path) -> bool {
    CACHE_FILES
        .iter()
        .all(|f| cache.join(SUBDIR).join(f).is_file())
}

/// What the last start did with the index cache, from its log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// Read it (a warm start).
    Warm,
    /// Found none or a stale one and built it from the catalog.
    Rebuilt,
    /// Neither was logged.
    Unknown,
}

pub fn cache_use(log: &str) -> CacheUse {
    if log.contains("index read from the cache") {
        CacheUse::Warm
    } else if log.contains("building it from the catalog") || log.contains("rebuilding it") {
        CacheUse::Rebuilt
    } else {
        CacheUse::Unknown
    }
}

/// `Ok` if `holds`; otherwise `what` went wrong, with the end of the server's `log`.
pub fn ensure(holds: bool, what: &str, log: &str) -> Result<(), String> {
    if holds {
        Ok(())
    } else {
        Err(format!("{what}:\n{}", tail(log, 10)))
    }
}

/// Counts of what the kills left, for the summary line.
#[derive(Debug, Default)]
pub struct Tally {
    pub counts: std::collections::BTreeMap<&'static str, usize>,
}

impl Tally {
    pub fn add(&mut self, what: &'static str) {
        *self.counts.entry(what).or_default() += 1;
    }

    pub fn get(&self, what: &str) -> usize {
        self.counts.get(what).copied().unwrap_or_default()
    }

    /// Fails unless at least 5 of the `runs` kills left `what`: kills that never
    /// landed where they were aimed (`aim`, e.g. "landed inside a cache write")
    /// prove nothing.
    pub fn require(&self, what: &str, runs: usize, aim: &str) -> Result<(), String> {
        let n = self.get(what);
        if n < 5 {
            return Err(format!(
                "only {n} of {runs} kills {aim} ({self}): the runs did not test what they are for"
            ));
        }
        Ok(())
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// A path as `&str` (the tests' directories are UTF-8).
pub fn s(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
