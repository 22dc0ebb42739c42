//! Unit tests of [`super`] (YAML documents → JSON values): scalar resolution as in
//! Go, keys, anchors and merge keys, errors with their lines, the depth and alias
//! limits, forbidden characters, and proptests of the scanner and the builder.

use super::*;
use serde_json::json;

fn yaml(text: &str) -> Value {
    document_to_json(text).expect("valid yaml").expect("a node")
}

#[test]
fn yaml_1_1_booleans_resolve_like_go() {
    assert_eq!(
        yaml("a: yes\nb: off\nc: 'yes'\nd: Y"),
        json!({"a": true, "b": false, "c": "yes", "d": true})
    );
}

#[test]
fn unquoted_timestamps_stay_strings() {
    assert_eq!(
        yaml("createdAt: 2026-01-26T17:53:29"),
        json!({"createdAt": "2026-01-26T17:53:29"})
    );
    assert_eq!(yaml("d: 2026-01-26"), json!({"d": "2026-01-26"}));
}

#[test]
fn numbers_resolve_like_go() {
    assert_eq!(
        yaml("a: 10\nb: 4.10\nc: 0x1F\nd: 017\ne: 1_000\nf: 1e3\ng: 1.2.3\nh: -5\ni: .5\nj: 0b101"),
        json!({"a": 10, "b": 4.1, "c": 31, "d": 15, "e": 1000, "f": 1000.0, "g": "1.2.3", "h": -5, "i": 0.5, "j": 5})
    );
}

#[test]
fn nulls_and_strings() {
    assert_eq!(
        yaml("a: ~\nb:\nc: null\nd: hello world\ne: \"5\""),
        json!({"a": null, "b": null, "c": null, "d": "hello world", "e": "5"})
    );
}

#[test]
fn keys_become_strings_like_go() {
    assert_eq!(yaml("on: 1\n2: x"), json!({"true": 1, "2": "x"}));
}

#[test]
fn anchors_aliases_and_merge_keys() {
    assert_eq!(
        yaml("base: &b {a: 1, b: 2}\nderived:\n  <<: *b\n  b: 3\nlist: [*b]"),
        json!({"base": {"a": 1, "b": 2}, "derived": {"a": 1, "b": 3}, "list": [{"a": 1, "b": 2}]})
    );
}

#[test]
fn block_scalars_and_tags() {
    assert_eq!(
        yaml("a: |\n  line\nb: !!str 12"),
        json!({"a": "line\n", "b": "12"})
    );
}

#[test]
fn infinity_is_rejected_with_its_line() {
    let err = document_to_json("a: 1\nb: .inf").expect_err("infinity");
    assert_eq!(err.line, 2);
}

#[test]
fn empty_documents_are_none() {
    assert_eq!(document_to_json("").expect("ok"), None);
    assert_eq!(document_to_json("# just a comment\n").expect("ok"), None);
}

#[test]
fn syntax_errors_name_a_line() {
    let err = document_to_json("a: 1\nb: [unclosed\n").expect_err("bad");
    assert!(err.line >= 2, "{err}");
}
fn limits(max_depth: usize, max_alias_nodes: usize) -> ParseLimits {
    ParseLimits {
        max_depth,
        max_alias_nodes,
        ..ParseLimits::default()
    }
}

#[test]
fn deep_block_sequences_are_a_depth_error_not_a_stack_overflow() {
    // 3,000 nested block sequences in about 6 KB: this crashed the recursive builder.
    let text = "- ".repeat(3000) + "x\n";
    let err = document_to_json(&text).expect_err("too deep");
    assert_eq!(err.kind, YamlErrorKind::Limit(Limit::Depth), "{err}");
    assert!(err.message.contains("--max-depth"), "{err}");
    // with no limit in the way, the iterative builder still copes
    let deep = document_to_json_with(&text, &limits(5000, 10)).expect("builds");
    let mut v = deep.expect("a node");
    let mut depth = 0;
    while let Value::Array(mut items) = v {
        depth += 1;
        v = items.pop().unwrap_or(Value::Null);
    }
    assert_eq!((depth, v), (3000, json!("x")));
}

#[test]
fn depth_counts_collections_and_the_limit_is_inclusive() {
    assert!(document_to_json_with("a: {b: [1]}", &limits(3, 10)).is_ok());
    let err = document_to_json_with("a: {b: [1]}", &limits(2, 10)).expect_err("deep");
    assert_eq!(err.kind, YamlErrorKind::Limit(Limit::Depth));
    assert_eq!(err.line, 1);
}

#[test]
fn an_alias_bomb_stops_at_the_alias_budget() {
    // ~700 bytes that expand to 10^9 nodes
    let mut text = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
    for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
        .iter()
        .zip(["a", "b", "c", "d", "e", "f", "g", "h"])
    {
        let refs = vec![format!("*{prev}"); 10].join(",");
        text.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    assert!(text.len() < 800, "{}", text.len());
    let err = document_to_json(&text).expect_err("bomb");
    assert_eq!(err.kind, YamlErrorKind::Limit(Limit::AliasNodes), "{err}");
    assert!(err.line >= 2, "{err}");
}

#[test]
fn modest_anchor_use_fits_the_budget() {
    let text = "base: &b {a: 1, b: 2}\nx: *b\ny: *b\n";
    // the anchored mapping is 5 nodes (itself, two keys, two values): kept once,
    // copied twice
    assert!(document_to_json_with(text, &limits(10, 15)).is_ok());
    let err = document_to_json_with(text, &limits(10, 14)).expect_err("budget");
    assert_eq!(err.kind, YamlErrorKind::Limit(Limit::AliasNodes));
}

#[test]
fn a_recursive_alias_is_an_unknown_anchor() {
    let err = document_to_json("a: &a [*a]").expect_err("recursive");
    assert!(err.message.contains("unknown anchor"), "{err}");
}

#[test]
fn nul_and_control_characters_are_errors_with_their_offset() {
    let err = document_to_json("a: 1\nb: x\0y\n").expect_err("nul");
    assert_eq!(err.kind, YamlErrorKind::ForbiddenCharacter);
    assert_eq!((err.line, err.offset), (2, Some(9)));
    assert!(err.message.contains("U+0000"), "{err}");
    for bad in ["\u{1}", "\u{7f}", "\u{9b}", "\u{fffe}", "\u{b}"] {
        let text = format!("key: va{bad}lue");
        assert!(document_to_json(&text).is_err(), "{bad:?}");
    }
    for good in ["\t", "\r\n", "\u{85}", "é", "\u{a0}", "\u{feff}", "😀"] {
        let text = format!("key: va{good}lue and some more text");
        assert_eq!(find_forbidden_char(&text), None, "{good:?}");
    }
}

proptest::proptest! {
    #[test]
    fn the_word_scan_finds_what_a_char_scan_finds(
        text in "[\\x00-\\x{a0}a-z\\n\\t é\\u{fffd}-\\u{ffff}\\u{feff}\\u{1f600}]{0,80}",
        any in proptest::prelude::any::<String>(),
    ) {
        for text in [&text, &any] {
            let slow = text.char_indices().find(|(_, c)| is_forbidden(*c));
            proptest::prop_assert_eq!(find_forbidden_char(text), slow);
        }
    }

    #[test]
    fn any_nesting_of_flow_and_block_collections_parses_or_errors(
        opens in proptest::collection::vec(proptest::sample::select(vec!["[", "{a: ", "- ", "\n  - ", "? "]), 0..400),
    ) {
        let text: String = opens.concat();
        let _ = document_to_json(&text);
    }
}

/// Found by the `template` fuzz target (timeout-52ffe2d4): a mapping as the key of a mapping
/// as the key of … was written out as escaped text, twice as long at each level, so 25
/// levels took seconds and 40 would take days. go-yaml refuses such keys; so do we, at once.
#[test]
fn fuzz_crash_52ffe2d4_mappings_and_sequences_as_keys_are_go_yaml_s_invalid_map_key() {
    let nested = format!("{}{}", "{".repeat(40), "}".repeat(40));
    // (the old code would not return: 2^40 bytes of key)
    let err = document_to_json(&nested).expect_err("a mapping key");
    assert!(
        err.message.contains("invalid map key: a mapping"),
        "{err:?}"
    );
    let err = document_to_json("? [a, b]\n: 1\n").expect_err("a sequence key");
    assert!(
        err.message.contains("invalid map key: a sequence"),
        "{err:?}"
    );
    assert_eq!(err.line, 1, "the line where the key ends");
    // scalars of every kind stay keys
    assert_eq!(
        yaml("1.5: a\n~: b\ntrue: c"),
        json!({"1.5": "a", "null": "b", "true": "c"})
    );
}
