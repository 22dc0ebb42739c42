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

use super::LoadError;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::PathBuf;

/// One pattern, anchored at its `.indexignore`'s directory.
struct Rule {
    /// Directory of the `.indexignore`, relative to the root (`""` for the root).
    dir: String,
    matcher: Gitignore,
}

/// Every `.indexignore` pattern of a catalog, in evaluation order.
#[derive(Default)]
pub struct IgnoreRules {
    rules: Vec<Rule>,
}

impl IgnoreRules {
    /// Reads and compiles the given `.indexignore` files.
    pub fn from_files(files: &[(String, PathBuf)]) -> Result<Self, LoadError> {
        let mut rules = Vec::new();
        for (rel, path) in files {
            let text = std::fs::read_to_string(path).map_err(|e| LoadError::Io {
                path: rel.clone(),
                message: e.to_string(),
            })?;
            let dir = rel
                .rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default();
            rules.extend(Self::parse(rel, &dir, &text)?);
        }
        Ok(IgnoreRules { rules })
    }

    fn parse(rel: &str, dir: &str, text: &str) -> Result<Vec<Rule>, LoadError> {
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
            rules.push(Rule {
                dir: dir.to_string(),
                matcher,
            });
        }
        Ok(rules)
    }

    /// Whether the file at `rel` (relative to the root, `/`-separated) is excluded.
    pub fn is_ignored(&self, rel: &str) -> bool {
        let mut ignored = false;
        for rule in &self.rules {
            let scoped = if rule.dir.is_empty() {
                Some(rel)
            } else {
                rel.strip_prefix(rule.dir.as_str())
                    .and_then(|r| r.strip_prefix('/'))
            };
            let Some(scoped) = scoped else { continue };
            let path = PathBuf::from("/").join(scoped);
            match rule.matcher.matched_path_or_any_parents(&path, false) {
                Match::Ignore(_) => ignored = true,
                Match::Whitelist(_) => ignored = false,
                Match::None => {}
            }
        }
        ignored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(files: &[(&str, &str)]) -> IgnoreRules {
        let mut all = Vec::new();
        for (rel, text) in files {
            let dir = rel
                .rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default();
            all.extend(IgnoreRules::parse(rel, &dir, text).expect("valid patterns"));
        }
        IgnoreRules { rules: all }
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
