//! blang ranges as spans of the version line, so that "which skipRanges contain
//! this version?" and "which versions does this skipRange contain?" cost the
//! answer's size and a logarithm, not a scan of every range or every entry.
//!
//! In: a [`blang::Range`]. Out: [`Span`]s (half-open intervals over [`Point`])
//! whose union is exactly the set of versions the range matches, under the same
//! semver precedence order (build metadata ignored).

use super::blang::{self, Op};
use semver::{BuildMetadata, Version};

/// A position on the version line. Each version has three: just below it,
/// the version itself, just above it; so `>v` and `>=v` differ by where
/// their span starts. Ordered by precedence.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Point {
    /// Below every version.
    Min,
    /// A version (build metadata dropped) and a side: 0 below, 1 at, 2 above.
    At(Version, u8),
    /// Above every version.
    Max,
}

impl Point {
    /// The point of version `v` itself.
    pub fn of(v: &Version) -> Point {
        Point::At(precedence_key(v), 1)
    }
}

/// `v` without build metadata: the semver crate's `Ord` on it is precedence.
fn precedence_key(v: &Version) -> Version {
    let mut key = v.clone();
    key.build = BuildMetadata::EMPTY;
    key
}

/// A half-open interval `[start, end)` of points.
pub type Span = std::ops::Range<Point>;

/// The spans whose union is the set of versions `range` matches; empty spans
/// are left out, overlapping ones (from different OR groups) are not merged.
pub fn spans(range: &blang::Range) -> Vec<Span> {
    range.any_of.iter().flat_map(|g| group_spans(g)).collect()
}

/// The spans of one AND group: the whole line cut by each comparator.
fn group_spans(group: &[blang::Comparator]) -> Vec<Span> {
    let mut out = vec![Point::Min..Point::Max];
    for c in group {
        let v = precedence_key(&c.version);
        let below = || Point::At(v.clone(), 0);
        let above = || Point::At(v.clone(), 2);
        let allowed: Vec<Span> = match c.op {
            Op::Ge => vec![below()..Point::Max],
            Op::Gt => vec![above()..Point::Max],
            Op::Lt => vec![Point::Min..below()],
            Op::Le => vec![Point::Min..above()],
            Op::Eq => vec![below()..above()],
            Op::Ne => vec![Point::Min..below(), above()..Point::Max],
        };
        out = out
            .iter()
            .flat_map(|s| allowed.iter().filter_map(move |a| intersect(s, a)))
            .collect();
    }
    out
}

fn intersect(a: &Span, b: &Span) -> Option<Span> {
    let start = a.start.clone().max(b.start.clone());
    let end = a.end.clone().min(b.end.clone());
    (start < end).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn contains(spans: &[Span], v: &Version) -> bool {
        let p = Point::of(v);
        spans.iter().any(|s| s.contains(&p))
    }

    #[test]
    fn bounds_are_inclusive_or_exclusive_as_written() {
        let r = blang::parse(">1.0.0 <=2.0.0 !=1.5.0").expect("parses");
        let s = spans(&r);
        assert_eq!(s.len(), 2);
        for (v, want) in [
            ("1.0.0", false),
            ("1.0.1-rc.1", true),
            ("1.5.0", false),
            ("1.5.0+build", false),
            ("1.5.1", true),
            ("2.0.0", true),
            ("2.0.0+7", true),
            ("2.0.1-0", false),
        ] {
            let v = Version::parse(v).expect("version");
            assert_eq!(contains(&s, &v), want, "{v}");
        }
    }

    #[test]
    fn a_contradiction_has_no_spans() {
        let r = blang::parse(">=2.0.0 <1.0.0").expect("parses");
        assert!(spans(&r).is_empty());
    }

    fn version() -> impl Strategy<Value = Version> {
        (0u64..4, 0u64..4, 0u64..3, prop::option::of(0u64..3)).prop_map(|(a, b, c, pre)| {
            let text = match pre {
                Some(p) => format!("{a}.{b}.{c}-rc.{p}"),
                None => format!("{a}.{b}.{c}"),
            };
            Version::parse(&text).expect("generated version parses")
        })
    }

    fn range_text() -> impl Strategy<Value = String> {
        let op = prop::sample::select(vec!["", "=", "!=", ">", ">=", "<", "<="]);
        let comparator = (op, version()).prop_map(|(op, v)| format!("{op}{v}"));
        let group = prop::collection::vec(comparator, 1..4).prop_map(|c| c.join(" "));
        prop::collection::vec(group, 1..3).prop_map(|g| g.join(" || "))
    }

    proptest! {
        #[test]
        fn spans_match_exactly_what_the_range_matches(text in range_text(), v in version()) {
            let range = blang::parse(&text).expect("generated range parses");
            prop_assert_eq!(contains(&spans(&range), &v), range.matches(&v), "{} vs {}", text, v);
        }
    }
}
