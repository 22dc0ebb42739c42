//! Reads a crate's module tree and every module path its code names.
//!
//! In: a crate root file (`lib.rs`, `main.rs`). Out: the crate's [`Module`]s,
//! found by following `mod` declarations as rustc does (`#[path]` included),
//! and each module's [`Reference`]s: every `use` tree and inline path that
//! starts with `crate::`, `super::` or `self::`, resolved to the module it
//! names, with its line and whether it is test code (`#[cfg(test)]` modules
//! and items, at any depth). A text scan, not a parser: comments are skipped,
//! and string contents that look like paths would count (none do today).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One module of the crate.
#[derive(Clone, Debug)]
pub struct Module {
    /// Its path from the crate root (`["index", "body"]`; the root is `[]`).
    pub path: Vec<String>,
    /// The file that holds it (inline modules share their parent's).
    pub file: PathBuf,
    /// Declared under `#[cfg(test)]`, or inside such a module.
    pub test: bool,
    /// Written inline (`mod x { … }`) in its parent's file.
    pub inline: bool,
}

/// A module path named by code.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The module the code is in.
    pub from: Vec<String>,
    /// The module named (the longest known prefix of the path).
    pub to: Vec<String>,
    /// Where.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// Whether the naming code is test code.
    pub test: bool,
}

/// Every module reachable from `root_file`, whose module path is `root`.
pub fn modules(root_file: &Path, root: Vec<String>) -> Vec<Module> {
    let mut out = vec![Module {
        path: root,
        file: root_file.to_path_buf(),
        test: false,
        inline: false,
    }];
    let mut next = 0;
    while next < out.len() {
        let parent = out[next].clone();
        next += 1;
        if parent.inline {
            continue; // its file was read as its parent's
        }
        let text = std::fs::read_to_string(&parent.file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some((name, inline)) = mod_declaration(line) else {
                continue;
            };
            let attributes = attributes_before(&lines, i);
            let test = parent.test || attributes.iter().any(|a| a.contains("cfg(test)"));
            let mut path = parent.path.clone();
            path.push(name.to_string());
            let file = if inline {
                Some(parent.file.clone())
            } else {
                child_file(&parent.file, name, &attributes)
            };
            if let Some(file) = file {
                out.push(Module {
                    path,
                    file,
                    test,
                    inline,
                });
            }
        }
    }
    out
}

/// `mod name;` or `mod name {` (with any visibility): the name, and whether inline.
fn mod_declaration(line: &str) -> Option<(&str, bool)> {
    let code = line.trim();
    let rest = code
        .strip_prefix("pub ")
        .or_else(|| {
            code.strip_prefix("pub(")
                .and_then(|r| r.split_once(") ").map(|(_, r)| r))
        })
        .unwrap_or(code);
    let rest = rest.strip_prefix("mod ")?;
    let name_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, tail) = rest.split_at(name_len);
    match tail.trim() {
        ";" => Some((name, false)),
        t if t.starts_with('{') => Some((name, true)),
        _ => None,
    }
}

/// The `#[...]` lines right above line `i`.
fn attributes_before<'a>(lines: &[&'a str], i: usize) -> Vec<&'a str> {
    lines[..i]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("#[") || l.starts_with("///") || l.starts_with("//"))
        .filter(|l| l.starts_with("#["))
        .collect()
}

/// The file of `mod name;` declared in `parent`, as rustc finds it.
fn child_file(parent: &Path, name: &str, attributes: &[&str]) -> Option<PathBuf> {
    let dir = parent.parent()?;
    if let Some(given) = attributes.iter().find_map(|a| {
        a.strip_prefix("#[path = \"")
            .and_then(|r| r.split_once('"'))
            .map(|(p, _)| p)
    }) {
        return Some(dir.join(given));
    }
    let stem = parent.file_stem()?.to_str()?;
    let base = if matches!(stem, "mod" | "lib" | "main") {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    [
        base.join(format!("{name}.rs")),
        base.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|f| f.is_file())
}

/// Every module path `module`'s file names, resolved against `known`.
/// `crate_names` are the names the crate calls itself by besides `crate`
/// (`fbc_registry` in `main.rs`).
pub fn references(
    module: &Module,
    known: &BTreeSet<Vec<String>>,
    crate_names: &[&str],
) -> Vec<Reference> {
    let text = std::fs::read_to_string(&module.file).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tests = test_lines(&lines);
    let mut out = Vec::new();
    for (at, path) in paths(&lines) {
        let test = module.test || tests.contains(&at);
        // Code in a `#[cfg(test)] mod tests {}` block sits one level down.
        let here = if test && !module.test {
            [module.path.clone(), vec!["tests".to_string()]].concat()
        } else {
            module.path.clone()
        };
        let Some(absolute) = resolve(&here, &path, crate_names) else {
            continue;
        };
        let to = (0..=absolute.len())
            .rev()
            .map(|n| absolute[..n].to_vec())
            .find(|p| known.contains(p))
            .unwrap_or_default();
        out.push(Reference {
            from: module.path.clone(),
            to,
            file: module.file.clone(),
            line: at + 1,
            test,
        });
    }
    out
}

/// `path` (segments) as an absolute module path, seen from module `here`;
/// `None` for a path that is not crate-relative.
fn resolve(here: &[String], path: &[String], crate_names: &[&str]) -> Option<Vec<String>> {
    let first = path.first()?.as_str();
    let mut base: Vec<String> = match first {
        "crate" => Vec::new(),
        n if crate_names.contains(&n) => Vec::new(),
        "self" | "super" => here.to_vec(),
        _ => return None,
    };
    let mut rest = path;
    while let Some(segment) = rest.first() {
        match segment.as_str() {
            "self" => {}
            "super" => {
                base.pop()?;
            }
            s if s == first && base.is_empty() => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The (0-based) lines that are test code: `#[cfg(test)] mod x { … }` blocks
/// and single `#[cfg(test)]` items.
fn test_lines(lines: &[&str]) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            i += 1;
            continue;
        }
        let mut depth = 0i64;
        let mut j = i + 1;
        while j < lines.len() {
            out.insert(j);
            depth += lines[j].matches('{').count() as i64;
            depth -= lines[j].matches('}').count() as i64;
            let line = lines[j].trim_end();
            if depth <= 0 && (line.ends_with(';') || line.ends_with('}')) {
                break;
            }
            j += 1;
        }
        i = j + 1;
    }
    out
}

/// Every crate-relative path in the code, with its line: each `use` tree
/// expanded, and every inline `crate::…`, `super::…`, `self::…` path.
fn paths(lines: &[&str]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut statement: Option<(usize, String)> = None;
    for (at, raw) in lines.iter().enumerate() {
        let code = strip_comment(raw);
        if let Some((start, text)) = statement.as_mut() {
            text.push_str(code);
            if code.contains(';') {
                let start = *start;
                out.extend(use_tree(text).into_iter().map(|p| (start, p)));
                statement = None;
            }
            continue;
        }
        let trimmed = code.trim_start();
        let used = trimmed
            .strip_prefix("pub use ")
            .or_else(|| trimmed.strip_prefix("pub(crate) use "))
            .or_else(|| trimmed.strip_prefix("pub(super) use "))
            .or_else(|| trimmed.strip_prefix("use "));
        if let Some(tree) = used {
            if tree.contains(';') {
                out.extend(use_tree(tree).into_iter().map(|p| (at, p)));
            } else {
                statement = Some((at, tree.to_string()));
            }
            continue;
        }
        out.extend(inline_paths(code).into_iter().map(|p| (at, p)));
    }
    out
}

/// A line without its `//` comment (a `//` inside a string cuts it short; no
/// path is lost to that today).
fn strip_comment(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        return "";
    }
    match line.find(" //") {
        Some(at) if !line[..at].contains('"') => &line[..at],
        _ => line,
    }
}

/// The paths of a `use` tree (`crate::{a, b::{c, d}}` → `crate::a`,
/// `crate::b::c`, `crate::b::d`).
fn use_tree(text: &str) -> Vec<Vec<String>> {
    // `a as b` becomes `a@b` before white space goes, so that the rename can
    // be cut off without cutting names that contain "as".
    let text: String = text
        .split(';')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" as ", "@")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut out = Vec::new();
    expand(&text, &mut Vec::new(), &mut out);
    out
}

fn expand(text: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let (head, group) = match text.find('{') {
        Some(open) if text.ends_with('}') => (&text[..open], Some(&text[open + 1..text.len() - 1])),
        _ => (text, None),
    };
    let depth = prefix.len();
    for segment in head.split("::").filter(|s| !s.is_empty()) {
        let name = segment.split('@').next().unwrap_or(segment);
        if name != "*" {
            prefix.push(name.to_string());
        }
    }
    match group {
        None => out.push(prefix.clone()),
        Some(group) => {
            for part in split_top_level(group) {
                expand(part, prefix, out);
            }
        }
    }
    prefix.truncate(depth);
}

/// `a, b::{c, d}, e` at the top nesting level.
fn split_top_level(group: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&group[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// `crate::a::b`, `super::x`, `self::y` paths written inline in code.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start).map(|a| a + from) {
            from = at + start.len();
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue; // part of a longer path or name
            }
            let path: Vec<String> = code[at..]
                .split("::")
                .map(|s| {
                    s.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .take_while(|s| !s.is_empty())
                .collect();
            out.push(path);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn use_trees_expand_nested_groups_and_renames() {
        assert_eq!(
            use_tree("crate::{a, b::{c as d, e::*}, self};"),
            [
                s(&["crate", "a"]),
                s(&["crate", "b", "c"]),
                s(&["crate", "b", "e"]),
                s(&["crate", "self"])
            ]
        );
    }

    #[test]
    fn super_and_self_resolve_from_the_module() {
        let here = s(&["index", "body"]);
        assert_eq!(
            resolve(&here, &s(&["super", "build", "X"]), &[]),
            Some(s(&["index", "build", "X"]))
        );
        assert_eq!(
            resolve(&here, &s(&["super", "super", "cache"]), &[]),
            Some(s(&["cache"]))
        );
        assert_eq!(
            resolve(&here, &s(&["crate", "tls"]), &[]),
            Some(s(&["tls"]))
        );
        assert_eq!(
            resolve(&here, &s(&["fbc_registry", "app"]), &["fbc_registry"]),
            Some(s(&["app"]))
        );
        assert_eq!(resolve(&here, &s(&["std", "io"]), &[]), None);
    }
}
