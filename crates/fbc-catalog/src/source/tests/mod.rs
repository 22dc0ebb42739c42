//! Unit tests of the loader: file parsing (JSON streams, YAML documents, the meta
//! envelope) and the directory walk (order, `.indexignore`, `ConfigMap` layout), as the
//! reference loader behaves (operator-registry's `declcfg.WalkMetasFS` and the loader cases of its `alpha/declcfg` tests), plus properties
//! that must hold for any input (no panics).
//!
//! This file holds the parsing helpers the topics share; the tests are in one
//! submodule per topic.

mod directory_walk;
mod envelope;
mod hostile;
mod json_streams;
mod yaml_documents;

use super::*;
use serde_json::json;
use std::fs;

/// (schema, name, document, line) of every blob.
fn summary(result: &FileResult) -> Vec<(&str, &str, usize, usize)> {
    result
        .blobs
        .iter()
        .map(|b| {
            (
                b.schema.as_str(),
                b.name.as_str(),
                b.origin.document,
                b.origin.line,
            )
        })
        .collect()
}

/// Parses text that must load without errors (the model's tests use it too).
pub(crate) fn parse_ok(file: &str, text: &str) -> FileResult {
    let result = parse_file(file, text);
    assert!(
        result.errors.is_empty(),
        "unexpected errors: {:?}",
        result.errors
    );
    result
}

/// Parses text that must fail with exactly one error.
fn parse_err(file: &str, text: &str) -> LoadError {
    let mut result = parse_file(file, text);
    assert_eq!(result.errors.len(), 1, "errors: {:?}", result.errors);
    result.errors.remove(0)
}
