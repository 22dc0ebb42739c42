//! Tables pinned from Masterminds/semver's own `constraints_test.go` at mirror
//! HEAD `71f2b39` (v3.4.0 + #273/#278/#279, the code of v3.5.0 but for #280
//! and #281; the mirror has no v3.5.0 tag): first the tables that run with
//! `IncludePrerelease` false, as operator-controller runs the library.

use super::{m, v};
use crate::version_range::masterminds::*;

/// `TestParseConstraint`: operator (by check function) and held version; `foo` fails.
const PARSE_CONSTRAINT: &[(&str, Option<(Op, &str)>)] = &[
    (">= 1.2", Some((Op::Ge, "1.2.0"))),
    ("1.0", Some((Op::Eq, "1.0.0"))),
    ("foo", None),
    ("<= 1.2", Some((Op::Le, "1.2.0"))),
    ("=< 1.2", Some((Op::Le, "1.2.0"))),
    ("=> 1.2", Some((Op::Ge, "1.2.0"))),
    ("v1.2", Some((Op::Eq, "1.2.0"))),
    ("=1.5", Some((Op::Eq, "1.5.0"))),
    ("> 1.3", Some((Op::Gt, "1.3.0"))),
    ("< 1.4.1", Some((Op::Lt, "1.4.1"))),
    ("< 40.50.10", Some((Op::Lt, "40.50.10"))),
];

#[test]
fn go_parse_constraint() {
    for &(input, want) in PARSE_CONSTRAINT {
        match (parse(input), want) {
            (Ok(c), Some((op, version))) => {
                let [g] = c.groups() else {
                    panic!("{input}: one group")
                };
                let [cmp] = g.comparators() else {
                    panic!("{input}: one comparator")
                };
                assert_eq!(cmp.op(), op, "{input}");
                assert_eq!(cmp.version().to_string(), version, "{input}");
            }
            (Err(_), None) => {}
            (got, want) => panic!("{input}: got {got:?}, want {want:?}"),
        }
    }
}

/// `TestConstraintCheck` (single comparators through `parseConstraint` and
/// `check`, prereleases admitted when the comparator has one, which is what
/// `NewConstraint` gives a one-comparator group). Its three rows for `""` are
/// in [`NEW_CONSTRAINT`] instead: `parseConstraint("")` means `*`, but
/// `NewConstraint("")` fails validation.
const CONSTRAINT_CHECK: &[(&str, &str, bool)] = &[
    ("=2.0.0", "1.2.3", false),
    ("=2.0.0", "2.0.0", true),
    ("=2.0", "1.2.3", false),
    ("=2.0", "2.0.0", true),
    ("=2.0", "2.0.1", true),
    ("4.1", "4.1.0", true),
    ("!=4.1.0", "4.1.0", false),
    ("!=4.1.0", "4.1.1", true),
    ("!=4.1", "4.1.0", false),
    ("!=4.1", "4.1.1", false),
    ("!=4.1", "5.1.0-alpha.1", false),
    ("!=4.1.0", "5.1.0-alpha.1", false),
    ("!=4.1-alpha", "4.1.0", true),
    ("!=4.1", "5.1.0", true),
    ("<11", "0.1.0", true),
    ("<11", "11.1.0", false),
    ("<1.1", "0.1.0", true),
    ("<1.1", "1.1.0", false),
    ("<1.1", "1.1.1", false),
    ("<=11", "1.2.3", true),
    ("<=11", "12.2.3", false),
    ("<=11", "11.2.3", true),
    ("<=1.1", "1.2.3", false),
    ("<=1.1", "0.1.0", true),
    ("<=1.1", "1.1.0", true),
    ("<=1.1", "1.1.1", true),
    (">1.1", "4.1.0", true),
    (">1.1", "1.1.0", false),
    (">0", "0", false),
    (">0", "1", true),
    (">0", "0.0.1-alpha", false),
    (">0.0", "0.0.1-alpha", false),
    (">0-0", "0.0.1-alpha", false),
    (">0.0-0", "0.0.1-alpha", false),
    (">0", "0.0.0-alpha", false),
    (">0-0", "0.0.0-alpha", false),
    (">0.0.0-0", "0.0.0-alpha", true),
    (">1.2.3-alpha.1", "1.2.3-alpha.2", true),
    (">1.2.3-alpha.1", "1.3.3-alpha.2", true),
    (">11", "11.1.0", false),
    (">11.1", "11.1.0", false),
    (">11.1", "11.1.1", false),
    (">11.1", "11.2.1", true),
    (">=11", "11.1.2", true),
    (">=11.1", "11.1.2", true),
    (">=11.1", "11.0.2", false),
    (">=1.1", "4.1.0", true),
    (">=1.1", "1.1.0", true),
    (">=1.1", "0.0.9", false),
    (">=0", "0.0.1-alpha", false),
    (">=0.0", "0.0.1-alpha", false),
    (">=0-0", "0.0.1-alpha", true),
    (">=0.0-0", "0.0.1-alpha", true),
    (">=0", "0.0.0-alpha", false),
    (">=0-0", "0.0.0-alpha", true),
    (">=0.0.0-0", "0.0.0-alpha", true),
    (">=0.0.0-0", "1.2.3", true),
    (">=0.0.0-0", "3.4.5-beta.1", true),
    ("<0", "0.0.0-alpha", false),
    ("<0-z", "0.0.0-alpha", true),
    (">=0", "0", true),
    ("=0", "1", false),
    ("*", "1", true),
    ("*", "4.5.6", true),
    ("*", "1.2.3-alpha.1", false),
    ("*-0", "1.2.3-alpha.1", true),
    ("2.*", "1", false),
    ("2.*", "3.4.5", false),
    ("2.*", "2.1.1", true),
    ("2.1.*", "2.1.1", true),
    ("2.1.*", "2.2.1", false),
    ("2", "1", false),
    ("2", "3.4.5", false),
    ("2", "2.1.1", true),
    ("2.1", "2.1.1", true),
    ("2.1", "2.2.1", false),
    ("~1.2.3", "1.2.4", true),
    ("~1.2.3", "1.3.4", false),
    ("~1.2", "1.2.4", true),
    ("~1.2", "1.3.4", false),
    ("~1", "1.2.4", true),
    ("~1", "2.3.4", false),
    ("~0.2.3", "0.2.5", true),
    ("~0.2.3", "0.3.5", false),
    ("~1.2.3-beta.2", "1.2.3-beta.4", true),
    ("~1.2.3-beta.2", "1.2.4-beta.2", true),
    ("~1.2.3-beta.2", "1.3.4-beta.2", false),
    ("^1.2.3", "1.8.9", true),
    ("^1.2.3", "2.8.9", false),
    ("^1.2.3", "1.2.1", false),
    ("^1.1.0", "2.1.0", false),
    ("^1.2.0", "2.2.1", false),
    ("^1.2.0", "1.2.1-alpha.1", false),
    ("^1.2.0-alpha.0", "1.2.1-alpha.1", true),
    ("^1.2.0-alpha.0", "1.2.1-alpha.0", true),
    ("^1.2.0-alpha.2", "1.2.0-alpha.1", false),
    ("^1.2", "1.8.9", true),
    ("^1.2", "2.8.9", false),
    ("^1", "1.8.9", true),
    ("^1", "2.8.9", false),
    ("^0.2.3", "0.2.5", true),
    ("^0.2.3", "0.5.6", false),
    ("^0.2", "0.2.5", true),
    ("^0.2", "0.5.6", false),
    ("^0.0.3", "0.0.3", true),
    ("^0.0.3", "0.0.4", false),
    ("^0.0", "0.0.3", true),
    ("^0.0", "0.1.4", false),
    ("^0.0", "1.0.4", false),
    ("^0", "0.2.3", true),
    ("^0", "1.1.4", false),
    ("^0.2.3-beta.2", "0.2.3-beta.4", true),
    ("^0.2.3-beta.2", "0.2.4-beta.2", true),
    ("^0.2.3-beta.2", "0.3.4-beta.2", false),
    ("^0.2.3-beta.2", "0.2.3-beta.2", true),
];

/// `TestConstraintsCheck`.
const CONSTRAINTS_CHECK: &[(&str, &str, bool)] = &[
    ("*", "1.2.3", true),
    ("~0.0.0", "1.2.3", true),
    ("0.x.x", "1.2.3", false),
    ("0.0.x", "1.2.3", false),
    ("0.0.0", "1.2.3", false),
    ("*", "1.2.3", true),
    ("^0.0.0", "1.2.3", false),
    ("= 2.0", "1.2.3", false),
    ("= 2.0", "2.0.0", true),
    ("4.1", "4.1.0", true),
    ("4.1.x", "4.1.3", true),
    ("1.x", "1.4", true),
    ("!=4.1", "4.1.0", false),
    ("!=4.1-alpha", "4.1.0-alpha", false),
    ("!=4.1-alpha", "4.1.1-alpha", false),
    ("!=4.1-alpha", "4.1.0", true),
    ("!=4.1", "5.1.0", true),
    ("!=4.x", "5.1.0", true),
    ("!=4.x", "4.1.0", false),
    ("!=4.1.x", "4.2.0", true),
    ("!=4.2.x", "4.2.3", false),
    (">1.1", "4.1.0", true),
    (">1.1", "1.1.0", false),
    ("<1.1", "0.1.0", true),
    ("<1.1", "1.1.0", false),
    ("<1.1", "1.1.1", false),
    ("<1.x", "1.1.1", false),
    ("<1.x", "0.1.1", true),
    ("<1.x", "2.0.0", false),
    ("<1.1.x", "1.2.1", false),
    ("<1.1.x", "1.1.500", false),
    ("<1.1.x", "1.0.500", true),
    ("<1.2.x", "1.1.1", true),
    (">=1.1", "4.1.0", true),
    (">=1.1", "4.1.0-beta", false),
    (">=1.1", "1.1.0", true),
    (">=1.1", "0.0.9", false),
    ("<=1.1", "0.1.0", true),
    ("<=1.1", "0.1.0-alpha", false),
    ("<=1.1-a", "0.1.0-alpha", true),
    ("<=1.1", "1.1.0", true),
    ("<=1.x", "1.1.0", true),
    ("<=2.x", "3.0.0", false),
    ("<=1.1", "1.1.1", true),
    ("<=1.1.x", "1.2.500", false),
    ("<=4.5", "3.4.0", true),
    ("<=4.5", "3.7.0", true),
    ("<=4.5", "4.6.3", false),
    (">1.1, <2", "1.1.1", false),
    (">1.1, <2", "1.2.1", true),
    (">1.1, <3", "4.3.2", false),
    (">=1.1, <2, !=1.2.3", "1.2.3", false),
    (">1.1 <2", "1.1.1", false),
    (">1.1 <2", "1.2.1", true),
    (">1.1    <3", "4.3.2", false),
    (">=1.1    <2    !=1.2.3", "1.2.3", false),
    (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    (">=1.1 <2 !=1.2.3", "1.2.3", false),
    (">=1.1 <2 !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1 <2 !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1 <2 !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1 <2 !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1 <2 !=1.2.3 || > 3", "1.2.3", false),
    ("> 1.1, <     2", "1.1.1", false),
    (">   1.1, <2", "1.2.1", true),
    (">1.1, <  3", "4.3.2", false),
    (">= 1.1, <     2, !=1.2.3", "1.2.3", false),
    ("> 1.1 < 2", "1.1.1", false),
    (">1.1 < 2", "1.2.1", true),
    ("> 1.1    <3", "4.3.2", false),
    (">=1.1    < 2    != 1.2.3", "1.2.3", false),
    (">= 1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">= 1.1, <2, != 1.2.3 || > 3", "3.1.2", false),
    (">= 1.1, <2, != 1.2.3 || >= 3", "3.0.0", true),
    (">= 1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">= 1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    (">= 1.1 <2 != 1.2.3", "1.2.3", false),
    (">= 1.1 <2 != 1.2.3 || > 3", "4.1.2", true),
    (">= 1.1 <2 != 1.2.3 || > 3", "3.1.2", false),
    (">= 1.1 <2 != 1.2.3 || >= 3", "3.0.0", true),
    (">= 1.1 < 2 !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1 < 2 !=1.2.3 || > 3", "1.2.3", false),
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta", true),
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1", true),
    (">= 1.0.0  <= 2.0.0-beta", "3.0.0", false),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "1.0.1-beta", true),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "3.0.1-beta", false),
    (
        ">= 1.0.0  <= 2.0.0-beta != 1.0.1 || > 3",
        "1.0.1-beta",
        true,
    ),
    (
        ">= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3",
        "1.0.1-beta",
        false,
    ),
    (">= 1.0.0-0  <= 2.0.0", "1.0.1-beta", true),
    ("1.1 - 2", "1.1.1", true),
    ("1.5.0 - 4.5", "3.7.0", true),
    ("1.1-3", "4.3.2", false),
    ("^1.1", "1.1.1", true),
    ("^1.1", "4.3.2", false),
    ("^1.x", "1.1.1", true),
    ("^2.x", "1.1.1", false),
    ("^1.x", "2.1.1", false),
    ("^1.x", "1.1.1-beta1", false),
    ("^1.1.2-alpha", "1.2.1-beta1", true),
    ("^1.2.x-alpha", "1.1.1-beta1", false),
    ("^0.0.1", "0.0.1", true),
    ("^0.0.1", "0.3.1", false),
    ("~*", "2.1.1", true),
    ("~1", "2.1.1", false),
    ("~1", "1.3.5", true),
    ("~1", "1.4", true),
    ("~1.x", "2.1.1", false),
    ("~1.x", "1.3.5", true),
    ("~1.x", "1.4", true),
    ("~1.1", "1.1.1", true),
    ("~1.1", "1.1.1-alpha", false),
    ("~1.1-alpha", "1.1.1-beta", true),
    ("~1.1.1-beta", "1.1.1-alpha", false),
    ("~1.1.1-beta", "1.1.1", true),
    ("~1.2.3", "1.2.5", true),
    ("~1.2.3", "1.2.2", false),
    ("~1.2.3", "1.3.2", false),
    ("~1.1", "1.2.3", false),
    ("~1.3", "2.4.5", false),
    ("1.0.0 - 2.0.0 <=2.0.0", "1.5.0", true),
    ("1.0.0 - 2.0.0, <=2.0.0", "1.5.0", true),
];

#[test]
fn go_constraint_check() {
    for &(range, version, want) in CONSTRAINT_CHECK.iter().chain(CONSTRAINTS_CHECK) {
        assert_eq!(m(range, version), want, "{range:?} on {version}");
    }
}

/// `TestNewConstraint`: OR count and first group's size, or `None` for an
/// error; plus the empty string (see [`CONSTRAINT_CHECK`]).
const NEW_CONSTRAINT: &[(&str, Option<(usize, usize)>)] = &[
    (">= 1.1", Some((1, 1))),
    (">40.50.60, < 50.70", Some((1, 2))),
    ("2.0", Some((1, 1))),
    ("v2.3.5-20161202202307-sha.e8fc5e5", Some((1, 1))),
    ("v1.2.3-0abc", Some((1, 1))),
    ("v1.2.3-beta.01", None),
    (">= bar", None),
    ("BAR >= 1.2.3", None),
    (">= 1.2.3 < 2.0", Some((1, 2))),
    (">= 1.2.3 < 2.0 || => 3.0 < 4", Some((2, 2))),
    (">= 1.2.3, < 2.0", Some((1, 2))),
    (">= 1.2.3, < 2.0 || => 3.0, < 4", Some((2, 2))),
    ("3 - 4 || => 3.0, < 4", Some((2, 2))),
    ("12.3.4.1234", None),
    ("12.23.4.1234", None),
    ("12.3.34.1234", None),
    ("12.3.34 ~1.2.3", Some((1, 2))),
    ("12.3.34~ 1.2.3", None),
    ("1.0.0 - 2.0.0, <=2.0.0", Some((1, 3))),
    ("", None),
];

#[test]
fn go_new_constraint() {
    for &(input, want) in NEW_CONSTRAINT {
        let got = parse(input)
            .ok()
            .map(|c| (c.groups().len(), c.groups()[0].comparators().len()));
        assert_eq!(got, want, "{input:?}");
    }
}

/// `TestRewriteRange` (internal function).
const REWRITE_RANGE: &[(&str, &str)] = &[
    ("2 - 3", ">= 2, <= 3 "),
    ("2 - 3, 2 - 3", ">= 2, <= 3 ,>= 2, <= 3 "),
    ("2 - 3, 4.0.0 - 5.1", ">= 2, <= 3 ,>= 4.0.0, <= 5.1 "),
    ("2 - 3 4.0.0 - 5.1", ">= 2, <= 3 >= 4.0.0, <= 5.1 "),
    ("1.0.0 - 2.0.0 <=2.0.0", ">= 1.0.0, <= 2.0.0 <=2.0.0"),
];

#[test]
fn go_rewrite_range() {
    for &(input, want) in REWRITE_RANGE {
        assert_eq!(super::syntax::rewrite_range(input, " "), want, "{input:?}");
    }
}

/// `TestConstraintString`, `TestTextMarshalConstraints` and
/// `TestTextUnmarshalConstraints`: what `String()` prints, which must parse again.
const STRING: &[(&str, &str)] = &[
    ("*", "*"),
    (">=1.2.3", ">=1.2.3"),
    (">= 1.2.3", ">=1.2.3"),
    (
        "2.x,   >=1.2.3 || >4.5.6, < 5.7",
        "2.x >=1.2.3 || >4.5.6 <5.7",
    ),
    (
        "2.x,   >=1.2.3 || >4.5.6, < 5.7 || >40.50.60, < 50.70",
        "2.x >=1.2.3 || >4.5.6 <5.7 || >40.50.60 <50.70",
    ),
    ("1.2", "1.2"),
    ("1.2.3", "1.2.3"),
    ("<=1.2.3", "<=1.2.3"),
    ("1 <=1.2.3", "1 <=1.2.3"),
    ("1, <=1.2.3", "1 <=1.2.3"),
    (">1, <=1.2.3", ">1 <=1.2.3"),
    ("> 1 , <=1.2.3", ">1 <=1.2.3"),
    (">1 <=1.2.3", ">1 <=1.2.3"),
    ("> 1 <=1.2.3", ">1 <=1.2.3"),
];

#[test]
fn go_string() {
    for &(input, want) in STRING {
        let c = parse(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(c.to_string(), want, "{input:?}");
        assert_eq!(
            parse(want).map(|c| c.to_string()).ok().as_deref(),
            Some(want)
        );
    }
}

/// `FuzzNewConstraint`'s seed corpus: parsing must not panic, and the ones
/// that parse must check without panicking.
const FUZZ_SEEDS: &[&str] = &[
    "v1.2.3",
    " ",
    "......",
    "1",
    "1.2.3-beta.1",
    "1.2.3+foo",
    "2.3.4-alpha.1+bar",
    "lorem ipsum",
    "*",
    "!=1.2.3",
    "^4.5",
    "1.0.0 - 2",
    "1.2.3.4.5.6",
    ">= 1",
    "~9.8.7",
    "<= 12.13.14",
    "987654321.123456789.654123789",
    "1.x",
    "2.3.x",
    "9.2-beta.0",
];

#[test]
fn go_fuzz_seeds() {
    for s in FUZZ_SEEDS {
        if let Ok(c) = parse(s) {
            let _ = c.matches(&v("1.2.3"));
            let _ = c.matches(&v("1.2.3-beta.1"));
        }
    }
}
