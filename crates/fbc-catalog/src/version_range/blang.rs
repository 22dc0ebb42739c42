//! The blang/semver v4 range grammar, used by `skipRange`.
//!
//! In: a range string such as `>=1.0.0 <2.0.0 || 3.x`. Out: a [`Range`], or why it
//! does not parse. The rules, exactly as the Go library applies them:
//!
//! 1. the string is split at spaces, except a space right after `>`, `<` or `=`
//!    (`>= 1.0.0` is one token); single-character tokens are dropped;
//! 2. `||` tokens separate OR groups (AND binds tighter); a leading or trailing
//!    `||` is an error, and so is an empty group (`a || || b`: Go accepts it and
//!    panics when evaluation reaches it);
//! 3. every token containing `x` is a wildcard: `1.2.x` and `1.x` (also `1.x.x`,
//!    which the library treats as `1.0.x`) expand to comparators
//!    (`=1.2.x` → `>=1.2.0 <1.3.0`; `>1.2.x` → `>=1.3.0`; `<=1.2.x` → `<1.3.0`;
//!    `!=1.2.x` → `<1.2.0` **and** `>=1.3.0` in the same AND group, which can
//!    never match: a library bug that OLM inherits, kept on purpose);
//! 4. each token is an operator (`=`, `==`, none; `!`, `!=`; `>`, `>=`, `<`, `<=`)
//!    followed by a strict `MAJOR.MINOR.PATCH[-pre][+build]` version (numeric
//!    prerelease identifiers within `u64`, as blang's `ParseUint` demands);
//! 5. comparison is semver precedence; build metadata is ignored and prereleases
//!    are **not** excluded (`<2.0.0` matches `2.0.0-rc.1`).
//!
//! A comma is not a separator: `>=1.0.0, <2.0.0` fails, and OLM then ignores the
//! skipRange.

use semver::Version;
use std::cmp::Ordering;
use std::fmt;

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`, `==` or none.
    Eq,
    /// `!` or `!=`.
    Ne,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
}

/// One `op version` test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparator {
    /// The operator.
    pub op: Op,
    /// The version compared against.
    pub version: Version,
}

impl Comparator {
    fn matches(&self, v: &Version) -> bool {
        let ord = v.cmp_precedence(&self.version);
        match self.op {
            Op::Eq => ord == Ordering::Equal,
            Op::Ne => ord != Ordering::Equal,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
        }
    }
}

/// A parsed blang range: an OR of AND groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// OR of AND groups.
    pub any_of: Vec<Vec<Comparator>>,
}

impl Range {
    /// Whether `v` is in the range.
    pub fn matches(&self, v: &Version) -> bool {
        self.any_of
            .iter()
            .any(|group| group.iter().all(|c| c.matches(v)))
    }
}

/// The comparators as the range reads them after wildcard expansion:
/// `>=1.2.0 <1.3.0 || =2.0.0`.
impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, group) in self.any_of.iter().enumerate() {
            if i > 0 {
                f.write_str(" || ")?;
            }
            for (j, c) in group.iter().enumerate() {
                if j > 0 {
                    f.write_str(" ")?;
                }
                let op = match c.op {
                    Op::Eq => "=",
                    Op::Ne => "!=",
                    Op::Gt => ">",
                    Op::Ge => ">=",
                    Op::Lt => "<",
                    Op::Le => "<=",
                };
                write!(f, "{op}{}", c.version)?;
            }
        }
        Ok(())
    }
}

/// Why a range does not parse; the text matches the Go library's where it can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct RangeError(pub String);

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses a range in the blang/semver v4 grammar (see the module docs).
pub fn parse(s: &str) -> Result<Range, RangeError> {
    let tokens = split_and_trim(s);
    let groups = split_or(&tokens)?;
    // Go expands every group before it builds any comparator, so a wildcard
    // error anywhere wins over a bad comparator earlier in the string.
    let groups = groups
        .iter()
        .map(|g| expand_wildcards(g))
        .collect::<Result<Vec<_>, _>>()?;
    let mut any_of = Vec::with_capacity(groups.len());
    for group in groups {
        let mut all_of = Vec::new();
        for token in group {
            let (op, version) = split_comparator(&token)?;
            // Go wraps both failures in `Could not parse Range %q: …`, the
            // inner text naming the trimmed operator and the version.
            let op_version = format!("{op}{version}");
            let op = parse_op(op).ok_or_else(|| {
                RangeError(format!(
                    "Could not parse Range {token:?}: Could not parse comparator {op:?} in {op_version:?}"
                ))
            })?;
            let bad_version = |why: String| {
                RangeError(format!(
                    "Could not parse Range {token:?}: Could not parse version {version:?} in {op_version:?}: {why}"
                ))
            };
            let version = Version::parse(version).map_err(|e| bad_version(e.to_string()))?;
            if !is_blang_version(&version) {
                return Err(bad_version("strconv.ParseUint: value out of range".into()));
            }
            all_of.push(Comparator { op, version });
        }
        any_of.push(all_of);
    }
    // `a || || b`: Go builds a nil AND function for the empty group and
    // panics when evaluation reaches it; refusing it is the only answer that
    // never differs from Go's in a match. Checked last, where Go has no error.
    if any_of.iter().any(Vec::is_empty) {
        return Err(RangeError("Empty element between '||' in range".into()));
    }
    Ok(Range { any_of })
}

/// Whether blang's strict `Parse` accepts what the `semver` crate parsed: the
/// crate allows numeric prerelease identifiers of any size, blang only those
/// that fit a `u64` (`NewPRVersion` uses `ParseUint`).
pub fn is_blang_version(v: &Version) -> bool {
    v.pre.is_empty()
        || v.pre
            .as_str()
            .split('.')
            .all(|id| !id.bytes().all(|b| b.is_ascii_digit()) || id.parse::<u64>().is_ok())
}

/// blang's `ParseTolerant`, as OLM v0 reads a bundle's or an installed CSV's
/// version: surrounding spaces and a leading `v` dropped, leading zeros of the
/// first three dot-separated parts removed, a missing minor or patch filled in
/// with 0 (unless the short version carries `-` or `+`), then the strict parse.
pub fn parse_tolerant(s: &str) -> Result<Version, RangeError> {
    let s = s.trim();
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_owned).collect();
    for part in &mut parts {
        if part.len() > 1 {
            let trimmed = part.trim_start_matches('0');
            *part = match trimmed.chars().next() {
                Some(c) if c.is_ascii_digit() => trimmed.to_owned(),
                _ => format!("0{trimmed}"),
            };
        }
    }
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err(RangeError(
                "Short version cannot contain PreRelease/Build meta data".into(),
            ));
        }
        parts.resize(3, "0".to_owned());
    }
    parse_strict(&parts.join("."))
}

/// blang's strict `Parse`, with blang's error texts (`Invalid character(s) found
/// in major number "0v4"`): OLM prints them.
pub fn parse_strict(s: &str) -> Result<Version, RangeError> {
    use super::go_text::go_quote;
    let err = |m: String| Err(RangeError(m));
    if s.is_empty() {
        return err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts.as_slice() else {
        return err("No Major.Minor.Patch elements found".into());
    };
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let number = |t: &str, what: &str, capital: &str| -> Result<(), RangeError> {
        if !digits(t) {
            return Err(RangeError(format!(
                "Invalid character(s) found in {what} number {}",
                go_quote(t)
            )));
        }
        if t.len() > 1 && t.starts_with('0') {
            return Err(RangeError(format!(
                "{capital} number must not contain leading zeroes {}",
                go_quote(t)
            )));
        }
        if t.parse::<u64>().is_err() {
            let why = if t.is_empty() {
                "invalid syntax"
            } else {
                "value out of range"
            };
            return Err(RangeError(format!(
                "strconv.ParseUint: parsing {}: {why}",
                go_quote(t)
            )));
        }
        Ok(())
    };
    number(major, "major", "Major")?;
    number(minor, "minor", "Minor")?;
    let (rest, build) = match rest.split_once('+') {
        Some((r, b)) => (r, Some(b)),
        None => (*rest, None),
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((p, pre)) => (p, Some(pre)),
        None => (rest, None),
    };
    number(patch, "patch", "Patch")?;
    for id in pre
        .map(|p| p.split('.').collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if id.is_empty() {
            return err("Prerelease is empty".into());
        }
        if digits(id) {
            if id.len() > 1 && id.starts_with('0') {
                return err(format!(
                    "Numeric PreRelease version must not contain leading zeroes {}",
                    go_quote(id)
                ));
            }
            if id.parse::<u64>().is_err() {
                return err(format!(
                    "strconv.ParseUint: parsing {}: value out of range",
                    go_quote(id)
                ));
            }
        } else if !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return err(format!(
                "Invalid character(s) found in prerelease {}",
                go_quote(id)
            ));
        }
    }
    for id in build
        .map(|b| b.split('.').collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if id.is_empty() {
            return err("Build meta data is empty".into());
        }
        if !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return err(format!(
                "Invalid character(s) found in build meta data {}",
                go_quote(id)
            ));
        }
    }
    Version::parse(s).map_err(|e| RangeError(e.to_string()))
}

fn split_and_trim(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut result = Vec::new();
    let mut last = 0usize;
    let mut last_char = 0u8;
    for i in 0..b.len() {
        if b[i] == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            if last + 1 < i {
                result.push(&s[last..i]);
            }
            last = i + 1;
        } else if b[i] != b' ' {
            last_char = b[i];
        }
    }
    if last + 1 < b.len() {
        result.push(&s[last..]);
    }
    result.into_iter().map(|t| t.replace(' ', "")).collect()
}

fn split_or(tokens: &[String]) -> Result<Vec<Vec<String>>, RangeError> {
    let mut groups = Vec::new();
    let mut last = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t == "||" {
            if i == 0 {
                return Err(RangeError("First element in range is '||'".into()));
            }
            groups.push(tokens[last..i].to_vec());
            last = i + 1;
        }
    }
    if last == tokens.len() {
        return Err(RangeError("Last element in range is '||'".into()));
    }
    groups.push(tokens[last..].to_vec());
    Ok(groups)
}

/// Unicode decimal digits (category Nd) as ranges, Unicode 15.0 (Go 1.21+):
/// Go's `unicode.IsDigit`, which `splitComparatorVersion` splits at.
const DECIMAL_DIGITS: &[(u32, u32)] = &[
    (0x30, 0x39),
    (0x660, 0x669),
    (0x6f0, 0x6f9),
    (0x7c0, 0x7c9),
    (0x966, 0x96f),
    (0x9e6, 0x9ef),
    (0xa66, 0xa6f),
    (0xae6, 0xaef),
    (0xb66, 0xb6f),
    (0xbe6, 0xbef),
    (0xc66, 0xc6f),
    (0xce6, 0xcef),
    (0xd66, 0xd6f),
    (0xde6, 0xdef),
    (0xe50, 0xe59),
    (0xed0, 0xed9),
    (0xf20, 0xf29),
    (0x1040, 0x1049),
    (0x1090, 0x1099),
    (0x17e0, 0x17e9),
    (0x1810, 0x1819),
    (0x1946, 0x194f),
    (0x19d0, 0x19d9),
    (0x1a80, 0x1a89),
    (0x1a90, 0x1a99),
    (0x1b50, 0x1b59),
    (0x1bb0, 0x1bb9),
    (0x1c40, 0x1c49),
    (0x1c50, 0x1c59),
    (0xa620, 0xa629),
    (0xa8d0, 0xa8d9),
    (0xa900, 0xa909),
    (0xa9d0, 0xa9d9),
    (0xa9f0, 0xa9f9),
    (0xaa50, 0xaa59),
    (0xabf0, 0xabf9),
    (0xff10, 0xff19),
    (0x104a0, 0x104a9),
    (0x10d30, 0x10d39),
    (0x11066, 0x1106f),
    (0x110f0, 0x110f9),
    (0x11136, 0x1113f),
    (0x111d0, 0x111d9),
    (0x112f0, 0x112f9),
    (0x11450, 0x11459),
    (0x114d0, 0x114d9),
    (0x11650, 0x11659),
    (0x116c0, 0x116c9),
    (0x11730, 0x11739),
    (0x118e0, 0x118e9),
    (0x11950, 0x11959),
    (0x11c50, 0x11c59),
    (0x11d50, 0x11d59),
    (0x11da0, 0x11da9),
    (0x11f50, 0x11f59),
    (0x16a60, 0x16a69),
    (0x16ac0, 0x16ac9),
    (0x16b50, 0x16b59),
    (0x1d7ce, 0x1d7ff),
    (0x1e140, 0x1e149),
    (0x1e2f0, 0x1e2f9),
    (0x1e4f0, 0x1e4f9),
    (0x1e950, 0x1e959),
    (0x1fbf0, 0x1fbf9),
];

fn is_go_digit(c: char) -> bool {
    let c = c as u32;
    DECIMAL_DIGITS
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// `splitComparatorVersion`: the operator is what precedes the first decimal
/// digit, any script's (`٣1.x` has the operator `` and a version that never
/// parses, as in Go).
fn split_comparator(token: &str) -> Result<(&str, &str), RangeError> {
    match token.find(is_go_digit) {
        Some(i) => Ok((token[..i].trim(), &token[i..])),
        None => Err(RangeError(format!(
            "Could not get version from string: {token:?}"
        ))),
    }
}

fn parse_op(op: &str) -> Option<Op> {
    Some(match op {
        "" | "=" | "==" => Op::Eq,
        "!" | "!=" => Op::Ne,
        ">" => Op::Gt,
        ">=" => Op::Ge,
        "<" => Op::Lt,
        "<=" => Op::Le,
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Wildcard {
    None,
    Major,
    Minor,
    Patch,
}

fn wildcard_type(v: &str) -> Wildcard {
    let parts: Vec<&str> = v.split('.').collect();
    if parts.last() != Some(&"x") {
        return Wildcard::None;
    }
    match parts.len() {
        1 => Wildcard::Major,
        2 => Wildcard::Minor,
        3 => Wildcard::Patch,
        _ => Wildcard::None,
    }
}

fn flatten_wildcard(v: &str) -> String {
    let v = v.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
    if v.split('.').count() == 2 {
        format!("{v}.0")
    } else {
        v
    }
}

/// `incrementMajorVersion` / `incrementMinorVersion`: the part goes through
/// Go's `strconv.Atoi` (an `i64`, sign allowed: `1.-1.x` bumps to `1.0.0`),
/// lower parts are left alone (`1.2.3` → `2.2.3`; expansion only bumps versions
/// whose lower parts are already 0). A part out of `i64` range, or one that
/// would overflow, yields a string that does not parse, as Go's error or
/// wrapped negative number does.
fn increment(v: &str, part: usize) -> String {
    let mut parts: Vec<String> = v.split('.').map(str::to_string).collect();
    let Some(n) = parts
        .get(part)
        .and_then(|p| p.parse::<i64>().ok())
        .and_then(|n| n.checked_add(1))
    else {
        return String::new();
    };
    parts[part] = n.to_string();
    parts.join(".")
}

fn expand_wildcards(group: &[String]) -> Result<Vec<String>, RangeError> {
    let mut out = Vec::new();
    for token in group {
        if !token.contains('x') {
            out.push(token.clone());
            continue;
        }
        let (op, v) = split_comparator(token)?;
        let kind = wildcard_type(v);
        let flat = flatten_wildcard(v);
        let (result_op, bump) = match op {
            ">" => (">=", true),
            ">=" => (">=", false),
            "<" => ("<", false),
            "<=" => ("<", true),
            "" | "=" | "==" => {
                out.push(format!(">={flat}"));
                ("<", true)
            }
            "!=" | "!" => {
                out.push(format!("<{flat}"));
                (">=", true)
            }
            _ => ("", false),
        };
        let version = if bump {
            match kind {
                Wildcard::Patch => increment(&flat, 1),
                Wildcard::Minor => increment(&flat, 0),
                _ => String::new(),
            }
        } else {
            flat
        };
        out.push(format!("{result_op}{version}"));
    }
    Ok(out)
}

#[cfg(test)]
mod go_tables;
#[cfg(test)]
mod oracle_tables;

#[cfg(test)]
mod tests;
