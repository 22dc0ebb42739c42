//! Go's `json.Compact` and `json.Indent` over JSON text.
//!
//! In: valid JSON text (what this crate's writers produce, or a raw value read from a
//! file). Out: the same text without insignificant whitespace ([`compact`]), or laid
//! out as `json.Encoder.SetIndent("", "    ")` lays it out ([`indent`]): one element
//! per line, `": "` after keys, empty `{}` and `[]` kept on one line. String contents
//! are copied byte for byte; escapes are never changed (`SetEscapeHTML(false)`).

/// Removes insignificant whitespace.
pub fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// Lays out compact JSON text with `unit` per level, as Go's `json.Indent` with an
/// empty prefix does.
pub fn indent(text: &str, unit: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    // An opening bracket waits for its next character: `{}` and `[]` stay together.
    let mut pending_open = false;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(unit);
        }
    };
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        if pending_open {
            pending_open = false;
            if matches!(c, '}' | ']') {
                depth = depth.saturating_sub(1);
                out.push(c);
                continue;
            }
            newline(&mut out, depth);
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                depth += 1;
                pending_open = true;
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{compact, indent};

    #[test]
    fn lays_out_as_go_does() {
        let text = r#"{"a":[],"b":{},"c":[1,{"d":"x, y: {z}"}],"e":"\"q\\"}"#;
        assert_eq!(
            indent(text, "    "),
            "{\n    \"a\": [],\n    \"b\": {},\n    \"c\": [\n        1,\n        {\n            \"d\": \"x, y: {z}\"\n        }\n    ],\n    \"e\": \"\\\"q\\\\\"\n}"
        );
    }

    #[test]
    fn compacts_outside_strings_only() {
        assert_eq!(compact("{ \"a b\" : [ 1 , 2 ] }\n"), "{\"a b\":[1,2]}");
        assert_eq!(compact(r#"{"a":"x\" y"}"#), r#"{"a":"x\" y"}"#);
    }
}
