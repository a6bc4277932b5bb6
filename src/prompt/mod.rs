//! The two prompt heads (chapter 8.2, 8.3): the **system prompt** (long-lived behaviour, tool
//! rules, role) and the **first-user prefix** (the session's environment: user and platform,
//! workspace, git status, date, project rules, the skills listing, MCP servers).
//!
//! Both are a pure function of a [`PromptContext`]. They are kept apart because they live on
//! different clocks (chapter 8.13): the system prompt is stable for the process and sits in the
//! provider's system slot, where caches and priority work best; the prefix is stable for the
//! session, opens the conversation, and is rendered afresh after a compaction so a long session
//! never runs on a stale environment. Whatever changes within a session (a new git status, a rule
//! that attaches on read) reaches the model as a reminder instead, so the heads stay byte-stable.
//!
//! Built-in templates are embedded text files (`templates/`) with a tiny slot language
//! ([`template`]); a host may replace any of them through [`Templates`].

pub mod budget;
pub mod changes;
mod context;
mod prefix;
pub mod template;

pub use context::{Audience, McpServer, PromptContext, Templates, DEFAULT_REPORT_TOKENS, DEFAULT_SUBAGENT_MAX_TOKENS};
pub use budget::{HeadAllocation, HeadBudget, HeadCut, Section, SectionAllocation};
pub use template::TemplateError;

use serde::Serialize;

use crate::framing::neutralize;

/// The built-in base prompt of the primary audience.
pub const PRIMARY_TEMPLATE: &str = include_str!("templates/system-primary.md");
/// The built-in base prompt of the subagent audience.
pub const SUBAGENT_TEMPLATE: &str = include_str!("templates/system-subagent.md");
/// The built-in instructions of the summarisation request.
pub const COMPACTION_TEMPLATE: &str = include_str!("templates/compaction.md");

/// The slots each template kind offers, by template name.
pub const TEMPLATE_SLOTS: [(&str, &[&str]); 3] = [
    ("primary", &["label", "role", "tools", "goal", "model"]),
    ("subagent", &["label", "role", "tools", "task", "budget", "model"]),
    ("compaction", &["previous", "omitted", "transcript", "kept", "split", "in_place"]),
];

fn slots(name: &str) -> &'static [&'static str] {
    TEMPLATE_SLOTS.iter().find(|(n, _)| *n == name).map_or(&[], |(_, s)| s)
}

/// The agent's name when the context gives none.
pub const DEFAULT_LABEL: &str = "the assistant";

/// The rendered heads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Heads {
    pub system: String,
    pub first_user_prefix: String,
    /// How the head budget was shared among the prefix's sections, and what it cut.
    pub allocation: HeadAllocation,
}

/// Renders both heads; a host template that names an unknown slot or is malformed is refused.
pub fn render_heads(ctx: &PromptContext) -> Result<Heads, TemplateError> {
    let system = render_system(ctx)?;
    let (first_user_prefix, allocation) = prefix::render(ctx);
    Ok(Heads { system, first_user_prefix, allocation })
}

/// The system prompt for the context's audience.
pub fn render_system(ctx: &PromptContext) -> Result<String, TemplateError> {
    let label = ctx.label.as_deref().unwrap_or(DEFAULT_LABEL);
    let role = ctx.role.as_deref().unwrap_or("");
    let tools = ctx.allowed_tools().join(", ");
    let model = ctx.model.as_deref().unwrap_or("");
    match ctx.audience {
        Audience::Primary => {
            let source = ctx.templates.primary.as_deref().unwrap_or(PRIMARY_TEMPLATE);
            let goal = ctx.goal.as_deref().unwrap_or("");
            template::render(
                "primary",
                source,
                slots("primary"),
                &[("label", label), ("role", role), ("tools", &tools), ("goal", goal), ("model", model)],
            )
        }
        Audience::Subagent => {
            let source = ctx.templates.subagent.as_deref().unwrap_or(SUBAGENT_TEMPLATE);
            let budget = ctx.report_tokens.unwrap_or(DEFAULT_REPORT_TOKENS).to_string();
            let task = ctx.task.as_deref().unwrap_or("");
            template::render(
                "subagent",
                source,
                slots("subagent"),
                &[("label", label), ("role", role), ("tools", &tools), ("task", task), ("budget", &budget), ("model", model)],
            )
        }
    }
}

/// Checks the host's templates without rendering (what `render_heads` would refuse).
pub fn check_templates(templates: &Templates) -> Result<(), TemplateError> {
    for (name, source) in [("primary", &templates.primary), ("subagent", &templates.subagent), ("compaction", &templates.compaction)] {
        if let Some(source) = source {
            template::check(name, source, slots(name))?;
        }
    }
    Ok(())
}

/// Renders the summarisation instructions around a transcript.
pub fn render_compaction(templates: &Templates, slots_in: &CompactionSlots) -> Result<String, TemplateError> {
    let source = templates.compaction.as_deref().unwrap_or(COMPACTION_TEMPLATE);
    template::render(
        "compaction",
        source,
        slots("compaction"),
        &[
            ("previous", &neutralize(slots_in.previous)),
            ("omitted", slots_in.omitted),
            ("transcript", slots_in.transcript),
            ("kept", slots_in.kept),
            ("split", slots_in.split),
            ("in_place", slots_in.in_place),
        ],
    )
}

/// Whether a compaction template can ask for a summary of the conversation above it (the
/// summarising request that extends the last request): it has the `in_place` section.
pub fn compaction_in_place(templates: &Templates) -> bool {
    templates.compaction.as_deref().unwrap_or(COMPACTION_TEMPLATE).contains("{{#in_place}}")
}

/// The values of the compaction template's slots (absent ones are empty: their sections hide).
#[derive(Debug, Clone, Copy, Default)]
pub struct CompactionSlots<'a> {
    /// The previous summary, to merge (transcript requests; in place, it is in the conversation).
    pub previous: &'a str,
    /// Why some messages are not in the transcript.
    pub omitted: &'a str,
    /// The history to summarise, as text (empty when the conversation above is the history).
    pub transcript: &'a str,
    /// What stays verbatim after the summary.
    pub kept: &'a str,
    /// The cut falls inside the latest request's work: what to say of its beginning.
    pub split: &'a str,
    /// The summary is asked for after the conversation itself: how to answer.
    pub in_place: &'a str,
}

/// The first-user prefix: one framed block per kind of environment fact, in a fixed order,
/// each present only when the context has it, cut to the head budget (`prefix.rs`). Empty when
/// the context has nothing to say.
pub fn render_prefix(ctx: &PromptContext) -> String {
    prefix::render(ctx).0
}

/// The first-user prefix and how the head budget was shared among its sections.
pub fn render_prefix_allocated(ctx: &PromptContext) -> (String, HeadAllocation) {
    prefix::render(ctx)
}
