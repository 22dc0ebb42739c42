//! Catalog names as catalogd accepts them: Kubernetes DNS-1123 subdomains.
//!
//! In: a name (the path segment of `/catalogs/{name}/…`, or `--catalog-name`).
//! Out: `Ok`, or the messages of apimachinery's `IsDNS1123Subdomain` (v0.36.3's
//! wording), which catalogd joins with `"; "` after `invalid catalog name: `.
//! Written by hand: the rule is one regular expression and a length, and the
//! messages must be Kubernetes' exact text.

/// The longest DNS-1123 subdomain.
pub const MAX_LENGTH: usize = 253;

/// apimachinery's message for a name that does not match the subdomain pattern.
pub const FORMAT_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// A catalog name catalogd would refuse, with every reason in apimachinery's order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid catalog name: {}", .messages.join("; "))]
pub struct InvalidName {
    /// The messages, as apimachinery returns them.
    pub messages: Vec<String>,
}

/// Checks `name` as `validation.IsDNS1123Subdomain` does.
pub fn check(name: &str) -> Result<(), InvalidName> {
    let mut messages = Vec::new();
    if name.len() > MAX_LENGTH {
        messages.push(format!("must be no more than {MAX_LENGTH} characters"));
    }
    if !is_subdomain(name) {
        messages.push(FORMAT_MESSAGE.to_string());
    }
    if messages.is_empty() {
        Ok(())
    } else {
        Err(InvalidName { messages })
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, whole string.
fn is_subdomain(name: &str) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    name.split('.').all(|label| {
        let bytes = label.as_bytes();
        match (bytes.first(), bytes.last()) {
            (Some(&first), Some(&last)) => {
                alnum(first) && alnum(last) && bytes.iter().all(|&b| alnum(b) || b == b'-')
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdomains_pass() {
        for ok in [
            "a",
            "operatorhubio",
            "community-v4.16",
            "a.b-c.d",
            "0",
            "x".repeat(253).as_str(),
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn refusals_carry_apimachinery_messages() {
        for bad in ["", "A", "-a", "a-", "a..b", ".a", "a/b", "a_b", "é"] {
            assert_eq!(
                check(bad).map_err(|e| e.messages),
                Err(vec![FORMAT_MESSAGE.to_string()]),
                "{bad:?}"
            );
        }
        let long = check(&"a".repeat(254)).unwrap_err();
        assert_eq!(
            long.messages,
            vec!["must be no more than 253 characters".to_string()]
        );
        let both = check(&format!("{}_", "a".repeat(253))).unwrap_err();
        assert_eq!(both.messages.len(), 2);
        assert!(both.to_string().starts_with(
            "invalid catalog name: must be no more than 253 characters; a lowercase RFC 1123"
        ));
    }
}
