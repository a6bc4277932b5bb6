//! The summarising request's transcript and its ladder, for when the last request itself does
//! not fit the window: the history before the cut as text in one user message — verbatim, then
//! fitted (old tool results trimmed, oldest first), then lossy (oldest messages left out, the
//! first request always kept).

use crate::conversation::{Item, Part, SyntheticReason};
use crate::prompt::{self, Templates};
use crate::tokens::{text_tokens, Family};
use crate::view::prune::soft_trim;

use super::cut::is_regenerated;
use super::{Ladder, SUMMARY_SYSTEM};

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
                    // The summary covers what was done and said, not the harness's plumbing.
                    Some(SyntheticReason::Compaction | SyntheticReason::Prefix | SyntheticReason::AutoContinue | SyntheticReason::AutoRecovery) => continue,
                };
                Entry { label: label.into(), text: parts_text(&m.content), result: false, pinned: first }
            }
            Item::Assistant(a) => Entry { label: "assistant".into(), text: a.text.to_string(), result: false, pinned: false },
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
            // A server tool's call or result, as the provider sent it: trimmed like a result.
            Item::Native(n) => Entry {
                label: format!("server tool {}", n.value.get("type").and_then(|t| t.as_str()).unwrap_or("block")),
                text: serde_json::Value::Object(n.value.clone()).to_string(),
                result: true,
                pinned: false,
            },
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

/// What the summary request says besides the transcript: what stays verbatim after the summary,
/// and what to say of a turn the cut splits.
#[derive(Debug, Clone, Copy, Default)]
pub struct Notes<'a> {
    pub kept: &'a str,
    pub split: &'a str,
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
    notes: Notes<'_>,
) -> Result<SummaryInput, prompt::TemplateError> {
    let previous = previous.unwrap_or("");
    let mut entries = entries(items);
    let render = |entries: &[Entry], omitted: usize| -> Result<(String, u64), prompt::TemplateError> {
        let note = if omitted == 0 {
            String::new()
        } else {
            format!("[{omitted} earlier messages are left out for space; the earlier summary and the first request stand for them.]")
        };
        let transcript = transcript(entries);
        let slots = prompt::CompactionSlots { previous, omitted: &note, transcript: &transcript, kept: notes.kept, split: notes.split, in_place: "" };
        let prompt = prompt::render_compaction(templates, &slots)?;
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
