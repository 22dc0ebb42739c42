//! The checker's verdicts and texts, each confirmed on the reference
//! resolver (cel-go v0.12.6 inside OLM v0.25).

use crate::resolve::cel::CelRule;

fn error(rule: &str) -> String {
    match CelRule::compile(rule) {
        Ok(_) => panic!("{rule} compiled"),
        Err(e) => e,
    }
}

#[test]
fn an_undeclared_function_is_named_with_a_caret_under_its_parenthesis() {
    assert_eq!(
        error(r#"semverCompare("1.0.0", "1.0.0") == 0"#),
        "ERROR: <input>:1:14: undeclared reference to 'semverCompare' (in container '')\n | semverCompare(\"1.0.0\", \"1.0.0\") == 0\n | .............^"
    );
}

#[test]
fn int_and_double_do_not_compare_equal_at_compile_time() {
    assert_eq!(
        error("1 == 1.0"),
        "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'\n | 1 == 1.0\n | ..^"
    );
}

#[test]
fn a_rule_must_be_a_bool_not_dyn() {
    assert_eq!(
        error("properties[0].value"),
        "cel expressions must have type Bool"
    );
    assert_eq!(error("1 + 2"), "cel expressions must have type Bool");
}

#[test]
fn olms_rules_compile() {
    for rule in [
        r#"properties.exists(p, p.type == "certified")"#,
        r#"properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0") >= 0)"#,
        r#"properties.all(p, p.type != "olm.deprecated")"#,
        r#"properties.exists_one(p, p.type == "olm.package")"#,
        r#"size(properties.filter(p, p.type == "olm.gvk")) > 1"#,
        r#"properties.map(p, p.type).exists(t, t.startsWith("olm."))"#,
        r#"has(properties[0].value.version) ? true : false"#,
        r#""olm.package" in properties.map(p, p.type)"#,
        r#"[1, "a"].size() == 2"#,
        r#"properties[0].value.n == 1"#,
    ] {
        if let Err(e) = CelRule::compile(rule) {
            panic!("{rule}: {e}");
        }
    }
}

#[test]
fn several_errors_are_listed_in_source_order() {
    let e = error("a == b");
    assert!(
        e.starts_with("ERROR: <input>:1:1: undeclared reference to 'a'"),
        "{e}"
    );
    assert!(
        e.contains("\nERROR: <input>:1:6: undeclared reference to 'b'"),
        "{e}"
    );
}

#[test]
fn an_instance_call_prints_its_target_type_first() {
    assert_eq!(
        error("'a'.startsWith(1)"),
        "ERROR: <input>:1:15: found no matching overload for 'startsWith' applied to 'string.(int)'\n | 'a'.startsWith(1)\n | ..............^"
    );
}

#[test]
fn a_syntax_error_is_reported_in_cel_gos_layout() {
    let e = error("1 +");
    assert!(e.starts_with("ERROR: <input>:1:4: Syntax error:"), "{e}");
    assert!(e.ends_with("\n | 1 +\n | ...^"), "{e}");
}

#[test]
fn a_huge_rule_is_refused_before_parsing() {
    let rule = "true && ".repeat(4000) + "true";
    assert!(error(&rule).contains("longer than"));
}
