//! Discovery of project rules and skills (chapter 8.4–8.5), sans-IO.
//!
//! The core never touches a filesystem: a [`Workspace`] runs jobs (discover, refresh, rules for
//! a path, load a skill) that emit batched host reads and finish with a result. See
//! `docs/discovery-protocol.md` for the host side, and [`host`] for how a run is a restartable,
//! memoised computation.
//!
//! - [`rules`]: instruction files, rule directories, conventions, order, imports, budgets;
//! - [`skills`]: skill roots, validation, shadowing, the listing the prompt gets;
//! - [`frontmatter`], [`ignore`], [`paths`]: the pieces they share.

pub mod codes;
pub mod error_codes;
mod activation;
pub mod engine;
pub mod frontmatter;
pub mod host;
mod imports;
pub mod ignore;
pub mod paths;
pub mod rules;
pub mod skills;
pub mod yaml;

use serde::{Deserialize, Serialize};

pub use engine::{Changes, Job, Outcome, Step, Workspace, WorkspaceStats};
pub use activation::Activation;
pub use rules::{Rule, RuleSource};
pub use skills::{LoadedSkill, Skill, SkillListing, SkillSource};

pub use contextview::workspace::Environment;

/// Discovery options (camelCase in JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiscoveryOptions {
    /// Absolute, `/`-separated.
    pub cwd: String,
    #[serde(default)]
    pub home: Option<String>,
    /// Names whose presence (as a directory or a file) marks a repository root.
    #[serde(default = "default_root_markers")]
    pub root_markers: Vec<String>,
    #[serde(default)]
    pub conventions: Conventions,
    #[serde(default)]
    pub outside_repo: OutsideRepo,
    #[serde(default)]
    pub ignore: IgnoreOptions,
    #[serde(default)]
    pub limits: DiscoveryLimits,
    #[serde(default)]
    pub skills: SkillOptions,
}

fn default_root_markers() -> Vec<String> {
    vec![".git".to_owned()]
}

impl DiscoveryOptions {
    pub fn new(cwd: impl Into<String>) -> Self {
        DiscoveryOptions {
            cwd: cwd.into(),
            home: None,
            root_markers: default_root_markers(),
            conventions: Conventions::default(),
            outside_repo: OutsideRepo::default(),
            ignore: IgnoreOptions::default(),
            limits: DiscoveryLimits::default(),
            skills: SkillOptions::default(),
        }
    }

    /// Checks what serde cannot: absolute paths and safe plugin names.
    pub fn validate(&self) -> Result<(), String> {
        if !self.cwd.starts_with('/') {
            return Err(format!("cwd must be an absolute, /-separated path, got `{}`", self.cwd));
        }
        if let Some(home) = &self.home {
            if !home.starts_with('/') {
                return Err(format!("home must be an absolute, /-separated path, got `{home}`"));
            }
        }
        if self.root_markers.iter().any(|m| paths::is_unsafe_name(m)) {
            return Err("rootMarkers must be plain names (no `/` or `..`)".to_owned());
        }
        Ok(())
    }
}

/// Which conventions are read (all on by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Conventions {
    /// `.grok/rules`, `~/.grok/rules`, `.grok/skills`.
    pub grok: bool,
    /// `CLAUDE.md`, `CLAUDE.local.md`, `.claude/CLAUDE.md`, `.claude/rules`, `@path` imports, `.claude/skills`.
    pub claude: bool,
    /// `.mdc` rule files anywhere under `.cursor/rules`, `.cursorrules`, `.cursor/skills`.
    pub cursor: bool,
    /// `AGENTS.md`, `Agents.md`, `AGENT.md`, `.agents/skills`.
    pub agents: bool,
    /// `AGENTS.override.md`, `~/.codex/AGENTS.md`, `.codex/skills`.
    pub codex: bool,
}

impl Default for Conventions {
    fn default() -> Self {
        Conventions { grok: true, claude: true, cursor: true, agents: true, codex: true }
    }
}

/// What is scanned when cwd is not inside a repository.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OutsideRepo {
    /// Only cwd itself.
    #[default]
    Cwd,
    /// cwd and every ancestor, as if `/` were the root.
    Ancestors,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct IgnoreOptions {
    /// Honour `.gitignore` in rule directories: the files of the directories from the repository
    /// root to cwd (nested ones inside rule directories are not read yet).
    pub gitignore: bool,
    /// Path prefixes (absolute, or relative to the repository root) never looked into.
    pub paths: Vec<String>,
}

impl Default for IgnoreOptions {
    fn default() -> Self {
        IgnoreOptions { gitignore: true, paths: Vec::new() }
    }
}

/// Sizes and depths (bytes are UTF-8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct DiscoveryLimits {
    /// One rule file; beyond it the text is cut with a visible marker and a diagnostic.
    pub rule_file_bytes: u64,
    /// All always-loaded rules together; the least specific give way first.
    pub rule_total_bytes: u64,
    /// The skills listing in the prompt.
    pub skill_listing_bytes: u64,
    /// One skill's description in the listing.
    pub skill_entry_bytes: u64,
    /// How deep rule directories and skill roots are walked.
    pub walk_depth: u32,
    /// Any file read whole (a skill body).
    pub max_file_bytes: u64,
    /// How much of a SKILL.md is read to find its frontmatter.
    pub frontmatter_bytes: u64,
    /// `@path` import hops (Claude Code allows 4).
    pub import_hops: u32,
}

impl Default for DiscoveryLimits {
    fn default() -> Self {
        DiscoveryLimits {
            rule_file_bytes: 64 * 1024,
            rule_total_bytes: 256 * 1024,
            skill_listing_bytes: 16 * 1024,
            skill_entry_bytes: 400,
            walk_depth: 5,
            max_file_bytes: 1024 * 1024,
            frontmatter_bytes: 16 * 1024,
            import_hops: 4,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SkillOptions {
    /// Extra skill roots from configuration (absolute).
    pub paths: Vec<String>,
    /// Skill names never offered.
    pub disabled: Vec<String>,
    /// Skills the host ships with its agent.
    pub bundled: Vec<BundledSkill>,
    /// Plugin roots: each holds `skills/<name>/SKILL.md`.
    pub plugins: Vec<Plugin>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BundledSkill {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Plugin {
    pub name: String,
    pub root: String,
}

