//! What a workspace gives the prompt: its rules (and when each applies), its skills and the
//! listing the prompt gets of them, and the environment a discovery run found — as data.
//!
//! Finding them (walking directories, reading frontmatter, globs, ignore files) is the discovery
//! engine's job, in the `contextview-discovery` crate; the prompt reads only these types, so the
//! core needs none of that machinery.

use contextview_derive::ReadValue;
use serde::Serialize;

use crate::diagnostic::Diagnostic;

/// When a rule applies.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, contextview_derive::ReadValue)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Activation {
    /// Always in the prompt.
    Always,
    /// When a read or edited path matches one of `globs` (relative to `base`).
    Globs { globs: Vec<String>, base: String },
    /// An instruction file in a directory below cwd: when a path inside it is read or edited.
    Subdirectory,
    /// Cursor "agent requested": offered by its description.
    AgentRequested,
    /// Cursor "manual": only when a person names it.
    Manual,
}

/// One rule, with where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// Where the file was found.
    pub path: String,
    /// The file it really is (symlinks resolved); rules are unique by this.
    pub canonical: String,
    pub source: RuleSource,
    /// The directory the rule speaks for (its project directory; the home directory for home rules).
    pub dir: String,
    pub home: bool,
    pub activation: Activation,
    /// The text to put in the prompt: frontmatter stripped, framing neutralised, cut if over budget.
    pub text: String,
    /// Size of the file in bytes.
    pub bytes: u64,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// For `@path` imports: the file that imported this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum RuleSource {
    AgentsOverride,
    AgentsMd,
    ClaudeMd,
    ClaudeLocal,
    ClaudeRules,
    GrokRules,
    CursorRules,
    Cursorrules,
    Import,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// The name the model calls it by (`plugin:name` for a plugin skill whose bare name is taken).
    pub name: String,
    pub description: String,
    /// The SKILL.md file (`bundled:<name>` for bundled skills).
    pub path: String,
    pub source: SkillSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// Not offered to the model (`disable-model-invocation: true`); a person can still invoke it.
    #[serde(default)]
    pub user_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum SkillSource {
    Cwd,
    Intermediate,
    Repo,
    User,
    Config,
    Bundled,
    Plugin,
}

/// What the prompt lists, under the listing budget.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct SkillListing {
    pub entries: Vec<ListingEntry>,
    /// Skills left out because the budget was spent (highest priority are listed first).
    pub omitted: Vec<String>,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct ListingEntry {
    pub name: String,
    pub description: String,
    pub location: String,
}

/// What discovery found.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    pub cwd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
    /// The repository root, when cwd is inside one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo_root: Option<String>,
    /// Rules loaded up front, in prompt order (home first, then root → cwd; deeper wins).
    pub rules: Vec<Rule>,
    /// Rules that attach when a matching path is read or edited (see `rulesForPath`).
    pub conditional: Vec<Rule>,
    /// Rules the model may ask for by description, or a person by name (Cursor's agent-requested
    /// and manual rules): listed, not loaded.
    pub requestable: Vec<Rule>,
    pub skills: Vec<Skill>,
    pub skill_listing: SkillListing,
    pub diagnostics: Vec<Diagnostic>,
    /// Host calls this workspace has made so far (all jobs), when the environment was produced.
    pub stats: WorkspaceStats,
}

/// Host calls made so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceStats {
    pub calls: HostCalls,
    pub bytes_read: u64,
    pub rounds: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct HostCalls {
    pub read_dir: u64,
    pub read_file: u64,
}

#[cfg(test)]
mod tests {
    /// An activation reads as serde's internally tagged reader read it (the same cases were run
    /// against that reader): other keys ignored, errors in its words.
    #[test]
    fn an_activation_reads_as_serde_s_internally_tagged_reader() {
        use super::Activation;
        use serde::Deserialize;
        use serde_json::json;
        let read = |v: serde_json::Value| Activation::deserialize(v).map_err(|e| e.to_string());
        assert_eq!(read(json!({"kind": "always", "globs": 1})), Ok(Activation::Always));
        assert_eq!(read(json!({"kind": "agent_requested"})), Ok(Activation::AgentRequested));
        assert_eq!(read(json!({"base": "/p", "globs": ["*.ts"], "kind": "globs", "extra": 1})), Ok(Activation::Globs { globs: vec!["*.ts".into()], base: "/p".into() }));
        assert_eq!(read(json!({"kind": "globs", "globs": []})), Err("missing field `base`".into()));
        assert_eq!(read(json!({"kind": "sometimes"})), Err("unknown variant `sometimes`, expected one of `always`, `globs`, `subdirectory`, `agent_requested`, `manual`".into()));
        assert_eq!(read(json!({"globs": []})), Err("missing field `kind`".into()));
        assert_eq!(read(json!("always")), Err("invalid type: string \"always\", expected internally tagged enum Activation".into()));
    }
}
