//! Tables pinned from blang/semver's own `v4/range_test.go` at tag `v4.0.0`
//! (mirror commit `4487282`). Rows for Go's internal helpers run against our
//! helpers of the same job.

use super::*;

fn v(s: &str) -> Version {
    Version::parse(s).expect("test version")
}

/// `TestParseRange`: ranges that parse, with `(version, matches)` rows.
const PARSE_RANGE: &[(&str, &[(&str, bool)])] = &[
    (
        ">1.2.3",
        &[("1.2.2", false), ("1.2.3", false), ("1.2.4", true)],
    ),
    (
        ">=1.2.3",
        &[("1.2.3", true), ("1.2.4", true), ("1.2.2", false)],
    ),
    (
        "<1.2.3",
        &[("1.2.2", true), ("1.2.3", false), ("1.2.4", false)],
    ),
    (
        "<=1.2.3",
        &[("1.2.2", true), ("1.2.3", true), ("1.2.4", false)],
    ),
    (
        "1.2.3",
        &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
    ),
    (
        "=1.2.3",
        &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
    ),
    (
        "==1.2.3",
        &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
    ),
    (
        "!=1.2.3",
        &[("1.2.2", true), ("1.2.3", false), ("1.2.4", true)],
    ),
    (
        "!1.2.3",
        &[("1.2.2", true), ("1.2.3", false), ("1.2.4", true)],
    ),
    (
        ">1.2.2 <1.2.4",
        &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
    ),
    (
        "<1.2.2 <1.2.4",
        &[
            ("1.2.1", true),
            ("1.2.2", false),
            ("1.2.3", false),
            ("1.2.4", false),
        ],
    ),
    (
        ">1.2.2 <1.2.5 !=1.2.4",
        &[
            ("1.2.2", false),
            ("1.2.3", true),
            ("1.2.4", false),
            ("1.2.5", false),
        ],
    ),
    (
        ">1.2.2 <1.2.5 !1.2.4",
        &[
            ("1.2.2", false),
            ("1.2.3", true),
            ("1.2.4", false),
            ("1.2.5", false),
        ],
    ),
    (
        ">1.2.2 || <1.2.4",
        &[("1.2.2", true), ("1.2.3", true), ("1.2.4", true)],
    ),
    (
        "<1.2.2 || >1.2.4",
        &[("1.2.2", false), ("1.2.3", false), ("1.2.4", false)],
    ),
    (
        ">1.x",
        &[
            ("0.1.9", false),
            ("1.2.6", false),
            ("1.9.0", false),
            ("2.0.0", true),
        ],
    ),
    (
        ">1.2.x",
        &[("1.1.9", false), ("1.2.6", false), ("1.3.0", true)],
    ),
    (
        ">1.2.2 <1.2.4 || >=2.0.0",
        &[
            ("1.2.2", false),
            ("1.2.3", true),
            ("1.2.4", false),
            ("2.0.0", true),
            ("2.0.1", true),
        ],
    ),
    (
        "1.x || >=2.0.x <2.2.x",
        &[
            ("0.9.2", false),
            ("1.2.2", true),
            ("2.0.0", true),
            ("2.1.8", true),
            ("2.2.0", false),
        ],
    ),
    (
        ">1.2.2 <1.2.4 || >=2.0.0 <3.0.0",
        &[
            ("1.2.2", false),
            ("1.2.3", true),
            ("1.2.4", false),
            ("2.0.0", true),
            ("2.0.1", true),
            ("2.9.9", true),
            ("3.0.0", false),
        ],
    ),
    // TestMustParseRange
    (">1.2.2 <1.2.4 || >=2.0.0 <3.0.0", &[("1.2.3", true)]),
    // TestRangeAND (`v.GT(1.2.1)` AND `v.LT(1.2.3)`) and TestRangeOR, as strings
    (
        ">1.2.1 <1.2.3",
        &[("1.2.1", false), ("1.2.3", false), ("1.2.2", true)],
    ),
    (
        "<1.2.1 || >1.2.3",
        &[("1.2.0", true), ("1.2.2", false), ("1.2.4", true)],
    ),
];

/// `TestParseRange`'s "Simple Expression errors" (the Go test never asserts the
/// error; checked against the library: all fail except `!1.2.3`, which is in
/// [`PARSE_RANGE`]) and `TestMustParseRange_panic`.
const PARSE_RANGE_ERRORS: &[&str] = &[
    ">>1.2.3",
    "1.0",
    "string",
    "",
    "fo.ob.ar.x",
    "invalid version",
];

#[test]
fn go_parse_range() {
    for &(range, rows) in PARSE_RANGE {
        let r = parse(range).unwrap_or_else(|e| panic!("{range:?}: {e}"));
        for &(version, want) in rows {
            assert_eq!(r.matches(&v(version)), want, "{range:?} on {version}");
        }
    }
    for range in PARSE_RANGE_ERRORS {
        assert!(parse(range).is_err(), "{range:?} should not parse");
    }
}

/// `TestParseComparator`.
const COMPARATORS: &[(&str, Option<Op>)] = &[
    (">", Some(Op::Gt)),
    (">=", Some(Op::Ge)),
    ("<", Some(Op::Lt)),
    ("<=", Some(Op::Le)),
    ("", Some(Op::Eq)),
    ("=", Some(Op::Eq)),
    ("==", Some(Op::Eq)),
    ("!=", Some(Op::Ne)),
    ("!", Some(Op::Ne)),
    ("-", None),
    ("<==", None),
    ("<<", None),
    (">>", None),
];

/// `TestBuildVersionRange`: operator and version text, `None` for an error.
const BUILD_VERSION_RANGE: &[(&str, &str, Option<Op>)] = &[
    (">", "1.2.3", Some(Op::Gt)),
    (">=", "1.2.3", Some(Op::Ge)),
    ("<", "1.2.3", Some(Op::Lt)),
    ("<=", "1.2.3", Some(Op::Le)),
    ("", "1.2.3", Some(Op::Eq)),
    ("=", "1.2.3", Some(Op::Eq)),
    ("==", "1.2.3", Some(Op::Eq)),
    ("!=", "1.2.3", Some(Op::Ne)),
    ("!", "1.2.3", Some(Op::Ne)),
    (">>", "1.2.3", None),
    ("=", "invalid", None),
];

#[test]
fn go_comparators() {
    for &(op, want) in COMPARATORS {
        assert_eq!(parse_op(op), want, "{op:?}");
    }
    for &(op, version, want) in BUILD_VERSION_RANGE {
        let got = parse(&format!("{op}{version}")).ok().map(|r| {
            let [group] = r.any_of.as_slice() else {
                panic!("one group")
            };
            assert_eq!(group.len(), 1);
            assert_eq!(group[0].version, v(version));
            group[0].op
        });
        assert_eq!(got, want, "{op}{version}");
    }
}

/// `TestSplitAndTrim`.
const SPLIT_AND_TRIM: &[(&str, &[&str])] = &[
    ("1.2.3 1.2.3", &["1.2.3", "1.2.3"]),
    ("     1.2.3     1.2.3     ", &["1.2.3", "1.2.3"]),
    ("  >=   1.2.3   <=  1.2.3   ", &[">=1.2.3", "<=1.2.3"]),
    (
        "1.2.3 || >=1.2.3 <1.2.3",
        &["1.2.3", "||", ">=1.2.3", "<1.2.3"],
    ),
    (
        "      1.2.3      ||     >=1.2.3     <1.2.3    ",
        &["1.2.3", "||", ">=1.2.3", "<1.2.3"],
    ),
];

/// `TestSplitComparatorVersion`; `None` for an error.
const SPLIT_COMPARATOR: &[(&str, Option<(&str, &str)>)] = &[
    (">1.2.3", Some((">", "1.2.3"))),
    (">=1.2.3", Some((">=", "1.2.3"))),
    ("<1.2.3", Some(("<", "1.2.3"))),
    ("<=1.2.3", Some(("<=", "1.2.3"))),
    ("1.2.3", Some(("", "1.2.3"))),
    ("=1.2.3", Some(("=", "1.2.3"))),
    ("==1.2.3", Some(("==", "1.2.3"))),
    ("!=1.2.3", Some(("!=", "1.2.3"))),
    ("!1.2.3", Some(("!", "1.2.3"))),
    ("error", None),
];

/// Tokens grouped by OR.
type Groups = &'static [&'static [&'static str]];

/// `TestSplitORParts`; `None` for an error.
const SPLIT_OR: &[(&[&str], Option<Groups>)] = &[
    (
        &[">1.2.3", "||", "<1.2.3", "||", "=1.2.3"],
        Some(&[&[">1.2.3"], &["<1.2.3"], &["=1.2.3"]]),
    ),
    (
        &[">1.2.3", "<1.2.3", "||", "=1.2.3"],
        Some(&[&[">1.2.3", "<1.2.3"], &["=1.2.3"]]),
    ),
    (&[">1.2.3", "||"], None),
    (&["||", ">1.2.3"], None),
];

#[test]
fn go_splitting() {
    for &(input, want) in SPLIT_AND_TRIM {
        assert_eq!(split_and_trim(input), want, "{input:?}");
    }
    for &(input, want) in SPLIT_COMPARATOR {
        assert_eq!(split_comparator(input).ok(), want, "{input:?}");
    }
    for &(input, want) in SPLIT_OR {
        let tokens: Vec<String> = input.iter().map(|s| s.to_string()).collect();
        let got = split_or(&tokens).ok();
        let want: Option<Vec<Vec<String>>> = want.map(|gs| {
            gs.iter()
                .map(|g| g.iter().map(|s| s.to_string()).collect())
                .collect()
        });
        assert_eq!(got, want, "{input:?}");
    }
}

/// `TestGetWildcardType`.
const WILDCARD_TYPE: &[(&str, Wildcard)] = &[
    ("x", Wildcard::Major),
    ("1.x", Wildcard::Minor),
    ("1.2.x", Wildcard::Patch),
    ("fo.o.b.ar", Wildcard::None),
];

/// `TestCreateVersionFromWildcard`.
const FLATTEN: &[(&str, &str)] = &[("1.2.x", "1.2.0"), ("1.x", "1.0.0")];

/// `TestIncrementMajorVersion` (part 0) and `TestIncrementMinorVersion` (part 1).
const INCREMENT: &[(&str, usize, &str)] = &[
    ("1.2.3", 0, "2.2.3"),
    ("1.2", 0, "2.2"),
    ("foo.bar", 0, ""),
    ("1.2.3", 1, "1.3.3"),
    ("1.2", 1, "1.3"),
    ("foo.bar", 1, ""),
];

/// `TestExpandWildcardVersion`: one token in, its expansion out (`None`: error).
const EXPAND: &[(&str, Option<&[&str]>)] = &[
    ("foox", None),
    (">=1.2.x", Some(&[">=1.2.0"])),
    ("<=1.2.x", Some(&["<1.3.0"])),
    (">1.2.x", Some(&[">=1.3.0"])),
    ("<1.2.x", Some(&["<1.2.0"])),
    ("!=1.2.x", Some(&["<1.2.0", ">=1.3.0"])),
    (">=1.x", Some(&[">=1.0.0"])),
    ("<=1.x", Some(&["<2.0.0"])),
    (">1.x", Some(&[">=2.0.0"])),
    ("<1.x", Some(&["<1.0.0"])),
    ("!=1.x", Some(&["<1.0.0", ">=2.0.0"])),
    ("1.2.x", Some(&[">=1.2.0", "<1.3.0"])),
    ("1.x", Some(&[">=1.0.0", "<2.0.0"])),
];

#[test]
fn go_wildcards() {
    for &(input, want) in WILDCARD_TYPE {
        assert!(wildcard_type(input) == want, "{input:?}");
    }
    for &(input, want) in FLATTEN {
        assert_eq!(flatten_wildcard(input), want, "{input:?}");
    }
    for &(input, part, want) in INCREMENT {
        assert_eq!(increment(input, part), want, "{input:?} part {part}");
    }
    for &(input, want) in EXPAND {
        let got = expand_wildcards(&[input.to_string()]).ok();
        assert_eq!(
            got.as_deref(),
            want.map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .as_deref(),
            "{input:?}"
        );
    }
}
