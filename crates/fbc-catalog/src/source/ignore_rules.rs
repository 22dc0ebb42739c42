//! `.indexignore` rules.
//!
//! In: the `.indexignore` files found by the walk (relative path, absolute path),
//! parents before children. Out: a predicate over catalog file paths.
//!
//! Semantics follow the reference (go-git's gitignore matcher), built on the
//! `ignore` crate's gitignore globs:
//!
//! 1. lines are trimmed; blank lines and `#` comments are skipped; `!` negates;
//! 2. a pattern is scoped to the directory of its `.indexignore`;
//! 3. a pattern without a slash matches any path component, so `foo` and `foo/`
//!    exclude every file under a directory `foo`;
//! 4. every pattern of every applicable file is tested against the file's path in
//!    order (parent files first) and the **last** match wins; only file paths are
//!    tested, so `!keep.json` re-includes a file under an excluded directory.
//!
//! Rules are grouped by directory, so a file is tested against the patterns of its
//! own ancestors only: the cost per file is the number of those patterns, not the
//! number of patterns in the catalog.

use super::LoadError;
use super::limits::ParseLimits;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::HashMap;
use std::path::PathBuf;

/// One pattern, anchored at its `.indexignore`'s directory.
struct Rule {
    matcher: Gitignore,
}

/// Every `.indexignore` pattern of a catalog, by directory, in evaluation order.
#[derive(Default)]
pub struct IgnoreRules {
    /// Directory of an `.indexignore`, relative to the root (`""` for the root) →
    /// its patterns in file order.
    by_dir: HashMap<String, Vec<Rule>>,
}

impl IgnoreRules {
    /// Reads and compiles the given `.indexignore` files (regular files within the
    /// file size limit only).
    pub fn from_files(
        files: &[(String, PathBuf)],
        limits: &ParseLimits,
    ) -> Result<Self, LoadError> {
        let mut by_dir: HashMap<String, Vec<Rule>> = HashMap::new();
        let mut buffer = Vec::new();
        for (rel, path) in files {
            super::read::read_regular(path, limits.max_file_bytes, &mut buffer)
                .map_err(|e| super::parse::read_error(rel, e))?;
            let text = String::from_utf8_lossy(&buffer);
            let dir = rel
                .rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default();
            let rules = Self::parse(rel, &text)?;
            by_dir.entry(dir).or_default().extend(rules);
        }
        Ok(IgnoreRules { by_dir })
    }

    /// Compiles `.indexignore` texts given as (path relative to the root, text):
    /// what [`IgnoreRules::from_files`] does once the files are read.
    pub fn from_texts(files: &[(&str, &str)]) -> Result<Self, LoadError> {
        let mut by_dir: HashMap<String, Vec<Rule>> = HashMap::new();
        for (rel, text) in files {
            let dir = rel
                .rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default();
            by_dir
                .entry(dir)
                .or_default()
                .extend(Self::parse(rel, text)?);
        }
        Ok(IgnoreRules { by_dir })
    }

    fn parse(rel: &str, text: &str) -> Result<Vec<Rule>, LoadError> {
        let mut rules = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let pattern = line.trim();
            if pattern.is_empty() || pattern.starts_with('#') {
                continue;
            }
            // One matcher per pattern: "last match wins" must hold across patterns
            // that match the file itself and patterns that match a parent directory.
            let mut builder = GitignoreBuilder::new("/");
            let invalid = |message: String| LoadError::IgnorePattern {
                path: rel.to_string(),
                line: i + 1,
                message,
            };
            builder
                .add_line(None, pattern)
                .map_err(|e| invalid(e.to_string()))?;
            let matcher = builder.build().map_err(|e| invalid(e.to_string()))?;
            rules.push(Rule { matcher });
        }
        Ok(rules)
    }

    /// Whether the file at `rel` (relative to the root, `/`-separated) is excluded.
    pub fn is_ignored(&self, rel: &str) -> bool {
        if self.by_dir.is_empty() {
            return false;
        }
        let mut ignored = false;
        // ancestors, outermost first: "", "a", "a/b" for "a/b/file"
        let ancestors = std::iter::once("").chain(rel.match_indices('/').map(|(i, _)| &rel[..i]));
        for dir in ancestors {
            let Some(rules) = self.by_dir.get(dir) else {
                continue;
            };
            let scoped = if dir.is_empty() {
                rel
            } else {
                &rel[dir.len() + 1..]
            };
            // the matcher's root is "/": a path must not bring its own (the ignore
            // crate asserts it), so leading slashes go (fuzz crash a3913189)
            let path = PathBuf::from("/").join(scoped.trim_start_matches('/'));
            for rule in rules {
                match rule.matcher.matched_path_or_any_parents(&path, false) {
                    Match::Ignore(_) => ignored = true,
                    Match::Whitelist(_) => ignored = false,
                    Match::None => {}
                }
            }
        }
        ignored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(files: &[(&str, &str)]) -> IgnoreRules {
        IgnoreRules::from_texts(files).expect("valid patterns")
    }

    /// fuzz/artifacts/indexignore/crash-a39131890fea5d70254a5ef4cb933302d6afbfce:
    /// a path starting with slashes made the ignore crate's root assertion panic.
    #[test]
    fn fuzz_crash_a3913189_a_path_with_leading_slashes_is_matched_not_a_panic() {
        let r = rules(&[(".indexignore", "/1/\n1\n")]);
        assert!(r.is_ignored("////////1"));
        assert!(r.is_ignored("//1/x.yaml"));
        assert!(!r.is_ignored("//2"));
    }

    #[test]
    fn star_then_negations_keep_only_catalog_files() {
        let r = rules(&[(
            ".indexignore",
            "*\n!*.json\n!*.yaml\n*.clusterserviceversion.yaml\n",
        )]);
        assert!(r.is_ignored("README.md"));
        assert!(r.is_ignored("foo.clusterserviceversion.yaml"));
        assert!(!r.is_ignored("catalog.json"));
        assert!(!r.is_ignored("sub/catalog.yaml"));
    }

    #[test]
    fn a_slashless_pattern_excludes_files_under_a_directory_of_that_name() {
        let r = rules(&[(".indexignore", "foo\n")]);
        assert!(r.is_ignored("foo/a.yaml"));
        assert!(r.is_ignored("x/foo/a.yaml"));
        assert!(!r.is_ignored("foobar/a.yaml"));
    }

    #[test]
    fn a_directory_pattern_excludes_only_directories() {
        let r = rules(&[(".indexignore", "foo/\n")]);
        assert!(r.is_ignored("foo/a.yaml"));
        assert!(!r.is_ignored("foo"));
    }

    #[test]
    fn negation_reincludes_a_file_under_an_excluded_directory() {
        let r = rules(&[(".indexignore", "foo\n!foo/keep.yaml\n")]);
        assert!(r.is_ignored("foo/drop.yaml"));
        assert!(!r.is_ignored("foo/keep.yaml"));
    }

    #[test]
    fn last_match_wins_across_parent_and_file_patterns() {
        // `!*.json` matches the file, the later `foo` matches its parent: excluded.
        let r = rules(&[(".indexignore", "!*.json\nfoo\n")]);
        assert!(r.is_ignored("foo/a.json"));
    }

    #[test]
    fn nested_files_are_scoped_and_evaluated_after_their_parents() {
        let r = rules(&[
            (".indexignore", "*.md\n"),
            ("sub/.indexignore", "!keep.md\nlocal.yaml\n"),
        ]);
        assert!(r.is_ignored("README.md"));
        assert!(!r.is_ignored("sub/keep.md"));
        assert!(r.is_ignored("sub/local.yaml"));
        assert!(!r.is_ignored("local.yaml"));
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let r = rules(&[(".indexignore", "# comment\n\n   \n")]);
        assert!(!r.is_ignored("a.yaml"));
    }
}
