//! Error messages in graphql-go's words.
//!
//! In: async-graphql's parse and validation errors. Out: the messages
//! graphql-go v0.8.1 gives for the same mistakes, where the mistake is one
//! people make (an unknown field, a missing sub-selection, several operations,
//! a syntax error's position and source excerpt); others keep async-graphql's
//! wording (docs/http.md lists the difference).

use async_graphql::parser::Error as ParseError;

/// graphql-go's `NewSyntaxError` text: `Syntax Error GraphQL (L:C) what` and
/// the source around the position.
pub fn syntax_error(query: &str, error: &ParseError) -> String {
    let pos = error.positions().next();
    let (line, column) = pos.map_or((1, 1), |p| (p.line, p.column));
    let description = match error {
        ParseError::Syntax { message, .. } => describe(message, query, pos),
        other => other.to_string(),
    };
    format!(
        "Syntax Error GraphQL ({line}:{column}) {description}\n\n{}",
        highlight(query, line, column)
    )
}

/// graphql-go's description of a syntax error: `Expected Name, found <token>`
/// where pest wanted a selection or a name (the common case: a selection set
/// cut short), else `Unexpected <token>`.
fn describe(message: &str, query: &str, pos: Option<async_graphql::Pos>) -> String {
    let found = pos.map_or_else(|| "EOF".to_string(), |p| token_at(query, p.line, p.column));
    if message.contains("selection") || message.contains("name") {
        format!("Expected Name, found {found}")
    } else {
        format!("Unexpected {found}")
    }
}

/// graphql-go's name for the token at `line:column` (`EOF`, a punctuator,
/// `Name "x"`, `Int "5"`, `String "s"`).
fn token_at(query: &str, line: usize, column: usize) -> String {
    let Some(text) = split_lines(query).get(line.wrapping_sub(1)).map(|l| {
        let at: usize = l
            .chars()
            .take(column.saturating_sub(1))
            .map(char::len_utf8)
            .sum();
        &l[at..]
    }) else {
        return "EOF".into();
    };
    let rest = text;
    let Some(first) = rest.chars().next() else {
        return "EOF".into();
    };
    if first.is_ascii_alphabetic() || first == '_' {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        return format!("Name \"{name}\"");
    }
    if first.is_ascii_digit() || first == '-' {
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        return format!("Int \"{number}\"");
    }
    if first == '"' {
        let string: String = rest[1..].chars().take_while(|c| *c != '"').collect();
        return format!("String \"{string}\"");
    }
    if rest.starts_with("...") {
        return "...".into();
    }
    first.to_string()
}

/// `highlightSourceAtLocation`: the line before, the line, a caret under the
/// column, the line after; line numbers padded to the widest.
fn highlight(query: &str, line: usize, column: usize) -> String {
    let lines: Vec<&str> = split_lines(query);
    let pad = (line + 1).to_string().len();
    let print = |n: usize| -> String {
        let text = lines.get(n - 1).copied().unwrap_or("");
        let shown: String = text
            .chars()
            .map(|c| {
                if (c as u32) < 0x20 {
                    format!("\\u{:04X}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect();
        format!("{n:>pad$}: {shown}\n")
    };
    let mut out = String::new();
    if line >= 2 {
        out += &print(line - 1);
    }
    out += &print(line);
    out += &" ".repeat(1 + pad + column);
    out += "^\n";
    if line < lines.len() {
        out += &print(line + 1);
    }
    out
}

/// Lines split at `\r\n`, `\n` or `\r`, as graphql-go's regexp does.
fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                lines.push(&text[start..i]);
                i += 2;
                start = i;
                continue;
            }
            b'\n' | b'\r' => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    lines.push(&text[start..]);
    lines
}

/// A validation or request error's message in graphql-go's words, and whether
/// graphql-go gives it without locations.
pub fn translate(message: &str) -> (String, bool) {
    if message == "Operation name required in request." {
        return (
            "Must provide operation name if query contains multiple operations.".into(),
            true,
        );
    }
    if let Some(rest) = message.strip_prefix("Schema is not configured for ") {
        return (
            format!(
                "Schema is not configured for {}",
                rest.trim_end_matches('.')
            ),
            false,
        );
    }
    if let Some((field, ty)) = message
        .strip_prefix("Field \"")
        .and_then(|rest| rest.strip_suffix("\" must have a selection of subfields"))
        .and_then(|rest| rest.split_once("\" of type \""))
    {
        // Every object-typed field here is a list but these.
        let ty = match ty {
            "CatalogSummary" | "__Type" => ty.to_string(),
            "__Schema" => "__Schema!".into(),
            _ => format!("[{ty}]"),
        };
        return (
            format!("Field \"{field}\" of type \"{ty}\" must have a sub selection."),
            false,
        );
    }
    if let Some(rest) = message.strip_prefix("Unknown field \"") {
        // `Unknown field "x" on type "T".` (+ async-graphql's suggestion)
        if let Some((field, rest)) = rest.split_once("\" on type \"") {
            let ty = rest.split('"').next().unwrap_or("");
            return (
                format!("Cannot query field \"{field}\" on type \"{ty}\"."),
                false,
            );
        }
    }
    (message.to_string(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_excerpt_is_graphql_gos() {
        assert_eq!(
            highlight("{ olmpackages { name ", 1, 22),
            "1: { olmpackages { name \n                        ^\n"
        );
        assert_eq!(highlight("a\nb\nc", 2, 1), "1: a\n2: b\n   ^\n3: c\n");
    }

    #[test]
    fn tokens_are_named_as_graphql_gos_lexer_does() {
        assert_eq!(token_at("{ a & }", 1, 5), "&");
        assert_eq!(token_at("{ a ", 1, 5), "EOF");
        assert_eq!(token_at("{ a(x: null) }", 1, 8), "Name \"null\"");
        assert_eq!(token_at("{ a(x: 12) }", 1, 8), "Int \"12\"");
        assert_eq!(token_at("x\n{ \"s\" }", 2, 3), "String \"s\"");
    }
}
