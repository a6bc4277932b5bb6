//! What changed in the environment since the heads were sent, as reminders (chapter 8.13).
//!
//! The first-user prefix is session-stable: rewriting it would invalidate every cached byte
//! after it. So when the host's `PromptContext` changes mid-session — another working
//! directory, a new day, edited rules, skills or MCP servers that came or went, a new git status
//! — the heads stay as sent and the difference is told to the model as reminders before its next
//! decision. A compaction later renders the heads afresh from the current context.

use crate::workspace::Rule;
use crate::view::{Reminder, ReminderKind};

use super::PromptContext;

fn reminder(kind: ReminderKind, text: String) -> Reminder {
    Reminder { kind, text, day: None }
}

/// The reminders that bring a model told about `old` up to date with `new`.
pub fn reminders(old: &PromptContext, new: &PromptContext) -> Vec<Reminder> {
    let mut out = Vec::new();
    if let Some(cwd) = new.cwd.as_ref().filter(|c| old.cwd.as_ref() != Some(*c)) {
        out.push(reminder(ReminderKind::CwdSwitch, format!("The working directory is now {cwd}.")));
    }
    if let Some(date) = new.date.as_ref().filter(|d| old.date.as_ref() != Some(*d)) {
        out.push(Reminder { kind: ReminderKind::Date, text: format!("Today's date is {date}."), day: Some(date.clone()) });
    }
    if let Some(status) = new.git_status.as_ref().filter(|s| old.git_status.as_ref() != Some(*s)) {
        let status = status.trim();
        out.push(reminder(ReminderKind::GitStatus, format!("git status now:\n{}", if status.is_empty() { "(clean)" } else { status })));
    }
    if let Some(text) = rules_changed(&old.rules, &new.rules) {
        out.push(reminder(ReminderKind::RulesAttached, text));
    }
    let names = |c: &PromptContext| -> Vec<(String, String)> {
        c.skills.as_ref().map(|l| l.entries.iter().map(|e| (e.name.clone(), e.description.clone())).collect()).unwrap_or_default()
    };
    let (before, after) = (names(old), names(new));
    let added: Vec<String> = after.iter().filter(|(n, _)| !before.iter().any(|(b, _)| b == n)).map(|(n, d)| format!("{n}: {d}")).collect();
    let removed: Vec<&str> = before.iter().filter(|(n, _)| !after.iter().any(|(a, _)| a == n)).map(|(n, _)| n.as_str()).collect();
    if !added.is_empty() || !removed.is_empty() {
        let mut text = String::from("The available skills changed.");
        if !added.is_empty() {
            text.push_str(&format!("\nNow available:\n{}", added.join("\n")));
        }
        if !removed.is_empty() {
            text.push_str(&format!("\nNo longer available: {}", removed.join(", ")));
        }
        out.push(reminder(ReminderKind::SkillsChanged, text));
    }
    if old.mcp != new.mcp {
        let servers: Vec<String> = new
            .mcp
            .iter()
            .map(|s| {
                let status = s.status.as_deref().map(|st| format!(" ({st})")).unwrap_or_default();
                let tools = if s.tools.is_empty() { String::new() } else { format!(": {}", s.tools.join(", ")) };
                format!("{}{status}{tools}", s.name)
            })
            .collect();
        let text = if servers.is_empty() { "No MCP servers are connected now.".to_owned() } else { format!("MCP servers now:\n{}", servers.join("\n")) };
        out.push(reminder(ReminderKind::McpState, text));
    }
    out
}

/// Rules added or edited (by path and text) and rules gone, as one reminder text.
fn rules_changed(old: &[Rule], new: &[Rule]) -> Option<String> {
    let changed: Vec<&Rule> = new.iter().filter(|r| !old.iter().any(|o| o.path == r.path && o.text == r.text)).collect();
    let gone: Vec<&str> = old.iter().filter(|o| !new.iter().any(|r| r.path == o.path)).map(|o| o.path.as_str()).collect();
    if changed.is_empty() && gone.is_empty() {
        return None;
    }
    let mut text = String::from("The project rules changed since the conversation started.");
    for rule in changed {
        text.push_str(&format!("\n\nNow in effect, from {}:\n{}", rule.path, rule.text.trim_end()));
    }
    if !gone.is_empty() {
        text.push_str(&format!("\n\nNo longer in effect: {}", gone.join(", ")));
    }
    Some(text)
}
