//! Addresses a load generator may drive: loopback only, so no one points these tools
//! at somebody else's server. Shared by `load` and `olm_load`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// `IP:port` or `localhost:PORT`, refused unless it is a loopback address.
pub(crate) fn parse_loopback(s: &str) -> Result<SocketAddr, String> {
    let addr = match s.strip_prefix("localhost:") {
        Some(port) => {
            let port: u16 = port.parse().map_err(|_| format!("bad port in {s:?}"))?;
            SocketAddr::from((Ipv4Addr::LOCALHOST, port))
        }
        None => s
            .parse::<SocketAddr>()
            .map_err(|_| format!("{s:?} is not IP:port (e.g. 127.0.0.1:50051 or [::1]:50051)"))?,
    };
    let loopback = match addr.ip() {
        IpAddr::V4(ip) => ip.octets()[0] == 127,
        IpAddr::V6(ip) => ip == Ipv6Addr::LOCALHOST,
    };
    if loopback {
        Ok(addr)
    } else {
        Err(format!(
            "refusing {addr}: only loopback addresses (127.0.0.0/8, ::1) may be load-tested"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback() {
        assert!(parse_loopback("127.0.0.1:1").is_ok());
        assert!(parse_loopback("127.9.9.9:1").is_ok());
        assert!(parse_loopback("[::1]:1").is_ok());
        assert!(parse_loopback("localhost:50051").is_ok());
        assert!(parse_loopback("10.0.0.1:1").is_err());
        assert!(parse_loopback("[::ffff:127.0.0.1]:1").is_err());
        assert!(parse_loopback("0.0.0.0:1").is_err());
        assert!(parse_loopback("example.com:1").is_err());
    }
}
