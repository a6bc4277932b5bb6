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

pub mod changes;
mod context;
pub mod template;

pub use context::{Audience, McpServer, PromptContext, Templates, DEFAULT_REPORT_TOKENS, DEFAULT_SUBAGENT_MAX_TOKENS};
pub use template::TemplateError;

use serde::{Deserialize, Serialize};

use crate::framing::{neutralize, wrap};

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
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Heads {
    pub system: String,
    pub first_user_prefix: String,
}

/// Renders both heads; a host template that names an unknown slot or is malformed is refused.
pub fn render_heads(ctx: &PromptContext) -> Result<Heads, TemplateError> {
    Ok(Heads { system: render_system(ctx)?, first_user_prefix: render_prefix(ctx) })
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
/// each present only when the context has it. Empty when the context has nothing to say.
pub fn render_prefix(ctx: &PromptContext) -> String {
    let mut blocks: Vec<String> = Vec::new();
    let info: Vec<String> = [("OS", &ctx.os), ("Shell", &ctx.shell), ("Workspace", &ctx.cwd), ("Date", &ctx.date)]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| format!("{k}: {}", v.trim())))
        .collect();
    if !info.is_empty() {
        blocks.push(wrap("user_info", &info.join("\n")));
    }
    if let Some(status) = ctx.git_status.as_deref() {
        let status = status.trim();
        let status = if status.is_empty() { "(clean)" } else { status };
        blocks.push(wrap("git_status", status));
    }
    if !ctx.rules.is_empty() {
        let mut text = String::from("<rules>");
        for rule in &ctx.rules {
            text.push_str(&format!("\n<rule path=\"{}\">\n{}\n</rule>", attr(&rule.path), neutralize(rule.text.trim_end())));
        }
        text.push_str("\n</rules>");
        blocks.push(text);
    }
    if let Some(listing) = ctx.skills.as_ref().filter(|l| !l.entries.is_empty()) {
        let mut text = String::from("<available_skills>");
        for entry in &listing.entries {
            text.push_str(&format!(
                "\n<skill name=\"{}\" location=\"{}\">{}</skill>",
                attr(&entry.name),
                attr(&entry.location),
                neutralize(entry.description.trim())
            ));
        }
        if !listing.omitted.is_empty() {
            text.push_str(&format!("\n({} more skills not listed for space)", listing.omitted.len()));
        }
        text.push_str("\n</available_skills>");
        blocks.push(text);
    }
    if !ctx.mcp.is_empty() {
        let mut text = String::from("<mcp_servers>");
        for server in &ctx.mcp {
            let status = server.status.as_deref().map(|s| format!(" status=\"{}\"", attr(s))).unwrap_or_default();
            let mut body = String::new();
            if !server.tools.is_empty() {
                body.push_str(&format!("tools: {}", neutralize(&server.tools.join(", "))));
            }
            if let Some(instructions) = server.instructions.as_deref().filter(|i| !i.trim().is_empty()) {
                if !body.is_empty() {
                    body.push('\n');
                }
                body.push_str(&neutralize(instructions.trim()));
            }
            text.push_str(&format!("\n<mcp_server name=\"{}\"{status}>{body}</mcp_server>", attr(&server.name)));
        }
        text.push_str("\n</mcp_servers>");
        blocks.push(text);
    }
    // Memory is the user's own, across sessions: a subagent works on one task without it.
    if let (Audience::Primary, Some(memory)) = (ctx.audience, ctx.memory.as_deref().filter(|m| !m.trim().is_empty())) {
        blocks.push(wrap("memory", memory.trim()));
    }
    blocks.join("\n\n")
}

/// Escapes a value placed inside a double-quoted attribute.
fn attr(value: &str) -> String {
    value.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}
