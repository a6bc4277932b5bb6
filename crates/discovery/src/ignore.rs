//! What discovery skips: `.gitignore` rules (the repository's and nested ones, matched by
//! gitoxide's `gix-ignore`) and path prefixes from the options.
//!
//! Ignore rules keep ignored files out of rule directories and walks. They never hide the known
//! instruction files (`CLAUDE.local.md` is gitignored by design) or the known skill roots: the
//! callers simply do not ask about those.

use std::path::Path;

use bstr::BStr;
use gix_ignore::glob::pattern::Case;

use super::paths;

/// The ignore rules known so far for one repository.
#[derive(Debug, Clone, Default)]
pub struct Ignores {
    root: String,
    search: gix_ignore::Search,
    prefixes: Vec<String>,
}

impl Ignores {
    /// Rules relative to `root` (the repository root, or cwd outside one); `prefixes` are
    /// absolute paths or paths relative to `root` whose contents are skipped.
    pub fn new(root: &str, prefixes: &[String]) -> Self {
        Ignores {
            root: root.to_owned(),
            search: gix_ignore::Search::default(),
            prefixes: prefixes.iter().map(|p| paths::join(root, p)).collect(),
        }
    }

    /// Adds the patterns of the `.gitignore` found in directory `dir`.
    pub fn add_gitignore(&mut self, dir: &str, bytes: &[u8]) {
        let source = Path::new(dir).join(".gitignore");
        // Reading from a buffer cannot fail.
        let _ = self.search.add_patterns_buffer(
            bytes,
            source,
            Some(Path::new(&self.root)),
            gix_ignore::search::Ignore { support_precious: false },
        );
    }

    /// True when `path` (absolute) is ignored, by a prefix or by `.gitignore`.
    pub fn is_ignored(&self, path: &str, is_dir: bool) -> bool {
        self.is_excluded(path) || self.is_git_ignored(path, is_dir)
    }

    /// True when `path` is under one of the configured prefixes.
    pub fn is_excluded(&self, path: &str) -> bool {
        self.prefixes.iter().any(|p| paths::relative_to(path, p).is_some())
    }

    /// True when `.gitignore` rules ignore `path`.
    pub fn is_git_ignored(&self, path: &str, is_dir: bool) -> bool {
        let Some(rel) = paths::relative_to(path, &self.root).filter(|r| !r.is_empty()) else {
            return false;
        };
        // Git also ignores everything under an ignored directory.
        let under_ignored_dir = rel.char_indices().any(|(i, ch)| ch == '/' && self.matches(&rel[..i], true));
        under_ignored_dir || self.matches(rel, is_dir)
    }

    fn matches(&self, rel: &str, is_dir: bool) -> bool {
        self.search
            .pattern_matching_relative_path(BStr::new(rel), Some(is_dir), Case::Sensitive)
            .is_some_and(|m| !m.pattern.is_negative())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_and_nested_gitignores_with_negation() {
        let mut ig = Ignores::new("/repo", &["vendor".to_owned()]);
        ig.add_gitignore("/repo", b"*.local.md\n/build/\n!keep.local.md\n");
        ig.add_gitignore("/repo/.cursor/rules", b"drafts/\n");
        assert!(ig.is_ignored("/repo/CLAUDE.local.md", false));
        assert!(ig.is_ignored("/repo/a/x.local.md", false));
        assert!(!ig.is_ignored("/repo/keep.local.md", false));
        assert!(ig.is_ignored("/repo/build/out.md", false));
        assert!(!ig.is_ignored("/repo/a/build/out.md", false), "anchored to the root");
        assert!(ig.is_ignored("/repo/.cursor/rules/drafts/a.mdc", false));
        assert!(!ig.is_ignored("/repo/.cursor/rules/real.mdc", false));
        assert!(ig.is_ignored("/repo/vendor/AGENTS.md", false));
        assert!(!ig.is_ignored("/elsewhere/x.local.md", false));
    }
}
