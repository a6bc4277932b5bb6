//! What a Cline, Roo Code or Kilo Code model saw, by the agent's own rules for what it sends
//! (Roo Code's `getEffectiveApiHistory` and `getMessagesSinceLastSummary`, which Kilo Code
//! shares): a message a summary or a sliding-window marker in the file tags as hidden is not
//! sent; from the last summary on is; a summary written as an assistant message goes after the
//! task's first message. The summary and the marker are the agent's, not anyone's prompt or
//! answer. Cline hides by a range its chat (`ui_messages.json`) keeps: without it, its whole
//! history counts; with it, what follows the range (the first exchange goes as a summary).
//! Each message's position in the array is its line.

use std::collections::HashSet;

use serde_json::Value;

use super::SourceView;
use crate::format::Format;

pub fn source_view(format: Format, text: &str, hidden: Option<(usize, usize)>) -> SourceView {
    let mut view = SourceView::default();
    let Ok(Value::Array(messages)) = serde_json::from_str::<Value>(text) else { return view };
    let flag = |m: &Value, k: &str| m.get(k).and_then(Value::as_bool) == Some(true);
    let tag = |m: &'_ Value, k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut sent: Vec<(usize, &Value)> = messages.iter().enumerate().map(|(i, m)| (i + 1, m)).collect();
    if format != Format::Cline {
        let summaries: HashSet<String> = messages.iter().filter(|m| flag(m, "isSummary")).filter_map(|m| tag(m, "condenseId")).collect();
        let markers: HashSet<String> = messages.iter().filter(|m| flag(m, "isTruncationMarker")).filter_map(|m| tag(m, "truncationId")).collect();
        sent.retain(|(_, m)| {
            !tag(m, "condenseParent").is_some_and(|c| summaries.contains(&c)) && !tag(m, "truncationParent").is_some_and(|t| markers.contains(&t))
        });
        if let Some(last) = sent.iter().rposition(|(_, m)| flag(m, "isSummary")) {
            let assistant = sent[last].1.get("role").and_then(Value::as_str) == Some("assistant");
            sent.drain(..last);
            if assistant {
                if let Some(first) = messages.first() {
                    sent.insert(0, (1, first));
                }
            }
        }
    }
    // Cline's truncation: the first exchange (carried as the truncation's summary, no one's
    // prompt or answer here), then what came after the range (without results of calls the range
    // took away).
    let mut orphans_at = None;
    if let Some((_, end)) = hidden.filter(|_| format == Format::Cline) {
        sent.retain(|(line, _)| *line > end + 1);
        orphans_at = Some(end + 2);
    }
    for (line, message) in sent {
        let harness = flag(message, "isSummary") || flag(message, "isTruncationMarker");
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let blocks: Vec<&Value> = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().collect(),
            _ => Vec::new(),
        };
        if let Some(text) = message.get("content").and_then(Value::as_str) {
            match (role, harness) {
                ("user", false) => view.prompt(line, None, text),
                ("assistant", false) => view.assistant_text(line, None, text),
                _ => {}
            }
        }
        for block in blocks {
            let str_of = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
            match (role, block.get("type").and_then(Value::as_str).unwrap_or("")) {
                ("user", "text") if !harness => view.prompt(line, None, str_of("text")),
                ("user", "image") if !harness => view.image(line, block.pointer("/source/data").and_then(Value::as_str).unwrap_or("")),
                ("user", "tool_result") if orphans_at != Some(line) => {
                    view.result(str_of("tool_use_id"));
                    for part in block.get("content").and_then(Value::as_array).into_iter().flatten() {
                        if part.get("type").and_then(Value::as_str) == Some("image") {
                            view.image(line, part.pointer("/source/data").and_then(Value::as_str).unwrap_or(""));
                        }
                    }
                }
                ("assistant", "text") if !harness => view.assistant_text(line, None, str_of("text")),
                ("assistant", "thinking") => view.reasoning(line, &[Some(str_of("signature"))], str_of("thinking")),
                ("assistant", "redacted_thinking") => view.reasoning(line, &[Some(str_of("data"))], ""),
                ("assistant", "reasoning") if !harness => view.reasoning(line, &[Some(str_of("encrypted_content"))], str_of("text")),
                (_, "tool_use") => view.call(line, str_of("id")),
                _ => {}
            }
        }
    }
    view
}
