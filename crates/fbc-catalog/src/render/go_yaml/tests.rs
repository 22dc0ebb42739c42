use super::{json_to_yaml, natural_order};

#[test]
fn writes_what_go_yaml_writes() {
    let json = r#"{"b":[{"x":1,"y":"4.16"},{}],"a":{"k":">0.27.0","t":"2019-02-28 01:03:00","e":"","n":null},"c":[],"d":"line\nnext\n","f":1.5,"g":true}"#;
    let want = "a:\n  e: \"\"\n  k: '>0.27.0'\n  \"n\": null\n  t: \"2019-02-28 01:03:00\"\nb:\n- x: 1\n  \"y\": \"4.16\"\n- {}\nc: []\nd: |\n  line\n  next\nf: 1.5\ng: true\n";
    assert_eq!(json_to_yaml(json), want);
}

/// A document whose last scalar is a literal block ends with that block's own line
/// breaks: go-yaml's implicit document end only calls `write_indent`, which adds no
/// break at column 0 after a break, and `Marshal` clears `open_ended` before the stream
/// end, so no `...` follows a `|+` block. The expected texts are what gopkg.in/yaml.v2
/// v2.4.0's `Marshal` printed (run on its `Unmarshal` of the JSON, as sigs.k8s.io/yaml's
/// `JSONToYAML` does); opm v1.32.0's `render -o yaml` of a `custom.x` blob with
/// `"zzz":"\n"` ends the same way, `zzz: |2+\n\n`.
#[test]
fn ends_a_document_after_a_trailing_literal_block_as_go_yaml_does() {
    for (json, want) in [
        (r#"[{"":"\n"}]"#, "- \"\": |2+\n\n"),
        (r#""\n""#, "|2+\n\n"),
        (r#""\n\n""#, "|2+\n\n\n"),
        (r#""a\n""#, "|\n  a\n"),
        (r#""a\n\n""#, "|+\n  a\n\n"),
        (r#""a\n\n\n""#, "|+\n  a\n\n\n"),
        (r#""a""#, "a\n"),
        (r#"["\n\n"]"#, "- |2+\n\n\n"),
        (r#"["a\n"]"#, "- |\n  a\n"),
        (r#"{"k":"\n"}"#, "k: |2+\n\n"),
        (r#"{"k":"a\n\n"}"#, "k: |+\n  a\n\n"),
        (r#"{"k":["x","\n\n\n"]}"#, "k:\n- x\n- |2+\n\n\n\n"),
        (r#"{"k":{"j":"a\n"}}"#, "k:\n  j: |\n    a\n"),
        (r#"{"k":" \n"}"#, "k: \" \\n\"\n"),
    ] {
        assert_eq!(json_to_yaml(json), want, "{json}");
    }
}

#[test]
fn folds_long_plain_scalars_past_eighty_columns() {
    let words = "word ".repeat(30);
    let json = format!("{{\"key\":{:?}}}", words.trim_end());
    let yaml = json_to_yaml(&json);
    assert!(yaml.lines().count() > 1, "{yaml}");
    assert!(
        yaml.lines().nth(1).is_some_and(|l| l.starts_with("  word")),
        "{yaml}"
    );
}

#[test]
fn sorts_keys_naturally() {
    let mut keys = vec!["a10", "a9", "B", "a", "1", "_x"];
    keys.sort_by(|a, b| natural_order(a, b));
    // A non-letter before a letter; `_` has no digits, so it counts as 0 against `1`.
    assert_eq!(keys, vec!["_x", "1", "B", "a", "a9", "a10"]);
}

#[test]
fn quotes_what_would_read_back_as_another_type() {
    for (s, want) in [
        ("true", "\"true\""),
        ("yes", "\"yes\""),
        ("12", "\"12\""),
        ("1e3", "\"1e3\""),
        ("~", "\"~\""),
        ("- x", "'- x'"),
        ("a: b", "'a: b'"),
        ("tab\there", "\"tab\\there\""),
    ] {
        let yaml = json_to_yaml(&serde_json::json!({ "k": s }).to_string());
        assert_eq!(yaml, format!("k: {want}\n"), "{s:?}");
    }
}

#[test]
fn timestamps_are_what_gos_time_parse_accepts() {
    use crate::source::yaml::is_timestamp;
    for yes in [
        "2024-01-02",
        "2023-9-26T00:00:00Z",
        "2024-1-2t3:4:5.123+02:00",
        "2024-02-29",
        "2024-01-02 03:04:05",
        "2024-01-02 03:04:05.5",
    ] {
        assert!(is_timestamp(yes), "{yes}");
    }
    for no in [
        "2022-04-11T18:36:19",
        "2023-02-29",
        "2024-13-01",
        "2024-01-02 03:04:05Z",
        "24-01-02",
        "2024-01-02T25:00:00Z",
        "2024-01-02x",
        "2024-001-02",
    ] {
        assert!(!is_timestamp(no), "{no}");
    }
}

mod round_trip {
    use super::super::json_to_yaml;
    use proptest::prelude::*;
    use serde_json::Value;

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e30f64..1e30).prop_map(Value::from),
            "[a-zA-Z0-9 :#'\"\\n\\t\\-.,&*!|>%@`?{}\\[\\]~_/+ü東\u{1F6A2}]{0,40}"
                .prop_map(Value::from),
            prop::sample::select(vec![
                "yes",
                "no",
                "on",
                "off",
                "null",
                "~",
                "1e3",
                "0x1F",
                "0755",
                "1:20",
                "2024-01-02",
                "2023-9-26T00:00:00Z",
                ".inf",
                "",
                " ",
                "- x",
                "a: b",
                "#c",
                "<<"
            ])
            .prop_map(Value::from),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        scalar().prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-z0-9 :#'yYnN.-]{0,12}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// What go-yaml writes reads back, by go-yaml v2's rules (this crate's loader), as
        /// the same value: every string that would read as another type was quoted. (Not
        /// for U+2028 and U+2029: go-yaml writes them raw in single quotes and indents the
        /// next line, which reads back with spaces; opm's output has the same flaw.)
        #[test]
        fn reads_back_as_the_same_value(v in value()) {
            let text = json_to_yaml(&v.to_string());
            let back = crate::source::yaml::document_to_json(&text)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?
                .unwrap_or(Value::Null);
            prop_assert_eq!(&back, &v, "{}", text);
        }
    }
}
