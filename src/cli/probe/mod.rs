//! `fbc-registry probe` and the binary called as `grpc_health_probe`: the
//! Kubernetes exec probe OLM's CatalogSource pods run, with no Go binary in the
//! image.
//!
//! In: grpc_health_probe's flags ([`flags`]). Out: its messages on stderr and its
//! exit codes (plain text, or TLS with `-tls`): 0 SERVING, 1 bad arguments, 2 no connection within
//! `-connect-timeout`, 3 the Check RPC failed (or timed out), 4 the answer was
//! not SERVING. One difference, on purpose: grpc_health_probe exits 2 (Go's
//! `flag` package) for a flag its parser rejects, which reads as a connection
//! failure; here every argument error exits 1.

pub(crate) mod flags;
mod insecure;

use flags::{Parsed, ProbeOptions};
use std::process::ExitCode;
use std::time::Instant;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// Exit codes, grpc_health_probe's.
pub(crate) mod status {
    /// Bad arguments.
    pub const INVALID_ARGUMENTS: u8 = 1;
    /// No connection.
    pub const CONNECTION_FAILURE: u8 = 2;
    /// The Check RPC failed.
    pub const RPC_FAILURE: u8 = 3;
    /// The answer was not SERVING.
    pub const UNHEALTHY: u8 = 4;
}

/// Whether this process was started under grpc_health_probe's name.
pub fn called_as_probe(argv0: &std::ffi::OsStr) -> bool {
    std::path::Path::new(argv0)
        .file_name()
        .is_some_and(|name| name == "grpc_health_probe")
}

/// Runs the probe with `args` (without the program name).
pub fn main(args: &[String]) -> ExitCode {
    let options = match flags::parse(args) {
        Ok(Parsed::Probe(options)) => options,
        Ok(Parsed::Help) => {
            eprint!("{}", flags::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Version) => {
            eprintln!("fbc-registry probe {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(status::INVALID_ARGUMENTS);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: failed to start: {e}");
            return ExitCode::from(status::CONNECTION_FAILURE);
        }
    };
    match runtime.block_on(probe(&options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("{message}");
            ExitCode::from(code)
        }
    }
}

/// Connects, checks, and says so; `Err` is an exit code and its message.
async fn probe(options: &ProbeOptions) -> Result<(), (u8, String)> {
    let verbose = |line: String| {
        if options.verbose {
            eprintln!("{line}");
        }
    };
    verbose(format!(
        "parsed options:\n> addr={} conn_timeout={:?} rpc_timeout={:?}\n> tls={}",
        options.addr,
        options.connect_timeout,
        options.rpc_timeout,
        options.tls.is_some()
    ));
    let connect_failed = |e: String| {
        (
            status::CONNECTION_FAILURE,
            format!(
                "error: failed to connect service at {:?}: {e}",
                options.addr
            ),
        )
    };
    let no_verify = options.tls.as_ref().is_some_and(|t| t.no_verify);
    let scheme = if options.tls.is_some() && !no_verify {
        "https"
    } else {
        "http"
    };
    let mut endpoint =
        tonic::transport::Endpoint::from_shared(format!("{scheme}://{}", target(&options.addr)))
            .map_err(|e| connect_failed(e.to_string()))?
            .user_agent(options.user_agent.clone())
            .map_err(|e| connect_failed(e.to_string()))?
            .connect_timeout(options.connect_timeout);
    if let Some(tls) = options.tls.as_ref().filter(|t| !t.no_verify) {
        let config = client_tls(tls).map_err(|e| {
            (
                status::INVALID_ARGUMENTS,
                format!("failed to initialize tls credentials. error={e}"),
            )
        })?;
        endpoint = endpoint
            .tls_config(config)
            .map_err(|e| connect_failed(e.to_string()))?;
    }
    verbose("establishing connection".into());
    let started = Instant::now();
    let connecting = async {
        if no_verify {
            insecure::connect(endpoint, target(&options.addr)).await
        } else {
            endpoint.connect().await
        }
    };
    let channel = match tokio::time::timeout(options.connect_timeout, connecting).await {
        Ok(Ok(channel)) => channel,
        Ok(Err(e)) if !is_timeout(&e) => return Err(connect_failed(source_chain(&e))),
        _ => {
            return Err((
                status::CONNECTION_FAILURE,
                format!(
                    "timeout: failed to connect service {:?} within {:?}",
                    options.addr, options.connect_timeout
                ),
            ));
        }
    };
    let connected = started.elapsed();
    verbose(format!("connection established (took {connected:?})"));
    let mut request = tonic::Request::new(HealthCheckRequest {
        service: options.service.clone(),
    });
    request.set_timeout(options.rpc_timeout);
    for (key, value) in &options.headers {
        let (Ok(key), Ok(value)) = (
            key.parse::<tonic::metadata::MetadataKey<tonic::metadata::Ascii>>(),
            value.parse(),
        ) else {
            return Err((
                status::INVALID_ARGUMENTS,
                format!("error: -rpc-header {key}: not a valid header"),
            ));
        };
        request.metadata_mut().insert(key, value);
    }
    let rpc_started = Instant::now();
    let timed_out = || {
        (
            status::RPC_FAILURE,
            format!(
                "timeout: health rpc did not complete within {:?}",
                options.rpc_timeout
            ),
        )
    };
    let answer = tokio::time::timeout(
        options.rpc_timeout,
        HealthClient::new(channel).check(request),
    )
    .await
    .map_err(|_| timed_out())?;
    let answer = match answer {
        Ok(answer) => answer.into_inner(),
        Err(s) if s.code() == tonic::Code::Unimplemented => {
            return Err((
                status::RPC_FAILURE,
                "error: this server does not implement the grpc health protocol (grpc.health.v1.Health)".into(),
            ));
        }
        Err(s) if s.code() == tonic::Code::DeadlineExceeded => return Err(timed_out()),
        Err(s) => {
            return Err((
                status::RPC_FAILURE,
                format!(
                    "error: health rpc failed: rpc error: code = {:?} desc = {}",
                    s.code(),
                    s.message()
                ),
            ));
        }
    };
    let serving = ServingStatus::try_from(answer.status).unwrap_or(ServingStatus::Unknown);
    if serving != ServingStatus::Serving {
        return Err((
            status::UNHEALTHY,
            format!(
                "service unhealthy (responded with {:?})",
                serving.as_str_name()
            ),
        ));
    }
    verbose(format!(
        "time elapsed: connect={connected:?} rpc={:?}",
        rpc_started.elapsed()
    ));
    eprintln!("status: {}", serving.as_str_name());
    Ok(())
}

/// The client TLS settings of `-tls-*`: the CA file or the system's roots, a
/// client certificate, the name to verify.
fn client_tls(tls: &flags::TlsOptions) -> Result<tonic::transport::ClientTlsConfig, String> {
    use tonic::transport::{Certificate, ClientTlsConfig, Identity};
    let read = |path: &str, what: &str| {
        std::fs::read(path)
            .map_err(|e| format!("failed to load {what} from file ({path}) error={e}"))
    };
    let mut config = ClientTlsConfig::new();
    config = if tls.ca_cert.is_empty() {
        config.with_native_roots()
    } else {
        config.ca_certificate(Certificate::from_pem(read(
            &tls.ca_cert,
            "root CA certificates",
        )?))
    };
    if !tls.client_cert.is_empty() {
        let cert = read(&tls.client_cert, "tls client cert")?;
        let key = read(&tls.client_key, "tls client key")?;
        config = config.identity(Identity::from_pem(cert, key));
    }
    if !tls.server_name.is_empty() {
        config = config.domain_name(tls.server_name.clone());
    }
    Ok(config)
}

/// `:port` is this host, as Go dials it: the loopback address itself, so the
/// probe needs no name resolution (a static binary in an empty image has none
/// configured).
fn target(addr: &str) -> String {
    match addr.strip_prefix(':') {
        Some(port) => format!("127.0.0.1:{port}"),
        None => addr.to_string(),
    }
}

fn is_timeout(error: &tonic::transport::Error) -> bool {
    source_chain(error).contains("timed out")
}

/// An error and its sources, as one line; a cause that says the same as the
/// one before it (hyper-util nests its "tcp connect error") is said once.
fn source_chain(error: &dyn std::error::Error) -> String {
    let mut said = error.to_string();
    let mut text = said.clone();
    let mut source = error.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if line != said {
            text.push_str(": ");
            text.push_str(&line);
        }
        said = line;
        source = cause.source();
    }
    text
}
