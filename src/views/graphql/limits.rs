//! The checks a query passes before it runs.
//!
//! In: the query text. Out: `Ok`, or the message catalogd answers instead of
//! running it: a parse error, or catalogd's caps (operator-controller
//! `internal/catalogd/graphql/validation.go`: depth 10, 50 aliases, 500 fields,
//! counted over every operation, each named fragment walked once per
//! operation). Before parsing, nesting deeper than [`MAX_NESTING`] is refused
//! with the depth message, so no query can make the parser recurse without end.
//! A query that passes comes out parsed ([`Checked`]), so it is parsed once.

use async_graphql::Positioned;
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, Selection, SelectionSet,
};
use std::collections::{HashMap, HashSet};

/// catalogd's caps.
pub const MAX_DEPTH: usize = 10;
/// Aliased fields, over the whole document.
pub const MAX_ALIASES: usize = 50;
/// Fields, over the whole document.
pub const MAX_FIELDS: usize = 500;
/// Brackets open at once, before parsing (ours: a selection this deep is over
/// [`MAX_DEPTH`] anyway).
pub const MAX_NESTING: usize = 64;

/// Why a query was refused (the message is catalogd's answer).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// It does not parse.
    #[error("query parse error: {0}")]
    Parse(String),
    /// Selections nest deeper than [`MAX_DEPTH`].
    #[error("query exceeds maximum depth of {MAX_DEPTH}")]
    Depth,
    /// More than [`MAX_ALIASES`] aliases.
    #[error("query exceeds maximum alias count of {MAX_ALIASES}")]
    Aliases,
    /// More than [`MAX_FIELDS`] fields.
    #[error("query exceeds maximum field count of {MAX_FIELDS}")]
    Fields,
}

/// A query that passed [`check`], with its parsed document.
pub struct Checked {
    /// The text.
    pub query: String,
    /// Its document (handed to the executor, which would parse it again).
    pub document: ExecutableDocument,
}

/// catalogd's `ValidateQueryComplexity`.
pub fn check(query: String) -> Result<Checked, Refusal> {
    if nesting(&query) > MAX_NESTING {
        return Err(Refusal::Depth);
    }
    let document = async_graphql::parser::parse_query(&query)
        .map_err(|e| Refusal::Parse(super::messages::syntax_error(&query, &e)))?;
    let mut walk = Walk {
        document: &document,
        aliases: 0,
        fields: 0,
        visited: HashSet::new(),
    };
    for set in operations_in_order(&document) {
        walk.visited.clear();
        walk.selection_set(set, 1)?;
    }
    Ok(Checked { query, document })
}

/// The operations' selection sets in document order.
fn operations_in_order(document: &ExecutableDocument) -> Vec<&Positioned<SelectionSet>> {
    match &document.operations {
        DocumentOperations::Single(op) => vec![&op.node.selection_set],
        DocumentOperations::Multiple(ops) => {
            let mut ops: Vec<_> = ops.values().collect();
            ops.sort_by_key(|op| (op.pos.line, op.pos.column));
            ops.into_iter().map(|op| &op.node.selection_set).collect()
        }
    }
}

struct Walk<'a> {
    document: &'a ExecutableDocument,
    aliases: usize,
    fields: usize,
    visited: HashSet<&'a str>,
}

impl<'a> Walk<'a> {
    fn selection_set(
        &mut self,
        set: &'a Positioned<SelectionSet>,
        depth: usize,
    ) -> Result<(), Refusal> {
        if depth > MAX_DEPTH {
            return Err(Refusal::Depth);
        }
        for selection in &set.node.items {
            match &selection.node {
                Selection::Field(field) => {
                    self.fields += 1;
                    if self.fields > MAX_FIELDS {
                        return Err(Refusal::Fields);
                    }
                    if field.node.alias.is_some() {
                        self.aliases += 1;
                        if self.aliases > MAX_ALIASES {
                            return Err(Refusal::Aliases);
                        }
                    }
                    // graphql-go has no selection set for a leaf; an empty one
                    // here is the same (its depth is not checked).
                    if !field.node.selection_set.node.items.is_empty() {
                        self.selection_set(&field.node.selection_set, depth + 1)?;
                    }
                }
                Selection::InlineFragment(inline) => {
                    self.selection_set(&inline.node.selection_set, depth + 1)?;
                }
                Selection::FragmentSpread(spread) => {
                    let name = spread.node.fragment_name.node.as_str();
                    if !self.visited.insert(name) {
                        continue;
                    }
                    let fragments: &'a HashMap<_, _> = &self.document.fragments;
                    if let Some(fragment) = fragments.get(&spread.node.fragment_name.node) {
                        self.selection_set(&fragment.node.selection_set, depth + 1)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The deepest nesting of `{`, `[` and `(` outside strings and comments.
fn nesting(query: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = query.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '[' | '(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' | ']' | ')' => depth = depth.saturating_sub(1),
            '#' => {
                for c in chars.by_ref() {
                    if c == '\n' || c == '\r' {
                        break;
                    }
                }
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(query: &str) -> Result<(), Refusal> {
        check(query.to_string()).map(|_| ())
    }

    fn nested(levels: usize) -> String {
        let mut q = String::from("{ olmbundles(limit: 1) ");
        for _ in 1..levels {
            q += "{ ... on OlmBundle ";
        }
        q += "{ name }";
        for _ in 1..levels {
            q += " }";
        }
        q + " }"
    }

    #[test]
    fn catalogds_caps() {
        assert_eq!(verdict("{ __typename }"), Ok(()));
        assert_eq!(verdict(&nested(9)), Ok(()));
        assert_eq!(verdict(&nested(10)), Err(Refusal::Depth));
        let aliases = |n: usize| {
            let body: Vec<String> = (1..=n).map(|i| format!("a{i}: __typename")).collect();
            format!("{{ {} }}", body.join(" "))
        };
        assert_eq!(verdict(&aliases(50)), Ok(()));
        assert_eq!(verdict(&aliases(51)), Err(Refusal::Aliases));
        let fields = |n: usize| format!("{{ {} }}", vec!["__typename"; n].join(" "));
        assert_eq!(verdict(&fields(500)), Ok(()));
        assert_eq!(verdict(&fields(501)), Err(Refusal::Fields));
        assert!(matches!(verdict("{ a "), Err(Refusal::Parse(_))));
    }

    #[test]
    fn fragments_count_once_per_operation_and_cycles_end() {
        let q = "query A { ...F ...F } query B { ...F } fragment F on Query { ...F __typename }";
        assert_eq!(verdict(q), Ok(()));
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let q = format!("{}{}", "{".repeat(100_000), "}".repeat(100_000));
        assert_eq!(verdict(&q), Err(Refusal::Depth));
        let in_string = format!("{{ a(x: \"{}\") }}", "{".repeat(1000));
        assert_eq!(nesting(&in_string), 2);
        assert_eq!(nesting("# {{{{{{\n{ a }"), 1);
    }
}
