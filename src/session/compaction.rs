//! Compaction (chapter 8.14): the history before a cut is replaced, for the model, by a summary.
//!
//! `prepare` picks the cut — recent messages within a budget stay verbatim, starting at a turn
//! boundary so no tool call is parted from its result — and writes the request that asks a model
//! for the summary: a structured template (goal, constraints, progress, decisions, next steps,
//! files, pending side effects), merging the previous summary when there is one. When the
//! history is too big for the summarising model, the input goes down a ladder: verbatim, then
//! fitted (old tool results trimmed, oldest first), then lossy (oldest messages left out).
//!
//! `check_summary` refuses a degenerate summary. The session then writes a typed
//! `compaction_checkpoint` record (the original records stay), fresh heads and a state reminder.

use serde::{Deserialize, Serialize};

use crate::conversation::{Item, Part, SyntheticReason};
use crate::prompt::{self, Templates};
use crate::tokens::{text_tokens, Family};
use crate::update::record::UsageAnchor;
use crate::view::prune::{is_real_prompt, soft_trim};

/// The system prompt of the summarisation request.
pub const SUMMARY_SYSTEM: &str = "You write the working summary a coding agent continues from after its earlier messages are removed. \
Follow the requested structure exactly. Be specific and complete; never invent facts.";

/// Compaction settings (camelCase in JSON).
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CompactionOptions {
    /// Recent messages kept verbatim after the summary, in tokens.
    pub keep_recent_tokens: u64,
    /// The summary's own budget: the output room the summarising request leaves.
    pub summary_tokens: u64,
    /// The budget for the summarising request's input; from the window when absent (the window
    /// less the summary's room and a margin), unlimited when the window is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// A tool result longer than this (chars) is trimmed on the ladder's "fitted" step.
    pub trim_results_over: usize,
    /// Build options for the summarising request (`provider` and `model` default to the session's).
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Partial<BuildInput>"))]
    pub build: serde_json::Value,
}

impl Default for CompactionOptions {
    fn default() -> Self {
        CompactionOptions {
            keep_recent_tokens: 12_000,
            summary_tokens: 8_000,
            input_tokens: None,
            trim_results_over: 2_000,
            build: serde_json::Value::Null,
        }
    }
}

/// How much of the history reached the summarising model.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ladder {
    /// Every message as it was.
    Verbatim,
    /// Old tool results trimmed to their head and tail.
    Fitted,
    /// Old messages left out as well (the first request is always kept).
    Lossy,
}

/// The summarisation request and the cut it was prepared for.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreparedCompaction {
    /// The first record that stays verbatim.
    pub first_kept_seq: u64,
    /// The session's last record when this was prepared.
    pub based_on_seq: u64,
    pub ladder: Ladder,
    /// Messages summarised, kept verbatim, trimmed on the ladder, and left out on it.
    pub summarised: usize,
    pub kept: usize,
    pub trimmed: usize,
    pub omitted: usize,
    /// The context's size before compaction (the ledger's count).
    pub tokens_before: u64,
    /// The request's estimated input size.
    pub input_tokens: u64,
    pub system: String,
    /// The user message asking for the summary.
    pub prompt: String,
    /// The provider request to send (JSON text).
    pub body: String,
}

/// `applyCompaction`'s input.
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyCompaction {
    pub summary: String,
    /// The summarising response's usage (its output count is the summary's size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageAnchor>,
    /// Background work still running, for the state reminder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub background_tasks: Vec<String>,
}

/// Section headings the built-in template asks for, in order.
pub const SECTIONS: [&str; 7] = ["Goal", "Constraints", "Progress", "Decisions", "Next steps", "Files", "Pending actions"];
/// The least a summary must say besides its headings (chars, whitespace excluded).
pub const MIN_SUMMARY_CHARS: usize = 40;

/// Why a summary is refused; `None` when it is acceptable. With the host's own template only
/// the length is checked (its sections are not known).
pub fn check_summary(summary: &str, templates: &Templates) -> Option<String> {
    let headings: Vec<String> = summary
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix('#').map(|h| h.trim_start_matches('#').trim().to_ascii_lowercase()))
        .collect();
    let body_chars = summary.lines().filter(|l| !l.trim_start().starts_with('#')).flat_map(str::chars).filter(|c| !c.is_whitespace()).count();
    if body_chars < MIN_SUMMARY_CHARS {
        return Some(format!("the summary says too little ({body_chars} characters besides headings; at least {MIN_SUMMARY_CHARS})"));
    }
    if templates.compaction.is_some() {
        return None;
    }
    let missing: Vec<&str> = SECTIONS.iter().copied().filter(|s| !headings.iter().any(|h| h.starts_with(&s.to_ascii_lowercase()))).collect();
    if !missing.is_empty() {
        return Some(format!("the summary lacks the sections {}", missing.join(", ")));
    }
    None
}

/// Where to cut: the index of the first item kept verbatim. Candidates are turn boundaries — a
/// real prompt, or the first assistant item after a user-side item — so a call and its result
/// are never parted. The earliest candidate whose tail fits the budget wins, else the latest
/// one; the prefix and earlier summaries are never kept (they are re-made).
pub fn cut(items: &[Item], keep_tokens: u64, size: impl Fn(usize) -> u64) -> usize {
    let first = items.iter().position(|i| !is_regenerated(i)).unwrap_or(items.len());
    let mut tail = 0u64;
    let mut best = items.len();
    // The latest boundary is kept even over the budget: cutting after it could part a call
    // that has no result yet from the result still to come.
    let mut latest = None;
    for i in (first..items.len()).rev() {
        tail = tail.saturating_add(size(i));
        let boundary = match &items[i] {
            item @ Item::User(_) => is_real_prompt(item),
            Item::Assistant(_) | Item::Reasoning(_) | Item::ToolCall(_) => i == 0 || !items[i - 1].is_assistant_side(),
            Item::ToolResult(_) => false,
        };
        if boundary {
            latest = latest.or(Some(i));
            if tail <= keep_tokens {
                best = i;
            }
        }
        if tail > keep_tokens && latest.is_some() {
            break;
        }
    }
    if best == items.len() {
        latest.unwrap_or(items.len())
    } else {
        best
    }
}

/// Items a compaction re-makes rather than summarises: the first-user prefix and summaries.
pub fn is_regenerated(item: &Item) -> bool {
    matches!(item, Item::User(m) if matches!(m.synthetic, Some(SyntheticReason::Prefix | SyntheticReason::Compaction)))
}

/// One transcript entry: a label and a text.
struct Entry {
    label: String,
    text: String,
    /// A tool result (trimmed first on the ladder).
    result: bool,
    /// The first real request (kept even on the lossy step).
    pinned: bool,
}

fn parts_text(parts: &[Part]) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() {
            out.push('\n');
        }
        match part {
            Part::Text { text, .. } => out.push_str(text),
            Part::Image(_) => out.push_str("[image]"),
        }
    }
    out
}

fn entries(items: &[Item]) -> Vec<Entry> {
    let mut names = std::collections::HashMap::new();
    let mut out = Vec::new();
    let mut pinned = false;
    for item in items.iter().filter(|i| !is_regenerated(i)) {
        let entry = match item {
            Item::User(m) => {
                let first = m.synthetic.is_none() && !pinned;
                pinned |= first;
                let label = match m.synthetic {
                    None => "user",
                    Some(SyntheticReason::SystemReminder) => "harness reminder",
                    Some(SyntheticReason::Interjection) => "user interjection",
                    Some(SyntheticReason::SubagentCompletion) => "subagent report",
                    Some(SyntheticReason::Compaction | SyntheticReason::Prefix) => continue,
                };
                Entry { label: label.into(), text: parts_text(&m.content), result: false, pinned: first }
            }
            Item::Assistant(a) => Entry { label: "assistant".into(), text: a.text.clone(), result: false, pinned: false },
            // Reasoning is the model's scratch work: the summary is about what was done and said.
            Item::Reasoning(_) => continue,
            Item::ToolCall(c) => {
                names.insert(c.call_id.clone(), c.name.clone());
                Entry { label: format!("tool call {}", c.name), text: c.input.to_string(), result: false, pinned: false }
            }
            Item::ToolResult(r) => {
                let name = names.get(&r.call_id).cloned().unwrap_or_else(|| "tool".into());
                let label = if r.is_error { format!("tool error {name}") } else { format!("tool result {name}") };
                Entry { label, text: parts_text(&r.content), result: true, pinned: false }
            }
        };
        out.push(entry);
    }
    out
}

fn transcript(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&format!("[{}]\n{}\n\n", e.label, crate::framing::neutralize(e.text.trim_end())));
    }
    out.truncate(out.trim_end().len());
    out
}

/// The summarisation prompt for `items` (those before the cut), fitted to `budget` tokens.
pub struct SummaryInput {
    pub prompt: String,
    pub ladder: Ladder,
    pub trimmed: usize,
    pub omitted: usize,
    pub tokens: u64,
}

pub fn summary_input(
    items: &[Item],
    previous: Option<&str>,
    templates: &Templates,
    budget: Option<u64>,
    trim_over: usize,
    family: Family,
) -> Result<SummaryInput, prompt::TemplateError> {
    let previous = previous.unwrap_or("");
    let mut entries = entries(items);
    let render = |entries: &[Entry], omitted: usize| -> Result<(String, u64), prompt::TemplateError> {
        let note = if omitted == 0 {
            String::new()
        } else {
            format!("[{omitted} earlier messages are left out for space; the earlier summary and the first request stand for them.]")
        };
        let prompt = prompt::render_compaction(templates, previous, &note, &transcript(entries))?;
        let tokens = (text_tokens(&prompt, family) + text_tokens(SUMMARY_SYSTEM, family)).round() as u64;
        Ok((prompt, tokens))
    };
    let (prompt, tokens) = render(&entries, 0)?;
    let Some(budget) = budget.filter(|b| tokens > *b) else {
        return Ok(SummaryInput { prompt, ladder: Ladder::Verbatim, trimmed: 0, omitted: 0, tokens });
    };
    // Fitted: trim tool results, oldest first, until the prompt fits.
    let mut trimmed = 0;
    let mut over = tokens.saturating_sub(budget) as f64;
    for e in entries.iter_mut().filter(|e| e.result) {
        if over <= 0.0 {
            break;
        }
        if e.text.chars().count() > trim_over {
            let before = text_tokens(&e.text, family);
            let keep = trim_over / 2 - trim_over / 5;
            e.text = soft_trim(&e.text, keep, keep);
            over -= before - text_tokens(&e.text, family);
            trimmed += 1;
        }
    }
    let (prompt, tokens) = render(&entries, 0)?;
    if tokens <= budget {
        return Ok(SummaryInput { prompt, ladder: Ladder::Fitted, trimmed, omitted: 0, tokens });
    }
    // Lossy: leave out the oldest messages (never the first request) until it fits.
    let mut over = tokens.saturating_sub(budget) as f64;
    let mut omitted = 0;
    let mut kept = Vec::with_capacity(entries.len());
    for e in entries {
        if over > 0.0 && !e.pinned {
            over -= text_tokens(&e.text, family) + text_tokens(&e.label, family) + 2.0;
            omitted += 1;
        } else {
            kept.push(e);
        }
    }
    let (prompt, tokens) = render(&kept, omitted)?;
    Ok(SummaryInput { prompt, ladder: Ladder::Lossy, trimmed, omitted, tokens })
}
