use super::*;

const HEAD: &str =
    "apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\n";

fn parse_ok(body: &str) -> FilterConfig {
    match parse("f.yaml", &format!("{HEAD}{body}")) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

fn problems(text: &str) -> Vec<String> {
    match parse("f.yaml", text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.problems,
    }
}

#[test]
fn catalog_filters_example_reads_with_its_selections() {
    let c = parse_ok(
        "packages:\n  - name: foo\n  - name: bar\n    defaultChannel: bar-channel1\n    channels:\n      - name: bar-channel1\n        versionRange: \">=1.0.0 <2.0.0\"\n      - name: bar-channel2\n",
    );
    assert_eq!(c.packages.len(), 2);
    assert!(matches!(c.packages[0].selection, Selection::HeadsOnly));
    let bar = &c.packages[1];
    assert_eq!(bar.default_channel.as_deref(), Some("bar-channel1"));
    assert!(
        matches!(&bar.channels[0].selection, Selection::Range { text, .. } if text == ">=1.0.0 <2.0.0")
    );
    assert!(matches!(bar.channels[1].selection, Selection::HeadsOnly));
    assert_eq!(bar.channels[1].place, "packages[1].channels[1]");
}

#[test]
fn min_and_max_make_an_inclusive_window_and_full_selects_everything() {
    let c = parse_ok(
        "packages:\n  - name: a\n    minVersion: 1.2.0\n    maxVersion: 1.4.0\n  - name: b\n    full: true\n",
    );
    let Selection::Range { text, range } = &c.packages[0].selection else {
        panic!("not a range");
    };
    assert_eq!(text, ">=1.2.0, <=1.4.0");
    let v = |s: &str| semver::Version::parse(s).unwrap();
    assert!(range.matches(&v("1.2.0")) && range.matches(&v("1.4.0")));
    assert!(!range.matches(&v("1.4.1")) && !range.matches(&v("1.1.9")));
    assert!(matches!(c.packages[1].selection, Selection::Full));
    let top = parse_ok("full: true\npackages:\n  - name: a\n");
    assert!(matches!(top.packages[0].selection, Selection::Full));
}

#[test]
fn every_problem_is_reported_with_its_place() {
    let p = problems(
        "apiVersion: v1\nkind: Other\npackages:\n  - name: \"\"\n  - name: a\n    bundles: [{name: a.v1}]\n    versionRange: \">=1\"\n  - name: a\n    channels:\n      - name: c\n        versionRange: \"nonsense\"\n        maxVersion: 2.0.0\n",
    );
    let text = p.join("\n");
    for wanted in [
        "f.yaml: apiVersion: is \"v1\"",
        "f.yaml: kind: is \"Other\"",
        "f.yaml: packages[0]: name must be specified",
        "f.yaml: packages[1]: mixing both filtering by bundles",
        "f.yaml: packages[2]: package \"a\" is listed twice",
        "f.yaml: packages[2].channels[0]: versionRange cannot be mixed with minVersion or maxVersion",
    ] {
        assert!(text.contains(wanted), "missing {wanted:?} in:\n{text}");
    }
}

#[test]
fn a_bad_range_names_its_field() {
    let p = problems(&format!(
        "{HEAD}packages:\n  - name: a\n    channels:\n      - name: c\n        versionRange: \">=1.0 <<2\"\n"
    ));
    assert!(
        p[0].starts_with(
            "f.yaml: packages[0].channels[0].versionRange: \">=1.0 <<2\" is not a valid"
        ),
        "{p:?}"
    );
}

#[test]
fn a_misspelt_key_is_an_error_with_its_line() {
    let p = problems(&format!(
        "{HEAD}packages:\n  - name: a\n    maxVersoin: 1.0.0\n"
    ));
    assert!(p[0].starts_with("f.yaml:5:"), "{p:?}");
    assert!(p[0].contains("maxVersoin"), "{p:?}");
}

#[test]
fn hostile_text_is_refused_not_obeyed() {
    let big = "x".repeat(MAX_BYTES + 1);
    assert!(problems(&big)[0].contains("at most"));
    // A valid file but for an anchor is refused by the budget (aliases could
    // expand it without bound); nesting is refused where it starts.
    let anchored = format!("{HEAD}packages: &p\n  - name: a\n");
    let p = problems(&anchored);
    assert!(
        p[0].starts_with("f.yaml:4:") && p[0].contains("budget breached"),
        "{p:?}"
    );
    assert!(parse("f.yaml", &format!("{HEAD}packages:\n  - name: a\n")).is_ok());
    let deep = format!("{HEAD}packages: {}{}", "[".repeat(64), "]".repeat(64));
    assert!(problems(&deep)[0].starts_with("f.yaml:3:"));
    assert!(problems("\u{0}")[0].starts_with("f.yaml"));
}

mod arbitrary_text {
    use super::super::parse;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any text, and any mutation of a valid file, is read or refused with
        /// problems named; nothing panics.
        #[test]
        fn any_text_is_read_or_refused(text in "\\PC{0,400}") {
            if let Err(e) = parse("f.yaml", &text) {
                prop_assert!(!e.problems.is_empty());
                prop_assert!(e.problems.iter().all(|p| p.starts_with("f.yaml")));
            }
        }

        #[test]
        fn mutated_files_are_read_or_refused(cut in 0usize..400, insert in "[ \\[\\]{}:,\\-\"'a-z0-9.<>=|\\n]{0,12}") {
            let valid = "apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\npackages:\n  - name: bar\n    defaultChannel: c1\n    channels:\n      - name: c1\n        versionRange: \">=1.0.0 <2.0.0\"\n      - name: c2\n        maxVersion: 3.0.0\n";
            let at = cut.min(valid.len());
            let text = format!("{}{insert}{}", &valid[..at], &valid[at..]);
            if let Err(e) = parse("f.yaml", &text) {
                prop_assert!(!e.problems.is_empty());
            }
        }
    }
}
