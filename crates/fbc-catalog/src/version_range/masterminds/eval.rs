//! Checking one Masterminds comparator, and showing what it stands for.
//!
//! In: a parsed [`Comparator`] and a version's comparable parts. Out: whether
//! the comparator holds ([`check`], a line-by-line reading of the Go check
//! functions, prerelease gate excluded: that is the group's), or the same set
//! written as plain comparisons ([`expand`]), which tests prove equivalent.
//!
//! In the expansion `M.m.p-0` is the lowest version of a bucket (no
//! prerelease sorts below `-0`), so `<2.0.0-0` reads "major below 2" and admits
//! no `2.0.0-rc.1`. Bounds that would overflow `u64` fall back to the next
//! coarser one, or vanish, exactly where the Go comparisons stop mattering.

use super::{
    Comparator, ConstraintVersion, Constraints, Key, Op, Wildcard, compare, compare_prerelease,
};
use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;

/// A plain comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CmpOp {
    /// `=`.
    Eq,
    /// `!=`.
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

impl CmpOp {
    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
        }
    }

    fn holds(self, ord: Ordering) -> bool {
        match self {
            CmpOp::Eq => ord == Ordering::Equal,
            CmpOp::Ne => ord != Ordering::Equal,
            CmpOp::Gt => ord == Ordering::Greater,
            CmpOp::Ge => ord != Ordering::Less,
            CmpOp::Lt => ord == Ordering::Less,
            CmpOp::Le => ord != Ordering::Greater,
        }
    }
}

/// One plain test of a version.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Bound {
    /// `op version`, by Masterminds precedence (build ignored).
    Compare {
        /// The operator.
        op: CmpOp,
        /// The version compared against.
        version: ConstraintVersion,
    },
    /// The version's prerelease string differs from this one (empty: the
    /// version has a prerelease). Only `!=M.m.x` produces it.
    PrereleaseNot(String),
}

impl Bound {
    fn holds(&self, v: Key<'_>) -> bool {
        match self {
            Bound::Compare { op, version } => op.holds(compare(v, version.key())),
            Bound::PrereleaseNot(pre) => compare_prerelease(v.pre, pre) != Ordering::Equal,
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Compare { op, version } => write!(f, "{}{version}", op.symbol()),
            Bound::PrereleaseNot(pre) => write!(f, "prerelease!={pre:?}"),
        }
    }
}

/// What one comparator stands for: an OR of ANDs of [`Bound`]s. No
/// alternatives means nothing matches; one empty alternative means anything does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ExpandedToken {
    /// The comparator as written (`^1.2`).
    pub token: String,
    /// The alternatives.
    pub any_of: Vec<Vec<Bound>>,
}

/// One OR group, expanded.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ExpandedGroup {
    /// Whether prerelease versions may match this group at all.
    pub admits_prereleases: bool,
    /// The comparators, all of which must hold.
    pub tokens: Vec<ExpandedToken>,
}

/// A whole constraint, expanded; shows as e.g. `>=1.2.0 <2.0.0-0 || >=3.0.0-rc.1 <3.1.0-0 (prereleases)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Expanded {
    /// The OR groups.
    pub groups: Vec<ExpandedGroup>,
}

impl Expanded {
    /// Whether `v` is in the set, with `IncludePrerelease` false; agrees with
    /// [`Constraints::matches`].
    pub fn matches(&self, v: &semver::Version) -> bool {
        let key = Key::of(v);
        self.groups.iter().any(|g| {
            (key.pre.is_empty() || g.admits_prereleases)
                && g.tokens
                    .iter()
                    .all(|t| t.any_of.iter().any(|all| all.iter().all(|b| b.holds(key))))
        })
    }
}

impl fmt::Display for ExpandedToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let conj = |f: &mut fmt::Formatter<'_>, all: &[Bound]| -> fmt::Result {
            if all.is_empty() {
                return f.write_str("*");
            }
            for (i, b) in all.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{b}")?;
            }
            Ok(())
        };
        match self.any_of.as_slice() {
            [] => f.write_str("<0.0.0-0"),
            [one] => conj(f, one),
            many => {
                f.write_str("(")?;
                for (i, all) in many.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" || ")?;
                    }
                    conj(f, all)?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Expanded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, g) in self.groups.iter().enumerate() {
            if i > 0 {
                f.write_str(" || ")?;
            }
            for (j, t) in g.tokens.iter().enumerate() {
                if j > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{t}")?;
            }
            if g.admits_prereleases {
                f.write_str(" (prereleases)")?;
            }
        }
        Ok(())
    }
}

/// The Go check functions after their common prerelease gate.
pub(super) fn check(c: &Comparator, v: Key<'_>) -> bool {
    let con = &c.version;
    let ord = compare(v, con.key());
    let dirty = c.wildcard != Wildcard::None;
    let minor_dirty = c.wildcard == Wildcard::Minor;
    let patch_dirty = c.wildcard == Wildcard::Patch;
    match c.op {
        Op::Ne => {
            if dirty {
                if con.major != v.major {
                    return true;
                }
                if con.minor != v.minor && !minor_dirty {
                    return true;
                } else if minor_dirty {
                    return false;
                } else if con.patch != v.patch && !patch_dirty {
                    return true;
                } else if patch_dirty {
                    return compare_prerelease(v.pre, &con.pre) != Ordering::Equal;
                }
            }
            ord != Ordering::Equal
        }
        Op::Gt => {
            if !dirty {
                ord == Ordering::Greater
            } else if v.major != con.major {
                v.major > con.major
            } else if minor_dirty {
                false
            } else if patch_dirty {
                v.minor > con.minor
            } else {
                ord == Ordering::Greater
            }
        }
        Op::Lt => ord == Ordering::Less,
        Op::Ge => ord != Ordering::Less,
        Op::Le => {
            if !dirty {
                return ord != Ordering::Greater;
            }
            !(v.major > con.major || v.major == con.major && v.minor > con.minor && !minor_dirty)
        }
        Op::Eq if !dirty => ord == Ordering::Equal,
        Op::Eq | Op::Tilde => {
            if ord == Ordering::Less {
                return false;
            }
            if con.major == 0 && con.minor == 0 && con.patch == 0 && !minor_dirty && !patch_dirty {
                return true;
            }
            v.major == con.major && (v.minor == con.minor || minor_dirty)
        }
        Op::Caret => {
            if ord == Ordering::Less {
                return false;
            }
            if con.major > 0 || minor_dirty {
                return v.major == con.major;
            }
            if v.major > 0 {
                return false;
            }
            if con.minor > 0 || patch_dirty {
                return v.minor == con.minor;
            }
            v.minor == 0 && v.patch == con.patch
        }
    }
}

fn cmp(op: CmpOp, version: ConstraintVersion) -> Bound {
    Bound::Compare { op, version }
}

fn floor(major: u64, minor: u64, patch: u64) -> ConstraintVersion {
    ConstraintVersion {
        major,
        minor,
        patch,
        pre: "0".to_string(),
    }
}

/// Lowest version of the next major, if there is one.
fn next_major(major: u64) -> Option<ConstraintVersion> {
    Some(floor(major.checked_add(1)?, 0, 0))
}

/// Lowest version of the next minor (or major).
fn next_minor(major: u64, minor: u64) -> Option<ConstraintVersion> {
    match minor.checked_add(1) {
        Some(m) => Some(floor(major, m, 0)),
        None => next_major(major),
    }
}

/// Lowest version of the next patch (or minor, or major).
fn next_patch(major: u64, minor: u64, patch: u64) -> Option<ConstraintVersion> {
    match patch.checked_add(1) {
        Some(p) => Some(floor(major, minor, p)),
        None => next_minor(major, minor),
    }
}

/// `[>=con, <upper]`, the upper bound dropped if it overflowed.
fn from_to(con: &ConstraintVersion, upper: Option<ConstraintVersion>) -> Vec<Vec<Bound>> {
    let mut all = vec![cmp(CmpOp::Ge, con.clone())];
    all.extend(upper.map(|u| cmp(CmpOp::Lt, u)));
    vec![all]
}

fn expand_comparator(c: &Comparator) -> Vec<Vec<Bound>> {
    let con = &c.version;
    let (m, n, p) = (con.major, con.minor, con.patch);
    let only = |op| vec![vec![cmp(op, con.clone())]];
    match (c.op, c.wildcard) {
        (Op::Eq, Wildcard::None) => only(CmpOp::Eq),
        (Op::Eq | Op::Tilde, w) => {
            if m == 0 && n == 0 && p == 0 && matches!(w, Wildcard::None | Wildcard::Major) {
                only(CmpOp::Ge)
            } else if w == Wildcard::Minor {
                from_to(con, next_major(m))
            } else {
                from_to(con, next_minor(m, n))
            }
        }
        (Op::Caret, w) => {
            if m > 0 || w == Wildcard::Minor {
                from_to(con, next_major(m))
            } else if n > 0 || w == Wildcard::Patch {
                from_to(con, next_minor(0, n))
            } else {
                from_to(con, next_patch(0, 0, p))
            }
        }
        (Op::Gt, Wildcard::None | Wildcard::Major) => only(CmpOp::Gt),
        (Op::Gt, Wildcard::Minor) => next_major(m)
            .map(|v| vec![vec![cmp(CmpOp::Ge, v)]])
            .unwrap_or_default(),
        (Op::Gt, Wildcard::Patch) => next_minor(m, n)
            .map(|v| vec![vec![cmp(CmpOp::Ge, v)]])
            .unwrap_or_default(),
        (Op::Lt, _) => only(CmpOp::Lt),
        (Op::Ge, _) => only(CmpOp::Ge),
        (Op::Le, Wildcard::None) => only(CmpOp::Le),
        (Op::Le, w) => {
            let upper = if w == Wildcard::Minor {
                next_major(m)
            } else {
                next_minor(m, n)
            };
            vec![upper.map(|u| cmp(CmpOp::Lt, u)).into_iter().collect()]
        }
        (Op::Ne, Wildcard::None | Wildcard::Major) => only(CmpOp::Ne),
        (Op::Ne, Wildcard::Minor) => {
            let mut any = vec![vec![cmp(CmpOp::Lt, floor(m, 0, 0))]];
            any.extend(next_major(m).map(|u| vec![cmp(CmpOp::Ge, u)]));
            any
        }
        (Op::Ne, Wildcard::Patch) => {
            let mut any = vec![vec![cmp(CmpOp::Lt, floor(m, n, 0))]];
            any.extend(next_minor(m, n).map(|u| vec![cmp(CmpOp::Ge, u)]));
            any.push(vec![Bound::PrereleaseNot(con.pre.clone())]);
            any
        }
    }
}

/// Every group's comparators, expanded.
pub(super) fn expand(cs: &Constraints) -> Expanded {
    Expanded {
        groups: cs
            .groups
            .iter()
            .map(|g| ExpandedGroup {
                admits_prereleases: g.admits_prereleases,
                tokens: g
                    .comparators
                    .iter()
                    .map(|c| ExpandedToken {
                        token: c.text(),
                        any_of: expand_comparator(c),
                    })
                    .collect(),
            })
            .collect(),
    }
}
