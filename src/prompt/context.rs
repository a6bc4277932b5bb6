//! `PromptContext`: every input the prompt heads are rendered from, as one serializable value.
//!
//! Nothing about the prompt is assembled by string concatenation elsewhere: a host fills this
//! value (or lets discovery fill the rules and skills), the session stores it, and
//! [`super::render_heads`] is a pure function of it. Inspecting it tells exactly why a request
//! said what it said.

use contextview_derive::ReadValue;
use serde::Serialize;

use super::budget::HeadBudget;
use crate::workspace::{Environment, Rule, SkillListing};

/// Who the prompt is for (chapter 8.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// The agent a person talks to: the whole tool set, goal and workflow hints.
    #[default]
    Primary,
    /// An agent another agent started for one task: a task-scoped base prompt, no tools that
    /// delegate further, a report within a token budget, a smaller output budget.
    Subagent,
}

/// An MCP server the agent is connected to, as the host knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    pub name: String,
    /// `connected`, `failed`, `pending`, … (shown as given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default)]
    pub tools: Vec<String>,
    /// The server's own instructions for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Built-in templates replaced by the host's own (same slots; see [`super::TEMPLATE_SLOTS`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Templates {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
    /// The instructions of the summarisation request (`prepareCompaction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<String>,
}

/// Every render input of the two heads. Text the host supplies from the workspace (git status,
/// memory, MCP instructions, rule and skill text) is data: it is neutralised before it is framed.
#[derive(Debug, Clone, PartialEq, Serialize, ReadValue)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptContext {
    #[serde(default)]
    pub audience: Audience,
    /// The agent's name as the prompt states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Role or persona text added to the base prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// A goal or workflow hint (primary audience).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// The task a subagent was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The user's local date (the core has no clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// `git status` as the host ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_status: Option<String>,
    /// Rules loaded up front (discovery's `environment.rules`).
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// The skills listing (discovery's `environment.skillListing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<SkillListing>,
    #[serde(default)]
    pub mcp: Vec<McpServer>,
    /// What the agent remembers across sessions (primary audience).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The model the heads are rendered for (the session sets it from its model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Names of the tools the agent has; a subagent gets them without [`Self::delegation_tools`].
    #[serde(default)]
    pub tools: Vec<String>,
    /// Tools that start other agents; never given to a subagent. Defaults to the usual names.
    #[serde(default = "default_delegation_tools")]
    pub delegation_tools: Vec<String>,
    /// A subagent's budget for its final report, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_tokens: Option<u32>,
    /// A subagent's output budget per response, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_max_tokens: Option<u32>,
    #[serde(default)]
    pub templates: Templates,
    /// The first-user prefix's token budget, shared by its sections by priority (without one,
    /// a quarter of the model's window with the default priorities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_budget: Option<HeadBudget>,
}

fn default_delegation_tools() -> Vec<String> {
    ["Task", "task", "Agent", "agent", "spawn_agent", "subagent"].into_iter().map(str::to_owned).collect()
}

/// A subagent's report budget when none is given.
pub const DEFAULT_REPORT_TOKENS: u32 = 1_500;
/// A subagent's output budget per response when none is given.
pub const DEFAULT_SUBAGENT_MAX_TOKENS: u32 = 8_192;

impl Default for PromptContext {
    fn default() -> Self {
        PromptContext::new(Audience::Primary)
    }
}

impl PromptContext {
    /// A context for `audience` with nothing else set.
    pub fn new(audience: Audience) -> PromptContext {
        PromptContext {
            audience,
            label: None,
            role: None,
            goal: None,
            task: None,
            os: None,
            shell: None,
            cwd: None,
            date: None,
            git_status: None,
            rules: Vec::new(),
            skills: None,
            mcp: Vec::new(),
            memory: None,
            model: None,
            tools: Vec::new(),
            delegation_tools: default_delegation_tools(),
            report_tokens: None,
            subagent_max_tokens: None,
            templates: Templates::default(),
            head_budget: None,
        }
    }

    /// Takes cwd, the rules loaded up front and the skills listing from what discovery found.
    pub fn with_environment(mut self, env: &Environment) -> PromptContext {
        self.cwd = Some(env.cwd.clone());
        self.rules = env.rules.clone();
        self.skills = Some(env.skill_listing.clone());
        self
    }

    /// The tools this audience may call, in the host's order.
    pub fn allowed_tools(&self) -> Vec<&str> {
        self.tools
            .iter()
            .map(String::as_str)
            .filter(|name| match self.audience {
                Audience::Primary => true,
                Audience::Subagent => !self.delegation_tools.iter().any(|d| d == name),
            })
            .collect()
    }

    /// The output budget per response this audience asks for (`None`: the build's own).
    pub fn max_tokens(&self) -> Option<u32> {
        match self.audience {
            Audience::Primary => None,
            Audience::Subagent => Some(self.subagent_max_tokens.unwrap_or(DEFAULT_SUBAGENT_MAX_TOKENS)),
        }
    }
}
