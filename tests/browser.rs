//! The catalog browser in a real browser: Debian's Chromium, headless, driven
//! through chromedriver (WebDriver) by fantoccini, against the real server
//! started through the app on a loopback port. A custom harness (`support`):
//! without chromedriver or Chromium the tests are reported as ignored, by name,
//! with the reason; under CI (`.ci/run` installs both) they fail instead.
//!
//! The catalog is `tests/fixtures/browser`, whose text tries to run script
//! every way it can: each test also checks that none of it ran.

mod support;

use fantoccini::{Client, ClientBuilder, Locator};
use libtest_mimic::{Arguments, Failed};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";

fn main() {
    let args = Arguments::from_args();
    let driver = chromedriver();
    let trials = support::trials(
        &driver,
        vec![
            ("search_filters_as_you_type", search_filters_as_you_type),
            (
                "package_page_draws_the_graph_and_answers_what_next",
                package_page_draws_the_graph_and_answers_what_next,
            ),
            (
                "a_version_several_bundles_share_gets_an_answer_for_each",
                a_version_several_bundles_share_gets_an_answer_for_each,
            ),
            (
                "the_policy_blocks_script_the_page_did_not_ship",
                the_policy_blocks_script_the_page_did_not_ship,
            ),
        ],
    );
    libtest_mimic::run(&args, trials).exit();
}

/// chromedriver and Chromium, from Debian's packages.
fn chromedriver() -> support::Requirement<PathBuf> {
    if !Path::new(CHROMIUM).is_file() {
        return support::Requirement::Absent(format!(
            "{CHROMIUM} is missing (apt-get install chromium)"
        ));
    }
    support::program_on_path("chromedriver", "apt-get install chromium-driver")
}

/// A chromedriver process on a free loopback port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start(binary: &Path) -> Result<Driver, Failed> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("a free port: {e}"))?
            .port();
        let child = Command::new(binary)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("start {}: {e}", binary.display()))?;
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(driver);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err("chromedriver did not listen within 5 s".into())
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `test` with a browser session and the server's HTTP address.
fn with_browser<F>(driver: PathBuf, test: F) -> Result<(), Failed>
where
    F: AsyncFnOnce(&Client, SocketAddr) -> Result<(), Failed>,
{
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("runtime: {e}"))?;
    runtime.block_on(async move {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/browser");
        let server = start_server(&root).await?;
        let http = server.http_addr.ok_or("no HTTP address")?;
        let driver = Driver::start(&driver)?;
        let profile = tempfile::tempdir().map_err(|e| format!("profile dir: {e}"))?;
        let client = session(&driver.url, profile.path()).await?;
        let result = test(&client, http).await;
        let _ = client.close().await;
        let _ = server.shutdown().await;
        result
    })
}

async fn start_server(root: &Path) -> Result<fbc_registry::app::ServerHandle, Failed> {
    use fbc_registry::app::{Listen, ServeConfig};
    let loopback = || Listen::Addr(([127, 0, 0, 1], 0).into());
    let config = ServeConfig {
        watch: false,
        sighup: false,
        http: Some((
            loopback(),
            fbc_registry::http::HttpConfig {
                catalog_name: "browser".into(),
                limits: fbc_registry::http::HttpLimits::default(),
                browser: true,
                eager_views: false,
            },
        )),
        ..ServeConfig::new(root, loopback())
    };
    fbc_registry::app::start(config)
        .await
        .map_err(|e| format!("start the server: {e}").into())
}

/// A headless Chromium session with the flags this machine needs: no sandbox
/// (root), and nothing that reaches for the network on its own.
async fn session(driver: &str, profile: &Path) -> Result<Client, Failed> {
    let options = json!({
        "binary": CHROMIUM,
        "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--window-size=1280,1000", format!("--user-data-dir={}", profile.display()),
        ],
    });
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("goog:chromeOptions".into(), options);
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(driver)
        .await
        .map_err(|e| format!("a WebDriver session: {e}").into())
}

/// Opens `path` and waits for the page's script to have run (it sets
/// `data-ready` on the body), which also proves the CSP let it run.
async fn open(client: &Client, http: SocketAddr, path: &str) -> Result<(), Failed> {
    client
        .goto(&format!("http://{http}{path}"))
        .await
        .map_err(|e| format!("open {path}: {e}"))?;
    wait_for(client, "body[data-ready='true']")
        .await
        .map_err(|e| format!("{path}: the page's script did not run: {e:?}"))?;
    nothing_ran(client).await
}

async fn script(client: &Client, code: &str) -> Result<Value, Failed> {
    client
        .execute(code, vec![])
        .await
        .map_err(|e| format!("script {code:?}: {e}").into())
}

/// None of the fixture's attempts (`window.__pwned_*`) ran.
async fn nothing_ran(client: &Client) -> Result<(), Failed> {
    let ran = script(
        client,
        "return Object.keys(window).filter(k => k.startsWith('__pwned')).sort();",
    )
    .await?;
    if ran != json!([]) {
        return Err(format!("the catalog's script ran: {ran}").into());
    }
    Ok(())
}

/// Clicks the element `css` finds.
async fn click(client: &Client, css: &str) -> Result<(), Failed> {
    client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("click {css}: {e}").into())
}

/// Waits up to 10 s for an element `css` finds.
async fn wait_for(client: &Client, css: &str) -> Result<(), Failed> {
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .map(drop)
        .map_err(|e| format!("waiting for {css}: {e}").into())
}

async fn text_of(client: &Client, css: &str) -> Result<String, Failed> {
    let element = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?;
    element
        .text()
        .await
        .map_err(|e| format!("{css} text: {e}").into())
}

fn expect_eq<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), Failed> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}").into())
    }
}

fn search_filters_as_you_type(driver: PathBuf) -> Result<(), Failed> {
    with_browser(driver, async |client, http| {
        open(client, http, "/").await?;
        let visible = "return [...document.querySelectorAll('#packages > li')].filter(li => li.offsetParent !== null).map(li => li.querySelector('.name').textContent);";
        expect_eq(
            "cards shown",
            script(client, visible).await?,
            json!(["plain-operator", "widget-operator"]),
        )?;
        let query = client
            .find(Locator::Id("q"))
            .await
            .map_err(|e| format!("#q: {e}"))?;
        query
            .send_keys("GIZMO")
            .await
            .map_err(|e| format!("type: {e}"))?;
        expect_eq(
            "after GIZMO",
            script(client, visible).await?,
            json!(["widget-operator"]),
        )?;
        expect_eq(
            "count",
            text_of(client, "#count").await?,
            "1 of 2 packages".into(),
        )?;
        let url = client
            .current_url()
            .await
            .map_err(|e| format!("url: {e}"))?;
        expect_eq("the URL keeps the query", url.query(), Some("q=GIZMO"))?;
        query
            .send_keys(" widget.widgets.acme.example")
            .await
            .map_err(|e| format!("type: {e}"))?;
        expect_eq(
            "by API",
            script(client, visible).await?,
            json!(["widget-operator"]),
        )?;
        query
            .send_keys(" nothing")
            .await
            .map_err(|e| format!("type: {e}"))?;
        expect_eq("no match", script(client, visible).await?, json!([]))?;
        expect_eq(
            "the note",
            text_of(client, "#none").await?,
            "No package matches.".into(),
        )?;
        // The icon came from this server and drew (its embedded script did not run).
        open(client, http, "/").await?;
        let drawn = script(client, "const i = document.querySelector('img.icon'); i.loading = 'eager'; return i.decode().then(() => i.naturalWidth > 0, () => false);").await?;
        expect_eq("icon drawn", drawn, json!(true))?;
        nothing_ran(client).await
    })
}

fn package_page_draws_the_graph_and_answers_what_next(driver: PathBuf) -> Result<(), Failed> {
    with_browser(driver, async |client, http| {
        open(client, http, "/").await?;
        click(client, "a[href='/packages/widget-operator']").await?;
        wait_for(client, "body[data-ready='true'] #successors").await?;
        nothing_ran(client).await?;
        expect_eq(
            "title",
            text_of(client, "h1").await?,
            "Widget Operator".into(),
        )?;
        let nodes =
            "return [...document.querySelectorAll('svg.graph g.node')].map(g => g.dataset.name);";
        expect_eq(
            "graph rows, newest first",
            script(client, nodes).await?,
            json!([
                "widget-operator.v2.1.0",
                "widget-operator.v2.0.0",
                "widget-operator.v1.1.0",
                "widget-operator.v1.0.0"
            ]),
        )?;
        let drawn = script(
            client,
            "return document.querySelector('svg.graph').getBBox().height > 100;",
        )
        .await?;
        expect_eq("the graph has a size", drawn, json!(true))?;
        let version = client
            .find(Locator::Css("#successors input[name=version]"))
            .await
            .map_err(|e| format!("version input: {e}"))?;
        version
            .send_keys("1.0.0")
            .await
            .map_err(|e| format!("type: {e}"))?;
        click(client, "#successors button").await?;
        wait_for(client, "#answer .selected").await?;
        expect_eq(
            "selected",
            text_of(client, "#answer .selected").await?,
            "Selected: widget-operator.v2.0.0".into(),
        )?;
        let candidates = text_of(client, "#answer .candidates").await?;
        if !candidates.contains("skipRange >=1.0.0 <2.0.0 in stable") {
            return Err(format!("candidates: {candidates}").into());
        }
        // The version picks its bundle, so the edges naming it count too.
        if !candidates.contains("widget-operator.v1.1.0 — replaces in stable") {
            return Err(format!("the replaces edge from 1.0.0 is missing: {candidates}").into());
        }
        // A version with nowhere to go says so, with OLM v1's reason.
        version.clear().await.map_err(|e| format!("clear: {e}"))?;
        version
            .send_keys("2.1.0")
            .await
            .map_err(|e| format!("type: {e}"))?;
        script(client, "document.querySelector('#answer').replaceChildren(); document.querySelector('#successors button').click(); return null;").await?;
        wait_for(client, "#answer p").await?;
        let answer = text_of(client, "#answer").await?;
        if !answer.contains("2.1.0") {
            return Err(format!("the answer for 2.1.0: {answer}").into());
        }
        // OLM v1 readiness: a verdict for the head and a row per bundle, shown
        let rows = script(
            client,
            "const s = document.querySelector('#olm-v1'); return s && s.getBoundingClientRect().height > 0 ? s.querySelectorAll('tbody tr').length : -1;",
        )
        .await?;
        expect_eq("OLM v1 rows, one per bundle", rows, json!(4))?;
        let verdict = text_of(client, "#olm-v1 .verdict").await?;
        if !verdict.contains("OLM v1")
            || !verdict.contains("head of channel stable (widget-operator.v2.0.0)")
        {
            return Err(format!("the OLM v1 verdict: {verdict}").into());
        }
        nothing_ran(client).await
    })
}

/// plain-operator has two releases of 0.2.0: the server asks which bundle is
/// meant, so the page asks once for each and says so.
fn a_version_several_bundles_share_gets_an_answer_for_each(driver: PathBuf) -> Result<(), Failed> {
    with_browser(driver, async |client, http| {
        open(client, http, "/packages/plain-operator").await?;
        wait_for(client, "body[data-ready='true'] #successors").await?;
        client
            .find(Locator::Css("#successors input[name=version]"))
            .await
            .map_err(|e| format!("version input: {e}"))?
            .send_keys("0.2.0")
            .await
            .map_err(|e| format!("type: {e}"))?;
        click(client, "#successors button").await?;
        wait_for(client, "#answer section.for-bundle .selected").await?;
        let sections = "return [...document.querySelectorAll('#answer section.for-bundle')].map(s => s.dataset.bundle);";
        expect_eq(
            "one answer per bundle",
            script(client, sections).await?,
            json!(["plain-operator-v0.2.0-1", "plain-operator-v0.2.0-2"]),
        )?;
        let first = text_of(client, "#answer section.for-bundle").await?;
        if !first.contains("plain-operator-v0.2.0-2 — replaces in alpha") {
            return Err(format!("the answer for release 1: {first}").into());
        }
        nothing_ran(client).await
    })
}

fn the_policy_blocks_script_the_page_did_not_ship(driver: PathBuf) -> Result<(), Failed> {
    with_browser(driver, async |client, http| {
        open(client, http, "/packages/widget-operator").await?;
        // WebDriver's own scripts run outside the policy; what they add to the
        // page does not. The browser reports each block as a violation event.
        let blocked = client
            .execute_async(
                concat!(
                    "const done = arguments[arguments.length - 1]; const seen = [];",
                    "document.addEventListener('securitypolicyviolation', e => seen.push(e.effectiveDirective));",
                    "const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.append(s);",
                    "const i = document.createElement('img'); i.src = 'http://198.51.100.1/x.png'; document.body.append(i);",
                    "setTimeout(() => done([window.__inline === undefined, [...new Set(seen)].sort()]), 500);",
                ),
                vec![],
            )
            .await
            .map_err(|e| format!("violations: {e}"))?;
        expect_eq(
            "blocked by the policy",
            blocked,
            json!([true, ["img-src", "script-src-elem"]]),
        )?;
        let styled = script(client, "const p = document.createElement('p'); p.setAttribute('style', 'color: rgb(1, 2, 3)'); document.body.append(p); return getComputedStyle(p).color;").await?;
        if styled == json!("rgb(1, 2, 3)") {
            return Err("a style attribute applied".into());
        }
        // The description's table and link survived the sanitiser; its script,
        // handlers and remote image did not.
        let description = script(client, "const d = document.querySelector('.description'); return [d.querySelectorAll('table').length, d.querySelectorAll('script, img, iframe, [style], [onerror]').length, d.querySelector('a[href=\"https://acme.example/docs\"]') !== null];").await?;
        expect_eq("description", description, json!([1, 0, true]))
    })
}
