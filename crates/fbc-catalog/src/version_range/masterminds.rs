//! The Masterminds/semver v3 constraint grammar, as OLM v1's operator-controller
//! uses it for `ClusterExtension.spec.source.catalog.version`.
//!
//! In: a constraint string such as `>=1.2, <2 || ~3.1.0-rc.1`. Out: a
//! [`Constraints`] that tests `semver::Version`s, shows itself the way the Go
//! library prints it ([`fmt::Display`]) and as the comparators each token stands
//! for ([`Constraints::expanded`]), or a [`RangeError`] in the library's words.
//!
//! Semantics are those of `NewConstraint` + `Check` in Masterminds v3.4+/3.5
//! (`IncludePrerelease` false, `CoerceNewVersion` true), read from the Go
//! source at mirror HEAD `71f2b39`: v3.4.0 plus #273, #278 (v3.5's `%q`
//! error quoting) and #279; v3.5.0's #280/#281 were not in the mirror.
//!
//! 1. hyphen ranges `A - B` (spaces required) are rewritten to `>= A, <= B`
//!    first, on the whole string; a partial `B` covers its bucket (`1.2 - 2`
//!    includes 2.9.0, since `<=2` is "major at most 2");
//! 2. the string is split at `||`; each part is a list of comparators
//!    separated by whitespace (`\t\n\f\r ` and space) or one comma;
//! 3. a comparator is an operator (`=`, none, `!=`, `>`, `<`, `>=`, `=>`,
//!    `<=`, `=<`, `~`, `~>`, `^`) and a version with an optional `v`, one to
//!    three numbers where `x`, `X`, `*` are wildcards, and optional
//!    prerelease and build. Everything after the first wildcard (or missing
//!    part) is ignored, so `x.2.3` is `*` and `1.x.3` is `1.x`; leading zeros
//!    are accepted (`=01.2.3`); build metadata is kept only on full versions.
//!    The number class includes a literal `|` (a typo in the Go regex), so
//!    `2|` passes the grammar and fails conversion, and `1||2 - 3` rewrites to
//!    `>= 1||2, <= 3` before the `||` split;
//! 4. a version with a prerelease matches only if its OR group contains a
//!    comparator whose version has a prerelease (any version's: `>=1.0.0-0`
//!    admits `3.0.0-rc.1`);
//! 5. the operators' quirks are the library's: `<=*` is `<0.1.0`, `>*` is
//!    `>0.0.0`, `!=*` is `!=0.0.0`, `^*` is `=0.0.0`, `!=1.2.x` is "another
//!    minor, or another prerelease string", and comparison ignores build
//!    metadata.
//!
//! Deliberate deviation: strings over [`MAX_LEN`] bytes are refused (Go has
//! no limit; the hyphen-range rewrite is quadratic in the number of ranges).

use semver::Version;
use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;

mod eval;
mod syntax;

pub use eval::{Bound, CmpOp, Expanded, ExpandedGroup, ExpandedToken};

/// Longest constraint string [`parse`] accepts, in bytes.
pub const MAX_LEN: usize = 16 * 1024;

/// Why a constraint string does not parse. `Display` is the Go library's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// A `||` part is not a list of comparators (after hyphen-range rewriting,
    /// which is what the message quotes, as Go does).
    #[error("improper constraint: {}", crate::version_range::go_text::go_quote(.0))]
    Improper(String),
    /// A comparator passed the grammar but its version does not convert: a
    /// number over 2^64-1, a wildcard character inside a number (`1x`, `2|`),
    /// or a numeric prerelease identifier with a leading zero (`-beta.01`).
    #[error("constraint parser error")]
    Version {
        /// The comparator, operator included.
        token: String,
    },
    /// Longer than [`MAX_LEN`] (not a Go error: see the module docs).
    #[error("constraint is {0} bytes long, over the limit of {MAX_LEN}")]
    TooLong(usize),
}

/// A comparison operator, by the check function the Go library maps it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Op {
    /// None or `=`: equality, or `~` when the version has a wildcard.
    Eq,
    /// `!=`.
    Ne,
    /// `>`.
    Gt,
    /// `<`.
    Lt,
    /// `>=` or `=>`.
    Ge,
    /// `<=` or `=<`.
    Le,
    /// `~` or `~>`.
    Tilde,
    /// `^`.
    Caret,
}

impl Op {
    fn from_spelling(s: &str) -> Option<Op> {
        Some(match s {
            "" | "=" => Op::Eq,
            "!=" => Op::Ne,
            ">" => Op::Gt,
            "<" => Op::Lt,
            ">=" | "=>" => Op::Ge,
            "<=" | "=<" => Op::Le,
            "~" | "~>" => Op::Tilde,
            "^" => Op::Caret,
            _ => return None,
        })
    }
}

/// Where a comparator's version stops being exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Wildcard {
    /// A full `M.m.p`.
    None,
    /// `*`, `x`, `X` (or `x.…`) as the major: the version becomes `0.0.0`.
    Major,
    /// Major only, or a wildcard minor (`1`, `1.x`).
    Minor,
    /// Major and minor only, or a wildcard patch (`1.2`, `1.2.x`).
    Patch,
}

/// A version as a constraint holds it: numbers and prerelease, compared the
/// Masterminds way (a numeric identifier beyond `u64` compares as text).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstraintVersion {
    /// Major number.
    pub major: u64,
    /// Minor number.
    pub minor: u64,
    /// Patch number.
    pub patch: u64,
    /// Prerelease without the dash, empty for none.
    pub pre: String,
}

impl ConstraintVersion {
    fn key(&self) -> Key<'_> {
        Key {
            major: self.major,
            minor: self.minor,
            patch: self.patch,
            pre: &self.pre,
        }
    }
}

impl fmt::Display for ConstraintVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        Ok(())
    }
}

impl Serialize for ConstraintVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The parts of a version that Masterminds compares (build metadata is not one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Key<'a> {
    pub(crate) major: u64,
    pub(crate) minor: u64,
    pub(crate) patch: u64,
    pub(crate) pre: &'a str,
}

impl<'a> Key<'a> {
    fn of(v: &'a Version) -> Self {
        Key {
            major: v.major,
            minor: v.minor,
            patch: v.patch,
            pre: v.pre.as_str(),
        }
    }
}

/// `Version.Compare`: numbers, then no prerelease > any prerelease, then
/// [`compare_prerelease`].
pub(crate) fn compare(a: Key<'_>, b: Key<'_>) -> Ordering {
    a.major
        .cmp(&b.major)
        .then(a.minor.cmp(&b.minor))
        .then(a.patch.cmp(&b.patch))
        .then_with(|| match (a.pre.is_empty(), b.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => compare_prerelease(a.pre, b.pre),
        })
}

/// `comparePrerelease`: dot-separated parts pairwise, a missing part being
/// empty and lower; numeric parts (digits that fit a `u64`) below text parts,
/// by value; text parts bytewise. Two different strings never compare equal.
pub(crate) fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let mut xs = a.split('.');
    let mut ys = b.split('.');
    loop {
        match (xs.next(), ys.next()) {
            (None, None) => return Ordering::Equal,
            (x, y) => {
                let ord = compare_part(x.unwrap_or(""), y.unwrap_or(""));
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

fn compare_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (go_parse_uint(s), go_parse_uint(o)) {
        (None, None) => {
            if s > o {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (Some(x), Some(y)) => {
            if x > y {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

/// `strconv.ParseUint(s, 10, 64)`: ASCII digits only, no sign, fits a `u64`.
fn go_parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// One comparator: operator, original text and the version it holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Comparator {
    op: Op,
    spelling: String,
    text: String,
    version: ConstraintVersion,
    wildcard: Wildcard,
}

impl Comparator {
    /// The operator.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The comparator as the Go library prints it: operator as written (`=>`
    /// stays `=>`), then the version token as written (`>=v1.2`, `~1.x`).
    pub fn text(&self) -> String {
        format!("{}{}", self.spelling, self.text)
    }

    /// The version it compares against (wildcards as zeros, build dropped).
    pub fn version(&self) -> &ConstraintVersion {
        &self.version
    }

    /// Where the version stops being exact.
    pub fn wildcard(&self) -> Wildcard {
        self.wildcard
    }
}

/// One AND group of an OR.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    comparators: Vec<Comparator>,
    admits_prereleases: bool,
}

impl Group {
    /// The comparators, all of which must hold.
    pub fn comparators(&self) -> &[Comparator] {
        &self.comparators
    }

    /// Whether a comparator's version has a prerelease, which lets prerelease
    /// versions through for this group.
    pub fn admits_prereleases(&self) -> bool {
        self.admits_prereleases
    }

    fn matches(&self, v: Key<'_>, include_prerelease: bool) -> bool {
        let include = include_prerelease || self.admits_prereleases;
        if !v.pre.is_empty() && !include {
            return false;
        }
        self.comparators.iter().all(|c| eval::check(c, v))
    }
}

/// A parsed constraint string: an OR of AND groups.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Constraints {
    groups: Vec<Group>,
}

impl Constraints {
    /// The OR groups, in order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// `Check` with `IncludePrerelease` false, as operator-controller runs it.
    /// Build metadata is ignored.
    pub fn matches(&self, v: &Version) -> bool {
        let key = Key::of(v);
        self.groups.iter().any(|g| g.matches(key, false))
    }

    /// `Check` with `IncludePrerelease` true: every group admits prereleases.
    /// operator-controller never sets it; kept for the Go library's own tests.
    pub fn matches_including_prereleases(&self, v: &Version) -> bool {
        let key = Key::of(v);
        self.groups.iter().any(|g| g.matches(key, true))
    }

    /// The comparators each token stands for, for display.
    pub fn expanded(&self) -> Expanded {
        eval::expand(self)
    }
}

/// The Go library's `String()`: each group's comparators as written,
/// space-separated, groups joined by ` || ` (`>= 1.2, <2` shows as `>=1.2 <2`).
impl fmt::Display for Constraints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, g) in self.groups.iter().enumerate() {
            if i > 0 {
                f.write_str(" || ")?;
            }
            for (j, c) in g.comparators.iter().enumerate() {
                if j > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{}{}", c.spelling, c.text)?;
            }
        }
        Ok(())
    }
}

/// Parses a constraint string (see the module docs).
pub fn parse(s: &str) -> Result<Constraints, RangeError> {
    parse_with(s, " ")
}

/// [`parse`] with the hyphen-range replacement's suffix as a parameter: `" "`
/// is v3.4+; `""` is v3.2.0, the copy vendored by OLM v0 and its oracle.
fn parse_with(s: &str, hyphen_suffix: &str) -> Result<Constraints, RangeError> {
    if s.len() > MAX_LEN {
        return Err(RangeError::TooLong(s.len()));
    }
    let rewritten = syntax::rewrite_range(s, hyphen_suffix);
    let mut groups = Vec::new();
    for part in rewritten.split("||") {
        let tokens =
            syntax::tokenize(part).ok_or_else(|| RangeError::Improper(part.to_string()))?;
        let mut comparators = Vec::with_capacity(tokens.len());
        for t in tokens {
            comparators.push(comparator(t)?);
        }
        let admits_prereleases = comparators.iter().any(|c| !c.version.pre.is_empty());
        groups.push(Group {
            comparators,
            admits_prereleases,
        });
    }
    Ok(Constraints { groups })
}

/// Whether a bundle version is in the range, the way operator-controller
/// decides it: the version as blang parsed it (one with a numeric prerelease
/// identifier beyond `u64` is not a blang version: the bundle is dropped, so no
/// match), the legacy release split off its build metadata, the rest compared
/// as a Masterminds version. Build metadata never matters, so neither does
/// the release: a release cannot be pinned through the range.
pub fn matches_bundle_version(constraints: &Constraints, version: &Version) -> bool {
    if !super::blang::is_blang_version(version) {
        return false;
    }
    let vr = super::release::VersionRelease::from_legacy(version.clone());
    constraints.matches(&vr.version)
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

/// `parseConstraint`: the wildcard level, then the version the Go code builds
/// (`0.0.0`, `M.0.0`, `M.m.0` plus the prerelease, or the token itself) and
/// parses with the coercing `NewVersion`.
fn comparator(t: syntax::Token<'_>) -> Result<Comparator, RangeError> {
    let cv = t.cv;
    let fail = || RangeError::Version {
        token: format!("{}{}", t.op, cv.text),
    };
    let op = Op::from_spelling(t.op).ok_or_else(fail)?;
    let (wildcard, numbers) = if is_x(cv.major) {
        (Wildcard::Major, ["0", "0", "0"])
    } else {
        match (cv.minor, cv.patch) {
            (None, _) => (Wildcard::Minor, [cv.major, "0", "0"]),
            (Some(m), _) if is_x(m) => (Wildcard::Minor, [cv.major, "0", "0"]),
            (Some(m), None) => (Wildcard::Patch, [cv.major, m, "0"]),
            (Some(m), Some(p)) if is_x(p) => (Wildcard::Patch, [cv.major, m, "0"]),
            (Some(m), Some(p)) => (Wildcard::None, [cv.major, m, p]),
        }
    };
    let [major, minor, patch] = numbers.map(go_parse_uint);
    let (Some(major), Some(minor), Some(patch)) = (major, minor, patch) else {
        return Err(fail());
    };
    let pre = cv.pre.unwrap_or("");
    // validatePrerelease: the grammar already limits the characters; only a
    // numeric identifier with a leading zero is left to refuse.
    let leading_zero = pre
        .split('.')
        .any(|p| p.len() > 1 && p.starts_with('0') && p.bytes().all(|b| b.is_ascii_digit()));
    if leading_zero {
        return Err(fail());
    }
    Ok(Comparator {
        op,
        spelling: t.op.to_string(),
        text: cv.text.to_string(),
        version: ConstraintVersion {
            major,
            minor,
            patch,
            pre: pre.to_string(),
        },
        wildcard,
    })
}

#[cfg(test)]
mod tests;
