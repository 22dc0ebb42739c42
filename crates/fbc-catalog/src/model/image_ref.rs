//! Container image references, validated by the grammar of distribution/reference.
//!
//! In: an image pull spec. Out: `Ok(())` or why it is not a valid reference.
//!
//! `reference := name [":" tag] ["@" digest]`; the name is an optional registry host
//! (with port) and lowercase path components joined by `.`, `_`, `__` or dashes;
//! a tag is `[\w][\w.-]{0,127}`; a digest is `algorithm:hex` and only `sha256`,
//! `sha384` and `sha512` with the right number of lowercase hex digits are accepted.

/// Checks one image reference.
pub fn validate(reference: &str) -> Result<(), String> {
    let (rest, digest) = match reference.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (reference, None),
    };
    let (name, tag) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains('/') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    if name.is_empty() {
        return Err("repository name must have at least one component".into());
    }
    if name.len() > 255 {
        return Err("repository name must not be more than 255 characters".into());
    }
    let mut components: Vec<&str> = name.split('/').collect();
    if components.len() > 1 && looks_like_domain(components[0]) {
        validate_domain(components[0])?;
        components.remove(0);
    }
    for component in &components {
        validate_path_component(component)?;
    }
    if components.len() == 1
        && components[0].len() == 64
        && components[0].bytes().all(|b| b.is_ascii_hexdigit())
    {
        return Err("cannot specify 64-byte hexadecimal strings as a repository name".into());
    }
    if let Some(tag) = tag {
        validate_tag(tag)?;
    }
    if let Some(digest) = digest {
        validate_digest(digest)?;
    }
    Ok(())
}

fn looks_like_domain(first: &str) -> bool {
    first.contains('.')
        || first.contains(':')
        || first == "localhost"
        || first.chars().any(|c| c.is_ascii_uppercase())
}

fn validate_domain(domain: &str) -> Result<(), String> {
    let bad = || Err(format!("invalid registry host {domain:?}"));
    let (host, port) = if let Some(rest) = domain.strip_prefix('[') {
        // [IPv6]:port
        let Some((v6, after)) = rest.split_once(']') else {
            return bad();
        };
        if v6.is_empty() || !v6.chars().all(|c| c.is_ascii_hexdigit() || c == ':') {
            return bad();
        }
        (None, after.strip_prefix(':'))
    } else {
        match domain.rsplit_once(':') {
            Some((h, p)) => (Some(h), Some(p)),
            None => (Some(domain), None),
        }
    };
    if let Some(host) = host {
        for part in host.split('.') {
            let ok = !part.is_empty()
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !part.starts_with('-')
                && !part.ends_with('-');
            if !ok {
                return bad();
            }
        }
    }
    if let Some(port) = port
        && (port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()))
    {
        return bad();
    }
    Ok(())
}

fn validate_path_component(component: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "invalid repository path component {component:?}: {why}"
        ))
    };
    if component.is_empty() {
        return bad("empty");
    }
    if component.chars().any(|c| c.is_ascii_uppercase()) {
        return bad("repository name must be lowercase");
    }
    let b = component.as_bytes();
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    if !alnum(b[0]) || !alnum(b[b.len() - 1]) {
        return bad("must start and end with a lowercase letter or digit");
    }
    let mut i = 0;
    while i < b.len() {
        if alnum(b[i]) {
            i += 1;
            continue;
        }
        // a separator: `.`, `_`, `__` or one or more `-`
        let start = i;
        match b[i] {
            b'.' => i += 1,
            b'_' => {
                i += 1;
                if i < b.len() && b[i] == b'_' {
                    i += 1;
                }
            }
            b'-' => {
                while i < b.len() && b[i] == b'-' {
                    i += 1;
                }
            }
            _ => return bad("only lowercase letters, digits and separators . _ __ - are allowed"),
        }
        if i >= b.len() || !alnum(b[i]) || i == start {
            return bad("a separator must be followed by a letter or digit");
        }
    }
    Ok(())
}

fn validate_tag(tag: &str) -> Result<(), String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut chars = tag.chars();
    let ok = tag.len() <= 128
        && chars.next().is_some_and(word)
        && chars.all(|c| word(c) || c == '.' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!("invalid tag {tag:?}"))
    }
}

fn validate_digest(digest: &str) -> Result<(), String> {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return Err(format!("invalid digest {digest:?}: expected algorithm:hex"));
    };
    let expected = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return Err(format!("unsupported digest algorithm {algorithm:?}")),
    };
    if hex.len() != expected
        || !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(format!(
            "invalid {algorithm} digest: expected {expected} lowercase hex digits"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::validate;

    const SHA: &str = "f42337e7b85a46d83c94694638e2312e10ca16a03542399a65ba783c94a32b63";

    #[test]
    fn valid_references() {
        for r in [
            "busybox",
            "quay.io/example/operator:v1.0.0",
            "localhost:5000/a/b",
            "fake/etcd-operator:v0.9.2",
            &format!("quay.io/openshift-community-operators/cockroachdb@sha256:{SHA}"),
            &format!("repo:tag@sha256:{SHA}"),
            "registry.example.com:443/ns/name__x.y-z:1.0_rc-1",
            "[::1]:5000/foo",
        ] {
            assert_eq!(validate(r), Ok(()), "{r}");
        }
    }

    #[test]
    fn an_uppercase_first_component_is_a_registry_host_like_in_go() {
        assert_eq!(validate("UPPER/case"), Ok(()));
    }

    #[test]
    fn invalid_references() {
        for r in [
            "",
            "foo/Bar",
            &format!("repo@ssha256:{SHA}"),
            "repo@md5:d41d8cd98f00b204e9800998ecf8427e",
            "repo@sha256:abc",
            "repo:-tag",
            "a//b",
            "foo-/bar",
            &"a".repeat(256),
            "quay.io/foo bar",
        ] {
            assert!(validate(r).is_err(), "{r:?} should be rejected");
        }
    }
}
