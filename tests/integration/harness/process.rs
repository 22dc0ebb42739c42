//! The real binary as a child process: `fbc-registry serve` on ports it picks
//! itself (port 0), read back from the addresses it logs, so no two tests can
//! race for a port chosen in advance.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_fbc-registry");

/// Where a started server listens (each `None` when not asked for, or when the
/// server exited before saying).
#[derive(Clone, Copy, Debug, Default)]
pub struct Addrs {
    pub grpc: Option<SocketAddr>,
    pub http: Option<SocketAddr>,
    pub metrics: Option<SocketAddr>,
}

/// A `serve` child, killed when dropped; its stderr is collected as it comes.
pub struct Served {
    pub child: Option<Child>,
    pub addrs: Addrs,
    stderr: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

/// Starts `fbc-registry serve -p 0 ARGS` with the default log level, and waits
/// (at most 30 s) until it says where it serves gRPC or exits. Ask for the HTTP
/// and metrics listeners with `--http-addr=127.0.0.1:0` and
/// `--metrics-addr=127.0.0.1:0`; their bound addresses are read back too.
pub fn serve<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Served {
    let mut command = Command::new(BIN);
    command.args(["serve", "-p", "0"]).args(args);
    start(command)
}

/// Starts `command` (the binary under another name or user, with its own arguments)
/// as [`serve`] does.
pub fn start(mut command: Command) -> Served {
    let mut child = command
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the binary");
    let pipe = child.stderr.take().expect("piped stderr");
    let stderr = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = mpsc::channel();
    let collected = stderr.clone();
    let reader = std::thread::spawn(move || {
        let mut addrs = Addrs::default();
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if let Some(addr) = logged_addr(&line) {
                if line.contains("serving catalogd's HTTP API") {
                    addrs.http = Some(addr);
                } else if line.contains("serving Prometheus metrics") {
                    addrs.metrics = Some(addr);
                } else if line.contains("serving registry")
                    || line.contains("serving health for every catalog")
                {
                    addrs.grpc = Some(addr);
                    let _ = tx.send(addrs);
                }
            }
            if let Ok(mut text) = collected.lock() {
                text.push_str(&line);
                text.push('\n');
            }
        }
        // Exited (or closed stderr) before serving: the waiter gets what it has.
        let _ = tx.send(addrs);
    });
    let addrs = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
    Served {
        child: Some(child),
        addrs,
        stderr,
        reader: Some(reader),
    }
}

/// The `address=` of a log line, on loopback (a server on all interfaces logs `[::]`).
fn logged_addr(line: &str) -> Option<SocketAddr> {
    let value = line.split("address=").nth(1)?.split_whitespace().next()?;
    let addr: SocketAddr = value.parse().ok()?;
    Some(SocketAddr::from(([127, 0, 0, 1], addr.port())))
}

impl Served {
    /// The gRPC address; panics with the server's log when it did not start.
    pub fn grpc(&self) -> SocketAddr {
        self.addrs
            .grpc
            .unwrap_or_else(|| panic!("the server did not start:\n{}", self.stderr()))
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Sends `signal` to the server.
    #[allow(unsafe_code, reason = "kill(2) on our own child's pid")]
    pub fn signal(&self, signal: i32) {
        if let Some(child) = &self.child {
            // SAFETY: kill sends a signal to our own child.
            unsafe { libc::kill(child.id() as i32, signal) };
        }
    }

    /// Waits for the server to exit; its status and everything it wrote to stderr.
    pub fn wait(mut self) -> (ExitStatus, String) {
        let status = self
            .child
            .take()
            .expect("a child")
            .wait()
            .expect("wait for the server");
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        (status, self.stderr())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// What a command run to its end gave: exit code, standard output, standard error.
pub type Ran = (Option<i32>, String, String);

/// Runs the binary with `args` in the crate's root, `stdin` on standard input,
/// to its end.
pub fn run_cli<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>, stdin: &str) -> Ran {
    let mut child = Command::new(BIN)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the binary");
    if let Some(mut input) = child.stdin.take() {
        // a command that exits before reading all of it is not an error here
        let _ = std::io::Write::write_all(&mut input, stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("wait for the binary");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
