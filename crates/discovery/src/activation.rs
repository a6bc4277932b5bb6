//! When a rule applies: always, when a file matches its globs (relative to the project it came
//! from), on the agent's request, or by name only — read from each tool's frontmatter fields.

use serde_json::{Map, Value};

use super::frontmatter::{as_list, as_text};
use super::paths;
use contextview::diagnostic::Diagnostic;
use crate::codes;
pub use contextview::workspace::Activation;

/// Whose frontmatter fields say when a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Convention {
    /// Claude Code's `.claude/rules`: `paths` globs, else always.
    ClaudePaths,
    /// Cursor's `.cursor/rules`: `alwaysApply`, `globs`, `description`.
    Cursor,
    /// Instruction files without such fields: always.
    Always,
}

/// When a rule read under `convention` applies, from its frontmatter `fields`; a field that
/// cannot be read is a diagnostic at `path` and the rule loads as the convention's default.
pub(super) fn activation(convention: Convention, fields: &Map<String, Value>, project: &str, path: &str, diags: &mut Vec<Diagnostic>) -> Activation {
    match convention {
        Convention::ClaudePaths => match fields.get("paths") {
            Some(value) => match as_list(value) {
                Some(globs) if !globs.is_empty() => Activation::Globs { globs, base: project.to_owned() },
                _ => {
                    diags.push(Diagnostic::new(&codes::RULES_BAD_PATHS, "`paths` is not a list of globs; loaded always").at_path(path));
                    Activation::Always
                }
            },
            None => Activation::Always,
        },
        Convention::Cursor => {
            let always = match fields.get("alwaysApply") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
                Some(_) => {
                    diags.push(Diagnostic::new(&codes::RULES_BAD_ALWAYS_APPLY, "`alwaysApply` is not a boolean").at_path(path));
                    false
                }
                None => false,
            };
            let globs = fields.get("globs").and_then(as_list).unwrap_or_default();
            let described = fields.get("description").and_then(as_text).is_some_and(|d| !d.trim().is_empty());
            if always {
                Activation::Always
            } else if !globs.is_empty() {
                Activation::Globs { globs, base: project.to_owned() }
            } else if described {
                Activation::AgentRequested
            } else {
                Activation::Manual
            }
        }
        Convention::Always => Activation::Always,
    }
}

/// A read or edited `path` attaches a rule of this activation: one of its globs matches the
/// path relative to the rule's base.
pub fn matches_path(activation: &Activation, path: &str) -> bool {
    match activation {
        Activation::Globs { globs, base } => match paths::relative_to(path, base) {
            Some(rel) => globs.iter().any(|g| glob_matches(g, rel)),
            None => false,
        },
        Activation::Always | Activation::Subdirectory | Activation::AgentRequested | Activation::Manual => false,
    }
}

/// A glob against a path relative to the rule's base; a pattern without `/` matches at any depth.
fn glob_matches(glob: &str, rel: &str) -> bool {
    let glob = glob.trim().trim_start_matches("./");
    if glob.contains('/') {
        glob_match::glob_match(glob.trim_start_matches('/'), rel)
    } else {
        glob_match::glob_match(glob, rel) || glob_match::glob_match(&format!("**/{glob}"), rel)
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_relative_to_their_base() {
        assert!(glob_matches("**/*.ts", "src/a/b.ts"));
        assert!(glob_matches("*.ts", "src/a/b.ts"));
        assert!(glob_matches("src/**", "src/a/b.ts"));
        assert!(!glob_matches("src/*.ts", "src/a/b.ts"));
        assert!(glob_matches("./src/**/*.ts", "src/a/b.ts"));
    }
}
