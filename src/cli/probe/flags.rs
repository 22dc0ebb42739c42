//! grpc_health_probe's command line, read as Go's `flag` package reads it.
//!
//! In: the arguments after the program name. Out: [`ProbeOptions`], or the
//! message grpc_health_probe prints for bad arguments. Written by hand because
//! clap does not parse Go's syntax: single-dash long flags (`-addr`), `-flag
//! value` and `-flag=value` alike, `--flag` as `-flag`, booleans only as `-tls`
//! or `-tls=false`, parsing stopping at the first non-flag or at `--`; and
//! because the checks after parsing must say what grpc_health_probe says.

use std::time::Duration;

/// What to probe and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeOptions {
    /// `-addr`: `host:port` (`:port` for this host).
    pub addr: String,
    /// `-service`: the service name in the request (`""`: the server).
    pub service: String,
    /// `-connect-timeout`.
    pub connect_timeout: Duration,
    /// `-rpc-timeout`.
    pub rpc_timeout: Duration,
    /// `-user-agent`.
    pub user_agent: String,
    /// `-rpc-header`: metadata sent with the check, in order.
    pub headers: Vec<(String, String)>,
    /// `-tls` and its settings.
    pub tls: Option<TlsOptions>,
    /// `-v`.
    pub verbose: bool,
}

/// `-tls-*`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// `-tls-no-verify`.
    pub no_verify: bool,
    /// `-tls-ca-cert`.
    pub ca_cert: String,
    /// `-tls-client-cert`.
    pub client_cert: String,
    /// `-tls-client-key`.
    pub client_key: String,
    /// `-tls-server-name`.
    pub server_name: String,
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Probe.
    Probe(Box<ProbeOptions>),
    /// `-h`/`-help`: print the usage, exit 0.
    Help,
    /// `-version`.
    Version,
}

const BOOLS: &[&str] = &[
    "tls",
    "tls-no-verify",
    "v",
    "gzip",
    "alts",
    "spiffe",
    "version",
    "h",
    "help",
];
const VALUES: &[&str] = &[
    "addr",
    "service",
    "connect-timeout",
    "rpc-timeout",
    "user-agent",
    "rpc-header",
    "tls-ca-cert",
    "tls-client-cert",
    "tls-client-key",
    "tls-server-name",
];

/// The usage text (`-h`).
pub const USAGE: &str = "\
Usage of grpc_health_probe (fbc-registry probe):
  -addr string             (required) tcp host:port to connect
  -service string          service name to check (default: \"\")
  -connect-timeout dur     timeout for establishing connection (default 1s)
  -rpc-timeout dur         timeout for health check rpc (default 1s)
  -user-agent string       user-agent header value of health check requests (default \"grpc_health_probe\")
  -rpc-header key:value    additional RPC header, repeatable
  -tls                     use TLS (default: false, INSECURE plaintext transport)
  -tls-no-verify           (with -tls) don't verify the certificate presented by the server
  -tls-ca-cert file        (with -tls, optional) file containing trusted certificates for verifying server
  -tls-client-cert file    (with -tls, optional) client certificate (requires -tls-client-key)
  -tls-client-key file     (with -tls) client private key (requires -tls-client-cert)
  -tls-server-name name    (with -tls) override the hostname used to verify the server certificate
  -v                       verbose logs
  -version                 print the version and exit
";

/// Parses `args`; `Err` is the message for exit code 1.
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut values: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            break;
        }
        let Some(flag) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            break;
        };
        if flag.is_empty() || flag.starts_with('-') || flag.starts_with('=') {
            return Err(format!("bad flag syntax: {arg}"));
        }
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (flag, None),
        };
        let value = if BOOLS.contains(&name) {
            let value = inline.unwrap_or_else(|| "true".into());
            go_bool(&value).ok_or_else(|| {
                format!("invalid boolean value {value:?} for -{name}: parse error")
            })?;
            value
        } else if VALUES.contains(&name) {
            match inline {
                Some(value) => value,
                None => {
                    let value = args
                        .get(i)
                        .ok_or_else(|| format!("flag needs an argument: -{name}"))?;
                    i += 1;
                    value.clone()
                }
            }
        } else {
            return Err(format!("flag provided but not defined: -{name}"));
        };
        values.push((name.to_string(), value));
    }
    options(&values)
}

fn go_bool(value: &str) -> Option<bool> {
    match value {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// The last value of each flag (Go's rule), `-rpc-header` collected, then the
/// checks grpc_health_probe makes, in its order.
fn options(values: &[(String, String)]) -> Result<Parsed, String> {
    let last = |name: &str| {
        values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let flag = |name: &str| last(name).and_then(go_bool).unwrap_or(false);
    let text = |name: &str| last(name).unwrap_or_default().to_string();
    let duration = |name: &str| -> Result<Duration, String> {
        match last(name) {
            None => Ok(Duration::from_secs(1)),
            Some(v) => go_duration(v)
                .ok_or_else(|| format!("invalid value {v:?} for flag -{name}: parse error")),
        }
    };
    if flag("h") || flag("help") {
        return Ok(Parsed::Help);
    }
    if flag("version") {
        return Ok(Parsed::Version);
    }
    let connect_timeout = duration("connect-timeout")?;
    let rpc_timeout = duration("rpc-timeout")?;
    let tls = TlsOptions {
        no_verify: flag("tls-no-verify"),
        ca_cert: text("tls-ca-cert"),
        client_cert: text("tls-client-cert"),
        client_key: text("tls-client-key"),
        server_name: text("tls-server-name"),
    };
    let use_tls = flag("tls");
    let addr = text("addr");
    let checks = [
        (addr.is_empty(), "-addr not specified".to_string()),
        (
            connect_timeout.is_zero(),
            "-connect-timeout must be greater than zero".into(),
        ),
        (
            rpc_timeout.is_zero(),
            "-rpc-timeout must be greater than zero".into(),
        ),
        (
            !use_tls && tls.no_verify,
            "specified -tls-no-verify without specifying -tls".into(),
        ),
        (
            !use_tls && !tls.ca_cert.is_empty(),
            "specified -tls-ca-cert without specifying -tls".into(),
        ),
        (
            !use_tls && !tls.client_cert.is_empty(),
            "specified -tls-client-cert without specifying -tls".into(),
        ),
        (
            !use_tls && !tls.server_name.is_empty(),
            "specified -tls-server-name without specifying -tls".into(),
        ),
        (
            !tls.client_cert.is_empty() && tls.client_key.is_empty(),
            "specified -tls-client-cert without specifying -tls-client-key".into(),
        ),
        (
            tls.client_cert.is_empty() && !tls.client_key.is_empty(),
            "specified -tls-client-key without specifying -tls-client-cert".into(),
        ),
        (
            tls.no_verify && !tls.ca_cert.is_empty(),
            "cannot specify -tls-ca-cert with -tls-no-verify (CA cert would not be used)".into(),
        ),
        (
            tls.no_verify && !tls.server_name.is_empty(),
            "cannot specify -tls-server-name with -tls-no-verify (server name would not be used)"
                .into(),
        ),
        (flag("alts"), "-alts is not supported by this probe".into()),
        (
            flag("spiffe"),
            "-spiffe is not supported by this probe".into(),
        ),
    ];
    if let Some((_, message)) = checks.into_iter().find(|(bad, _)| *bad) {
        return Err(message);
    }
    let headers = values
        .iter()
        .filter(|(n, _)| n == "rpc-header")
        .map(|(_, v)| {
            v.split_once(':')
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
                .ok_or_else(|| format!("-rpc-header {v:?}: use key:value"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Parsed::Probe(Box::new(ProbeOptions {
        addr,
        service: text("service"),
        connect_timeout,
        rpc_timeout,
        user_agent: last("user-agent")
            .unwrap_or("grpc_health_probe")
            .to_string(),
        headers,
        tls: use_tls.then_some(tls),
        verbose: flag("v"),
    })))
}

/// A Go duration (`1s`, `1.5s`, `300ms`, `1m30s`; a bare `0`).
pub fn go_duration(text: &str) -> Option<Duration> {
    if text == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = text.strip_prefix('+').unwrap_or(text);
    if rest.is_empty() || rest.starts_with('-') {
        return None;
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(number_end);
        let number: f64 = number.parse().ok()?;
        let unit_end = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_end);
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += number * scale;
        rest = tail;
    }
    Duration::try_from_secs_f64(total).ok()
}

#[cfg(test)]
mod tests;
